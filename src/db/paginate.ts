/**
 * Keyset pagination on (created_at desc, id desc): stable while new rows arrive, since new rows
 * sort before every cursor already handed out. A cursor we did not make reads as no key: refusing it
 * is the caller's (domain/paging.ts).
 */
import { and, asc, desc, eq, gt, lt, or, type SQL } from 'drizzle-orm';
import type { PgColumn } from 'drizzle-orm/pg-core';
import { decodeCursor, encodeCursor } from '../lib/cursor.ts';

export type Page = { limit: number; cursor?: string };
export type PageResult<T> = { items: T[]; nextCursor: string | null };

/** A row's place in a list: its time, then its id. A cursor holds the last returned row's. */
export type SortKey = { t: Date; id: string };

/** The sort key a cursor holds; undefined for a cursor we did not make. */
export function readCursor(cursor: string): SortKey | undefined {
  const key = decodeCursor(cursor);
  return key ? { t: new Date(key.t), id: key.id } : undefined;
}

/** The condition that selects rows after the key (newest first); none without one. */
export function afterCursor(createdAt: PgColumn, id: PgColumn, key: SortKey | undefined): SQL | undefined {
  if (key === undefined) return undefined;
  return or(lt(createdAt, key.t), and(eq(createdAt, key.t), lt(id, key.id)));
}

/** afterCursor for a list oldest first (time then id ascending). */
export function afterCursorAscending(time: PgColumn, id: PgColumn, key: SortKey | undefined): SQL | undefined {
  if (key === undefined) return undefined;
  return or(gt(time, key.t), and(eq(time, key.t), gt(id, key.id)));
}

export function oldestFirst(time: PgColumn, id: PgColumn) {
  return [asc(time), asc(id)] as const;
}

export function newestFirst(createdAt: PgColumn, id: PgColumn) {
  return [desc(createdAt), desc(id)] as const;
}

/** Cuts the limit+1 rows fetched into a page and the cursor of the next one. */
export function toPage<R extends { createdAt: Date; id: string }, T>(rows: R[], limit: number, present: (row: R) => T): PageResult<T> {
  return toPageBy(rows, limit, present, (row) => ({ t: row.createdAt, id: row.id }));
}

/** toPage for a list ordered by another time than created_at (then id): `key` gives a row's sort key. */
export function toPageBy<R, T>(rows: R[], limit: number, present: (row: R) => T, key: (row: R) => SortKey): PageResult<T> {
  const items = rows.slice(0, limit);
  const last = items.at(-1);
  const lastKey = rows.length > limit && last !== undefined ? key(last) : undefined;
  return { items: items.map(present), nextCursor: lastKey ? encodeCursor({ t: lastKey.t.toISOString(), id: lastKey.id }) : null };
}
