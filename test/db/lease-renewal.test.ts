/**
 * The dispatcher renews the leases of the messages it is sending (src/domain/messages/dispatcher.ts
 * renewLeases). A message another transaction holds locked is a status write under way (which ends
 * the lease itself); renewing must skip it, not wait for it: waiting there, with rows taken in no
 * particular order, deadlocked with status writes (which lock in id order), and the loser's send was
 * tried again 15 s later (seen in the pipeline benchmark: a 17 s accept → read).
 * PostgreSQL only: it needs a second connection holding the lock.
 */
// stores: postgres
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { queryRows } from '../../src/db/client.ts';
import { migrate } from '../../src/db/migrate.ts';
import { renewLeases } from '../../src/domain/messages/dispatcher.ts';
import { uuidv7 } from '../../src/lib/ids.ts';
import { createTestDatabase, usingPostgres } from '../harness.ts';
import { eventually } from '../eventually.ts';

const skip = !usingPostgres && 'PostgreSQL only (a second connection holds the lock)';
let testDb: Awaited<ReturnType<typeof createTestDatabase>> | undefined;
const ids = [uuidv7(), uuidv7()].sort();
const due = new Date('2030-01-01T00:00:00Z');

before(async () => {
  if (!usingPostgres) return;
  testDb = await createTestDatabase();
  await migrate(testDb.database);
  const { db } = testDb.database;
  const org = uuidv7();
  await db.execute(sql`insert into organizations (id, name) values (${org}, 'Leases')`);
  for (const id of ids) {
    await db.execute(sql`insert into messages (id, organization_id, channel_id, conversation_id, direction, to_phone, type, content, status, dispatch_at)
                         values (${id}, ${org}, ${uuidv7()}, ${uuidv7()}, 'outbound', '+4915112340000', 'text', '{"body":"x"}', 'queued', ${due.toISOString()}::timestamptz)`);
  }
});
after(() => testDb?.drop());

test('renewing leases skips a message a status write holds, instead of waiting for it', { skip }, async () => {
  const { db } = testDb!.database;
  const [free, locked] = ids as [string, string];
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  let holding = false;
  // A status write under way: the message row locked in its transaction.
  const writer = db.transaction(async (tx) => {
    await tx.execute(sql`select id from messages where id = ${locked} for update`);
    holding = true;
    await gate;
  });
  await eventually('the row held', async () => (holding ? true : undefined));

  const until = new Date('2031-01-01T00:00:00Z');
  let renewed = false;
  const renewal = renewLeases(db, [free, locked], until).then(() => (renewed = true));
  // Either the renewal ends, or it is seen waiting for the lock (then the writer lets go, so nothing hangs).
  const waited = await eventually('the renewal to end or to wait', async () => {
    if (renewed) return 'no';
    const [row] = await queryRows<{ n: number }>(
      db,
      sql`select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`,
    );
    return row!.n > 0 ? 'yes' : undefined;
  });
  release();
  await Promise.all([writer, renewal]);
  assert.equal(waited, 'no', 'the renewal waited for the locked row');

  const rows = await queryRows<{ id: string; dispatch_at: Date }>(db, sql`select id::text, dispatch_at from messages order by id`);
  const at = new Map(rows.map((r) => [r.id, new Date(r.dispatch_at).toISOString()]));
  assert.equal(at.get(free), until.toISOString(), 'the free message is renewed');
  assert.equal(at.get(locked), due.toISOString(), 'the held one is left to its status write');
});
