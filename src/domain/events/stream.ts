/**
 * Live event streams (GET /v1/events/stream): an organization's events in commit order, as they are
 * sequenced, from a cursor GET /v1/events handed out (or from now). Everything comes from the
 * database, so a stream open on one process carries events committed through any other.
 *
 * One hub per process: one LISTEN on EVENTS_SEQUENCED_CHANNEL (the webhook dispatcher NOTIFYs it
 * once per batch it gives positions to) and a slow poll under it, shared by every open stream. On a
 * wake the hub reads, in one query, the events after each organization's furthest-behind live
 * stream and hands each stream those after its own position. A stream first catches up on its own
 * (its backlog, page by page, waiting for a slow receiver), then joins the live set; the hub reads
 * once more after every join, so nothing sequenced in between is missed, and positions only move
 * forward, so nothing is sent twice.
 */
import { sql } from 'drizzle-orm';
import { queryRows, type Database } from '../../db/client.ts';
import type { Logger } from '../../lib/logger.ts';
import type { Actor } from '../actor.ts';
import { EVENTS_SEQUENCED_CHANNEL, type EventType } from './outbox.ts';
import { decodeEventCursor, eventsAfter, latestPosition, type BadEventCursor, type EventItem } from './replay.ts';
import { batchRows } from '../../db/batch-rows.ts';

/** Events read per query, catching up or live. */
const PAGE = 500;

/** Where a stream's events go. */
export type EventSink = {
  /** Takes events in commit order; false when the receiver's buffer is full (catching up waits for drained()). */
  write(events: EventItem[]): boolean;
  /** Settles once the receiver has room again (or is gone). */
  drained(): Promise<void>;
  /** The stream cannot go on (a read failed while catching up): end it, the receiver resumes from its last id. */
  fail(err: unknown): void;
};

export type Following = { stop(): void };

export type EventHub = {
  /** Follows an organization's events after a position: its backlog, then live. */
  follow(input: { organizationId: string; after: number; types?: readonly string[] }, sink: EventSink): Following;
  /** Streams following now (catching up or live). */
  size(): number;
  /** Stops every stream and the listening. */
  close(): Promise<void>;
};

export type EventHubDeps = { database: Pick<Database, 'db' | 'listen' | 'availability'>; logger: Logger; pollMs: number };

type Follower = {
  organizationId: string;
  /** The last position this stream has passed (sent, or skipped by its type filter). */
  position: number;
  types: ReadonlySet<string> | undefined;
  sink: EventSink;
  stopped: boolean;
};

type Row = {
  id: string;
  organization_id: string;
  type: string;
  created_at: Date | string;
  payload: Record<string, unknown>;
  position: number | string;
};

