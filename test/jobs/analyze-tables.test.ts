/**
 * Where autovacuum does not run (PGlite; a server with autovacuum off, as on this project's machines),
 * nothing analyzed the tables, and named statements kept generic plans made while the tables were
 * small: the accept statement hash-joined the whole conversations table on every message and the
 * pipeline fell behind within 15 minutes at 100 messages/s. The maintenance.analyze job analyzes the
 * tables that grew; where autovacuum runs it leaves them to it.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { queryRows } from '../../src/db/client.ts';
import { migrate } from '../../src/db/migrate.ts';
import { analyzeTablesHandler } from '../../src/jobs/handlers/analyze-tables.ts';
import { createLogger } from '../../src/lib/logger.ts';
import { createTestDatabase, type TestDatabase } from '../harness.ts';

let test_db: TestDatabase;
const logger = createLogger({ level: 'silent' });

before(async () => {
  test_db = await createTestDatabase();
  await migrate(test_db.database);
});
after(() => test_db.drop());

/** Rows in a table with no foreign keys: grows it by many pages. */
async function grow(rows: number) {
  await test_db.database.db.execute(sql`
    insert into recipient_holds (channel_id, recipient, until)
    select gen_random_uuid(), 'r' || g, now() from generate_series(1, ${rows}) g`);
}
const pagesAtLastAnalysis = async (table: string) =>
  (await queryRows<{ relpages: number }>(test_db.database.db, sql`select relpages from pg_class where oid = ${table}::regclass`))[0]!.relpages;

test('where autovacuum does not run, a table that grew is analyzed; one that did not is left', async () => {
  await grow(5_000);
  assert.equal(await pagesAtLastAnalysis('recipient_holds'), 0, 'never analyzed yet');
  const handler = analyzeTablesHandler({ database: test_db.database, logger, autovacuum: async () => false });
  await handler();
  const pages = await pagesAtLastAnalysis('recipient_holds');
  assert.ok(pages > 8, `relpages ${pages} after the job`);
  // Grown by less than a fifth: not analyzed again.
  await grow(200);
  await handler();
  assert.equal(await pagesAtLastAnalysis('recipient_holds'), pages);
});

test('where autovacuum runs, the job leaves the tables to it', async () => {
  await grow(20_000);
  const before = await pagesAtLastAnalysis('recipient_holds');
  await analyzeTablesHandler({ database: test_db.database, logger, autovacuum: async () => true })();
  assert.equal(await pagesAtLastAnalysis('recipient_holds'), before);
});
