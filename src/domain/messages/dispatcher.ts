/**
 * The message dispatcher of a worker process. A message row is its own dispatch job: it is due
 * while `dispatch_at` is set and past. The dispatcher claims due rows (skipping rows another worker
 * holds) by pushing `dispatch_at` forward by a lease, sends each through dispatchMessage, then sets
 * `dispatch_at` to when the message is due again, or clears it. A worker that dies mid-send leaves
 * its rows due again when the lease runs out; dispatchMessage knows an attempt that never answered.
 * Woken at once by an accept in this process, by NOTIFY from others, and by a poll as a backstop.
 */
import { and, eq, inArray, isNotNull, sql } from 'drizzle-orm';
import type { Database } from '../../db/client.ts';
import { messages } from '../../db/schema.ts';
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

export type DispatcherOptions = { database: Database; concurrency: number; pollMs: number };

export function createMessageDispatcher(deps: DispatchDeps, options: DispatcherOptions): MessageDispatcher {
  const inFlight = new Set<Promise<void>>();
  const held = new Set<string>();
  let renewal: NodeJS.Timeout | undefined;
  let running = false;
  let claiming = false;
  let again = false;
  let poll: NodeJS.Timeout | undefined;
  let unlisten: (() => Promise<void>) | undefined;
  let offAvailable: (() => void) | undefined;

  const claim = (limit: number): Promise<MessageRow[]> => {
    const now = deps.clock.now();
    return deps.db
      .update(messages)
      .set({ dispatchAt: new Date(now.getTime() + DISPATCH_LEASE_SECONDS * 1000) })
      .where(
        sql`${messages.id} in (select id from messages
                                where dispatch_at <= ${now.toISOString()}::timestamptz
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

  const handle = async (row: MessageRow) => {
    held.add(row.id);
    try {
      await settle(row.id, await dispatchMessage(deps, row));
    } catch (err) {
      deps.logger.error({ err, message_id: row.id }, 'message dispatch failed; will try again');
      await settle(row.id, ERROR_RETRY_SECONDS).catch(() => undefined);
    } finally {
      held.delete(row.id);
    }
  };

  const pump = async (): Promise<void> => {
    // While the database is away nothing can be claimed: the poll stays idle until it is back.
    if (!running || !options.database.availability.up()) return;
    if (claiming) {
      again = true;
      return;
    }
    claiming = true;
    try {
      do {
        again = false;
        const room = options.concurrency - inFlight.size;
        if (room <= 0) break;
        const rows = await claim(room);
        for (const row of rows) {
          const task: Promise<void> = handle(row).finally(() => {
            inFlight.delete(task);
            void pump();
          });
          inFlight.add(task);
        }
        if (rows.length === room) again = true;
      } while (again && running);
    } catch (err) {
      if (running) deps.logger.error({ err }, 'could not claim due messages');
    } finally {
      claiming = false;
    }
  };

  return {
    async start() {
      if (running) return;
      running = true;
      unlisten = await options.database.listen(DISPATCH_CHANNEL, () => void pump());
      offAvailable = options.database.availability.onAvailable(() => void pump());
      poll = setInterval(() => void pump(), options.pollMs);
      poll.unref();
      renewal = setInterval(() => void renew(), (DISPATCH_LEASE_SECONDS * 1000) / 3);
      renewal.unref();
      void pump();
    },
    async stop({ timeoutMs }) {
      running = false;
      clearInterval(poll);
      clearInterval(renewal);
      offAvailable?.();
      await unlisten?.().catch(() => undefined);
      unlisten = undefined;
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([Promise.allSettled([...inFlight]), new Promise((r) => (timer = setTimeout(r, timeoutMs)))]);
      clearTimeout(timer);
    },
    wake() {
      void pump();
    },
  };
}
