/**
 * Event replay: an organization's events in commit order (their dispatch position), so a receiver
 * that was down can catch up by reading (or newest first, for a person reading the log). Only events the dispatcher has sequenced are listed (it does
 * so within milliseconds of the commit, in the worker role); because positions are handed out one
 * transaction at a time after commit, a later page never gains an event before the cursor.
 */
import { and, asc, desc, eq, gt, gte, inArray, isNotNull, lt, max, type SQL } from 'drizzle-orm';
import type { Executor } from '../../db/client.ts';
import { events } from '../../db/schema.ts';
import type { Actor } from '../actor.ts';

/** A sequenced event; position is its place in commit order (what a cursor holds). */
export type EventItem = { id: string; type: string; createdAt: Date; payload: Record<string, unknown>; position: number };
export type EventPage = { ok: true; items: EventItem[]; nextCursor: string; hasMore: boolean };
/** The cursor is not one this listing handed out. */
export type BadEventCursor = { ok: false; refusal: 'bad_cursor' };

/** Commit order (`asc`: the oldest first, for a reader catching up) or its reverse (`desc`: the newest first, for people). */
export type EventOrder = 'asc' | 'desc';

/**
 * A cursor: the position a page ended at, and for `desc` that it reads on before it (older events),
 * so a cursor of one order is never taken for the other's (nor by the stream, which reads on after it).
 */
export function encodeEventCursor(position: number, order: EventOrder = 'asc'): string {
  return Buffer.from(JSON.stringify(order === 'desc' ? { p: position, o: 'desc' } : { p: position })).toString('base64url');
}

/** The position a cursor of ours for that order holds; undefined for anything else. */
export function decodeEventCursor(cursor: string, order: EventOrder = 'asc'): number | undefined {
  try {
    const value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { p?: unknown; o?: unknown };
    if ((value.o === 'desc' ? 'desc' : value.o === undefined ? 'asc' : undefined) !== order) return undefined;
    if (typeof value.p === 'number' && Number.isSafeInteger(value.p) && value.p >= 0) return value.p;
  } catch {
    // fall through
  }
  return undefined;
}

export type EventQuery = { limit: number; cursor?: string; type?: string; since?: Date; order?: EventOrder };

/**
 * A page of events: oldest first after the cursor (from the oldest retained without one), or with
 * `order: 'desc'` newest first before it (from the newest without one). next_cursor is always set:
 * oldest first, keep it to read on later; newest first, it reads on into older events.
 */
export async function listEvents({ db }: { db: Executor }, actor: Actor, query: EventQuery): Promise<EventPage | BadEventCursor> {
  const order = query.order ?? 'asc';
  const from = query.cursor === undefined ? undefined : decodeEventCursor(query.cursor, order);
  if (query.cursor !== undefined && from === undefined) return { ok: false, refusal: 'bad_cursor' };
  const options = { limit: query.limit + 1, types: query.type ? [query.type] : undefined, since: query.since };
  // Read before the page: every event sequenced by then is in the page's reach, so a page that is not
  // full has seen all that match up to it, and the cursor may move there (past events a `type` or
  // `since` left out: reading on later with the cursor alone does not go back to them).
  const head = order === 'asc' ? await latestPosition({ db }) : 0;
  const rows =
    order === 'asc'
      ? await eventsAfter({ db }, actor.organizationId, from ?? 0, options)
      : await eventsBefore({ db }, actor.organizationId, from, options);
  const page = rows.slice(0, query.limit);
  const hasMore = rows.length > query.limit;
  const reached = page.at(-1)?.position ?? from ?? 0;
  return {
    ok: true,
    items: page,
    nextCursor: encodeEventCursor(order === 'asc' && !hasMore ? Math.max(reached, head) : reached, order),
    hasMore,
  };
}

/** An organization's sequenced events after a position, in commit order (of the given types only, when given). */
export async function eventsAfter(
  { db }: { db: Executor },
  organizationId: string,
  after: number,
  options: { limit: number; types?: readonly string[]; since?: Date },
): Promise<EventItem[]> {
  return selectEvents({ db }, organizationId, gt(events.position, after), asc(events.position), options);
}

/** An organization's sequenced events before a position (the newest without one), newest first. */
async function eventsBefore(
  { db }: { db: Executor },
  organizationId: string,
  before: number | undefined,
  options: { limit: number; types?: readonly string[]; since?: Date },
): Promise<EventItem[]> {
  return selectEvents(
    { db },
    organizationId,
    before === undefined ? undefined : lt(events.position, before),
    desc(events.position),
    options,
  );
}

async function selectEvents(
  { db }: { db: Executor },
  organizationId: string,
  bound: SQL | undefined,
  order: SQL,
  options: { limit: number; types?: readonly string[]; since?: Date },
): Promise<EventItem[]> {
  const rows = await db
    .select({ id: events.id, type: events.type, createdAt: events.createdAt, payload: events.payload, position: events.position })
    .from(events)
    .where(
      and(
        eq(events.organizationId, organizationId),
        isNotNull(events.position),
        bound,
        options.types ? inArray(events.type, [...options.types]) : undefined,
        options.since ? gte(events.createdAt, options.since) : undefined,
      ),
    )
    .orderBy(order)
    .limit(options.limit);
  return rows.map((r) => ({ ...r, position: r.position! }));
}

/** The newest position given so far (0 before any): "now" in commit order. */
export async function latestPosition({ db }: { db: Executor }): Promise<number> {
  const [row] = await db.select({ last: max(events.position) }).from(events);
  return row?.last ?? 0;
}
