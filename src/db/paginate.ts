/**
 * Keyset pagination on (created_at desc, id desc): stable while new rows arrive, since new rows
 * sort before every cursor already handed out.
 */
import { and, desc, eq, lt, or, type SQL } from 'drizzle-orm';
import type { PgColumn } from 'drizzle-orm/pg-core';
import { decodeCursor, encodeCursor } from '../lib/cursor.ts';
import { invalid } from '../domain/errors.ts';

export type Page = { limit: number; cursor?: string };
export type PageResult<T> = { items: T[]; nextCursor: string | null };

/** The condition that selects rows after the cursor; throws `invalid` for a cursor we did not make. */
export function afterCursor(createdAt: PgColumn, id: PgColumn, cursor: string | undefined): SQL | undefined {
  if (cursor === undefined) return undefined;
  const key = decodeCursor(cursor);
  if (!key) throw invalid('cursor is not valid', [{ pointer: '/cursor', message: 'not a cursor returned by this API', location: 'query' }]);
  const t = new Date(key.t);
  return or(lt(createdAt, t), and(eq(createdAt, t), lt(id, key.id)));
}

export function newestFirst(createdAt: PgColumn, id: PgColumn) {
  return [desc(createdAt), desc(id)] as const;
}

/** Cuts the limit+1 rows fetched into a page and the cursor of the next one. */
export function toPage<R extends { createdAt: Date; id: string }, T>(rows: R[], limit: number, present: (row: R) => T): PageResult<T> {
  const items = rows.slice(0, limit);
  const last = items.at(-1);
  return {
    items: items.map(present),
    nextCursor: rows.length > limit && last ? encodeCursor({ t: last.createdAt.toISOString(), id: last.id }) : null,
  };
}
