/**
 * Bulk import: CSV or JSON lines read as a stream, upserted with the contact upsert rule in batches
 * of IMPORT_BATCH_ROWS, each batch in its own transaction. Bad rows are reported (row, field,
 * message) and skipped; the others are written. One crm.import.committed event, written with the
 * last batch, sums it up (imports record no per-contact events).
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Executor } from '../../db/client.ts';
import { CsvReader } from '../../lib/csv.ts';
import { uuidv7 } from '../../lib/ids.ts';
import { LineReader } from '../../lib/lines.ts';
import { findUnstorableInput } from '../../lib/text.ts';
import type { Actor } from '../actor.ts';
import { invalid, type FieldError } from '../errors.ts';
import { recordEvent } from '../events/outbox.ts';
import { ContactFieldsSchema, normalizeContactFields, type ContactInput } from './fields.ts';
import type { ContactClockDeps } from './record.ts';
import { assignTagsInBulk, readTagList } from './tags.ts';
import { applyContactWrites, retryOnConflict, type WriteOutcome } from './upsert.ts';

export const IMPORT_MAX_ROWS = 100_000;
export const IMPORT_MAX_BYTES = 64 * 1024 * 1024;
export const IMPORT_BATCH_ROWS = 1000;
export const IMPORT_MAX_REPORTED_ERRORS = 1000;
/** The longest row (a CSV record or a JSON line), in characters; a longer one is reported and skipped. */
export const IMPORT_MAX_ROW_CHARS = 64 * 1024;
/** Rows read between yields to the event loop, so an import never holds up other requests. */
const IMPORT_YIELD_ROWS = 500;
export const IMPORT_FORMATS = ['csv', 'ndjson'] as const;
export type ImportFormat = (typeof IMPORT_FORMATS)[number];

/**
 * CSV columns (and JSON lines keys besides the contact fields); `custom_fields.<key>` (or
 * `custom.<key>`) columns fill custom_fields. `tags` adds tags (names separated by `;` or `|`).
 */
export const IMPORT_COLUMNS = ['phone_number', 'name', 'email', 'external_source', 'external_id', 'tags'] as const;
/** Other names of a column or key, in CSV and JSON lines alike. */
const COLUMN_ALIASES: Record<string, (typeof IMPORT_COLUMNS)[number]> = { phone: 'phone_number' };

export type ImportRowError = {
  /** 1-based number of the data row (a CSV header and blank lines are not rows). */
  row: number;
  /** The line of the file the row starts on. */
  line: number;
  /** The field at fault (`custom_fields.<key>` for a custom field), or null for the row as a whole. */
  field: string | null;
  message: string;
};

export type ImportResult = {
  importId: string;
  format: ImportFormat;
  rows: number;
  created: number;
  updated: number;
  unchanged: number;
  failed: number;
  errors: ImportRowError[];
  errorsTruncated: boolean;
  truncated: boolean;
};

type Pending = { row: number; line: number; input: ContactInput; tags: string[] };
type Column = { field: (typeof IMPORT_COLUMNS)[number] } | { custom: string };

