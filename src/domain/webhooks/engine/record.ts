/**
 * The engine's record step: what an attempt means for its delivery (succeeded, another attempt when,
 * failed), queued to be written with others (flush.ts); a retry due before the next poll gets a timer.
 */
import { uuidv7 } from '../../../lib/ids.ts';
import { nextAttemptDelay } from '../schedule.ts';
import type { AttemptOutcome } from '../send.ts';
import { claimSoon, type ClaimedRow, type EngineContext, type Outcome } from './context.ts';
import { scheduleFlush } from './flush.ts';

export function recordOutcome(
  engine: EngineContext,
  row: ClaimedRow,
  trigger: Outcome['trigger'],
  outcome: AttemptOutcome | null,
  skippedBecause: string | null,
): void {
  const { clock, settings } = engine.deps;
  const made = outcome ? row.attempts + 1 : row.attempts;
  let status: Outcome['status'];
  let next: Date | null = null;
  if (outcome?.succeeded) {
    status = 'succeeded';
  } else if (!outcome || row.manual) {
    // Nothing could be sent, or this was the one attempt a manual retry of a failed delivery gets.
    status = 'failed';
  } else {
    const delay = nextAttemptDelay({ schedule: settings.retrySchedule, jitter: settings.retryJitter }, made);
    if (delay === null) {
      status = 'failed';
    } else {
      status = 'pending';
      next = new Date(clock.now().getTime() + delay);
      scheduleDue(engine, next);
    }
  }
  engine.deps.recorder?.attempt(
    row.endpoint_id,
    !outcome ? 'skipped' : status === 'pending' ? 'retry' : status,
    outcome ? outcome.durationMs / 1000 : null,
  );
  engine.outcomes.push({
    delivery_id: row.id,
    attempt_id: uuidv7(),
    organization_id: row.organization_id,
    endpoint_id: row.endpoint_id,
    trigger,
    test: row.test,
    skipped: outcome === null,
    succeeded: outcome?.succeeded ?? false,
    attempted_at: outcome?.attemptedAt.toISOString() ?? null,
    status_code: outcome?.statusCode ?? null,
    duration_ms: outcome?.durationMs ?? null,
    response_body: outcome?.responseBody ?? null,
    error: outcome ? (outcome.error ?? (outcome.succeeded ? null : `HTTP ${outcome.statusCode}`)) : skippedBecause,
    status,
    attempts: made,
    next_attempt_at: next?.toISOString() ?? null,
  });
  scheduleFlush(engine);
}

function scheduleDue(engine: EngineContext, at: Date): void {
  const ms = at.getTime() - engine.deps.clock.now().getTime();
  // Polling finds the later ones; a timer only makes the sooner ones punctual.
  if (ms >= engine.deps.settings.pollIntervalMs || at.getTime() >= engine.dueAt) return;
  clearTimeout(engine.dueTimer);
  engine.dueAt = at.getTime();
  engine.dueTimer = setTimeout(
    () => {
      engine.dueAt = Infinity;
      claimSoon(engine);
    },
    Math.max(0, ms),
  );
  engine.dueTimer.unref();
}
