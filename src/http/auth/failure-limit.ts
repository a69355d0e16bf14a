/**
 * The limit on failed authentications by address, checked before any credential is looked up: an
 * address that sent too many requests with a missing or bad credential within a minute (from its
 * first failure) gets 429 at once, without a lookup, for the rest of that minute. The failures are counted in the
 * shared store (lib/counters.ts), so they add up across processes; the check itself reads only this
 * process's memory (its job is to shed load before anything is touched), which learns an address
 * is over from the count its own next failure returns: each process lets at most one more failure
 * through before it refuses too. Independent of the request limits (http/rate-limit.ts).
 */
import { addressSubject } from '../../domain/throttle/keys.ts';
import type { Clock } from '../../lib/clock.ts';
import type { FailOpenCounter } from '../../lib/counters.ts';

const WINDOW_MS = 60_000;

export type AuthFailureLimiter = {
  /** Whole seconds until the address may present a credential again; undefined when it may now. */
  retryAfter(address: string): number | undefined;
  recordFailure(address: string): Promise<void>;
};

export function createAuthFailureLimiter(options: {
  perMinute: number;
  clock: Clock;
  count: FailOpenCounter;
  maxAddresses?: number;
}): AuthFailureLimiter {
  /** Address -> the end of the window it is over the limit in; oldest first (Map order), so the first entry goes when full. */
  const blocked = new Map<string, number>();
  const maxAddresses = options.maxAddresses ?? 100_000;
  return {
    retryAfter(address) {
      const subject = addressSubject(address);
      const until = blocked.get(subject);
      if (until === undefined) return undefined;
      const left = until - options.clock.now().getTime();
      if (left > 0) return Math.ceil(left / 1000);
      blocked.delete(subject);
      return undefined;
    },
    async recordFailure(address) {
      const subject = addressSubject(address);
      const failures = await options.count(`auth_failure:ip:${subject}`, options.clock.now().getTime(), WINDOW_MS);
      if (failures === undefined || failures.count < options.perMinute) return;
      blocked.delete(subject);
      if (blocked.size >= maxAddresses) blocked.delete(blocked.keys().next().value!);
      blocked.set(subject, failures.windowStart + WINDOW_MS);
    },
  };
}