function fieldOf(pointer: string): string | null {
  const path = pointer.replace(/^\//, '').split('/').filter(Boolean);
  return path.length === 0 ? null : path.join('.');
}

function readHeader(cells: string[]): Column[] {
  const errors: FieldError[] = [];
  const seen = new Set<string>();
  const columns = cells.map((cell, index): Column => {
    const name = cell.trim().toLowerCase();
    const custom = /^(?:custom_fields|custom)\.(.+)$/.exec(cell.trim());
    let column: Column | undefined;
    if (custom) column = { custom: custom[1]! };
    else if ((IMPORT_COLUMNS as readonly string[]).includes(name)) column = { field: name as (typeof IMPORT_COLUMNS)[number] };
    else if (COLUMN_ALIASES[name]) column = { field: COLUMN_ALIASES[name] };
    const key = column ? ('field' in column ? column.field : `custom.${column.custom}`) : '';
    if (!column) errors.push({ pointer: `/columns/${index}`, message: `unknown column ${JSON.stringify(cell)}` });
    else if (seen.has(key)) errors.push({ pointer: `/columns/${index}`, message: `column ${JSON.stringify(cell)} appears twice` });
    seen.add(key);
    return column ?? { custom: '' };
  });
  if (errors.length > 0) {
    throw invalid(
      `the CSV header is invalid: ${errors.map((e) => e.message).join('; ')}; the columns are ${IMPORT_COLUMNS.join(', ')} and custom_fields.<key>`,
      errors,
    );
  }
  return columns;
}

/**
 * Imports contacts from a stream of CSV (first line the header) or JSON lines (one object per
 * line, the contact fields). Reading stops after IMPORT_MAX_ROWS rows or
 * IMPORT_MAX_BYTES bytes (`truncated`, with an error naming the first row not imported).
 */
export async function importContacts(
  { db, clock }: ContactClockDeps,
  actor: Actor,
  input: { format: ImportFormat; body: AsyncIterable<Uint8Array | string> },
): Promise<ImportResult> {
  const result: ImportResult = {
    importId: uuidv7(),
    format: input.format,
    rows: 0,
    created: 0,
    updated: 0,
    unchanged: 0,
    failed: 0,
    errors: [],
    errorsTruncated: false,
    truncated: false,
  };
  const organizationId = actor.organizationId;
  let pending: Pending[] = [];
  let columns: Column[] | undefined;
  let lastLine = 0;
  let stopError: ImportRowError | undefined;

  const fail = (row: number, line: number, field: string | null, message: string) => {
    result.errors.push({ row, line, field, message });
    if (result.errors.length > IMPORT_MAX_REPORTED_ERRORS * 2) trimErrors(result);
  };

  const accept = (line: number, value: unknown) => {
    const row = ++result.rows;
    // Text the database cannot store (NUL, a lone surrogate) would fail the whole batch's statement.
    const unstorable = findUnstorableInput(value);
    if (unstorable) {
      result.failed++;
      fail(row, line, unstorable.path.length ? unstorable.path.map(String).join('.') : null, unstorable.message);
      return;
    }
    const record = { ...(value as Record<string, unknown>) };
    for (const [alias, field] of Object.entries(COLUMN_ALIASES)) {
      if (!(alias in record)) continue;
      if (field in record) {
        result.failed++;
        fail(row, line, alias, `${alias} and ${field} are the same field: give one`);
        return;
      }
      record[field] = record[alias];
      delete record[alias];
    }
    const { tags, ...fields } = record;
    const tagList = readTagList(tags);
    const parsed = ContactFieldsSchema.safeParse(fields);
    const normalized = parsed.success ? normalizeContactFields(parsed.data) : undefined;
    if (!tagList.ok || !normalized?.ok) {
      result.failed++;
      if (!parsed.success)
        for (const issue of parsed.error.issues)
          fail(row, line, issue.path.length ? issue.path.map(String).join('.') : null, issue.message);
      if (normalized && !normalized.ok) for (const e of normalized.errors) fail(row, line, fieldOf(e.pointer), e.message);
      if (!tagList.ok) fail(row, line, 'tags', tagList.message);
      return;
    }
    pending.push({ row, line, input: normalized.input, tags: tagList.names });
  };

  /** One CSV record: the header first, then rows. */
  const csvRecord = (cells: string[], line: number) => {
    if (!columns) {
      columns = readHeader(cells);
      return;
    }
    if (cells.length > columns.length) {
      result.failed++;
      fail(++result.rows, line, null, `the row has ${cells.length} cells; the header has ${columns.length}`);
      return;
    }
    const value: Record<string, unknown> = {};
    const custom: Record<string, string> = {};
    columns.forEach((column, i) => {
      const cell = cells[i]?.trim() ?? '';
      if (cell === '') return;
      if ('field' in column) value[column.field] = cell;
      else custom[column.custom] = cell;
    });
    if (Object.keys(custom).length > 0) value.custom_fields = custom;
    accept(line, value);
  };

  const jsonRecord = (text: string, line: number) => {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      result.failed++;
      fail(++result.rows, line, null, 'not valid JSON');
      return;
    }
    if (!value || typeof value !== 'object' || Array.isArray(value)) {
      result.failed++;
      fail(++result.rows, line, null, 'not a JSON object');
      return;
    }
    accept(line, value);
  };

  const flush = async (final: boolean) => {
    const batch = pending;
    pending = [];
    if (batch.length === 0 && !final) return;
    const outcomes = await retryOnConflict(() =>
      db.transaction(async (tx) => {
        const now = clock.now();
        const written: WriteOutcome[] = batch.length
          ? await applyContactWrites(
              tx,
              organizationId,
              batch.map((p) => ({ input: p.input })),
              now,
            )
          : [];
        const done = await addTags(tx, organizationId, batch, written, now);
        if (final) {
          const sum = count(done);
          await recordEvent(tx, organizationId, 'crm.import.committed', {
            import_id: result.importId,
            object_kind: 'contact',
            created: result.created + sum.created,
            updated: result.updated + sum.updated,
            unchanged: result.unchanged + sum.unchanged,
            failed: result.failed + sum.failed,
            organization_id: organizationId,
          });
        }
        return done;
      }),
    );
    outcomes.forEach((outcome, i) => {
      if (outcome.status !== 'failed') {
        result[outcome.status]++;
        return;
      }
      result.failed++;
      const p = batch[i]!;
      const fields = outcome.error.fieldErrors ?? [];
      if (fields.length === 0) fail(p.row, p.line, null, outcome.error.message);
      for (const f of fields)
        fail(
          p.row,
          p.line,
          fieldOf(f.pointer),
          outcome.error.code === 'conflict' ? `another contact has this ${fieldOf(f.pointer)}` : f.message,
        );
    });
  };

  const decoder = new TextDecoder('utf-8');
  const reader = input.format === 'csv' ? new CsvReader(undefined, IMPORT_MAX_ROW_CHARS) : new LineReader(IMPORT_MAX_ROW_CHARS);
  let sinceYield = 0;
  /** Feeds text to the reader and its records to the batches; true when the row limit stopped the import. */
  const take = async (text: string, final: boolean): Promise<boolean> => {
    const records = final ? [...reader.push(text), ...reader.end()] : reader.push(text);
    for (const r of records) {
      lastLine = r.line;
      if (!r.tooLong && r.cells.every((c) => c.trim() === '')) continue;
      const isHeader = input.format === 'csv' && !columns;
      if (isHeader && r.tooLong)
        throw invalid(`the CSV header is longer than ${IMPORT_MAX_ROW_CHARS} characters`, [{ pointer: '/columns', message: 'too long' }]);
      if (!isHeader && result.rows >= IMPORT_MAX_ROWS) {
        stopError = {
          row: IMPORT_MAX_ROWS + 1,
          line: r.line,
          field: null,
          message: `a request imports at most ${IMPORT_MAX_ROWS} rows: this row and those after it were not imported`,
        };
        return true;
      }
      if (r.tooLong) {
        result.failed++;
        fail(++result.rows, r.line, null, `the row is longer than ${IMPORT_MAX_ROW_CHARS} characters: it was not imported`);
      } else if (input.format === 'csv') csvRecord(r.cells, r.line);
      else jsonRecord(r.cells[0]!.trim(), r.line);
      if (pending.length >= IMPORT_BATCH_ROWS) await flush(false);
      else if (++sinceYield >= IMPORT_YIELD_ROWS) {
        sinceYield = 0;
        await nextTurn();
      }
    }
    if (final && reader instanceof CsvReader && reader.unterminated)
      fail(result.rows, lastLine, null, 'the file ends inside a quoted field');
    return false;
  };

  let bytes = 0;
  let stopped = false;
  // Read by hand: leaving a for-await loop early would destroy the request stream, and the answer with it.
  const iterator = input.body[Symbol.asyncIterator]();
  for (;;) {
    const next = await iterator.next();
    if (next.done) break;
    const chunk = next.value;
    bytes += typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.byteLength;
    if (bytes > IMPORT_MAX_BYTES) {
      stopError = {
        row: result.rows + 1,
        line: lastLine + 1,
        field: null,
        message: `the body is larger than ${IMPORT_MAX_BYTES / 1024 / 1024} MiB: this row and those after it were not imported`,
      };
      stopped = true;
      break;
    }
    if (await take(typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true }), false)) {
      stopped = true;
      break;
    }
  }
  if (!stopped) await take(decoder.decode(), true);
  if (result.rows === 0 && result.errors.length === 0 && !stopError) {
    throw invalid(
      input.format === 'csv' ? 'the CSV has no rows: send a header line and one line per contact' : 'the body has no JSON lines',
      [{ pointer: '/', message: 'no rows' }],
    );
  }
  await flush(true);
  trimErrors(result);
  if (stopError) {
    // Always reported, however many rows failed before: it says where to resume.
    result.truncated = true;
    result.errors.push(stopError);
  }
  return result;
}

