/**
 * An incremental CSV reader (RFC 4180, leniently): text goes in chunk by chunk and whole records come
 * out, so a large file never sits in memory. Quoted fields may hold delimiters, doubled quotes and
 * line breaks; records end at LF, CRLF or CR. Unless given, the delimiter (comma, semicolon or tab)
 * is the one the first line uses most. A record longer than the limit given is not kept: it comes out
 * marked `tooLong`, so one huge record cannot fill the memory.
 */
export type CsvRecord = {
  cells: string[];
  line: number;
  /** The record was longer than the reader's limit: its text was dropped (cells empty) and the reading went on. */
  tooLong?: true;
};

const CANDIDATES = [',', ';', '\t'];

type State = 'field-start' | 'plain' | 'quoted' | 'quote-in-quoted' | 'after-quoted';

export class CsvReader {
  private delimiter: string | undefined;
  private head = '';
  private state: State = 'field-start';
  private field = '';
  private cells: string[] = [];
  private line = 1;
  private recordLine = 1;
  private afterCR = false;
  private quotedCR = false;
  private readonly maxRecordChars: number;
  private recordChars = 0;
  private tooLong = false;

  constructor(delimiter?: string, maxRecordChars = Number.POSITIVE_INFINITY) {
    this.delimiter = delimiter;
    this.maxRecordChars = maxRecordChars;
  }

  /** Feeds text; returns the records it completed. */
  push(text: string): CsvRecord[] {
    if (this.delimiter === undefined) {
      // Hold text back until the first line is whole, to pick the delimiter.
      this.head += text;
      const end = this.head.search(/[\r\n]/);
      if (end < 0 && this.head.length < 65536) return [];
      this.delimiter = sniff(end < 0 ? this.head : this.head.slice(0, end));
      text = this.head;
      this.head = '';
    }
    return this.scan(text);
  }

  /** Ends the input; returns what was still pending (the last record, when the text did not end with a line break). */
  end(): CsvRecord[] {
    const out: CsvRecord[] = [];
    if (this.delimiter === undefined) {
      this.delimiter = sniff(this.head);
      out.push(...this.scan(this.head));
      this.head = '';
    }
    if (this.state !== 'field-start' || this.cells.length > 0) out.push(this.finishRecord());
    return out;
  }

  /** True when the input ended inside a quoted field (the last record then holds the rest of the text). */
  get unterminated(): boolean {
    return this.state === 'quoted';
  }

  private finishRecord(): CsvRecord {
    this.cells.push(this.field);
    const record: CsvRecord = this.tooLong
      ? { cells: [], line: this.recordLine, tooLong: true }
      : { cells: this.cells, line: this.recordLine };
    this.cells = [];
    this.field = '';
    this.state = 'field-start';
    this.recordChars = 0;
    this.tooLong = false;
    return record;
  }

  /** Adds text to the field being read, unless the record is over the limit (then nothing of it is kept). */
  private append(text: string) {
    this.grow(text.length);
    if (!this.tooLong) this.field += text;
  }

  private grow(chars: number) {
    this.recordChars += chars;
    if (this.recordChars > this.maxRecordChars) {
      this.tooLong = true;
      this.cells = [];
      this.field = '';
    }
  }

  private scan(text: string): CsvRecord[] {
    const out: CsvRecord[] = [];
    const d = this.delimiter!;
    const n = text.length;
    let i = 0;
    while (i < n) {
      const ch = text[i]!;
      if (ch === '\n' && this.afterCR) {
        // The LF of a CRLF whose CR ended the previous record or line.
        this.afterCR = false;
        i++;
        continue;
      }
      this.afterCR = false;
      switch (this.state) {
        case 'quoted': {
          const q = text.indexOf('"', i);
          const stop = q < 0 ? n : q;
          this.countLines(text, i, stop);
          this.append(text.slice(i, stop));
          if (q < 0) i = n;
          else {
            this.state = 'quote-in-quoted';
            i = q + 1;
          }
          continue;
        }
        case 'quote-in-quoted':
          if (ch === '"') {
            // A doubled quote is a quote character.
            this.append('"');
            this.state = 'quoted';
            i++;
            continue;
          }
          this.state = 'after-quoted';
          continue;
        default:
          break;
      }
      if (ch === d) {
        this.grow(1);
        if (!this.tooLong) this.cells.push(this.field);
        this.field = '';
        this.state = 'field-start';
        i++;
      } else if (ch === '\n' || ch === '\r') {
        out.push(this.finishRecord());
        this.line++;
        this.recordLine = this.line;
        this.afterCR = ch === '\r';
        i++;
      } else if (ch === '"' && this.state === 'field-start') {
        this.state = 'quoted';
        this.quotedCR = false;
        i++;
      } else {
        // Plain text (or stray text after a closing quote, kept as is) up to the next special character.
        let j = i + 1;
        while (j < n) {
          const c = text[j]!;
          if (c === d || c === '\n' || c === '\r') break;
          j++;
        }
        this.append(text.slice(i, j));
        if (this.state === 'field-start') this.state = 'plain';
        i = j;
      }
    }
    return out;
  }

  /** Counts the line breaks inside a quoted field (a CRLF is one, even cut between two chunks). */
  private countLines(text: string, from: number, to: number) {
    for (let k = from; k < to; k++) {
      const c = text.charCodeAt(k);
      if (c === 13 || (c === 10 && !this.quotedCR)) this.line++;
      this.quotedCR = c === 13;
    }
  }
}

function sniff(firstLine: string): string {
  let best = ',';
  let bestCount = 0;
  for (const c of CANDIDATES) {
    const count = firstLine.split(c).length - 1;
    if (count > bestCount) {
      best = c;
      bestCount = count;
    }
  }
  return best;
}
