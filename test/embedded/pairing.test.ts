/**
 * The embedded engine's session life, driven by a scripted socket that emits the library's own event
 * shapes: pairing by QR and by code, the status machine on the library's disconnect reasons, reconnects
 * with backoff shown in the channel's health, logout, and the credentials kept (sealed) in the database.
 */
// stores: both
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { BufferJSON } from 'baileys';
import pg from 'pg';
import { eventually } from '../eventually.ts';
import { request, usingPostgres } from '../harness.ts';
import { loadCreds } from '../../src/providers/gateway/embedded/auth-state.ts';
import { DisconnectReason } from './scripted-socket.ts';
import { embeddedChannel, getChannel, keyRows, pairedChannel, sessionRow, startEmbeddedServer, waitForStatus } from './helpers.ts';

describe('embedded engine: pairing and the session status machine', () => {
  let ctx: Awaited<ReturnType<typeof startEmbeddedServer>>;
  before(async () => {
    ctx = await startEmbeddedServer();
  });
  after(() => ctx.server.close());
  const key = () => ctx.server.apiKey;

  test('pairing by QR: connect shows the library QR, a new QR replaces it, the scan connects the channel with the paired number', async () => {
    const { server, scripted } = ctx;
    const channel = await embeddedChannel(server);
    const early = await request(server, 'GET', `/v1/channels/${channel.id}/qr`, { key: key() });
    assert.equal(early.status, 409, 'no QR before connect');

    const connect = await request(server, 'POST', `/v1/channels/${channel.id}/connect`, { key: key() });
    assert.equal(connect.status, 200, connect.text);
    assert.equal(connect.body.data.channel.status, 'pairing');
    const socket = scripted.latest(channel.id)!;
    const first = connect.body.data.qr;
    assert.match(first.qr_image, /^data:image\/png;base64,/);
    assert.ok(Date.parse(first.expires_at) > Date.now());
    assert.equal((await request(server, 'GET', `/v1/channels/${channel.id}/qr`, { key: key() })).body.data.qr, first.qr);

    const second = socket.showQr();
    assert.notEqual(second, first.qr);
    await eventually(
      'the new QR to be served',
      async () => (await request(server, 'GET', `/v1/channels/${channel.id}/qr`, { key: key() })).body.data.qr === second,
    );
    // The QR carries the pairing secret: it is stored sealed.
    assert.ok(!(await sessionRow(server, channel.id))!.qrSealed!.includes(second));

    await socket.scan('4915112345678', 'Shop');
    const connected = await waitForStatus(server, channel.id, 'connected');
    assert.equal(connected.display_phone_number, '+4915112345678');
    assert.match(connected.status_reason, /paired with \+4915112345678 \(Shop\)/);
    // The restart the library asks for after pairing opens a second socket with the paired creds.
    const sockets = scripted.of(channel.id);
    assert.equal(sockets.length, 2);
    assert.equal(sockets[1]!.auth.creds.me?.id, '4915112345678:7@s.whatsapp.net');
    const row = await sessionRow(server, channel.id);
    assert.equal(row!.state, 'WORKING');
    assert.equal(row!.phone, '4915112345678');
    assert.equal(row!.owner, server.container.processId);

    // Creds and keys are in the database, sealed, and read back the same.
    const stored = await loadCreds(server.container.database.db, server.container.sealer, channel.id);
    assert.equal(JSON.stringify(stored, BufferJSON.replacer), JSON.stringify(sockets[1]!.auth.creds, BufferJSON.replacer));
    const keys = await keyRows(server, channel.id);
    assert.deepEqual(keys.map((k) => k.type).sort(), ['creds', 'pre-key']);
    for (const k of keys) assert.match(k.valueSealed, /^v1\./);

    const history = (await request(server, 'GET', `/v1/channels/${channel.id}/status`, { key: key() })).body.data.history;
    assert.deepEqual(history.map((h: { to: string }) => h.to).reverse(), ['disconnected', 'pairing', 'connected']);
    assert.equal((await request(server, 'GET', `/v1/channels/${channel.id}/qr`, { key: key() })).status, 409, 'a paired channel has no QR');
  });

  test('pairing by code: connect with phone_number answers the library code (8 characters); a bad number starts nothing', async () => {
    const { server, scripted } = ctx;
    const channel = await embeddedChannel(server);
    const bad = await request(server, 'POST', `/v1/channels/${channel.id}/connect`, { key: key(), body: { phone_number: '12' } });
    assert.equal(bad.status, 400, bad.text);
    assert.deepEqual(
      bad.body.errors.map((e: { pointer: string }) => e.pointer),
      ['/phone_number'],
    );
    assert.equal(scripted.of(channel.id).length, 0, 'a refused number opens no socket');

    const connect = await request(server, 'POST', `/v1/channels/${channel.id}/connect`, {
      key: key(),
      body: { phone_number: '+49 170 1234567' },
    });
    assert.equal(connect.status, 200, connect.text);
    const code = connect.body.data.pairing_code;
    assert.match(code.code, /^[A-Z0-9]{8}$/);
    assert.equal(code.expires_at, connect.body.data.qr.expires_at, 'the code lapses with the QR');
    const socket = scripted.latest(channel.id)!;
    assert.deepEqual(
      socket.calls.filter((c) => c.method === 'requestPairingCode').map((c) => c.args),
      [['491701234567']],
    );
    // The phone types it: the library pairs the same way as a scan.
    await socket.scan('491701234567');
    await waitForStatus(server, channel.id, 'connected');
  });

  test('a lost connection reconnects with capped exponential backoff, visible in the health; the clock decides when', async () => {
    const { server, scripted, clock } = ctx;
    const channel = await pairedChannel(ctx, '4915100000001');
    channel.socket.close(DisconnectReason.connectionLost, 'Connection Lost');
    const down = await waitForStatus(server, channel.id, 'disconnected');
    assert.equal(down.health.reconnect_attempts, 1);
    assert.equal(down.health.last_error_code, 'connection_lost');
    const next = Date.parse(/reconnect attempt 1 at (\S+)$/.exec(down.health.last_error_message)![1]!);
    const waitMs = next - clock.now().getTime();
    // Base 60 s with jitter over the upper half.
    assert.ok(waitMs > 25_000 && waitMs <= 60_000, `first wait ${waitMs} ms`);
    const row = await sessionRow(server, channel.id);
    assert.equal(row!.reconnectAttempts, 1);
    assert.equal(row!.nextReconnectAt!.getTime(), next);

    // Not before its time: passes run (the poll is 200 ms) and open nothing.
    server.container.embedded.wake();
    await eventually(
      'a few manager passes',
      async () => (await sessionRow(server, channel.id))!.leaseUntil!.getTime() > row!.leaseUntil!.getTime(),
    );
    assert.equal(scripted.of(channel.id).length, 2);

    clock.advance(waitMs + 1);
    server.container.embedded.wake();
    await eventually('a new socket', () => scripted.of(channel.id).length === 3);
    const again = await waitForStatus(server, channel.id, 'connected', 'the reconnected channel to be connected');
    assert.equal(again.health.reconnect_attempts, 0);
    assert.equal((await sessionRow(server, channel.id))!.reconnectAttempts, 0);

    // Two losses in a row: the second wait is longer (base * 2, jittered).
    scripted.options.autoOpen = false;
    scripted.latest(channel.id)!.close(DisconnectReason.timedOut, 'Timed Out');
    await eventually('attempt 1', async () => (await getChannel(server, channel.id)).health.reconnect_attempts === 1);
    clock.advance(60_001);
    server.container.embedded.wake();
    await eventually('a new socket', () => scripted.of(channel.id).length === 4);
    // It fails before it opens.
    scripted.latest(channel.id)!.close(DisconnectReason.connectionClosed, 'Connection Closed');
    scripted.options.autoOpen = true;
    const second = await eventually('attempt 2', async () => {
      const c = await getChannel(server, channel.id);
      return c.health.reconnect_attempts === 2 ? c : undefined;
    });
    const secondWait = Date.parse(/reconnect attempt 2 at (\S+)$/.exec(second.health.last_error_message)![1]!) - clock.now().getTime();
    assert.ok(secondWait > 55_000 && secondWait <= 120_000, `second wait ${secondWait} ms`);
  });

  test('logged out on the phone: disconnected, credentials dropped from the database, not reconnected', async () => {
    const { server, scripted } = ctx;
    const channel = await pairedChannel(ctx, '4915100000002');
    assert.ok((await keyRows(server, channel.id)).length > 0);
    channel.socket.close(DisconnectReason.loggedOut, 'Connection Failure');
    const down = await waitForStatus(server, channel.id, 'disconnected');
    assert.match(down.status_reason, /logged out on the phone/);
    const history = (await request(server, 'GET', `/v1/channels/${channel.id}/status`, { key: key() })).body.data.history;
    assert.equal(history[0].reason_code, 'logged_out');
    assert.deepEqual(await keyRows(server, channel.id), []);
    const row = await sessionRow(server, channel.id);
    assert.equal(row!.wanted, false);
    assert.equal(row!.owner, null);
    assert.equal(row!.disconnectCode, 401);
    assert.equal(scripted.of(channel.id).length, 2);

    // Connecting again pairs afresh: new creds, a QR.
    const connect = await request(server, 'POST', `/v1/channels/${channel.id}/connect`, { key: key() });
    assert.equal(connect.status, 200, connect.text);
    assert.ok(connect.body.data.qr.qr);
    assert.equal(scripted.latest(channel.id)!.auth.creds.me, undefined);
  });

  test('replaced by another session: disconnected and not reconnected; connect takes it back with the same creds', async () => {
    const { server, scripted } = ctx;
    const channel = await pairedChannel(ctx, '4915100000003');
    channel.socket.close(DisconnectReason.connectionReplaced, 'Stream Errored (conflict)');
    await waitForStatus(server, channel.id, 'disconnected');
    const history = (await request(server, 'GET', `/v1/channels/${channel.id}/status`, { key: key() })).body.data.history;
    assert.equal(history[0].reason_code, 'connection_replaced');
    const row = await sessionRow(server, channel.id);
    assert.equal(row!.wanted, false);
    assert.ok((await keyRows(server, channel.id)).length > 0, 'the credentials are kept');
    assert.equal(scripted.of(channel.id).length, 2);

    const connect = await request(server, 'POST', `/v1/channels/${channel.id}/connect`, { key: key() });
    assert.equal(connect.status, 200, connect.text);
    await waitForStatus(server, channel.id, 'connected');
    assert.equal(scripted.latest(channel.id)!.auth.creds.me?.id, '4915100000003:7@s.whatsapp.net');
  });

  test('a session replaced elsewhere is not opened again while its end is being written', {
    skip: !usingPostgres && 'PostgreSQL only (the test holds a row lock from a connection of its own)',
  }, async () => {
    const { server, scripted } = ctx;
    // A second session: a lookup through it runs in a pass of the session manager, so two lookups
    // prove two passes went by.
    const other = await pairedChannel(ctx, '4915100000010');
    const channel = await pairedChannel(ctx, '4915100000009');
    const blocker = new pg.Client({ connectionString: server.databaseUrl });
    await blocker.connect();
    try {
      await blocker.query('begin');
      await blocker.query('select 1 from channel_sessions where channel_id = $1 for update', [channel.id]);
      channel.socket.close(DisconnectReason.connectionReplaced, 'Stream Errored (conflict)');
      await eventually('the write of the session end to wait on the row', async () => {
        // pg_stat_activity is read once per transaction unless told to read it again.
        await blocker.query('select pg_stat_clear_snapshot()');
        const waiting = await blocker.query(
          `select 1 from pg_stat_activity where wait_event_type = 'Lock' and query ilike 'update "channel_sessions"%"state"%'`,
        );
        return (waiting.rowCount ?? 0) > 0;
      });
      for (let i = 0; i < 2; i++) {
        const found = await request(server, 'POST', `/v1/channels/${other.id}/contacts/lookup`, {
          key: key(),
          body: { phone: '+49 151 22223333' },
        });
        assert.equal(found.status, 200, found.text);
      }
      assert.equal(scripted.of(channel.id).length, 2, 'no socket opened while the end of the session was being written');
    } finally {
      await blocker.query('rollback').catch(() => undefined);
      await blocker.end();
    }
    await waitForStatus(server, channel.id, 'disconnected');
    assert.equal((await sessionRow(server, channel.id))!.wanted, false);
    assert.equal(scripted.of(channel.id).length, 2);
  });

  test('banned (403) moves the channel to error; a multi-device mismatch (411) too, and drops the credentials', async () => {
    const { server } = ctx;
    const banned = await pairedChannel(ctx, '4915100000004');
    banned.socket.close(DisconnectReason.forbidden, 'Connection Failure');
    const error = await waitForStatus(server, banned.id, 'error');
    assert.match(error.status_reason, /banned/);
    assert.equal((await sessionRow(server, banned.id))!.state, 'FAILED');

    const mismatch = await pairedChannel(ctx, '4915100000005');
    mismatch.socket.close(DisconnectReason.multideviceMismatch, 'Multi-device beta not joined');
    await waitForStatus(server, mismatch.id, 'error');
    assert.deepEqual(await keyRows(server, mismatch.id), []);
  });

  test('a stream error without a known reason (500, what the library makes of any) keeps the credentials and reconnects', async () => {
    const { server, scripted, clock } = ctx;
    const channel = await pairedChannel(ctx, '4915100000011');
    const keys = (await keyRows(server, channel.id)).length;
    channel.socket.close(DisconnectReason.badSession, 'Stream Errored (unknown)');
    const down = await waitForStatus(server, channel.id, 'disconnected');
    assert.equal(down.health.reconnect_attempts, 1);
    assert.equal(down.health.last_error_code, 'connection_lost');
    assert.equal((await keyRows(server, channel.id)).length, keys, 'the credentials are kept');
    const row = await sessionRow(server, channel.id);
    assert.equal(row!.wanted, true);
    assert.equal(row!.disconnectCode, 500);
    clock.advance(row!.nextReconnectAt!.getTime() - clock.now().getTime() + 1);
    server.container.embedded.wake();
    await eventually('a new socket', () => scripted.of(channel.id).length === 3);
    await waitForStatus(server, channel.id, 'connected', 'the channel to be connected again with the same credentials');
    assert.equal(scripted.latest(channel.id)!.auth.creds.me?.id, '4915100000011:7@s.whatsapp.net');
  });

  test('disconnect logs the holder out through a command: the library logout runs, the creds are gone', async () => {
    const { server, scripted } = ctx;
    const channel = await pairedChannel(ctx, '4915100000006');
    const out = await request(server, 'POST', `/v1/channels/${channel.id}/disconnect`, { key: key() });
    assert.equal(out.status, 200, out.text);
    assert.equal(out.body.data.status, 'disconnected');
    assert.deepEqual(
      channel.socket.calls.map((c) => c.method).filter((m) => m === 'logout'),
      ['logout'],
    );
    assert.deepEqual(await keyRows(server, channel.id), []);
    assert.equal((await sessionRow(server, channel.id))!.wanted, false);
    assert.equal(scripted.of(channel.id).length, 2);
  });

  test('a restart of the engine hands the session back and takes it up again with the creds from the database', async () => {
    const { server, scripted } = ctx;
    const channel = await pairedChannel(ctx, '4915100000007');
    const before = JSON.stringify(channel.socket.auth.creds, BufferJSON.replacer);
    await server.container.embedded.stop({ timeoutMs: 1000 });
    assert.equal(channel.socket.ended, true);
    const released = await sessionRow(server, channel.id);
    assert.equal(released!.owner, null, 'handed back at once');
    assert.equal(released!.wanted, true);
    await server.container.embedded.start();
    await eventually('a new socket', () => scripted.of(channel.id).length === 3);
    const reopened = scripted.latest(channel.id)!;
    assert.notEqual(reopened.auth, channel.socket.auth);
    assert.equal(JSON.stringify(reopened.auth.creds, BufferJSON.replacer), before, 'the same creds, read back from PostgreSQL');
    await eventually(
      'the session to be held again',
      async () => (await sessionRow(server, channel.id))!.owner === server.container.processId,
    );
    assert.equal((await getChannel(server, channel.id)).status, 'connected');
  });

  test('a lookup goes through the holder; a number not on the service is answered as such', async () => {
    const { server } = ctx;
    const channel = await pairedChannel(ctx, '4915100000008');
    const found = await request(server, 'POST', `/v1/channels/${channel.id}/contacts/lookup`, {
      key: key(),
      body: { phone: '+49 151 22223333' },
    });
    assert.equal(found.status, 200, found.text);
    assert.equal(found.body.data.exists, true);
    assert.equal(found.body.data.chatapp_id, '4915122223333');
    assert.deepEqual(
      channel.socket.calls.filter((c) => c.method === 'onWhatsApp').map((c) => c.args),
      [['4915122223333']],
    );
  });

  test('bad input: connect and qr on an official channel are refused; qr of a stopped session answers 409', async () => {
    const { server } = ctx;
    const official = (
      await request(server, 'POST', '/v1/channels', { key: key(), body: { platform: 'chatapp_official', name: 'Official' } })
    ).body.data;
    assert.equal((await request(server, 'POST', `/v1/channels/${official.id}/connect`, { key: key() })).status, 422);
    assert.equal((await request(server, 'GET', `/v1/channels/${official.id}/qr`, { key: key() })).status, 422);
    const channel = await embeddedChannel(server);
    assert.equal((await request(server, 'GET', `/v1/channels/${channel.id}/qr`, { key: key() })).status, 409);
  });
});
