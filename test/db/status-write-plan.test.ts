/**
 * A status write (src/domain/messages/messages.ts advanceStatuses) is one statement, and decodes each
 * row of its batches once. The events of a batch went into the insert straight from the JSON parameter, filtered by the
 * messages the write moved; the planner took those for one row and put the decoding on the inner side
 * of a nested loop, so every event (its payload converted to jsonb) was decoded again for each message
 * moved: 10 messages, 20 events, 200 decodings, most of the statement's time and the largest single
 * share of PostgreSQL's CPU under the pipeline benchmark (DECISIONS 62). And the dispatcher's `sent`
 * writes took four round trips (BEGIN, the rows read locked, the write, COMMIT) where the write alone,
 * locking its rows itself, does.
 * Counted from the executed plan (auto_explain, sent to this connection as a notice), not timed.
 * PostgreSQL only: the plan is PostgreSQL's.
 */
// stores: postgres
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { inArray, sql } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/node-postgres';
import pg from 'pg';
import { migrate } from '../../src/db/migrate.ts';
import { openDatabase, type Db } from '../../src/db/client.ts';
import * as schema from '../../src/db/schema.ts';
import { recordSent } from '../../src/domain/messages/dispatch.ts';
import { applyStatuses, type StatusEvent } from '../../src/domain/messages/provider-events.ts';
import type { ChannelRow } from '../../src/domain/channels/channels.ts';
import { advanceStatuses, type MessageRow } from '../../src/domain/messages/messages.ts';
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

type PlanNode = {
  'Node Type': string;
  'Function Name'?: string;
  Alias?: string;
  'Actual Rows'?: number;
  'Actual Loops'?: number;
  Plans?: PlanNode[];
};

/** Rows each alias's json_to_record produced over the whole statement (rows × loops), summed over the plan's nodes. */
function decodedRows(node: PlanNode, into = new Map<string, number>()): Map<string, number> {
  if (node['Node Type'] === 'Function Scan' && node['Function Name']?.endsWith('_to_record') && node.Alias) {
    into.set(node.Alias, (into.get(node.Alias) ?? 0) + (node['Actual Rows'] ?? 0) * (node['Actual Loops'] ?? 0));
  }
  for (const child of node.Plans ?? []) decodedRows(child, into);
  return into;
}

/** Queued messages of a new organization, as read. */
async function queuedMessages(db: Db, count: number): Promise<MessageRow[]> {
  const org = uuidv7();
  await db.execute(sql`insert into organizations (id, name) values (${org}, 'Plans')`);
  const ids = Array.from({ length: count }, () => uuidv7());
  for (const id of ids) {
    await db.execute(sql`insert into messages (id, organization_id, channel_id, conversation_id, direction, to_phone, type, content, status, dispatch_at)
                         values (${id}, ${org}, ${uuidv7()}, ${uuidv7()}, 'outbound', '+4915112340000', 'text', '{"body":"x"}', 'queued', now())`);
  }
  return db.select().from(schema.messages).where(inArray(schema.messages.id, ids));
}

test('a status write of many messages decodes each history row and event of its batch once', { skip }, async () => {
  const db = drizzle(client!, { schema }) as unknown as Db;
  const rows = await queuedMessages(db, MESSAGES);
  const now = new Date();

  plans.length = 0;
  // queued -> sent: a `sent` history row and two events (message.sent, message.status_update) each.
  const moved = await db.transaction((tx) =>
    advanceStatuses(
      tx,
      rows.map((row) => ({ row, to: 'sent', occurredAt: now, providerMessageId: `wamid.${row.id}` })),
      now,
    ),
  );
  assert.deepEqual(
    moved,
    rows.map(() => true),
  );

  const write = plans.map((p) => p as { Plan: PlanNode; 'Query Text': string }).find((p) => p['Query Text'].includes('insert into events'));
  assert.ok(write, 'the status write was explained');
  const decoded = decodedRows(write.Plan);
  assert.equal(decoded.get('e'), 2 * MESSAGES, `events decoded ${decoded.get('e')} times for ${2 * MESSAGES} events`);
  assert.equal(decoded.get('h'), MESSAGES, `history rows decoded ${decoded.get('h')} times for ${MESSAGES} rows`);
  assert.equal(decoded.get('r'), MESSAGES, `messages decoded ${decoded.get('r')} times for ${MESSAGES} rows`);

  const [events] = (
    await client!.query(`select count(*)::int as n from events where payload->>'message_id' = any($1)`, [rows.map((r) => r.id)])
  ).rows as Array<{ n: number }>;
  assert.equal(events!.n, 2 * MESSAGES);
});

