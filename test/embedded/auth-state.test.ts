/**
 * The session's auth state in the database: values read back as the library wrote them (Buffers, the
 * app-state key's protobuf class), sealed at rest, one key update in one transaction, and no write at
 * all from a process that does not hold the session's lease.
 */
// stores: both
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, test } from 'node:test';
import { eq } from 'drizzle-orm';
import { proto } from 'baileys';
import { channelSessions } from '../../src/db/schema.ts';
import { LeaseLostError, loadCreds, usePostgresAuthState } from '../../src/providers/gateway/embedded/auth-state.ts';
import { assertHeld } from '../../src/providers/gateway/embedded/sessions.ts';
import { startTestServer, type TestServer } from '../harness.ts';
import { embeddedChannel, keyRows } from './helpers.ts';

let server: TestServer;
before(async () => {
  server = await startTestServer();
});
after(() => server.close());

test('keys and creds round-trip sealed; a process without the lease writes nothing', async () => {
  const db = server.container.database.db;
  const sealer = server.container.sealer;
  const channel = await embeddedChannel(server);
  await db
    .insert(channelSessions)
    .values({ channelId: channel.id, wanted: true, owner: 'holder', leaseUntil: new Date(Date.now() + 60_000), state: 'STARTING' });
  const fenceOf = (owner: string) => (tx: Parameters<typeof assertHeld>[0]) =>
    assertHeld(tx, { channelId: channel.id, owner, now: new Date() });
  const auth = await usePostgresAuthState({ db, sealer, fence: fenceOf('holder') }, channel.id);
  assert.equal(auth.state.creds.registered, false, 'new creds when none are stored');

  const session = randomBytes(40);
  const preKey = { public: randomBytes(32), private: randomBytes(32) };
  const syncKey = proto.Message.AppStateSyncKeyData.fromObject({ keyData: randomBytes(32), timestamp: 1700000000 });
  await auth.state.keys.set({
    session: { 'a.0': session },
    'pre-key': { '1': preKey, '2': preKey },
    'app-state-sync-key': { AAA: syncKey },
  });
  await auth.saveCreds();

  const again = await usePostgresAuthState({ db, sealer, fence: fenceOf('holder') }, channel.id);
  assert.deepEqual((await again.state.keys.get('session', ['a.0', 'missing']))['a.0'], session);
  const preKeys = await again.state.keys.get('pre-key', ['1', '2']);
  assert.ok(Buffer.from(preKeys['1']!.private).equals(preKey.private));
  const sync = (await again.state.keys.get('app-state-sync-key', ['AAA'])).AAA!;
  assert.ok(sync instanceof proto.Message.AppStateSyncKeyData, 'the protobuf class, as the library expects');
  assert.ok(Buffer.from(sync.keyData!).equals(Buffer.from(syncKey.keyData!)));
  assert.deepEqual(again.state.creds.noiseKey.private, auth.state.creds.noiseKey.private);
  for (const row of await keyRows(server, channel.id)) {
    assert.match(row.valueSealed, /^v1\./);
    assert.ok(!row.valueSealed.includes(session.toString('base64')));
  }

  // A null deletes, in the same transaction as the writes beside it.
  await auth.state.keys.set({ 'pre-key': { '2': null }, session: { 'b.0': randomBytes(8) } });
  assert.deepEqual(Object.keys(await again.state.keys.get('pre-key', ['1', '2'])), ['1']);

  // Another process holds the session now: every write of the old holder fails and changes nothing.
  await db.update(channelSessions).set({ owner: 'new-holder' }).where(eq(channelSessions.channelId, channel.id));
  const before = (await keyRows(server, channel.id)).map((r) => `${r.type}/${r.keyId}/${r.valueSealed}`).sort();
  await assert.rejects(
    auth.state.keys.set({ session: { 'c.0': randomBytes(8) }, 'pre-key': { '1': null } }) as Promise<void>,
    LeaseLostError,
  );
  auth.state.creds.registered = true;
  await assert.rejects(auth.saveCreds(), LeaseLostError);
  await assert.rejects(auth.clear(), LeaseLostError);
  assert.deepEqual((await keyRows(server, channel.id)).map((r) => `${r.type}/${r.keyId}/${r.valueSealed}`).sort(), before);
  assert.equal((await loadCreds(db, sealer, channel.id))!.registered, false);
});
