/**
 * Many messages at once through a paired sandbox gateway channel with the worker running: every one
 * reaches `read` with one history row per status (one `sent`, though both the send's answer and the
 * provider's `sent` callback report it) and each event announced once, however the sandbox batched
 * its status callbacks and the dispatcher overlapped the sends.
 */
// stores: both
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { queryRows } from '../../src/db/client.ts';
import { request, startTestServer, type TestServer } from '../harness.ts';
import { eventually } from '../eventually.ts';
import { pairedGatewayChannel, send } from '../messages-helpers.ts';

let server: TestServer;
let channel: { id: string };
before(async () => {
  server = await startTestServer({ worker: true, env: { SANDBOX_STATUS_DELAY_MS: '0' } });
  channel = await pairedGatewayChannel(server);
  // Room for the burst: the gateway's default pace is 5 a second.
  const paced = await request(server, 'PATCH', `/v1/channels/${channel.id}`, {
    key: server.apiKey,
    body: { settings: { throughput_per_second: 200 } },
  });
  assert.equal(paced.status, 200, paced.text);
});
after(() => server.close());

test('40 messages sent together each reach read with one row per status and each event once', async () => {
  const ids = await Promise.all(
    Array.from({ length: 40 }, async (_, i) => {
      const res = await send(server, {
        channel_id: channel.id,
        to: `4915112${String(40000 + i)}5`,
        type: 'text',
        content: { body: `together ${i}` },
      });
      assert.equal(res.status, 201, res.text);
      return res.body.data.id as string;
    }),
  );
  const db = server.container.database.db;
  const list = sql.join(
    ids.map((id) => sql`${id}::uuid`),
    sql`, `,
  );
  await eventually(
    'every message read',
    async () => {
      const [row] = await queryRows<{ n: number }>(
        db,
        sql`select count(*)::int as n from messages where id in (${list}) and status = 'read'`,
      );
      return row!.n === ids.length ? true : undefined;
    },
    60_000,
  );
  // The provider's callbacks all applied (a late `sent` would otherwise still be on its way).
  await eventually('the provider callbacks applied', async () => {
    const [row] = await queryRows<{ n: number }>(db, sql`select count(*)::int as n from provider_events where processed_at is null`);
    const [jobs] = await queryRows<{ n: number }>(
      db,
      sql`select count(*)::int as n from pgboss.job where name in ('sandbox.callback', 'provider.inbound') and state in ('created', 'retry', 'active')`,
    );
    return row!.n === 0 && jobs!.n === 0 ? true : undefined;
  });

  const history = await queryRows<{ message_id: string; statuses: string[] }>(
    db,
    sql`select message_id::text, array_agg(status order by occurred_at, created_at) as statuses from message_status_log where message_id in (${list}) group by message_id`,
  );
  assert.equal(history.length, ids.length);
  for (const h of history) assert.deepEqual([...h.statuses].sort(), ['delivered', 'queued', 'read', 'sent'], `history of ${h.message_id}`);

  const events = await queryRows<{ type: string; status: string | null; n: number }>(
    db,
    sql`select type, payload->>'status' as status, count(*)::int as n from events
         where type in ('message.sent', 'message.status_update') and payload->>'message_id' in (${sql.join(
           ids.map((id) => sql`${id}`),
           sql`, `,
         )})
         group by type, payload->>'status', payload->>'message_id'`,
  );
  const counts = new Map<string, number>();
  for (const e of events) {
    assert.equal(e.n, 1, `${e.type} ${e.status ?? ''} announced once per message`);
    const key = `${e.type} ${e.status ?? ''}`.trim();
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  assert.deepEqual(Object.fromEntries(counts), {
    'message.sent': 40,
    'message.status_update sent': 40,
    'message.status_update delivered': 40,
    'message.status_update read': 40,
  });
});
