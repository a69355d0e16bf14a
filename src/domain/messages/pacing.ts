/**
 * Outbound pacing per channel, shared by every worker process through the database: a token bucket
 * at the channel's allowed rate (80 messages a second for an official number by default, 5 for a
 * gateway), and pauses keyed to the provider's rate-limit answers: of the whole channel, or of one
 * recipient (the provider's pair rate limit holds only the sends to that recipient).
 *
 * The bucket is a time, channel_pacing.next_slot_at: the dispatcher's claim (dispatcher.ts) gives
 * each message it takes the next slot, one interval apart, and moves the time on, in the claim's own
 * statement, so N processes together keep one channel's pace and no send costs a round trip more. A
 * message whose slot is further away than MAX_SLOT_WAIT_MS is not taken; it is left due when its slot
 * nears. A recipient hold (recipient_holds) leaves that recipient's messages due when it ends.
 */
import { sql, type SQL } from 'drizzle-orm';
import type { Executor } from '../../db/client.ts';
import { channelPacing, recipientHolds } from '../../db/schema.ts';
import type { Clock } from '../../lib/clock.ts';
import { PLATFORMS, providerModule } from '../../providers/registry.ts';

/** An idle channel may start with this much of its rate at once (one second's worth). */
export const BURST_MS = 1000;
/** The furthest slot a claim takes: a claimed message waits in its worker at most this long. */
export const MAX_SLOT_WAIT_MS = 2000;
/** Holds kept after they ended, before the next hold written deletes them. */
const HOLD_SWEEP_MS = 60_000;

export type Pacer = {
  /** Holds every send of the channel for `ms` (after a rate-limit error), in every process. */
  pause(channelId: string, ms: number): Promise<void>;
  /** Holds the channel's sends to one recipient for `ms` (after a per-recipient rate-limit error), in every process. */
  pauseRecipient(channelId: string, recipient: string, ms: number): Promise<void>;
};

export function createPacer(deps: { db: Executor; clock: Clock }): Pacer {
  return {
    async pause(channelId, ms) {
      const until = new Date(deps.clock.now().getTime() + ms);
      await deps.db
        .insert(channelPacing)
        .values({ channelId, nextSlotAt: until })
        .onConflictDoUpdate({
          target: channelPacing.channelId,
          set: { nextSlotAt: sql`greatest(${channelPacing.nextSlotAt}, excluded.next_slot_at)` },
        });
    },
    async pauseRecipient(channelId, recipient, ms) {
      const now = deps.clock.now();
      const until = new Date(now.getTime() + ms);
      await deps.db.execute(sql`
        with swept as (delete from ${recipientHolds} where until < ${new Date(now.getTime() - HOLD_SWEEP_MS).toISOString()}::timestamptz)
        insert into ${recipientHolds} (channel_id, recipient, until) values (${channelId}, ${recipient}, ${until.toISOString()}::timestamptz)
        on conflict (channel_id, recipient) do update set until = greatest(recipient_holds.until, excluded.until)`);
    },
  };
}

/**
 * A channel's send interval in milliseconds, in SQL over `channels c`: its throughput_per_second
 * setting when that is a positive number, else its platform's default pace.
 */
export function intervalMsOf(): SQL {
  const defaults = JSON.stringify(Object.fromEntries(PLATFORMS.map((p) => [p, providerModule(p).pacing.throughputPerSecond])));
  const setting = sql`c.settings->>'throughput_per_second'`;
  return sql`(1000.0 / greatest(0.01, coalesce(
      nullif(case when ${setting} ~ '^[0-9]+(\\.[0-9]+)?$' then (${setting})::float8 end, 0),
      (${defaults}::jsonb->>c.platform)::float8,
      1)))`;
}
