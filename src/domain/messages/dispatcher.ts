/**
 * The message dispatcher of a worker process. A message row is its own dispatch job: it is due
 * while `dispatch_at` is set and past. The dispatcher claims due rows (skipping rows another worker
 * holds) by pushing `dispatch_at` forward by a lease, sends each through dispatchMessage, then sets
 * `dispatch_at` to when the message is due again, or clears it (a send's `sent` write clears it
 * itself: every move out of `queued` does, messages.ts writeMoves). A worker that dies mid-send leaves
 * its rows due again when the lease runs out; dispatchMessage knows an attempt that never answered.
 * A channel whose connection one process holds (a session row: the embedded engine) is claimed only
 * by that process while its lease is live, since only it can send.
 * Woken at once by an accept in this process, by NOTIFY from others, and by a poll as a backstop
 * (the shared lease loop, src/lib/lease-loop.ts, which also pauses it while the database is down).
 */
import { getTableColumns, inArray, sql } from 'drizzle-orm';
import { queryRows, type Database, type Executor } from '../../db/client.ts';
import { channels, messages } from '../../db/schema.ts';
import type { ChannelRow } from '../channels/channels.ts';
import { createBatcher } from '../../lib/batcher.ts';
import { createLeaseLoop } from '../../lib/lease-loop.ts';
import { dispatchMessage, recordAttempts, recordSent, type DispatchDeps, type SendWrites } from './dispatch.ts';
import { DISPATCH_CHANNEL, type MessageRow } from './messages.ts';
import { BURST_MS, intervalMsOf, MAX_SLOT_WAIT_MS } from './pacing.ts';
import { batchIds, batchRows } from '../../db/batch-rows.ts';

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
  /** Sends under way in this process (claimed and not yet settled). */
  inFlight(): number;
};

export type DispatcherOptions = {
  database: Database;
  concurrency: number;
  pollMs: number;
  /** This process's id: a channel whose connection one process holds (a wanted channel session) is sent from there only. */
  processId: string;
};

/**
 * Pushes the leases of messages being sent to `until`. A message another transaction holds locked
 * is skipped, not waited for: that is a status write (a send's `sent`, a provider's report), whose
 * move out of `queued` ends the lease anyway, and waiting for it here (rows taken in no particular
 * order) deadlocked with status writes, which take theirs in id order: the loser's send was tried
 * again 15 s later. A lease skipped once is renewed at the next turn, well inside its 30 s.
 */
export async function renewLeases(db: Executor, ids: string[], until: Date): Promise<void> {
  if (ids.length === 0) return;
  await db.execute(sql`
    update messages set dispatch_at = ${until.toISOString()}::timestamptz
     where id in (select id from messages where id in ${batchIds(ids)} and dispatch_at is not null order by id for update skip locked)`);
}

/** A claimed row: the message, and the slot of its channel's pace reserved for it (ms since the epoch; null: none, the channel cannot send now). */
type ClaimedRow = { row: MessageRow; sendAt: number | null };

/** Settings of the writes the dispatcher gathers (attempts, sends, lease releases): rows per statement, statements at once of each kind. */
const WRITE_BATCH = { maxBatch: 200, maxInFlight: 2 };

