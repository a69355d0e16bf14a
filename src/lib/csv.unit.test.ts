/**
 * Our CSV reader against csv-parse, read as an independent reader: on RFC 4180 text (quoted fields
 * with delimiters, doubled quotes and line breaks; CRLF, LF or CR between records) both give the same
 * cells, however ours gets the text cut into chunks. Why we keep our own reader: docs/DECISIONS.md.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parse } from 'csv-parse/sync';
import fc from 'fast-check';
import { CsvReader } from './csv.ts';

const fieldChars = fc.constantFrom('a', 'Z', '0', ' ', ',', ';', '"', '\r', '\n', 'ç', '✓', '😀');
const field = fc.array(fieldChars, { maxLength: 8 }).map((chars) => chars.join(''));

/** A field as RFC 4180 writes it: quoted when it must be (and sometimes when it need not), quotes doubled. */
const written = (value: string, quoteAnyway: boolean) =>
  quoteAnyway || /[",\r\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value;

const csvText = fc
  .array(
    fc.record({
      cells: fc.array(fc.tuple(field, fc.boolean()), { minLength: 1, maxLength: 5 }),
      end: fc.constantFrom('\r\n', '\n', '\r'),
    }),
    { minLength: 1, maxLength: 8 },
  )
  .map((records) => records.map((r) => r.cells.map(([value, quote]) => written(value, quote)).join(',') + r.end).join(''));

test('on RFC 4180 text our reader gives the cells csv-parse gives, whatever the chunks', () => {
  fc.assert(
    fc.property(csvText, fc.array(fc.nat(), { maxLength: 4 }), (text, cuts) => {
      const expected = parse(text, {
        relax_column_count: true,
        skip_empty_lines: false,
        record_delimiter: ['\r\n', '\n', '\r'],
      }) as string[][];
      const reader = new CsvReader(',');
      const records = [];
      let from = 0;
      for (const cut of [...cuts.map((c) => c % (text.length + 1))].sort((a, b) => a - b)) {
        records.push(...reader.push(text.slice(from, Math.max(from, cut))));
        from = Math.max(from, cut);
      }
      records.push(...reader.push(text.slice(from)), ...reader.end());
      assert.deepEqual(
        records.map((r) => r.cells),
        expected,
      );
    }),
    { seed: 31, numRuns: 2000 },
  );
});
