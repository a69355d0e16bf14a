/**
 * Retention: events, webhook deliveries and attempts older than EVENT_RETENTION_DAYS are deleted
 * (in batches, so no statement runs long), and deliveries left pending on a disabled endpoint are
 * failed. Run hourly by the webhooks.cleanup job.
 */
import { sql } from 'drizzle-orm';
import { queryRows, type Db } from '../../db/client.ts';
import type { Clock } from '../../lib/clock.ts';

const BATCH = 2000;

export type CleanupResult = { events: number; deliveries: number; attempts: number; failedOnDisabled: number };

export async function cleanUpWebhookData({
  db,
  clock,
  retentionDays,
}: {
  db: Db;
  clock: Clock;
  retentionDays: number;
}): Promise<CleanupResult> {
  const now = clock.now();
  const cutoff = new Date(now.getTime() - retentionDays * 86_400_000);
  const result: CleanupResult = { events: 0, deliveries: 0, attempts: 0, failedOnDisabled: 0 };
  // Deleting an event deletes its deliveries and their attempts (foreign keys, on delete cascade).
  result.events = await deleteInBatches(
    db,
    sql`delete from events where id in (select id from events where created_at < ${cutoff} limit ${BATCH}) returning 1`,
  );
  // Test sends belong to no event.
  result.deliveries = await deleteInBatches(
    db,
    sql`delete from webhook_deliveries where id in (select id from webhook_deliveries where event_id is null and created_at < ${cutoff} limit ${BATCH}) returning 1`,
  );
  result.attempts = await deleteInBatches(
    db,
    sql`delete from webhook_attempts where id in (select id from webhook_attempts where attempted_at < ${cutoff} limit ${BATCH}) returning 1`,
  );
  const failed = await queryRows(
    db,
    sql`
      update webhook_deliveries d set status = 'failed', next_attempt_at = null, last_error = 'endpoint disabled', updated_at = ${now}
      from webhook_endpoints e
      where e.id = d.endpoint_id and not e.enabled and d.status = 'pending' and (d.locked_until is null or d.locked_until <= ${now})
      returning 1`,
  );
  result.failedOnDisabled = failed.length;
  return result;
}

async function deleteInBatches(db: Db, statement: ReturnType<typeof sql>): Promise<number> {
  let total = 0;
  for (;;) {
    const rows = await queryRows(db, statement);
    total += rows.length;
    if (rows.length < BATCH) return total;
  }
}
