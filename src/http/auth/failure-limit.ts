/**
 * The limit on failed authentications by address, checked before any credential is looked up: an
 * address that sent too many requests with a missing or bad credential in the current minute gets
 * 429 at once, without a database lookup, for the rest of that minute. Kept in process memory on
 * purpose (its job is to shed load before the database is touched); with several API processes
 * each counts on its own. Independent of RATE_LIMIT_PER_MINUTE, which counts per credential.
 */
import { addressSubject } from '../../domain/throttle/keys.ts';
import type { Clock } from '../../lib/clock.ts';

const WINDOW_MS = 60_000;

export type AuthFailureLimiter = {
  /** Whole seconds until the address may present a credential again; undefined when it may now. */
  retryAfter(address: string): number | undefined;
  recordFailure(address: string): void;
};

export function createAuthFailureLimiter(options: { perMinute: number; clock: Clock; maxAddresses?: number }): AuthFailureLimiter {
  /** Address -> its current window; oldest window first (Map order), so the first entry goes when full. */
  const windows = new Map<string, { startedAt: number; failures: number }>();
  const maxAddresses = options.maxAddresses ?? 100_000;
  return {
    retryAfter(address) {
      const window = windows.get(addressSubject(address));
      if (!window || window.failures < options.perMinute) return undefined;
      const left = window.startedAt + WINDOW_MS - options.clock.now().getTime();
      return left > 0 ? Math.ceil(left / 1000) : undefined;
    },
    recordFailure(address) {
      const subject = addressSubject(address);
      const now = options.clock.now().getTime();
      const window = windows.get(subject);
      if (window && now - window.startedAt < WINDOW_MS) {
        window.failures++;
        return;
      }
      windows.delete(subject);
      if (windows.size >= maxAddresses) windows.delete(windows.keys().next().value!);
      windows.set(subject, { startedAt: now, failures: 1 });
    },
  };
}