test('a batch of sends is recorded in one statement; a row moved meanwhile is read again and planned from its newest status', {
  skip,
}, async () => {
  const db = drizzle(client!, { schema }) as unknown as Db;
  const rows = await queuedMessages(db, 3);
  const [stale] = rows;
  // Another report moved the first message on after the dispatcher read it: `delivered`, with its history.
  await db.execute(
    sql`update messages set status = 'delivered', dispatch_at = null,
          status_history = status_history || jsonb_build_array(
            jsonb_build_object('id', ${uuidv7()}::uuid, 'status', 'sent', 'occurred_at', now(), 'created_at', now()),
            jsonb_build_object('id', ${uuidv7()}::uuid, 'status', 'delivered', 'occurred_at', now(), 'created_at', now()))
        where id = ${stale!.id}`,
  );

  const sent: string[] = [];
  const query = client!.query.bind(client!) as (...args: unknown[]) => unknown;
  (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
    const text = typeof args[0] === 'string' ? args[0] : (args[0] as { text: string }).text;
    sent.push(text.trim().split(/\s+/)[0]!.toLowerCase());
    return query(...args);
  };
  try {
    await recordSent(
      db,
      rows.slice(1).map((row) => ({ row, providerMessageId: `wamid.${row.id}` })),
      new Date(),
    );
    assert.deepEqual(sent, ['with'], 'two fresh rows: one statement, no transaction around it');
    sent.length = 0;
    // The stale row, planned from `queued`, is refused by the write, read again and found past `sent`: nothing more is written.
    await recordSent(db, [{ row: stale!, providerMessageId: `wamid.${stale!.id}` }], new Date());
    assert.deepEqual(sent, ['with', 'select', 'with']);
  } finally {
    (client as unknown as { query: unknown }).query = query;
  }
  // Rows moved meanwhile are read again by one statement text whatever their number (prepared once).
  const stales = await queuedMessages(db, 2);
  await db.execute(sql`update messages set status = 'delivered', dispatch_at = null where id in (${stales[0]!.id}, ${stales[1]!.id})`);
  const rereads: string[] = [];
  (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
    const text = typeof args[0] === 'string' ? args[0] : (args[0] as { text: string }).text;
    if (/^select /i.test(text.trim())) rereads.push(text);
    return query(...args);
  };
  try {
    await recordSent(db, [{ row: stale!, providerMessageId: `wamid.${stale!.id}` }], new Date());
    await recordSent(
      db,
      stales.map((row) => ({ row, providerMessageId: `wamid.${row.id}` })),
      new Date(),
    );
    assert.equal(rereads.length, 2);
    assert.equal(rereads[0], rereads[1], 'one row read again and two: the same text');
  } finally {
    (client as unknown as { query: unknown }).query = query;
  }
  const after = await db
    .select()
    .from(schema.messages)
    .where(
      inArray(
        schema.messages.id,
        rows.map((r) => r.id),
      ),
    );
  assert.deepEqual(new Map(after.map((r) => [r.id, r.status])), new Map(rows.map((r, i) => [r.id, i === 0 ? 'delivered' : 'sent'])));
  const history = (
    await client!.query(`select message_id::text, status from message_status_log where message_id = any($1) order by message_id, status`, [
      rows.map((r) => r.id),
    ])
  ).rows as Array<{ message_id: string; status: string }>;
  assert.equal(
    history
      .filter((h) => h.message_id === stale!.id)
      .map((h) => h.status)
      .join(),
    'delivered,sent',
    'no second `sent` row',
  );
  const events = (await client!.query(`select payload->>'message_id' as id from events where payload->>'message_id' = $1`, [stale!.id]))
    .rows;
  assert.equal(events.length, 0, 'the stale report announced nothing');
});

test("a provider delivery's reports are found by one statement text whatever their number (prepared once, not planned anew per count)", {
  skip,
}, async () => {
  const db = drizzle(client!, { schema }) as unknown as Db;
  const rows = await queuedMessages(db, 4);
  const channelId = uuidv7();
  await db.execute(
    sql`update messages set channel_id = ${channelId}, status = 'sent', provider_message_id = 'wamid.' || id::text where id in ${rows.map((r) => r.id)}`,
  );
  const channel = { id: channelId } as ChannelRow;
  const report = (id: string): StatusEvent => ({
    kind: 'message.status',
    ref: id,
    providerMessageId: `wamid.${id}`,
    status: 'delivered',
    timestamp: new Date(),
  });

  const selects: string[] = [];
  const query = client!.query.bind(client!) as (...args: unknown[]) => unknown;
  (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
    const text = typeof args[0] === 'string' ? args[0] : (args[0] as { text: string }).text;
    if (/^select .* from "messages"/is.test(text.trim())) selects.push(text);
    return query(...args);
  };
  try {
    await applyStatuses(db, channel, [report(rows[0]!.id)], new Date());
    await applyStatuses(
      db,
      channel,
      rows.slice(1).map((r) => report(r.id)),
      new Date(),
    );
  } finally {
    (client as unknown as { query: unknown }).query = query;
  }
  assert.equal(selects.length, 2);
  assert.equal(selects[0], selects[1], 'one report and three: the same text');
  const after = await db
    .select()
    .from(schema.messages)
    .where(
      inArray(
        schema.messages.id,
        rows.map((r) => r.id),
      ),
    );
  assert.deepEqual(
    after.map((r) => r.status),
    rows.map(() => 'delivered'),
  );
});
