/**
 * Event replay: an organization's events in commit order (their dispatch position), so a receiver
 * that was down can catch up by reading. Only events the dispatcher has sequenced are listed (it does
 * so within milliseconds of the commit, in the worker role); because positions are handed out one
 * transaction at a time after commit, a later page never gains an event before the cursor.
 */
import { and, asc, eq, gt, gte, inArray, isNotNull, max } from 'drizzle-orm';
import type { Executor } from '../../db/client.ts';
import { events } from '../../db/schema.ts';
import type { Actor } from '../actor.ts';

/** A sequenced event; position is its place in commit order (what a cursor holds). */
export type EventItem = { id: string; type: string; createdAt: Date; payload: Record<string, unknown>; position: number };
export type EventPage = { ok: true; items: EventItem[]; nextCursor: string; hasMore: boolean };
/** The cursor is not one this listing handed out. */
export type BadEventCursor = { ok: false; refusal: 'bad_cursor' };

export function encodeEventCursor(position: number): string {
  return Buffer.from(JSON.stringify({ p: position })).toString('base64url');
}

/** The position a cursor of ours holds; undefined for anything else. */
export function decodeEventCursor(cursor: string): number | undefined {
  try {
    const value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { p?: unknown };
    if (typeof value.p === 'number' && Number.isSafeInteger(value.p) && value.p >= 0) return value.p;
  } catch {
    // fall through
  }
  return undefined;
}

export type EventQuery = { limit: number; cursor?: string; type?: string; since?: Date };

/** A page of events after the cursor (from the oldest retained without one). next_cursor is always set: keep it to read on later. */
export async function listEvents({ db }: { db: Executor }, actor: Actor, query: EventQuery): Promise<EventPage | BadEventCursor> {
  const after = query.cursor === undefined ? 0 : decodeEventCursor(query.cursor);
  if (after === undefined) return { ok: false, refusal: 'bad_cursor' };
  const rows = await eventsAfter({ db }, actor.organizationId, after, {
    limit: query.limit + 1,
    types: query.type ? [query.type] : undefined,
    since: query.since,
  });
  const page = rows.slice(0, query.limit);
  const last = page.at(-1);
  return {
    ok: true,
    items: page,
    nextCursor: encodeEventCursor(last ? last.position : after),
    hasMore: rows.length > query.limit,
  };
}

/** An organization's sequenced events after a position, in commit order (of the given types only, when given). */
export async function eventsAfter(
  { db }: { db: Executor },
  organizationId: string,
  after: number,
  options: { limit: number; types?: readonly string[]; since?: Date },
): Promise<EventItem[]> {
  const rows = await db
    .select({ id: events.id, type: events.type, createdAt: events.createdAt, payload: events.payload, position: events.position })
    .from(events)
    .where(
      and(
        eq(events.organizationId, organizationId),
        isNotNull(events.position),
        gt(events.position, after),
        options.types ? inArray(events.type, [...options.types]) : undefined,
        options.since ? gte(events.createdAt, options.since) : undefined,
      ),
    )
    .orderBy(asc(events.position))
    .limit(options.limit);
  return rows.map((r) => ({ ...r, position: r.position! }));
}

/** The newest position given so far (0 before any): "now" in commit order. */
export async function latestPosition({ db }: { db: Executor }): Promise<number> {
  const [row] = await db.select({ last: max(events.position) }).from(events);
  return row?.last ?? 0;
}
