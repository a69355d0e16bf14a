/**
 * Byte ranges of a GET (RFC 9110 §14): one range of `Range: bytes=…` is served as a 206; several
 * (allowed to be answered whole) and anything that does not parse are ignored and the whole body is
 * served; a range that starts past the end is unsatisfiable (416).
 */

export type RangeAnswer = { kind: 'whole' } | { kind: 'partial'; start: number; end: number } | { kind: 'unsatisfiable' };

const SINGLE = /^bytes[ \t]*=[ \t]*(\d{0,15})[ \t]*-[ \t]*(\d{0,15})[ \t]*$/i;

/** What to serve of a body of `size` bytes for this Range header. */
export function resolveRange(header: string | undefined, size: number): RangeAnswer {
  if (header === undefined) return { kind: 'whole' };
  const match = SINGLE.exec(header);
  // Several ranges, another unit, or no valid range at all: served whole, as the RFC allows.
  if (!match) return { kind: 'whole' };
  const [, first, last] = match;
  if (first === '' && last === '') return { kind: 'whole' };
  if (first === '') {
    // The last n bytes.
    const suffix = Number(last);
    if (suffix === 0 || size === 0) return { kind: 'unsatisfiable' };
    return { kind: 'partial', start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(first);
  if (last !== '' && Number(last) < start) return { kind: 'whole' };
  if (start >= size) return { kind: 'unsatisfiable' };
  return { kind: 'partial', start, end: last === '' ? size - 1 : Math.min(Number(last), size - 1) };
}

/** A Content-Disposition value (RFC 6266): the ASCII fallback with anything risky replaced, and the exact name as `filename*`. */
export function contentDisposition(kind: 'inline' | 'attachment', fileName: string | null): string {
  if (!fileName) return kind;
  const fallback = fileName.replace(/[^\x20-\x7e]|["\\%;]/g, '_');
  const encoded = encodeURIComponent(fileName).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `${kind}; filename="${fallback}"; filename*=UTF-8''${encoded}`;
}
