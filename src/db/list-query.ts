/**
 * The one shape of the domain's paged lists: the conditions of the filters that were given (one left
 * out filters nothing), the rows after the key the page's cursor holds in the list's order (keyset
 * pagination on a time and an id, with db/paginate.ts's cursors), limit + 1 rows read to know whether
 * there is a next page, and the page cut from them with the next page's cursor. The domain reads the
 * cursor (domain/paging.ts cursorKey refuses one we did not make), so this file never imports it.
 *
 *   const page = await listPage(db.select().from(templates).$dynamic(), {
 *     where: [eq(templates.organizationId, org), ...equalWhereGiven([[templates.status, input.status]])],
 *     order: newestFirstBy(templates.createdAt, templates.id),
 *     after: cursorKey(input.cursor),
 *     limit: input.limit,
 *   });
 */
import { and, asc, desc, eq, sql, type SQL } from 'drizzle-orm';
import type { PgColumn, PgSelect } from 'drizzle-orm/pg-core';
import { encodeSortCursor } from '../lib/cursor.ts';
import { afterCursor, afterCursorAscending, newestFirst, oldestFirst, toPageBy, type PageResult, type SortKey } from './paginate.ts';

/** A list's order: the condition selecting the rows after a sort key (none without one), and the ORDER BY. */
export type ListOrder = {
  after(key: SortKey | undefined): SQL | undefined;
  by: ReadonlyArray<SQL | PgColumn>;
};

/** Newest first: the time, then the id, descending. */
export function newestFirstBy(time: PgColumn, id: PgColumn): ListOrder {
  return { after: (key) => afterCursor(time, id, key), by: newestFirst(time, id) };
}

/** Oldest first: the time, then the id, ascending. */
export function oldestFirstBy(time: PgColumn, id: PgColumn): ListOrder {
  return { after: (key) => afterCursorAscending(time, id, key), by: oldestFirst(time, id) };
}

/** The condition of an optional filter: `condition(value)` when the value is given (not undefined, null or empty), else none. */
export function given<V>(value: V | undefined | null, condition: (value: NonNullable<V>) => SQL): SQL | undefined {
  return value ? condition(value) : undefined;
}

/** Equality filters: `column = value` for each value given; the others filter nothing. */
export function equalWhereGiven(filters: ReadonlyArray<readonly [PgColumn, string | undefined | null]>): Array<SQL | undefined> {
  return filters.map(([column, value]) => given(value, (v) => eq(column, v)));
}

/** The rows a select returns. */
export type RowOf<Q extends PgSelect> = Q['_']['result'][number];

type KeyOf<R> = R extends { createdAt: Date; id: string }
  ? { /** The row's sort key (its cursor's); by default its createdAt and id. */ keyOf?: (row: R) => SortKey }
  : { keyOf: (row: R) => SortKey };

export type ListSpec<R> = {
  /** The list's conditions: its scope (the organization, the user) and the filters given; undefined ones are left out. */
  where: ReadonlyArray<SQL | undefined>;
  order: ListOrder;
  /** The key of the row the page starts after: the domain's cursorKey(cursor); undefined on the first page. */
  after: SortKey | undefined;
  limit: number;
} & KeyOf<R>;

/**
 * One page of a list: `query` (a select in dynamic mode, its joins made) with the conditions, after
 * the page's sort key, in the list's order, limit + 1 rows.
 */
export async function listPage<Q extends PgSelect>(query: Q, spec: ListSpec<RowOf<Q>>): Promise<PageResult<RowOf<Q>>> {
  const { where, order, after, limit } = spec;
  const rows = (await query
    .where(and(...where, order.after(after)))
    .orderBy(...order.by)
    .limit(limit + 1)) as Array<RowOf<Q>>;
  return pageOf(rows, limit, (spec.keyOf ?? createdKey) as (row: RowOf<Q>) => SortKey);
}

/** Cuts the limit + 1 rows read into a page and the next page's cursor (a list read another way, such as a prepared first page). */
export function pageOf<R>(rows: R[], limit: number, keyOf: (row: R) => SortKey = createdKey as (row: R) => SortKey): PageResult<R> {
  return toPageBy(rows, limit, (row) => row, keyOf);
}

/** A page with each item presented. */
export function mapPage<R, T>(page: PageResult<R>, present: (row: R) => T): PageResult<T> {
  return { items: page.items.map(present), nextCursor: page.nextCursor };
}

/** The page of a list that matches nothing (a filter that cannot match, such as an id that is no UUID). */
export function emptyPage<T>(): PageResult<T> {
  return { items: [], nextCursor: null };
}

const createdKey = (row: { createdAt: Date; id: string }): SortKey => ({ t: row.createdAt, id: row.id });

/** The SQL type of a sorted list's values, as a cursor holds them (text). */
export type SortValueType = 'text' | 'timestamptz' | 'date';

/**
 * A list sorted by one chosen field (a route's `sort`), then by id: the sort's name (what its cursors
 * hold), the expression and its direction, the type of its values, and a row's place in it.
 */
export type FieldSort<R> = {
  name: string;
  expr: SQL | PgColumn;
  id: PgColumn;
  direction: 'asc' | 'desc';
  type: SortValueType;
  keyOf(row: R): { v: string; id: string };
};

/**
 * One page of a list sorted by a field: the rows after the cursor's (value, id) in the sort's order
 * (one row comparison, which an index on the expression and the id serves), limit + 1 rows read.
 */
export async function listSortedPage<Q extends PgSelect>(
  query: Q,
  spec: {
    where: ReadonlyArray<SQL | undefined>;
    sort: FieldSort<RowOf<Q>>;
    /** The cursor's key (domain/paging.ts sortCursorKey); undefined on the first page. */
    after: { v: string; id: string } | undefined;
    limit: number;
  },
): Promise<PageResult<RowOf<Q>>> {
  const { where, sort, after, limit } = spec;
  const direction = sort.direction === 'asc' ? asc : desc;
  const afterKey =
    after &&
    sql`(${sort.expr}, ${sort.id}) ${sql.raw(sort.direction === 'asc' ? '>' : '<')} (${after.v}::${sql.raw(sort.type)}, ${after.id}::uuid)`;
  const rows = (await query
    .where(and(...where, afterKey))
    .orderBy(direction(sort.expr), direction(sort.id))
    .limit(limit + 1)) as Array<RowOf<Q>>;
  const items = rows.slice(0, limit);
  const last = items.at(-1);
  return {
    items,
    nextCursor: rows.length > limit && last !== undefined ? encodeSortCursor({ s: sort.name, ...sort.keyOf(last) }) : null,
  };
}
