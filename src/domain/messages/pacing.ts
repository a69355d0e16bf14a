/**
 * Outbound pacing per channel: a token bucket at the channel's allowed rate (80 messages a second
 * for an official number by default, 5 for a gateway), and pauses keyed to the provider's
 * rate-limit answers: of the whole channel, or of one recipient (the provider's pair rate limit holds
 * only the sends to that recipient). Per process: with several worker processes, set
 * throughput_per_second to the number's rate divided by the process count.
 */
export type Pacer = {
  /**
   * Takes one send slot; returns how many milliseconds to wait before using it. A slot further
   * away than `maxWaitMs` is not taken (the wait is returned so the caller can come back then).
   */
  reserve(channelId: string, ratePerSecond: number, maxWaitMs?: number): number;
  /** Holds every send of the channel for `ms` (after a rate-limit error). */
  pause(channelId: string, ms: number): void;
  /** Holds the channel's sends to one recipient for `ms` (after a per-recipient rate-limit error). */
  pauseRecipient(channelId: string, recipient: string, ms: number): void;
  /** How many milliseconds sends of the channel to this recipient are still held (0 when not). */
  recipientWait(channelId: string, recipient: string): number;
};

/** Recipient pauses kept before the expired ones are swept. */
const RECIPIENT_SWEEP_AT = 10_000;

export function createPacer(now: () => number = () => performance.now()): Pacer {
  const next = new Map<string, number>();
  const held = new Map<string, number>();
  const recipientKey = (channelId: string, recipient: string) => `${channelId}\u0000${recipient}`;
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
    pauseRecipient(channelId, recipient, ms) {
      const t = now();
      if (held.size >= RECIPIENT_SWEEP_AT) for (const [key, until] of held) if (until <= t) held.delete(key);
      const key = recipientKey(channelId, recipient);
      held.set(key, Math.max(held.get(key) ?? 0, t + ms));
    },
    recipientWait(channelId, recipient) {
      const key = recipientKey(channelId, recipient);
      const until = held.get(key);
      if (until === undefined) return 0;
      const wait = until - now();
      if (wait > 0) return wait;
      held.delete(key);
      return 0;
    },
  };
}
