/**
 * Keyset pagination on (created_at desc, id desc): stable while new rows arrive, since new rows
 * sort before every cursor already handed out.
 */
import { and, asc, desc, eq, gt, lt, or, type SQL } from 'drizzle-orm';
import type { PgColumn } from 'drizzle-orm/pg-core';
import { decodeCursor, encodeCursor } from '../lib/cursor.ts';
import { invalid } from '../domain/errors.ts';

export type Page = { limit: number; cursor?: string };
export type PageResult<T> = { items: T[]; nextCursor: string | null };

/** The sort key a cursor holds; throws `invalid` for a cursor we did not make. */
export function readCursor(cursor: string): { t: Date; id: string } {
  const key = decodeCursor(cursor);
  if (!key) throw invalid('cursor is not valid', [{ pointer: '/cursor', message: 'not a cursor returned by this API', location: 'query' }]);
  return { t: new Date(key.t), id: key.id };
}

/** The condition that selects rows after the cursor; throws `invalid` for a cursor we did not make. */
export function afterCursor(createdAt: PgColumn, id: PgColumn, cursor: string | undefined): SQL | undefined {
  if (cursor === undefined) return undefined;
  const key = readCursor(cursor);
  return or(lt(createdAt, key.t), and(eq(createdAt, key.t), lt(id, key.id)));
}

/** afterCursor for a list oldest first (time then id ascending). */
export function afterCursorAscending(time: PgColumn, id: PgColumn, cursor: string | undefined): SQL | undefined {
  if (cursor === undefined) return undefined;
  const key = readCursor(cursor);
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
export function toPageBy<R, T>(rows: R[], limit: number, present: (row: R) => T, key: (row: R) => { t: Date; id: string }): PageResult<T> {
  const items = rows.slice(0, limit);
  const last = items.at(-1);
  const lastKey = rows.length > limit && last !== undefined ? key(last) : undefined;
  return { items: items.map(present), nextCursor: lastKey ? encodeCursor({ t: lastKey.t.toISOString(), id: lastKey.id }) : null };
}
