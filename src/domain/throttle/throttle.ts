/**
 * Attempt throttles for anything that checks a guessable secret (login passwords; later invitation
 * acceptance and device user codes). Each key (`login:account:<email>`, `login:ip:<address>`, ...)
 * is a leaky bucket in the `throttles` table, so every process shares it: a number of attempts go
 * free, then each further attempt makes the next one wait twice as long as the last, up to a cap;
 * quiet time forgives attempts one by one, and a success forgets them. The cap and the forgiving
 * keep an attacker from locking a real user out for good: at worst the user waits the cap.
 *
 * An attempt is charged before the secret is checked (and refunded on success), so parallel
 * guesses cannot all slip in before the first failure is recorded.
 */
import { eq, lt, sql } from 'drizzle-orm';
import type { Executor } from '../../db/client.ts';
import { throttles } from '../../db/schema.ts';
import type { Clock } from '../../lib/clock.ts';

export type ThrottlePolicy = {
  /** Attempts allowed, back to back, before any wait. */
  freeAttempts: number;
  /** The wait after the first attempt beyond the free ones; it doubles with each further attempt. */
  baseDelayMs: number;
  /** No wait is longer. */
  maxDelayMs: number;
  /** One attempt is forgiven per this much time without attempts. */
  forgiveEveryMs: number;
};

export type ThrottledKey = { key: string; policy: ThrottlePolicy };

export type ThrottleDeps = { db: Executor; clock: Clock };

export type AttemptDecision = { allowed: true } | { allowed: false; key: string; retryAt: Date; retryAfterSeconds: number };

/** The wait that follows the attempt numbered `attempts` (1 is the first). */
export function delayAfter(policy: ThrottlePolicy, attempts: number): number {
  const beyond = attempts - policy.freeAttempts;
  if (beyond <= 0) return 0;
  // 2^40 base delays exceed any cap; the bound keeps the arithmetic finite.
  return Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.min(beyond - 1, 40));
}

/** Attempts left on record after `elapsedMs` of quiet. */
function forgiven(policy: ThrottlePolicy, attempts: number, elapsedMs: number): number {
  return Math.max(0, attempts - Math.floor(Math.max(0, elapsedMs) / policy.forgiveEveryMs));
}

/**
 * Charges one attempt to each key, in order, in one transaction. At the first key still waiting out
 * a delay the attempt is refused, and the keys after it are not charged (a refused attempt never
 * lengthens another key's wait). Keep the order fixed per purpose (address before account).
 */
export async function takeAttempt(deps: ThrottleDeps, keys: readonly ThrottledKey[]): Promise<AttemptDecision> {
  const now = deps.clock.now();
  return deps.db.transaction(async (tx) => {
    for (const { key, policy } of keys) {
      // The row exists before it is locked, so concurrent first attempts queue on it too.
      await tx.insert(throttles).values({ key, attempts: 0, lastAttemptAt: now }).onConflictDoNothing();
      const [row] = await tx.select().from(throttles).where(eq(throttles.key, key)).for('update');
      if (!row) throw new Error(`throttle row ${key} vanished`);
      if (row.blockedUntil && row.blockedUntil.getTime() > now.getTime()) {
        return {
          allowed: false,
          key,
          retryAt: row.blockedUntil,
          retryAfterSeconds: Math.max(1, Math.ceil((row.blockedUntil.getTime() - now.getTime()) / 1000)),
        };
      }
      const attempts = forgiven(policy, row.attempts, now.getTime() - row.lastAttemptAt.getTime()) + 1;
      const delay = delayAfter(policy, attempts);
      await tx
        .update(throttles)
        .set({ attempts, lastAttemptAt: now, blockedUntil: delay > 0 ? new Date(now.getTime() + delay) : null })
        .where(eq(throttles.key, key));
    }
    return { allowed: true } as const;
  });
}

/**
 * After a successful attempt: `forget` keys start over (the account that just proved its secret);
 * `refund` keys get back the attempt charged for it (the address, which may be shared, keeps its
 * other failures).
 */
export async function settleAttempt(
  deps: { db: Executor },
  input: { forget: readonly string[]; refund: readonly string[] },
): Promise<void> {
  for (const key of input.forget) await deps.db.delete(throttles).where(eq(throttles.key, key));
  for (const key of input.refund) {
    await deps.db
      .update(throttles)
      .set({ attempts: sql`greatest(${throttles.attempts} - 1, 0)`, blockedUntil: null })
      .where(eq(throttles.key, key));
  }
}

/** Deletes throttle rows with no attempt for `quietMs` (their attempts are forgiven by then). */
export async function purgeThrottles(deps: { db: Executor; clock: Clock }, quietMs: number): Promise<number> {
  const rows = await deps.db
    .delete(throttles)
    .where(lt(throttles.lastAttemptAt, new Date(deps.clock.now().getTime() - quietMs)))
    .returning({ key: throttles.key });
  return rows.length;
}
