/**
 * Sending again: the recipients the provider refused for its per-user marketing limit (131049), when the
 * broadcast asks for it (retry_marketing_limit_days, 1 to 7), once, that many days after the refusal; and
 * the `retry-failed` action, which sends the failed recipients of a completed or stopped broadcast again
 * as a new round. Each is a new message with its own Idempotency-Key (send.ts recipientKey), so a
 * kill between the accept and its record gets the same message back, never a second one.
 */
import { and, eq, inArray, sql } from 'drizzle-orm';
import { queryRows } from '../../db/client.ts';
import { broadcastRecipients, broadcasts } from '../../db/schema.ts';
import type { Actor } from '../actor.ts';
import { DomainError } from '../errors.ts';
import { getBroadcast, type BroadcastDeps, type BroadcastRow } from './broadcasts.ts';
import { sendOne, type RunnerDeps } from './send.ts';
import { MARKETING_LIMIT_CODE, sendingGate } from './sending-rules.ts';

/** Marketing-limit retries sent per runner pass (the next pass a minute later takes more). */
const RETRY_BATCH = 500;

/**
 * Marks the recipients refused for the marketing limit with the time they are sent again, and sends
 * those due (when the broadcast's sending rules let it now); returns how many it handed over.
 */
export async function sendMarketingRetries(deps: RunnerDeps): Promise<number> {
  const { db, clock } = deps;
  const now = clock.now();
  await db.execute(sql`update broadcast_recipients r
       set retry_at = m.updated_at + make_interval(days => b.retry_marketing_limit_days), reason = 'marketing_limit',
           updated_at = ${now.toISOString()}::timestamptz
      from messages m, broadcasts b
     where m.id = r.message_id and b.id = r.broadcast_id and b.retry_marketing_limit_days is not null
       and m.status = 'failed' and m.error_code = ${MARKETING_LIMIT_CODE} and r.retry_at is null and r.reason is null`);
  const due = await queryRows<{ id: string; broadcast_id: string }>(
    db,
    sql`select r.id, r.broadcast_id from broadcast_recipients r join broadcasts b on b.id = r.broadcast_id
         where r.retry_at <= ${now.toISOString()}::timestamptz and b.status in ('sending', 'completed', 'stopped')
         order by r.retry_at limit ${RETRY_BATCH}`,
  );
  let sent = 0;
  const byBroadcast = Map.groupBy(due, (r) => r.broadcast_id);
  for (const [broadcastId, rows] of byBroadcast) {
    const [row] = await db.select().from(broadcasts).where(eq(broadcasts.id, broadcastId));
    const gate = await sendingGate(db, row!, now);
    if (gate.kind !== 'go' || gate.room <= 0) continue;
    const recipients = await db
      .select()
      .from(broadcastRecipients)
      .where(
        inArray(
          broadcastRecipients.id,
          rows.slice(0, Math.min(rows.length, gate.room)).map((r) => r.id),
        ),
      );
    const actor: Actor = { kind: 'system', organizationId: row!.organizationId, permissions: new Set(['messages:send']) };
    for (const r of recipients) {
      const outcome = await sendOne(deps, actor, row!, r);
      if (outcome !== 'ok') break;
      sent++;
    }
  }
  return sent;
}

const RETRYABLE_FROM = ['completed', 'stopped'] as const;

/**
 * retry-failed: the failed recipients of a completed or stopped broadcast (refused when accepted, or
 * their message failed; not those skipped for the marketing limit) are taken again as a new round, and
 * the broadcast sends again (its recipients never sent because it was stopped stay as they were).
 * 409 in another status or with no failed recipient.
 */
export async function retryFailed(deps: BroadcastDeps, actor: Actor, { broadcastId }: { broadcastId: string }): Promise<BroadcastRow> {
  const { db, clock } = deps;
  const updated = await db.transaction(async (tx) => {
    const found = await getBroadcast({ db: tx }, actor, { broadcastId });
    const [row] = await tx.select().from(broadcasts).where(eq(broadcasts.id, found.id)).for('update');
    if (!(RETRYABLE_FROM as readonly string[]).includes(row!.status)) {
      throw new DomainError('conflict', `cannot retry-failed a broadcast that is ${row!.status} (only when completed or stopped)`, {
        extra: { broadcast_status: row!.status },
      });
    }
    const now = clock.now();
    const round = row!.retryRound + 1;
    const retried = await queryRows<{ id: string }>(
      tx,
      sql`update broadcast_recipients r set round = ${round}, status = 'pending', message_id = null, reason = null, retry_at = null,
                 updated_at = ${now.toISOString()}::timestamptz
           where r.broadcast_id = ${row!.id}::uuid
             and ((r.message_id is null and r.status = 'failed')
                  or exists (select 1 from messages m where m.id = r.message_id and m.status = 'failed'
                               and m.error_code is distinct from ${MARKETING_LIMIT_CODE}))
          returning r.id`,
    );
    if (retried.length === 0) {
      throw new DomainError('conflict', 'the broadcast has no failed recipient to send again', {
        extra: { broadcast_status: row!.status },
      });
    }
    const [next] = await tx
      .update(broadcasts)
      .set({ status: 'sending', retryRound: round, nextRunAt: now, finishedAt: null, failureReason: null, updatedAt: now })
      .where(and(eq(broadcasts.id, row!.id)))
      .returning();
    return next!;
  });
  await deps.wake?.();
  return updated;
}
