/**
 * Where autovacuum does not run (PGlite; a server with autovacuum off, as on this project's machines),
 * nothing analyzed the tables, and named statements kept generic plans made while the tables were
 * small: the accept statement hash-joined the whole conversations table on every message and the
 * pipeline fell behind within 15 minutes at 100 messages/s. The maintenance.analyze job analyzes the
 * tables that grew; where autovacuum runs it leaves them to it. After analyzing a table it looks
 * again 10 s later instead of at the next minute: a fresh database's tables grow from nothing under
 * its first load, and until then its plans scanned them whole (DECISIONS 62).
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { queryRows } from '../../src/db/client.ts';
import { migrate } from '../../src/db/migrate.ts';
import { ANALYZE_AGAIN_SECONDS, analyzeSoon, analyzeTablesHandler } from '../../src/jobs/handlers/analyze-tables.ts';
import { startQueue, type Queue } from '../../src/jobs/queue.ts';
import { createLogger } from '../../src/lib/logger.ts';
import { createTestDatabase, type TestDatabase } from '../harness.ts';

let test_db: TestDatabase;
let queue: Queue;
const logger = createLogger({ level: 'silent' });
let checksAgain = 0;
const again = async () => void checksAgain++;

before(async () => {
  test_db = await createTestDatabase();
  await migrate(test_db.database);
  queue = await startQueue(test_db.database, logger, { maintain: false });
});
after(async () => {
  await queue.stop({ graceful: false, timeoutMs: 100 });
  await test_db.drop();
});

/** Rows in a table with no foreign keys: grows it by many pages. */
async function grow(rows: number) {
  await test_db.database.db.execute(sql`
    insert into recipient_holds (channel_id, recipient, until)
    select gen_random_uuid(), 'r' || g, now() from generate_series(1, ${rows}) g`);
}
const pagesAtLastAnalysis = async (table: string) =>
  (await queryRows<{ relpages: number }>(test_db.database.db, sql`select relpages from pg_class where oid = ${table}::regclass`))[0]!
    .relpages;

test('where autovacuum does not run, a table that grew is analyzed and the check comes again soon; one that did not is left', async () => {
  await grow(5_000);
  assert.equal(await pagesAtLastAnalysis('recipient_holds'), 0, 'never analyzed yet');
  const handler = analyzeTablesHandler({ database: test_db.database, logger, again, autovacuum: async () => false });
  checksAgain = 0;
  await handler();
  const pages = await pagesAtLastAnalysis('recipient_holds');
  assert.ok(pages > 8, `relpages ${pages} after the job`);
  assert.equal(checksAgain, 1, 'a table analyzed: the next check is soon');
  // Grown by less than a fifth: not analyzed again, and back to the minute's cadence.
  await grow(200);
  await handler();
  assert.equal(await pagesAtLastAnalysis('recipient_holds'), pages);
  assert.equal(checksAgain, 1, 'nothing analyzed: no early check');
});

test('the early check is one job per slot, due in ANALYZE_AGAIN_SECONDS, however many ask', async () => {
  const db = test_db.database.db;
  const before = Date.now();
  // In one transaction: one `now`, so one slot whatever the clock reads.
  await db.transaction(async (tx) => {
    await analyzeSoon(queue, tx);
    await analyzeSoon(queue, tx);
  });
  const jobs = await queryRows<{ start_after: Date }>(
    db,
    sql`select start_after from pgboss.job where name = 'maintenance.analyze' and state = 'created'`,
  );
  assert.equal(jobs.length, 1);
  const dueIn = (new Date(jobs[0]!.start_after).getTime() - before) / 1000;
  assert.ok(dueIn > ANALYZE_AGAIN_SECONDS - 2 && dueIn <= ANALYZE_AGAIN_SECONDS + 2, `due in ${dueIn} s`);
});

test('where autovacuum runs, the job leaves the tables to it', async () => {
  await grow(20_000);
  const before = await pagesAtLastAnalysis('recipient_holds');
  checksAgain = 0;
  await analyzeTablesHandler({ database: test_db.database, logger, again, autovacuum: async () => true })();
  assert.equal(await pagesAtLastAnalysis('recipient_holds'), before);
  assert.equal(checksAgain, 0);
});
