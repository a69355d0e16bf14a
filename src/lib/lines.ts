/**
 * An incremental reader of LF-separated lines (JSON lines), in the CsvReader's record shape: text
 * goes in chunk by chunk and whole lines come out. Each character is searched once and copied at
 * most once, however long the line, so reading is linear in the input; a line longer than the
 * limit is not kept (its record says `tooLong`), so memory stays bounded too.
 */
import type { CsvRecord } from './csv.ts';

export class LineReader {
  private readonly maxLineChars: number;
  /** The pieces of the line not yet ended (one per chunk it spans), joined once when it ends. */
  private parts: string[] = [];
  private length = 0;
  private tooLong = false;
  private line = 0;
  /** Characters searched for a line break or copied so far: the reader's work, for tests and measurement. */
  work = 0;

  constructor(maxLineChars = Number.POSITIVE_INFINITY) {
    this.maxLineChars = maxLineChars;
  }

  /** Feeds text; returns the lines it completed. */
  push(text: string): CsvRecord[] {
    const out: CsvRecord[] = [];
    let start = 0;
    for (;;) {
      const end = text.indexOf('\n', start);
      this.work += (end < 0 ? text.length : end + 1) - start;
      if (end < 0) break;
      this.take(text, start, end);
      out.push(this.finish());
      start = end + 1;
    }
    this.take(text, start, text.length);
    return out;
  }

  /** Ends the input; returns the last line when the text did not end with a line break. */
  end(): CsvRecord[] {
    return this.length > 0 || this.tooLong ? [this.finish()] : [];
  }

  private take(text: string, from: number, to: number) {
    if (from === to || this.tooLong) return;
    this.length += to - from;
    if (this.length > this.maxLineChars) {
      this.tooLong = true;
      this.parts = [];
      return;
    }
    this.parts.push(from === 0 && to === text.length ? text : text.slice(from, to));
  }

  private finish(): CsvRecord {
    const line = ++this.line;
    const record: CsvRecord = this.tooLong
      ? { cells: [], line, tooLong: true }
      : { cells: [this.parts.length === 1 ? this.parts[0]! : this.parts.join('')], line };
    if (!this.tooLong) this.work += this.length;
    this.parts = [];
    this.length = 0;
    this.tooLong = false;
    return record;
  }
}
