/**
 * What a command prints. Human output: tables and lines on stdout, notes on stderr. With --json,
 * stdout carries exactly one JSON document for a command that ends by itself, or one JSON document
 * per line for one that follows something live (listen, messages get --watch, channels qr); notes
 * still go to stderr, so `parley … --json | jq` always reads clean JSON.
 */
import type { Writable } from 'node:stream';

export type Column<T> = { header: string; value: (row: T) => unknown };

export class Output {
  readonly json: boolean;
  private readonly out: Writable;
  private readonly err: Writable;

  constructor(options: { json: boolean; out?: Writable; err?: Writable }) {
    this.json = options.json;
    this.out = options.out ?? process.stdout;
    this.err = options.err ?? process.stderr;
  }

  /** The command's result: the JSON document with --json, else what `human` prints. */
  result(document: unknown, human: () => void): void {
    if (this.json) this.out.write(`${JSON.stringify(document, null, 2)}\n`);
    else human();
  }

  /** One item of a live command: a JSON line with --json, else the human line. */
  item(document: unknown, human: string): void {
    this.out.write(this.json ? `${JSON.stringify(document)}\n` : `${human}\n`);
  }

  /** A line of human output on stdout (never with --json). */
  line(text = ''): void {
    if (!this.json) this.out.write(`${text}\n`);
  }

  /** A note for the person at the terminal (stderr): what is going on, what to do next. */
  note(text: string): void {
    this.err.write(`${text}\n`);
  }

  /** Rows as a table with a header, columns padded to their widest cell; "(none)" for no rows. */
  table<T>(rows: readonly T[], columns: ReadonlyArray<Column<T>>): void {
    if (rows.length === 0) {
      this.line('(none)');
      return;
    }
    const cells = rows.map((row) => columns.map((c) => cellText(c.value(row))));
    const widths = columns.map((c, i) => Math.max(c.header.length, ...cells.map((r) => r[i]!.length)));
    const format = (values: string[]) =>
      values
        .map((v, i) => (i === values.length - 1 ? v : v.padEnd(widths[i]!)))
        .join('  ')
        .trimEnd();
    this.line(format(columns.map((c) => c.header.toUpperCase())));
    for (const row of cells) this.line(format(row));
  }
}

function cellText(value: unknown): string {
  if (value === null || value === undefined || value === '') return '-';
  if (typeof value === 'string') return value.replace(/\s+/g, ' ');
  return String(value);
}
