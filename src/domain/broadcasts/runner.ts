/**
 * Sends broadcasts: the broadcasts.run job calls runDueBroadcasts every minute and whenever one is
 * scheduled or resumed. A due broadcast is leased (two runners never take one), its audience frozen
 * into broadcast_recipients at its first run (with broadcast.started, in one transaction), then its
 * pending recipients handed in send order to the messages' accept path (the one every message takes:
 * its checks, dispatch, pacing and statuses), at most per_minute of them per minute. Everything is in
 * the rows: a runner killed mid-batch leaves its lease to lapse, and the next one takes the recipients
 * still pending; a recipient whose message was accepted but not yet recorded gets that same message
 * back from its Idempotency-Key (broadcast:<id>:<recipient>), so nobody is sent twice.
 */
import { and, asc, eq, inArray, isNull, sql } from 'drizzle-orm';
import { queryRows, type Executor } from '../../db/client.ts';
import { broadcastRecipients, broadcasts } from '../../db/schema.ts';
import { uuidv7 } from '../../lib/ids.ts';
import type { Actor } from '../actor.ts';
import { recordEvent } from '../events/outbox.ts';
import { resolveAudience, type Audience } from './audience.ts';
import { broadcastEventBody, type BroadcastRow } from './broadcasts.ts';
import { recipientCounts } from './recipients.ts';
import { awaitingDecision, decideDue, planRecipients } from './variants.ts';
import { sendMarketingRetries } from './retries.ts';
import { jitteredMinute, LINKED_PER_MINUTE, sendingGate } from './sending-rules.ts';

export type { RunnerDeps } from './send.ts';
import { sendOne, type RunnerDeps } from './send.ts';

/** How long a runner holds a broadcast; one that dies lets it go after this. */
const LEASE_MS = 5 * 60_000;
/** Recipients read per step when no pace is set; the status is read again between steps (a pause takes effect). */
const STEP = 200;
/** Rows inserted per statement when the audience is frozen. */
const FREEZE_CHUNK = 1000;

/** Runs every broadcast due now, one after another; returns how many it took. */
export async function runDueBroadcasts(deps: RunnerDeps): Promise<number> {
  let taken = 0;
  for (;;) {
    const row = await lease(deps);
    if (!row) return taken + (await sendMarketingRetries(deps));
    taken++;
    try {
      await runBroadcast(deps, row);
    } finally {
      await deps.db.update(broadcasts).set({ leaseUntil: null }).where(eq(broadcasts.id, row.id));
    }
  }
}

async function lease({ db, clock }: RunnerDeps): Promise<BroadcastRow | undefined> {
  const now = clock.now();
  const [row] = await queryRows<{ id: string }>(
    db,
    sql`update broadcasts set lease_until = ${new Date(now.getTime() + LEASE_MS).toISOString()}::timestamptz
         where id = (select id from broadcasts
                      where next_run_at <= ${now.toISOString()}::timestamptz and status in ('scheduled', 'sending')
                        and (lease_until is null or lease_until < ${now.toISOString()}::timestamptz)
                      order by next_run_at limit 1 for update skip locked)
        returning id`,
  );
  if (!row) return undefined;
  const [full] = await db.select().from(broadcasts).where(eq(broadcasts.id, row.id));
  return full;
}

const systemActor = (organizationId: string): Actor => ({ kind: 'system', organizationId, permissions: new Set(['messages:send']) });

/** Freezes the audience and marks the broadcast sending, with broadcast.started; false when it is no longer scheduled. */
async function start({ db, clock }: RunnerDeps, row: BroadcastRow): Promise<boolean> {
  return db.transaction(async (tx) => {
    const now = clock.now();
    const [current] = await tx.select().from(broadcasts).where(eq(broadcasts.id, row.id)).for('update');
    if (current?.status !== 'scheduled') return false;
    const recipients = await resolveAudience(tx, row.organizationId, { ...row, audience: row.audience as Audience }, now);
    const planned = await planRecipients(tx, current, recipients);
    for (let i = 0; i < recipients.length; i += FREEZE_CHUNK) {
      await tx.insert(broadcastRecipients).values(
        recipients.slice(i, i + FREEZE_CHUNK).map((r, j) => ({
          id: uuidv7(),
          broadcastId: row.id,
          organizationId: row.organizationId,
          seq: i + j,
          contactId: r.contactId,
          phone: r.phone,
          reason: r.reason,
          ...planned[i + j]!,
          createdAt: now,
          updatedAt: now,
        })),
      );
    }
    const [started] = await tx
      .update(broadcasts)
      .set({ status: 'sending', startedAt: now, nextRunAt: now, updatedAt: now })
      .where(eq(broadcasts.id, row.id))
      .returning();
    await recordEvent(tx, row.organizationId, 'broadcast.started', {
      ...broadcastEventBody(started!),
      recipients: recipients.length,
      skipped: recipients.filter((r) => r.status === 'skipped').length,
    });
    return true;
  });
}

async function statusOf(db: Executor, id: string): Promise<string | undefined> {
  const [row] = await db.select({ status: broadcasts.status }).from(broadcasts).where(eq(broadcasts.id, id));
  return row?.status;
}

