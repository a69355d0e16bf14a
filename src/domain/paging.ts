/**
 * A list's cursor, read for the domain: the sort key it holds (db/paginate.ts builds the condition
 * from it), or the `invalid` refusal naming /cursor for a cursor this API did not make.
 */
import { readCursor, type SortKey } from '../db/paginate.ts';
import { invalid } from './errors.ts';

/** The key of the row a page starts after; none on the first page; throws `invalid` for a forged cursor. */
export function cursorKey(cursor: string | undefined): SortKey | undefined {
  if (cursor === undefined) return undefined;
  const key = readCursor(cursor);
  // A cursor is only ever a query parameter, so the location is known here.
  if (!key) throw invalid('cursor is not valid', [{ pointer: '/cursor', message: 'not a cursor returned by this API', location: 'query' }]);
  return key;
}
