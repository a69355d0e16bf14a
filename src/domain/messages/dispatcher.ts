/**
 * The message dispatcher of a worker process. A message row is its own dispatch job: it is due
 * while `dispatch_at` is set and past. The dispatcher claims due rows (skipping rows another worker
 * holds) by pushing `dispatch_at` forward by a lease, sends each through dispatchMessage, then sets
 * `dispatch_at` to when the message is due again, or clears it. A worker that dies mid-send leaves
 * its rows due again when the lease runs out; dispatchMessage knows an attempt that never answered.
 * A channel whose connection one process holds (a session row: the embedded engine) is claimed only
 * by that process while its lease is live, since only it can send.
 * Woken at once by an accept in this process, by NOTIFY from others, and by a poll as a backstop
 * (the shared lease loop, src/lib/lease-loop.ts, which also pauses it while the database is down).
 */
import { and, eq, inArray, isNotNull, sql } from 'drizzle-orm';
import type { Database } from '../../db/client.ts';
import { channels, messages } from '../../db/schema.ts';
import type { ChannelRow } from '../channels/channels.ts';
import { createLeaseLoop } from '../../lib/lease-loop.ts';
import { dispatchMessage, type DispatchDeps } from './dispatch.ts';
import { DISPATCH_CHANNEL, type MessageRow } from './messages.ts';

/**
 * How long a claimed message is held before another worker may take it; the holder renews it every
 * third of that while the send runs, so a dead worker's messages are taken up within this time.
 */
export const DISPATCH_LEASE_SECONDS = 30;
/** A message whose handling threw (the database went away, say) is tried again after this long. */
const ERROR_RETRY_SECONDS = 15;

export type MessageDispatcher = {
  start(): Promise<void>;
  /** Stops claiming; waits up to timeoutMs for the sends in flight. */
  stop(options: { timeoutMs: number }): Promise<void>;
  /** Claims due messages now instead of at the next poll. */
  wake(): void;
};

export type DispatcherOptions = {
  database: Database;
  concurrency: number;
  pollMs: number;
  /** This process's id: a channel whose connection one process holds (a wanted channel session) is sent from there only. */
  processId: string;
};

export function createMessageDispatcher(deps: DispatchDeps, options: DispatcherOptions): MessageDispatcher {
  const held = new Set<string>();

  const claim = (limit: number): Promise<MessageRow[]> => {
    const now = deps.clock.now();
    return deps.db
      .update(messages)
      .set({ dispatchAt: new Date(now.getTime() + DISPATCH_LEASE_SECONDS * 1000) })
      .where(
        // A channel whose connection lives in one process (a wanted session row, held under a lease) is
        // sent from that process only, while its lease is live; every other channel from any process.
        sql`${messages.id} in (select id from messages
                                where dispatch_at <= ${now.toISOString()}::timestamptz
                                  and not exists (select 1 from channel_sessions s
                                                   where s.channel_id = messages.channel_id and s.wanted
                                                     and not (s.owner = ${options.processId} and s.lease_until > ${now.toISOString()}::timestamptz))
                                order by dispatch_at limit ${limit}
                                for update skip locked)`,
      )
      .returning();
  };

  const settle = async (id: string, dueInSeconds: number | null) => {
    const dispatchAt = dueInSeconds === null ? null : new Date(deps.clock.now().getTime() + dueInSeconds * 1000);
    held.delete(id);
    await deps.db.update(messages).set({ dispatchAt }).where(eq(messages.id, id));
  };

  const renew = async () => {
    if (held.size === 0) return;
    const until = new Date(deps.clock.now().getTime() + DISPATCH_LEASE_SECONDS * 1000);
    await deps.db
      .update(messages)
      .set({ dispatchAt: until })
      .where(and(inArray(messages.id, [...held]), isNotNull(messages.dispatchAt)))
      .catch((err: unknown) => deps.logger.warn({ err }, 'could not renew the lease of messages being sent'));
  };

  const handle = async (row: MessageRow, channel: ChannelRow | undefined) => {
    held.add(row.id);
    try {
      await settle(row.id, await dispatchMessage(deps, row, { channel }));
    } catch (err) {
      deps.logger.error({ err, message_id: row.id }, 'message dispatch failed; will try again');
      await settle(row.id, ERROR_RETRY_SECONDS).catch(() => undefined);
    } finally {
      held.delete(row.id);
    }
  };

  const loop = createLeaseLoop({
    name: 'message dispatcher',
    database: options.database,
    channels: [{ channel: DISPATCH_CHANNEL }],
    pollMs: options.pollMs,
    logger: deps.logger,
    every: { ms: (DISPATCH_LEASE_SECONDS * 1000) / 3, run: renew },
    async pass() {
      const room = options.concurrency - loop.inFlight();
      if (room <= 0) return false;
      const rows = await claim(room);
      if (rows.length === 0) return false;
      // Each channel of the claim read once, not once per message.
      const channelIds = [...new Set(rows.map((r) => r.channelId))];
      const found = new Map((await deps.db.select().from(channels).where(inArray(channels.id, channelIds))).map((c) => [c.id, c]));
      for (const row of rows) loop.run(() => handle(row, found.get(row.channelId)), loop.wake);
      // All it could take: more may be due.
      return rows.length === room;
    },
  });

  return {
    start: () => loop.start(),
    stop: ({ timeoutMs }) => loop.stop({ timeoutMs }),
    wake: loop.wake,
  };
}
