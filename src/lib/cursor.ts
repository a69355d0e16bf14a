/** Opaque pagination cursors: base64url JSON of the sort key of the last row returned. */
export type CursorKey = { t: string; id: string };

export function encodeCursor(key: CursorKey): string {
  return Buffer.from(JSON.stringify(key)).toString('base64url');
}

// Exactly what encodeCursor writes (Date#toISOString of a row's time, a row's UUID): anything else,
// such as a forged id that is no UUID, would reach the database as a bad parameter.
const CURSOR_TIME = /^[1-9]\d{3}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const CURSOR_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Returns undefined for anything that is not a cursor this service made. */
export function decodeCursor(cursor: string): CursorKey | undefined {
  try {
    const value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown;
    if (value && typeof value === 'object') {
      const { t, id } = value as Partial<CursorKey>;
      if (typeof t === 'string' && CURSOR_TIME.test(t) && !Number.isNaN(Date.parse(t)) && typeof id === 'string' && CURSOR_ID.test(id))
        return { t, id };
    }
  } catch {
    // fall through
  }
  return undefined;
}

/**
 * The cursor of a list sorted by a chosen field (`sort`): the sort's name, the last row's value of it
 * (as text: a time in ISO 8601, a date, a lower-cased name) and its id. A cursor of one sort is no
 * cursor of another.
 */
export type SortCursorKey = { s: string; v: string; id: string };

export function encodeSortCursor(key: SortCursorKey): string {
  return Buffer.from(JSON.stringify(key)).toString('base64url');
}

/** The key of a sort cursor this service made; undefined for anything else (the value's form is the caller's to check). */
export function decodeSortCursor(cursor: string): SortCursorKey | undefined {
  try {
    const value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown;
    if (value && typeof value === 'object') {
      const { s, v, id } = value as Partial<SortCursorKey>;
      if (typeof s === 'string' && typeof v === 'string' && typeof id === 'string' && CURSOR_ID.test(id)) return { s, v, id };
    }
  } catch {
    // fall through
  }
  return undefined;
}

export const PAGE_SIZE_DEFAULT = 50;
export const PAGE_SIZE_MAX = 200;
