/**
 * The message flow's statements look rows up by index when the tables are big. Batches travel as one
 * JSON array parameter; read with json_to_recordset, the planner took every batch for 100 rows and,
 * with the messages and conversations tables at some thousands to some tens of thousands of rows,
 * joined it by scanning the whole table (a 30-minute soak at 100 messages/s read 70/s). The batch
 * reader (db/batch-rows.ts) says 10 rows.
 *
 * Every statement the service sends while messages go from accept to `read` (with a webhook
 * endpoint subscribed) is recorded at the driver with its parameters; each is then explained on the
 * same database, seeded with big tables, and no plan may scan messages or conversations whole.
 * PostgreSQL only: statements are recorded at the pg driver (the planner is the same in PGlite).
 */
// stores: postgres
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import pg from 'pg';
import { sql } from 'drizzle-orm';
import { request, startTestServer, usingPostgres, type TestServer } from '../harness.ts';
import { pairedGatewayChannel, send, waitForStatus } from '../messages-helpers.ts';
import { eventually } from '../eventually.ts';
import { startReceiver, type Receiver } from '../webhook-receiver.ts';

/** Rows seeded in each big table: past the size where a whole-table hash join looked cheaper. */
const SEEDED = 15_000;
const BIG_TABLES = new Set(['messages', 'conversations']);

let server: TestServer;
let receiver: Receiver;
const recorded = new Map<string, unknown[]>();
let recording = false;
const originalQuery = pg.Client.prototype.query;

before(async () => {
  if (!usingPostgres) return;
  server = await startTestServer({ worker: true, env: { SANDBOX_STATUS_DELAY_MS: '0' } });
  receiver = await startReceiver();
});
after(async () => {
  pg.Client.prototype.query = originalQuery;
  await receiver?.close();
  await server?.close();
});

/** The statements of this service's own code (not pg-boss's, not the transaction commands), first parameters seen. */
function record() {
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    const config = args[0] as string | { text?: string; values?: unknown[] };
    const text = typeof config === 'string' ? config : config?.text;
    const values = ((typeof config === 'string' ? undefined : config?.values) ?? (Array.isArray(args[1]) ? args[1] : undefined)) as
      | unknown[]
      | undefined;
    if (recording && text && !/pgboss\./i.test(text) && /^\s*(with|select|insert|update|delete)\b/i.test(text) && !recorded.has(text))
      recorded.set(text, values ?? []);
    return (originalQuery as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof pg.Client.prototype.query;
}

type PlanNode = { 'Node Type': string; 'Relation Name'?: string; Plans?: PlanNode[] };
function wholeScans(node: PlanNode, found: string[] = []): string[] {
  if (node['Node Type'] === 'Seq Scan' && node['Relation Name'] && BIG_TABLES.has(node['Relation Name'])) found.push(node['Relation Name']);
  for (const child of node.Plans ?? []) wholeScans(child, found);
  return found;
}

test('no statement of the message flow scans messages or conversations whole', {
  skip: !usingPostgres && 'PostgreSQL only (statements are recorded at the pg driver)',
  timeout: 120_000,
}, async () => {
  const channel = await pairedGatewayChannel(server, 'plans');
  const endpoint = await request(server, 'POST', '/v1/settings/developer/webhooks/endpoints', {
    key: server.apiKey,
    body: { url: receiver.url, event_types: ['message.sent', 'message.status_update'] },
  });
  assert.equal(endpoint.status, 201, endpoint.text);

  // Big tables: conversations and messages on this channel, then fresh statistics (as autovacuum keeps them).
  const db = server.container.database.db;
  await db.execute(sql`
    insert into conversations (id, organization_id, channel_id, peer_phone, status, last_message_at, last_message_preview, created_at, updated_at)
    select gen_random_uuid(), ${server.organizationId}::uuid, ${channel.id}::uuid, '4930' || lpad(g::text, 8, '0'), 'open', now(), 'seeded', now(), now()
      from generate_series(1, ${SEEDED}) g`);
  await db.execute(sql`
    insert into messages (id, organization_id, channel_id, conversation_id, direction, to_phone, type, content, status, created_at, updated_at)
    select gen_random_uuid(), c.organization_id, c.channel_id, c.id, 'outbound', c.peer_phone, 'text', '{"body":"seeded"}'::jsonb, 'read', now(), now()
      from conversations c where c.channel_id = ${channel.id}::uuid`);
  await db.execute(sql`analyze conversations`);
  await db.execute(sql`analyze messages`);

  record();
  recording = true;
  const answers = await Promise.all(
    Array.from({ length: 6 }, (_, i) =>
      send(server, {
        channel_id: channel.id,
        to: `+4917612399${String(i).padStart(2, '0')}`,
        type: 'text',
        content: { body: `plan ${i}` },
      }),
    ),
  );
  assert.ok(
    answers.every((a) => a.status === 201),
    answers.map((a) => a.text).join('\n'),
  );
  for (const a of answers) await waitForStatus(server, a.body.data.id as string, 'read');
  // Every `read` delivered to the endpoint: the webhook statements are in the record too.
  await eventually(
    'the read webhooks delivered',
    () => receiver.requests.filter((r) => /"status":"read"/.test(r.body)).length >= answers.length,
  );
  recording = false;
  pg.Client.prototype.query = originalQuery;

  assert.ok(recorded.size > 5, `recorded ${recorded.size} statements`);
  const scans: string[] = [];
  const client = new pg.Client({ connectionString: server.databaseUrl });
  await client.connect();
  try {
    for (const [text, values] of recorded) {
      const { rows } = await client.query<{ 'QUERY PLAN': Array<{ Plan: PlanNode }> }>(`explain (format json) ${text}`, values);
      const found = wholeScans(rows[0]!['QUERY PLAN'][0]!.Plan);
      if (found.length > 0) scans.push(`${[...new Set(found)].join(', ')} in: ${text.replace(/\s+/g, ' ').slice(0, 200)}`);
    }
  } finally {
    await client.end();
  }
  assert.deepEqual(scans, [], `statements that scan a big table whole:\n${scans.join('\n')}`);
});