/** The recipients a run takes: pending or deferred, without a message, of the broadcast's current retry round. */
const takeable = (row: Pick<BroadcastRow, 'id' | 'retryRound'>) =>
  and(
    eq(broadcastRecipients.broadcastId, row.id),
    inArray(broadcastRecipients.status, ['pending', 'deferred']),
    isNull(broadcastRecipients.messageId),
    eq(broadcastRecipients.round, row.retryRound),
  );

/**
 * One run of a leased broadcast: started if scheduled, then a minute's worth of recipients (all of them
 * when unpaced), each step first asking the sending rules (sending-rules.ts: quiet hours, the template's
 * status, the channel's 24-hour room).
 */
async function runBroadcast(deps: RunnerDeps, row: BroadcastRow): Promise<void> {
  const { db, clock } = deps;
  if (row.status === 'scheduled' && !(await start(deps, row))) return;
  await decideDue(deps, row.id);
  const runStart = clock.now();
  let budget = row.perMinute ?? Number.POSITIVE_INFINITY;
  let linked = false;
  const actor = systemActor(row.organizationId);
  for (;;) {
    if ((await statusOf(db, row.id)) !== 'sending') return;
    const gate = await sendingGate(db, row, clock.now());
    if (gate.kind === 'wait') return runAt(deps, row.id, gate.until);
    if (gate.kind === 'pause') return pauseFor(deps, row.id, gate.reason);
    if (gate.linked && row.perMinute === null && !linked) budget = LINKED_PER_MINUTE;
    linked = gate.linked;
    if (gate.room <= 0) {
      const [left] = await db.select({ id: broadcastRecipients.id }).from(broadcastRecipients).where(takeable(row)).limit(1);
      return left ? defer(deps, row, gate.window!) : finish(deps, row.id);
    }
    if (budget <= 0) break;
    const pending = await db
      .select()
      .from(broadcastRecipients)
      .where(takeable(row))
      .orderBy(asc(broadcastRecipients.seq))
      .limit(Math.min(STEP, budget, gate.room));
    if (pending.length === 0) return finish(deps, row.id);
    for (const r of pending) {
      const outcome = await sendOne(deps, actor, row, r);
      if (outcome === 'halt') return;
      if (outcome === 'later') return later(deps, row.id);
    }
    budget -= pending.length;
  }
  // The minute's share is sent: done when it was the last, else the next share a minute after this one began.
  const [left] = await db.select({ id: broadcastRecipients.id }).from(broadcastRecipients).where(takeable(row)).limit(1);
  if (!left) return finish(deps, row.id);
  await runAt(deps, row.id, new Date(runStart.getTime() + (linked ? jitteredMinute() : 60_000)));
}

/** The next run at `at` (the end of quiet hours, the next share). */
async function runAt({ db, clock }: RunnerDeps, id: string, at: Date): Promise<void> {
  await db
    .update(broadcasts)
    .set({ nextRunAt: at, updatedAt: clock.now() })
    .where(and(eq(broadcasts.id, id), eq(broadcasts.status, 'sending')));
}

/** The channel has no room left in its 24 hours: the recipients not sent are deferred, and the broadcast runs when room opens. */
async function defer(deps: RunnerDeps, row: BroadcastRow, window: Date): Promise<void> {
  await deps.db
    .update(broadcastRecipients)
    .set({ status: 'deferred', updatedAt: deps.clock.now() })
    .where(and(takeable(row), eq(broadcastRecipients.status, 'pending')));
  await runAt(deps, row.id, window);
}

/** The sending rules pause the broadcast (its template held by the provider), with the reason and broadcast.paused. */
async function pauseFor({ db, clock }: RunnerDeps, id: string, reason: string): Promise<void> {
  await db.transaction(async (tx) => {
    const now = clock.now();
    const [paused] = await tx
      .update(broadcasts)
      .set({ status: 'paused', pauseReason: reason, updatedAt: now })
      .where(and(eq(broadcasts.id, id), eq(broadcasts.status, 'sending')))
      .returning();
    if (paused) await recordEvent(tx, paused.organizationId, 'broadcast.paused', { ...broadcastEventBody(paused), reason });
  });
}

/** Takes the broadcast up again in a few seconds (not at once: the runner's loop would spin on it). */
async function later({ db, clock }: RunnerDeps, id: string): Promise<void> {
  const now = clock.now();
  await db
    .update(broadcasts)
    .set({ nextRunAt: new Date(now.getTime() + 10_000), updatedAt: now })
    .where(and(eq(broadcasts.id, id), eq(broadcasts.status, 'sending')));
}

/** Every recipient was handed over (or skipped): completed, with broadcast.completed and the counts. */
async function finish(deps: RunnerDeps, id: string): Promise<void> {
  const { db, clock } = deps;
  if (await awaitingDecision(deps, id)) return;
  await db.transaction(async (tx) => {
    const now = clock.now();
    const [done] = await tx
      .update(broadcasts)
      .set({ status: 'completed', nextRunAt: null, finishedAt: now, updatedAt: now })
      .where(and(eq(broadcasts.id, id), eq(broadcasts.status, 'sending')))
      .returning();
    if (!done) return;
    const counts = await recipientCounts(tx, id);
    await recordEvent(tx, done.organizationId, 'broadcast.completed', {
      ...broadcastEventBody(done),
      recipients: counts.total,
      skipped: counts.byStatus.skipped,
    });
  });
}
