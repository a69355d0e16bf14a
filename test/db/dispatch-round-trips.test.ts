/**
 * The webhook dispatcher's transaction (src/domain/webhooks/dispatch.ts) takes its lock and turns off
 * the commit's wait for the WAL flush in one statement: BEGIN, the lock, the positions, the deliveries,
 * COMMIT. It sent a SET LOCAL of its own before, one round trip more for every batch of events, and
 * the pipeline benchmark runs a few hundred batches a second. The setting stays the transaction's.
 * Counted on the pool's connections. PostgreSQL only: round trips to a server.
 */
// stores: postgres
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sql } from 'drizzle-orm';
import pg from 'pg';
import { queryRows } from '../../src/db/client.ts';
import { migrate } from '../../src/db/migrate.ts';
import { dispatchEvents } from '../../src/domain/webhooks/dispatch.ts';
import { uuidv7 } from '../../src/lib/ids.ts';
import { createTestDatabase, usingPostgres } from '../harness.ts';

const skip = !usingPostgres && 'PostgreSQL only (round trips to a server)';
let testDb: Awaited<ReturnType<typeof createTestDatabase>> | undefined;
const org = uuidv7();
const endpoint = uuidv7();

before(async () => {
  if (!usingPostgres) return;
  testDb = await createTestDatabase();
  await migrate(testDb.database);
  const { db } = testDb.database;
  await db.execute(sql`insert into organizations (id, name) values (${org}, 'Dispatch')`);
  await db.execute(sql`insert into webhook_endpoints (id, organization_id, url, secret_sealed, created_at, updated_at)
                       values (${endpoint}, ${org}, 'http://127.0.0.1:9/hook', 'sealed', now(), now())`);
});
after(() => testDb?.drop());

test("a batch of events is dispatched in five round trips, the commit's flush wait off for that transaction only", { skip }, async () => {
  const { database } = testDb!;
  const eventIds = [uuidv7(), uuidv7()];
  for (const id of eventIds) {
    await database.db.execute(
      sql`insert into events (id, organization_id, type, payload, created_at) values (${id}, ${org}, 'message.sent', ${JSON.stringify({ message_id: id })}::jsonb, now())`,
    );
  }
  const sent: string[] = [];
  const query = pg.Client.prototype.query;
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    const text = typeof args[0] === 'string' ? args[0] : (args[0] as { text?: string } | undefined)?.text;
    if (text) sent.push(text.trim().split(/\s+/)[0]!.toLowerCase());
    return (query as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof query;
  let result: Awaited<ReturnType<typeof dispatchEvents>>;
  try {
    result = await dispatchEvents(database, { now: () => new Date() });
  } finally {
    pg.Client.prototype.query = query;
  }
  assert.deepEqual(sent, ['begin', 'select', 'with', 'with', 'commit']);
  assert.equal(result.events, 2);
  assert.equal(result.deliveries, 2);
  const rows = await queryRows<{ n: number }>(
    database.db,
    sql`select count(*)::int as n from webhook_deliveries where endpoint_id = ${endpoint}`,
  );
  assert.equal(rows[0]!.n, 2);
  // Every connection of the pool answers with the server's default again: the setting was local.
  const settings = await Promise.all(
    Array.from({ length: 5 }, () => queryRows<{ synchronous_commit: string }>(database.db, sql`show synchronous_commit`)),
  );
  assert.ok(
    settings.every(([s]) => s!.synchronous_commit === 'on'),
    JSON.stringify(settings),
  );
});
