/**
 * A status write (src/domain/messages/messages.ts advanceStatuses) decodes each row of its batches
 * once. The events of a batch went into the insert straight from the JSON parameter, filtered by the
 * messages the write moved; the planner took those for one row and put the decoding on the inner side
 * of a nested loop, so every event (its payload converted to jsonb) was decoded again for each message
 * moved: 10 messages, 20 events, 200 decodings, most of the statement's time and the largest single
 * share of PostgreSQL's CPU under the pipeline benchmark (DECISIONS 62).
 * Counted from the executed plan (auto_explain, sent to this connection as a notice), not timed.
 * PostgreSQL only: the plan is PostgreSQL's.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { inArray, sql } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/node-postgres';
import pg from 'pg';
import { migrate } from '../../src/db/migrate.ts';
import { openDatabase, type Db } from '../../src/db/client.ts';
import * as schema from '../../src/db/schema.ts';
import { advanceStatuses } from '../../src/domain/messages/messages.ts';
import { uuidv7 } from '../../src/lib/ids.ts';
import { createTestDatabaseUrl, usingPostgres, type TestDatabaseUrl } from '../harness.ts';

const skip = !usingPostgres && "PostgreSQL only (the plan is PostgreSQL's)";
const MESSAGES = 10;
let fresh: TestDatabaseUrl | undefined;
let client: pg.Client | undefined;
const plans: unknown[] = [];

before(async () => {
  if (!usingPostgres) return;
  fresh = await createTestDatabaseUrl();
  const database = await openDatabase({ kind: 'postgres', url: fresh.url, poolSize: 1 });
  await migrate(database);
  await database.close();
  // One connection of its own, whose executed plans come back to it as notices.
  client = new pg.Client({ connectionString: fresh.url });
  await client.connect();
  client.on('notice', (notice) => {
    const text = notice.message ?? '';
    const start = text.indexOf('{');
    if (text.includes('plan:') && start >= 0) plans.push(JSON.parse(text.slice(start)));
  });
  await client.query(`load 'auto_explain'`);
  for (const setting of ['log_min_duration = 0', 'log_analyze = on', 'log_timing = off', "log_format = 'json'", "log_level = 'notice'"]) {
    await client.query(`set auto_explain.${setting}`);
  }
  await client.query('set client_min_messages = notice');
});
after(async () => {
  await client?.end();
  await fresh?.drop();
});

type PlanNode = { 'Node Type': string; 'Function Name'?: string; Alias?: string; 'Actual Rows'?: number; 'Actual Loops'?: number; Plans?: PlanNode[] };

/** Rows each alias's json_to_record produced over the whole statement (rows × loops), summed over the plan's nodes. */
function decodedRows(node: PlanNode, into = new Map<string, number>()): Map<string, number> {
  if (node['Node Type'] === 'Function Scan' && node['Function Name']?.endsWith('_to_record') && node.Alias) {
    into.set(node.Alias, (into.get(node.Alias) ?? 0) + (node['Actual Rows'] ?? 0) * (node['Actual Loops'] ?? 0));
  }
  for (const child of node.Plans ?? []) decodedRows(child, into);
  return into;
}

test('a status write of many messages decodes each history row and event of its batch once', { skip }, async () => {
  const db = drizzle(client!, { schema }) as unknown as Db;
  const org = uuidv7();
  await db.execute(sql`insert into organizations (id, name) values (${org}, 'Plans')`);
  const ids = Array.from({ length: MESSAGES }, () => uuidv7());
  for (const id of ids) {
    await db.execute(sql`insert into messages (id, organization_id, channel_id, conversation_id, direction, to_phone, type, content, status, dispatch_at)
                         values (${id}, ${org}, ${uuidv7()}, ${uuidv7()}, 'outbound', '+4915112340000', 'text', '{"body":"x"}', 'queued', now())`);
  }
  const rows = await db.select().from(schema.messages).where(inArray(schema.messages.id, ids));
  const now = new Date();

  plans.length = 0;
  // queued -> sent: a `sent` history row and two events (message.sent, message.status_update) each.
  const moved = await db.transaction((tx) => advanceStatuses(tx, rows.map((row) => ({ row, to: 'sent', occurredAt: now, providerMessageId: `wamid.${row.id}` })), now));
  assert.deepEqual(moved, rows.map(() => true));

  const write = plans.map((p) => (p as { Plan: PlanNode; 'Query Text': string })).find((p) => p['Query Text'].includes('insert into events'));
  assert.ok(write, 'the status write was explained');
  const decoded = decodedRows(write.Plan);
  assert.equal(decoded.get('e'), 2 * MESSAGES, `events decoded ${decoded.get('e')} times for ${2 * MESSAGES} events`);
  assert.equal(decoded.get('h'), MESSAGES, `history rows decoded ${decoded.get('h')} times for ${MESSAGES} rows`);
  assert.equal(decoded.get('r'), MESSAGES, `messages decoded ${decoded.get('r')} times for ${MESSAGES} rows`);

  const [events] = (await client!.query(`select count(*)::int as n from events`)).rows as Array<{ n: number }>;
  assert.equal(events!.n, 2 * MESSAGES);
});
