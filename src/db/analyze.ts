/**
 * Planner statistics kept fresh where nothing else does it. PostgreSQL's autovacuum analyzes a table
 * once it has changed by a tenth; PGlite runs without autovacuum, and a server may have it turned
 * off. Without it a table is never analyzed, and a named statement's generic plan, made while the
 * table was small, is never made again: the accept statement kept hash-joining the whole
 * conversations table (spilling to disk past 80,000 rows) and the pipeline fell behind within 15
 * minutes at 100 messages/s (DECISIONS 58).
 */
import { sql } from 'drizzle-orm';
import { queryRows, type Db } from './client.ts';

/** A table is analyzed again when it has grown by this share of its pages at the last analysis... */
const GROWTH = 0.2;
/** ... and by at least this many pages (8 KiB each): small tables are left alone. */
const MIN_PAGES = 8;

/** Whether this database analyzes its tables by itself (a server with autovacuum on). */
export async function autovacuumRuns(db: Db, kind: 'pglite' | 'postgres'): Promise<boolean> {
  if (kind === 'pglite') return false;
  const [row] = await queryRows<{ on: boolean }>(db, sql`select current_setting('autovacuum') = 'on' as on`);
  return row?.on ?? false;
}

/**
 * Analyzes every table of the service's schemas (public, and pg-boss's) whose size grew past its
 * last analysis by GROWTH and MIN_PAGES; returns their names. The size at the last analysis is
 * pg_class.relpages, which ANALYZE and VACUUM set, so this needs no statistics collector (PGlite has
 * none running).
 */
export async function analyzeGrownTables(db: Db): Promise<string[]> {
  const grown = await queryRows<{ name: string }>(
    db,
    sql`select c.oid::regclass::text as name
          from pg_class c join pg_namespace n on n.oid = c.relnamespace
         where n.nspname in ('public', 'pgboss') and c.relkind = 'r'
           and pg_relation_size(c.oid) / current_setting('block_size')::int > greatest(c.relpages, 0) * ${sql.raw(String(1 + GROWTH))} + ${sql.raw(String(MIN_PAGES))}
         order by 1`,
  );
  // One at a time, each its own statement: ANALYZE takes a lock that lets reads and writes go on.
  for (const { name } of grown) await db.execute(sql.raw(`analyze ${name}`));
  return grown.map((g) => g.name);
}
