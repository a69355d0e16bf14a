/**
 * The retry schedule. schedule[i] is the wait before attempt i + 1, counted from the failure of the
 * attempt before it (schedule[0], normally 0, is the first attempt's: at once). Its length is the
 * number of automatic attempts; after the last one fails the delivery is `failed`. Each wait is
 * moved at random by up to ±jitter of itself, so the retries of a burst do not all land at once.
 */
export type RetryPolicy = { schedule: readonly number[]; jitter: number };

/** The delay before the next automatic attempt after `attemptsMade` attempts, or null when none is left. */
export function nextAttemptDelay(policy: RetryPolicy, attemptsMade: number, random: () => number = Math.random): number | null {
  const base = policy.schedule[attemptsMade];
  if (base === undefined) return null;
  const spread = base * policy.jitter;
  return Math.max(0, Math.round(base - spread + 2 * spread * random()));
}

/** The schedule as words, for documentation: `at once, 5 s, 5 min, ...`. */
export function describeSchedule(schedule: readonly number[]): string {
  return schedule.map((ms, i) => (i === 0 && ms === 0 ? 'at once' : formatDuration(ms))).join(', ');
}

export function formatDuration(ms: number): string {
  if (ms === 0) return '0 s';
  if (ms % 86_400_000 === 0) return `${ms / 86_400_000} d`;
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000} h`;
  if (ms % 60_000 === 0) return `${ms / 60_000} min`;
  if (ms % 1000 === 0) return `${ms / 1000} s`;
  return `${ms} ms`;
}