export function createEventHub({ database, logger, pollMs }: EventHubDeps): EventHub {
  const following = new Set<Follower>();
  /** Streams that caught up, by organization: the hub's reads serve them. */
  const live = new Map<string, Set<Follower>>();
  let listening: Promise<(() => Promise<void>) | undefined> | undefined;
  let poll: NodeJS.Timeout | undefined;
  let offAvailable: (() => void) | undefined;
  let reading: Promise<void> | undefined;
  let readAgain = false;
  let closed = false;

  /** Starts the process's one LISTEN (and the poll) with the first stream; it stays until close. */
  const listen = () => {
    listening ??= database
      .listen(EVENTS_SEQUENCED_CHANNEL, () => wake())
      .catch((err: unknown) => {
        logger.warn({ err }, `event streams: LISTEN failed; they read on by polling every ${pollMs} ms`);
        return undefined;
      });
    if (!poll && !closed) {
      poll = setInterval(wake, pollMs);
      poll.unref();
      offAvailable = database.availability.onAvailable(wake);
    }
    return listening;
  };

  const wake = () => {
    // While the database is down nothing is read; its return wakes the hub (streams resume where they were).
    if (closed || live.size === 0 || !database.availability.up()) return;
    if (reading) {
      readAgain = true;
      return;
    }
    reading = readLive().finally(() => (reading = undefined));
  };

  async function readLive(): Promise<void> {
    do {
      readAgain = false;
      const from = [...live].map(([organization_id, followers]) => ({
        organization_id,
        after: Math.min(...[...followers].map((f) => f.position)),
      }));
      if (from.length === 0) return;
      let rows: Row[];
      try {
        rows = await queryRows<Row>(
          database.db,
          sql`
            select e.id, e.organization_id, e.type, e.created_at, e.payload, e.position
            from ${batchRows(JSON.stringify(from), 's', 'organization_id uuid, after bigint')}
            join events e on e.organization_id = s.organization_id and e.position > s.after
            order by e.position
            limit ${PAGE}`,
        );
      } catch (err) {
        // The next NOTIFY or poll tries again; the streams stay where they are.
        logger.warn({ err }, 'event streams: reading new events failed');
        return;
      }
      deliver(
        rows.map((r) => ({
          organizationId: r.organization_id,
          item: { id: r.id, type: r.type, createdAt: new Date(r.created_at), payload: r.payload, position: Number(r.position) },
        })),
      );
      if (rows.length === PAGE) readAgain = true;
    } while (readAgain && !closed);
  }

  function deliver(rows: Array<{ organizationId: string; item: EventItem }>): void {
    const batches = new Map<Follower, EventItem[]>();
    for (const { organizationId, item } of rows) {
      for (const f of live.get(organizationId) ?? []) {
        if (item.position <= f.position) continue;
        f.position = item.position;
        if (f.types && !f.types.has(item.type)) continue;
        const batch = batches.get(f) ?? [];
        batches.set(f, batch);
        batch.push(item);
      }
    }
    for (const [f, batch] of batches) if (!f.stopped) f.sink.write(batch);
  }

  const stop = (f: Follower) => {
    f.stopped = true;
    following.delete(f);
    const set = live.get(f.organizationId);
    set?.delete(f);
    if (set?.size === 0) live.delete(f.organizationId);
  };

  async function catchUp(f: Follower): Promise<void> {
    // Listening first: whatever is sequenced from here on wakes the hub.
    await listen();
    const types = f.types ? [...f.types] : undefined;
    for (;;) {
      if (f.stopped) return;
      const page = await eventsAfter({ db: database.db }, f.organizationId, f.position, { limit: PAGE, types });
      if (f.stopped) return;
      if (page.length > 0) {
        f.position = page.at(-1)!.position;
        if (!f.sink.write(page)) await f.sink.drained();
      }
      if (page.length < PAGE) break;
    }
    if (f.stopped) return;
    const set = live.get(f.organizationId) ?? new Set<Follower>();
    live.set(f.organizationId, set);
    set.add(f);
    // What was sequenced between the last page and joining.
    wake();
  }

  return {
    follow({ organizationId, after, types }, sink) {
      const f: Follower = { organizationId, position: after, types: types ? new Set(types) : undefined, sink, stopped: closed };
      if (closed) return { stop: () => undefined };
      following.add(f);
      catchUp(f).catch((err: unknown) => {
        if (f.stopped) return;
        stop(f);
        sink.fail(err);
      });
      return { stop: () => stop(f) };
    },
    size: () => following.size,
    async close() {
      closed = true;
      clearInterval(poll);
      offAvailable?.();
      for (const f of [...following]) stop(f);
      await reading;
      const unlisten = await listening;
      await unlisten?.();
    },
  };
}

/** An open stream waiting for its receiver: follow() starts it. */
export type OpenedStream = { ok: true; follow(sink: EventSink): Following };

/**
 * Opens the actor's organization's stream after a cursor of GET /v1/events (or one of its ids), or
 * from the newest position without one; a cursor that is not ours is refused before anything is sent.
 */
export async function openEventStream(
  { database, hub }: { database: Pick<Database, 'db'>; hub: EventHub },
  actor: Actor,
  input: { cursor?: string; types?: readonly EventType[] },
): Promise<OpenedStream | BadEventCursor> {
  const after = input.cursor === undefined ? await latestPosition({ db: database.db }) : decodeEventCursor(input.cursor);
  if (after === undefined) return { ok: false, refusal: 'bad_cursor' };
  return { ok: true, follow: (sink) => hub.follow({ organizationId: actor.organizationId, after, types: input.types }, sink) };
}
