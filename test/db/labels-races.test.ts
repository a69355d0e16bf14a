/**
 * Labels made at once on one channel get ids of their own (the next id is reserved under a lock per
 * channel), and each is announced once, though the gateway reports every one back (its echo changes
 * nothing). Both stores: the lock and the concurrent upserts are the server's.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { queryRows } from '../../src/db/client.ts';
import { eventually } from '../eventually.ts';
import { request, startTestServer, type TestServer } from '../harness.ts';
import { eventsOf, pairedGatewayChannel } from '../messages-helpers.ts';

let server: TestServer;
before(async () => {
  server = await startTestServer({ worker: true, env: { SANDBOX_STATUS_DELAY_MS: '0' } });
});
after(() => server.close());

test('labels made at once get distinct ids, each one label.updated; the same name twice at once is made once', async () => {
  const channel = await pairedGatewayChannel(server, 'Label races');
  const create = (name: string) => request(server, 'POST', `/v1/channels/${channel.id}/labels`, { key: server.apiKey, body: { name } });
  const made = await Promise.all(['A', 'B', 'C', 'D', 'E'].map(create));
  for (const res of made) assert.equal(res.status, 201, res.text);
  assert.deepEqual(made.map((r) => r.body.data.id).sort(), ['1', '2', '3', '4', '5']);

  const twice = await Promise.all([create('Same'), create('same')]);
  assert.deepEqual(twice.map((r) => r.status).sort(), [201, 400]);

  // Whichever of the two came first is the one made.
  const winner = twice.find((r) => r.status === 201)!.body.data.name as string;
  const listed = (await request(server, 'GET', `/v1/channels/${channel.id}/labels`, { key: server.apiKey })).body.data;
  assert.deepEqual(
    listed.map((l: { name: string }) => l.name),
    ['A', 'B', 'C', 'D', 'E', winner],
  );
  // The gateway's label.edit callbacks (one per label) are applied and change nothing.
  await eventually('the callbacks applied', async () => {
    const [row] = await queryRows<{ n: number }>(
      server.container.database.db,
      sql`select count(*)::int as n from pgboss.job where name in ('sandbox.callback', 'provider.inbound') and state < 'completed'`,
    );
    return row!.n === 0 ? true : undefined;
  });
  const events = (await eventsOf(server, 'label.updated')).filter((e) => e.payload.channel_id === channel.id);
  assert.equal(events.length, 6);
});
