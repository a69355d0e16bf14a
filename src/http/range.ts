/**
 * Byte ranges of a GET (RFC 9110 §14), parsed by range-parser: one range of `Range: bytes=…` (or
 * several that overlap or touch, combined) is served as a 206; several apart (allowed to be answered
 * whole), another unit and anything invalid are ignored and the whole body is served; a range-set
 * with nothing satisfiable is a 416. Content-Disposition values are made by content-disposition.
 */
import { create as formatContentDisposition } from 'content-disposition';
import { combineRanges, parse as parseRange } from 'range-parser';

export type RangeAnswer = { kind: 'whole' } | { kind: 'partial'; start: number; end: number } | { kind: 'unsatisfiable' };

const INVALID = 1;
const UNSATISFIABLE = 2;

/** What to serve of a body of `size` bytes for this Range header. */
export function resolveRange(header: string | undefined, size: number): RangeAnswer {
  if (header === undefined) return { kind: 'whole' };
  const parsed = parseRange(size, header);
  // Another unit, or an invalid ranges-specifier: ignored, as RFC 9110 §14.2 allows.
  if (parsed.type !== 'bytes' || parsed.code & INVALID) return { kind: 'whole' };
  if (parsed.ranges.length === 0) {
    // None satisfiable; or only suffixes of an empty body, which are satisfiable (§14.1.1) by the whole of it.
    return parsed.code & UNSATISFIABLE ? { kind: 'unsatisfiable' } : { kind: 'whole' };
  }
  const ranges = combineRanges(parsed.ranges);
  if (ranges.length > 1) return { kind: 'whole' };
  return { kind: 'partial', start: ranges[0]!.start, end: ranges[0]!.end };
}

/**
 * A Content-Disposition value (RFC 6266). A name that is plain ASCII without quotes, backslashes, `%`
 * or `;` is sent as `filename` alone; any other is sent exactly as `filename*` beside an ASCII
 * fallback with those characters replaced (user agents without RFC 8187 read it).
 */
export function contentDisposition(kind: 'inline' | 'attachment', fileName: string | null): string {
  if (!fileName) return kind;
  return formatContentDisposition(fileName, { type: kind, fallback: fileName.replace(/[^\x20-\x7e]|["\\%;]/g, '_') });
}
