/**
 * A batch of contact writes (the import, the upsert route) reads, locks and updates its contacts by
 * their ids, one index lookup each, whatever the statistics say. With `organization_id = $1` as an
 * index condition beside the ids, the planner chose the organization's index whenever the statistics
 * lagged behind a bulk import (an organization imported since the last analysis looks empty) and
 * read every contact of the organization for every batch: a second import of 100,000 contacts took
 * 82 s to find them unchanged instead of 4.5 (BENCHMARKS.md, contacts-import).
 * Counted by the rows read from `contacts` (the statistics' counters), not timed.
 * PostgreSQL only: the plan is PostgreSQL's.
 */
// stores: postgres
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { AUTO_PREPARE } from '../../src/db/auto-prepare.ts';
import { openDatabase, queryRows, type Database } from '../../src/db/client.ts';
import { migrate } from '../../src/db/migrate.ts';
import { organizations } from '../../src/db/schema.ts';
import { applyContactWrites, type ContactWrite } from '../../src/domain/contacts/upsert.ts';
import { uuidv7 } from '../../src/lib/ids.ts';
import { createTestDatabaseUrl, usingPostgres, type TestDatabaseUrl } from '../harness.ts';

const skip = !usingPostgres && "PostgreSQL only (the plan is PostgreSQL's)";
const CONTACTS = 20_000;
const BATCH = 1000;
let fresh: TestDatabaseUrl | undefined;
let database: Database;
const orgs = [uuidv7(), uuidv7()];

const writesOf = (org: number, from: number, count: number): ContactWrite[] =>
  Array.from({ length: count }, (_, i) => ({
    input: { phoneNumber: `+4930${String(5_000_000 + org * 100_000 + from + i)}`, name: `Contact ${from + i}` },
  }));

before(async () => {
  if (!usingPostgres) return;
  fresh = await createTestDatabaseUrl();
  database = await openDatabase({ kind: 'postgres', url: fresh.url, poolSize: 1 });
  await migrate(database);
  const now = new Date();
  await database.db.insert(organizations).values(orgs.map((id, i) => ({ id, name: `Org ${i}`, createdAt: now, updatedAt: now })));
  // A first import, analyzed; then a second into another organization, not analyzed yet (statistics
  // lag behind a bulk write: autovacuum's threshold, or the analyze job's minute).
  for (const [org, id] of orgs.entries()) {
    await database.db.execute(sql`insert into contacts (id, organization_id, phone_number, name, created_at, updated_at)
      select gen_random_uuid(), ${id}, '+4930' || (5000000 + ${org * 100_000} + g), 'Contact ' || g, now(), now() from generate_series(0, ${CONTACTS - 1}) g`);
    await database.db.execute(sql`insert into contact_identities (id, organization_id, contact_id, type, source, value, created_at)
      select gen_random_uuid(), organization_id, id, 'phone', '', phone_number, now() from contacts where organization_id = ${id}`);
    if (org === 0) {
      await database.db.execute(sql`analyze contacts`);
      await database.db.execute(sql`analyze contact_identities`);
    }
  }
});
after(async () => {
  await database?.close();
  await fresh?.drop();
});

/** Rows read from `contacts` (sequential and by index) as the statistics have them, after this session's are flushed. */
async function contactRowsRead(): Promise<number> {
  await database.db.execute(sql`select pg_stat_force_next_flush()`);
  const [row] = await queryRows<{ n: string }>(
    database.db,
    sql`select coalesce(seq_tup_read, 0) + coalesce(idx_tup_fetch, 0) as n from pg_stat_user_tables where relname = 'contacts'`,
  );
  return Number(row!.n);
}

test("a batch reads its own contacts by id, not all of its organization's, while the statistics lag behind an import", {
  skip,
}, async () => {
  const write = (names: string) =>
    database.db.transaction((tx) =>
      applyContactWrites(
        tx,
        orgs[1]!,
        writesOf(1, 0, BATCH).map((w) => ({ input: { ...w.input, name: `${w.input.name}${names}` } })),
        new Date(),
      ),
    );
  // Sent a few times first, as an import does (statements sent often are prepared: db/auto-prepare.ts).
  for (let i = 0; i < AUTO_PREPARE.minUses; i++) await write('');
  const before = await contactRowsRead();
  const unchanged = await write('');
  const readUnchanged = (await contactRowsRead()) - before;
  assert.deepEqual(new Set(unchanged.map((o) => o.status)), new Set(['unchanged']));
  // Its 1,000 contacts, not the organization's 20,000.
  assert.ok(readUnchanged < 2 * BATCH, `an unchanged batch of ${BATCH} read ${readUnchanged} contact rows`);

  const from = await contactRowsRead();
  const updated = await write(' renamed');
  const readUpdated = (await contactRowsRead()) - from;
  assert.deepEqual(new Set(updated.map((o) => o.status)), new Set(['updated']));
  // Read, locked and written: a few times the batch, not the organization.
  assert.ok(readUpdated < 4 * BATCH, `an updating batch of ${BATCH} read ${readUpdated} contact rows`);
});
