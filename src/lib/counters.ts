/**
 * Hit counters in windows, kept where every process sees them (the database, or Redis when
 * REDIS_URL is set; container.ts picks): the request limits and the bad-credential limit count
 * here, so they hold across any number of API processes.
 */
import type { Logger } from './logger.ts';

export type CounterStore = {
  /** Where the counts live, for logs and docs. */
  readonly kind: 'database' | 'redis';
  /**
   * Adds one hit, at nowMs (ms since the epoch, the caller's clock), to the bucket's current window
   * and returns the window's count and start. A bucket's window starts at its first hit and lasts
   * windowMs; the first hit after it ended starts the next. One round trip, atomic per bucket.
   */
  hit(bucket: string, nowMs: number, windowMs: number): Promise<Hit>;
  close(): Promise<void>;
};

/** A window's count so far (this hit included), and when that window started (ms since the epoch). */
export type Hit = { count: number; windowStart: number };

/** A store's hit that never throws: undefined when the store could not count (the caller lets the request through). */
export type FailOpenCounter = (bucket: string, nowMs: number, windowMs: number) => Promise<Hit | undefined>;

/**
 * Fails open: a store that cannot be reached (or errs) must not turn every request into an error,
 * so its hits answer undefined and the limits are not applied meanwhile. Logged once when counting
 * stops (warn, with the error) and once when it works again (info), not once per request.
 */
export function failOpen(store: CounterStore, logger: Logger): FailOpenCounter {
  let failingSince: number | undefined;
  let missed = 0;
  return async (bucket, nowMs, windowMs) => {
    try {
      const count = await store.hit(bucket, nowMs, windowMs);
      if (failingSince !== undefined) {
        logger.info(
          { store: store.kind, missed, failed_for_ms: Date.now() - failingSince },
          'rate-limit counters work again; limits apply again',
        );
        failingSince = undefined;
        missed = 0;
      }
      return count;
    } catch (err) {
      missed++;
      if (failingSince === undefined) {
        failingSince = Date.now();
        logger.warn({ err, store: store.kind }, 'rate-limit counters cannot be reached; requests are let through unlimited until they can');
      }
      return undefined;
    }
  };
}