/**
 * Adds each written row's tags to its contact (never removes one); a row whose contact was otherwise
 * unchanged but gained a tag counts as updated. The new assignment goes to the first row that names it.
 */
async function addTags(
  tx: Executor,
  organizationId: string,
  batch: Pending[],
  outcomes: WriteOutcome[],
  now: Date,
): Promise<WriteOutcome[]> {
  const wanted = new Map<string, { contactId: string; name: string }>();
  outcomes.forEach((outcome, i) => {
    if (outcome.status === 'failed') return;
    for (const name of batch[i]!.tags) wanted.set(`${outcome.row.id}\u0000${name.toLowerCase()}`, { contactId: outcome.row.id, name });
  });
  if (wanted.size === 0) return outcomes;
  const added = await assignTagsInBulk(tx, organizationId, [...wanted.values()], now);
  return outcomes.map((outcome, i) => {
    if (outcome.status === 'failed') return outcome;
    const gained = batch[i]!.tags.filter((name) => added.delete(`${outcome.row.id}\u0000${name.toLowerCase()}`)).length > 0;
    return gained && outcome.status === 'unchanged' ? { ...outcome, status: 'updated' } : outcome;
  });
}

function count(outcomes: WriteOutcome[]) {
  const sum = { created: 0, updated: 0, unchanged: 0, failed: 0 };
  for (const o of outcomes) sum[o.status]++;
  return sum;
}

function trimErrors(result: ImportResult) {
  result.errors.sort((a, b) => a.row - b.row);
  if (result.errors.length > IMPORT_MAX_REPORTED_ERRORS) {
    result.errors.length = IMPORT_MAX_REPORTED_ERRORS;
    result.errorsTruncated = true;
  }
}
