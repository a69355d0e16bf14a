/**
 * Outbound pacing per channel: a token bucket at the channel's allowed rate (80 messages a second
 * for an official number by default, 5 for a gateway), and pauses keyed to the provider's
 * rate-limit answers. Per process: with several worker processes, set throughput_per_second to
 * the number's rate divided by the process count.
 */
export type Pacer = {
  /**
   * Takes one send slot; returns how many milliseconds to wait before using it. A slot further
   * away than `maxWaitMs` is not taken (the wait is returned so the caller can come back then).
   */
  reserve(channelId: string, ratePerSecond: number, maxWaitMs?: number): number;
  /** Holds every send of the channel for `ms` (after a rate-limit error). */
  pause(channelId: string, ms: number): void;
};

export function createPacer(now: () => number = () => performance.now()): Pacer {
  const next = new Map<string, number>();
  return {
    reserve(channelId, ratePerSecond, maxWaitMs = Infinity) {
      const interval = 1000 / Math.max(0.01, ratePerSecond);
      const t = now();
      // A little burst allowance (one second's worth) so an idle channel starts at once.
      const slot = Math.max(next.get(channelId) ?? 0, t - 1000 + interval);
      const wait = Math.max(0, slot - t);
      if (wait > maxWaitMs) return wait;
      next.set(channelId, slot + interval);
      return wait;
    },
    pause(channelId, ms) {
      next.set(channelId, Math.max(next.get(channelId) ?? 0, now() + ms));
    },
  };
}