export function createMessageDispatcher(deps: DispatchDeps, options: DispatcherOptions): MessageDispatcher {
  const held = new Set<string>();
  const columns = Object.entries(getTableColumns(messages));

  /**
   * Claims due rows under a lease and, in the same statement, reserves each a slot of its channel's
   * pace (pacing.ts): rows whose slot is too far away are left due when it nears, rows to a held
   * recipient when the hold ends; neither is returned.
   */
  const claim = async (limit: number): Promise<ClaimedRow[]> => {
    const now = deps.clock.now();
    const nowMs = now.getTime();
    const raw = await queryRows<Record<string, unknown> & { claimed_send_at: number | null }>(
      deps.db,
      sql`
        with due as (
          select id, channel_id, to_phone, dispatch_at from messages
           where dispatch_at <= ${now.toISOString()}::timestamptz
             -- A channel whose connection lives in one process (a wanted session row, held under a lease) is
             -- sent from that process only, while its lease is live; every other channel from any process.
             and not exists (select 1 from channel_sessions s
                              where s.channel_id = messages.channel_id and s.wanted
                                and not (s.owner = ${options.processId} and s.lease_until > ${now.toISOString()}::timestamptz))
           order by dispatch_at limit ${limit}
           for update skip locked
        ),
        held as (
          select d.id, max(h.until) as until from due d
            join recipient_holds h on h.channel_id = d.channel_id and h.recipient = d.to_phone and h.until > ${now.toISOString()}::timestamptz
           group by d.id
        ),
        -- The paces of the claim's channels, locked in one order (claims in other processes wait here, not deadlock).
        locked as (
          select channel_id, next_slot_at from channel_pacing
           where channel_id in (select channel_id from due) order by channel_id for update
        ),
        paced as (
          select c.id as channel_id, ${intervalMsOf()} as interval_ms,
                 greatest(coalesce(extract(epoch from l.next_slot_at) * 1000, 0), ${nowMs - BURST_MS}::float8 + ${intervalMsOf()}) as base
            from channels c left join locked l on l.channel_id = c.id
           where c.id in (select channel_id from due) and c.status = 'connected'
        ),
        slotted as (
          select d.id, d.channel_id, p.interval_ms,
                 p.base + p.interval_ms * (row_number() over (partition by d.channel_id order by d.dispatch_at, d.id) - 1) as slot
            from due d join paced p on p.channel_id = d.channel_id
           where d.id not in (select id from held)
        ),
        reserved as (
          select channel_id, max(slot) + min(interval_ms) as next_ms from slotted
           where slot <= ${nowMs + MAX_SLOT_WAIT_MS}::float8 group by channel_id
        ),
        moved_on as (
          update channel_pacing p set next_slot_at = to_timestamp(r.next_ms / 1000.0)
            from reserved r where p.channel_id = r.channel_id
        ),
        -- A channel's first claim makes its row (two at once: the later keeps the later time).
        created as (
          insert into channel_pacing (channel_id, next_slot_at)
          select r.channel_id, to_timestamp(r.next_ms / 1000.0) from reserved r where r.channel_id not in (select channel_id from locked)
          on conflict (channel_id) do update set next_slot_at = greatest(channel_pacing.next_slot_at, excluded.next_slot_at)
        ),
        claimed as (
          update messages m set dispatch_at = case
              when h.id is not null then h.until
              when s.slot > ${nowMs + MAX_SLOT_WAIT_MS}::float8 then to_timestamp((s.slot - ${MAX_SLOT_WAIT_MS}) / 1000.0)
              else ${new Date(nowMs + DISPATCH_LEASE_SECONDS * 1000).toISOString()}::timestamptz end
            from due d left join held h on h.id = d.id left join slotted s on s.id = d.id
           where m.id = d.id
          returning m.*, h.id is null and (s.slot is null or s.slot <= ${nowMs + MAX_SLOT_WAIT_MS}::float8) as taken, s.slot as claimed_send_at
        )
        select * from claimed where taken`,
    );
    return raw.map((r) => ({ row: messageRowOf(r), sendAt: r.claimed_send_at === null ? null : Number(r.claimed_send_at) }));
  };

  /** A message row as the claim returns it (column names, driver values) in drizzle's form. */
  const messageRowOf = (raw: Record<string, unknown>): MessageRow =>
    Object.fromEntries(
      columns.map(([key, column]) => [key, raw[column.name] == null ? null : column.mapFromDriverValue(raw[column.name])]),
    ) as MessageRow;

  // The leases released (or pushed to when the message is due again), many rows in one statement.
  const release = createBatcher(async (items: Array<{ id: string; dispatchAt: Date | null }>) => {
    await deps.db.execute(sql`
      update messages m set dispatch_at = r.dispatch_at
        from ${batchRows(JSON.stringify(items.map((i) => ({ id: i.id, dispatch_at: i.dispatchAt }))), 'r', 'id uuid, dispatch_at timestamptz')}
       where m.id = r.id`);
    return items.map(() => undefined);
  }, WRITE_BATCH);

  // The messages whose `sent` write is made: it cleared their lease too (a message that leaves
  // `queued` is never due again, advanceStatuses), so none is released after.
  const sentWritten = new Set<string>();

  // The attempts recorded and the sends written for the sends under way, gathered.
  const writeSent = createBatcher(async (sends: Array<{ row: MessageRow; providerMessageId: string | undefined }>) => {
    await recordSent(deps.db, sends, deps.clock.now());
    return sends.map(() => undefined);
  }, WRITE_BATCH);
  const writes: SendWrites = {
    attempt: createBatcher((rows: MessageRow[]) => recordAttempts(deps.db, rows, deps.clock.now()), WRITE_BATCH),
    async sent(row, providerMessageId) {
      await writeSent({ row, providerMessageId });
      sentWritten.add(row.id);
    },
  };

  const settle = async (id: string, dueInSeconds: number | null) => {
    const dispatchAt = dueInSeconds === null ? null : new Date(deps.clock.now().getTime() + dueInSeconds * 1000);
    held.delete(id);
    if (dispatchAt === null && sentWritten.delete(id)) return;
    await release({ id, dispatchAt });
  };

  const renew = async () => {
    if (held.size === 0) return;
    const until = new Date(deps.clock.now().getTime() + DISPATCH_LEASE_SECONDS * 1000);
    await renewLeases(deps.db, [...held], until).catch((err: unknown) =>
      deps.logger.warn({ err }, 'could not renew the lease of messages being sent'),
    );
  };

  const handle = async ({ row, sendAt }: ClaimedRow, channel: ChannelRow | undefined) => {
    held.add(row.id);
    try {
      await settle(row.id, await dispatchMessage(deps, row, { channel, sendAt, writes }));
    } catch (err) {
      deps.logger.error({ err, message_id: row.id }, 'message dispatch failed; will try again');
      await settle(row.id, ERROR_RETRY_SECONDS).catch(() => undefined);
    } finally {
      held.delete(row.id);
      sentWritten.delete(row.id);
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
      const channelIds = [...new Set(rows.map((r) => r.row.channelId))];
      const found = new Map((await deps.db.select().from(channels).where(inArray(channels.id, channelIds))).map((c) => [c.id, c]));
      for (const claimed of rows) loop.run(() => handle(claimed, found.get(claimed.row.channelId)), loop.wake);
      // All it could take: more may be due.
      return rows.length === room;
    },
  });

  return {
    start: () => loop.start(),
    stop: ({ timeoutMs }) => loop.stop({ timeoutMs }),
    wake: loop.wake,
    inFlight: loop.inFlight,
  };
}
