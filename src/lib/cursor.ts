/** Opaque pagination cursors: base64url JSON of the sort key of the last row returned. */
export type CursorKey = { t: string; id: string };

export function encodeCursor(key: CursorKey): string {
  return Buffer.from(JSON.stringify(key)).toString('base64url');
}

/** Returns undefined for anything that is not a cursor this service made. */
export function decodeCursor(cursor: string): CursorKey | undefined {
  try {
    const value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown;
    if (
      value &&
      typeof value === 'object' &&
      typeof (value as CursorKey).t === 'string' &&
      typeof (value as CursorKey).id === 'string' &&
      !Number.isNaN(Date.parse((value as CursorKey).t))
    ) {
      return value as CursorKey;
    }
  } catch {
    // fall through
  }
  return undefined;
}

export const PAGE_SIZE_DEFAULT = 50;
export const PAGE_SIZE_MAX = 200;
