/**
 * Applies the drizzle-kit migrations in src/db/migrations, in order, each once. The whole run holds
 * a transaction-scoped advisory lock, so two processes starting at once apply them exactly once.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { sql } from 'drizzle-orm';
import { queryRows, type Database, type Executor } from './client.ts';

const MIGRATIONS_DIR = new URL('./migrations/', import.meta.url);
export const MIGRATION_LOCK_KEY = 7_240_001;
/**
 * Held (transaction-scoped) only while migrations are being applied, not for the rest of the
 * start-up that MIGRATION_LOCK_KEY also serializes: what readiness (GET /readyz) looks for in
 * pg_locks, so every serving process reports not ready while the schema changes under it.
 */
export const MIGRATIONS_APPLYING_KEY = 7_240_020;

/** Marks the transaction as applying migrations until it ends (see MIGRATIONS_APPLYING_KEY). */
export async function markMigrationsApplying(tx: Executor): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(${MIGRATIONS_APPLYING_KEY})`);
}

/** Whether any session is applying migrations now (holds MIGRATIONS_APPLYING_KEY). */
export async function migrationsApplying(executor: Executor): Promise<boolean> {
  // A bigint advisory key shows in pg_locks as its high and low halves (classid, objid), objsubid 1.
  // pg_locks lists the whole server's locks: only this database's mark counts (another database on the
  // same server being migrated is no reason to stop serving this one).
  const [row] = await queryRows<{ applying: boolean }>(
    executor,
    sql`select exists(select 1 from pg_locks where locktype = 'advisory' and classid = 0 and objid = ${MIGRATIONS_APPLYING_KEY} and objsubid = 1 and granted
                        and database = (select oid from pg_database where datname = current_database())) as applying`,
  );
  return row?.applying === true;
}

type Journal = { entries: Array<{ idx: number; tag: string }> };

export type MigrationResult = { applied: string[] };

export async function migrate(database: Database): Promise<MigrationResult> {
  const journal = JSON.parse(readFileSync(new URL('meta/_journal.json', MIGRATIONS_DIR), 'utf8')) as Journal;
  const entries = [...journal.entries].sort((a, b) => a.idx - b.idx);
  return database.withAdvisoryLock(MIGRATION_LOCK_KEY, async (tx) => {
    await tx.execute(sql`
      create table if not exists parley_migrations (
        tag text primary key,
        checksum text not null,
        applied_at timestamptz not null default now()
      )`);
    const done = await queryRows<{ tag: string; checksum: string }>(tx, sql`select tag, checksum from parley_migrations`);
    const applied = new Map(done.map((r) => [r.tag, r.checksum]));
    const result: string[] = [];
    if (entries.some((entry) => !applied.has(entry.tag))) await markMigrationsApplying(tx);
    for (const entry of entries) {
      const text = readFileSync(new URL(`${entry.tag}.sql`, MIGRATIONS_DIR), 'utf8');
      const checksum = createHash('sha256').update(text).digest('hex');
      const previous = applied.get(entry.tag);
      if (previous !== undefined) {
        if (previous !== checksum) throw new Error(`migration ${entry.tag} was changed after it was applied`);
        continue;
      }
      for (const statement of text.split('--> statement-breakpoint')) {
        if (statement.trim()) await tx.execute(sql.raw(statement));
      }
      await tx.execute(sql`insert into parley_migrations (tag, checksum) values (${entry.tag}, ${checksum})`);
      result.push(entry.tag);
    }
    return { applied: result };
  });
}
