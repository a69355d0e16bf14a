/** Upkeep of the Idempotency-Key tables (http/idempotency.ts, domain/messages/accept.ts). */
import { sql } from 'drizzle-orm';
import { queryRows, type Executor } from './client.ts';

/** Deletes the keys made before `expired`, of sends and of other requests (the hourly maintenance job). */
export async function purgeIdempotencyKeys(deps: { db: Executor }, expired: Date): Promise<number> {
  const rows = await queryRows<{ n: number }>(
    deps.db,
    sql`with gone as (delete from idempotent_requests where created_at < ${expired} returning 1),
             sends as (delete from idempotency_keys where created_at < ${expired} returning 1)
        select ((select count(*) from gone) + (select count(*) from sends))::int as n`,
  );
  return rows[0]?.n ?? 0;
}
