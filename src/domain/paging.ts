/**
 * A list's cursor, read for the domain: the sort key it holds (db/paginate.ts builds the condition
 * from it), or the `invalid` refusal naming /cursor for a cursor this API did not make.
 */
import type { SortValueType } from '../db/list-query.ts';
import { readCursor, type SortKey } from '../db/paginate.ts';
import { decodeSortCursor } from '../lib/cursor.ts';
import { invalid } from './errors.ts';

/** The key of the row a page starts after; none on the first page; throws `invalid` for a forged cursor. */
export function cursorKey(cursor: string | undefined): SortKey | undefined {
  if (cursor === undefined) return undefined;
  const key = readCursor(cursor);
  if (!key) throw badCursor();
  return key;
}

// A cursor is only ever a query parameter, so the location is known here.
const badCursor = () =>
  invalid('cursor is not valid', [{ pointer: '/cursor', message: 'not a cursor returned by this API', location: 'query' }]);

const CURSOR_TIME = /^[1-9]\d{3}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const CURSOR_DATE = /^(?!0000)\d{4}-\d{2}-\d{2}$/;

/** Whether a cursor's value is one the sort's type reads (a forged one must not reach the database as a bad parameter). */
function validSortValue(value: string, type: SortValueType): boolean {
  switch (type) {
    case 'timestamptz':
      return CURSOR_TIME.test(value) && !Number.isNaN(Date.parse(value));
    case 'date':
      return (
        CURSOR_DATE.test(value) &&
        !Number.isNaN(Date.parse(`${value}T00:00:00Z`)) &&
        new Date(`${value}T00:00:00Z`).toISOString().startsWith(value)
      );
    case 'text':
      return value.length <= 1000 && value.isWellFormed() && !value.includes('\u0000');
    default:
      return type satisfies never;
  }
}

/**
 * The key a sorted list's cursor holds (db/list-query.ts listSortedPage): none on the first page; the
 * `invalid` refusal naming /cursor for a cursor we did not make, or made for another sort.
 */
export function sortCursorKey(
  cursor: string | undefined,
  sort: { name: string; type: SortValueType },
): { v: string; id: string } | undefined {
  if (cursor === undefined) return undefined;
  const key = decodeSortCursor(cursor);
  if (!key || !validSortValue(key.v, sort.type)) throw badCursor();
  if (key.s !== sort.name)
    throw invalid('cursor is of another sort', [
      { pointer: '/cursor', message: `a cursor of sort=${key.s}: page with the sort that gave it`, location: 'query' },
    ]);
  return { v: key.v, id: key.id };
}
