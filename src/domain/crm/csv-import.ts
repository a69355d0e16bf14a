/**
 * The CRM's CSV imports (companies, deals): the contacts import's reading (csv.ts's streaming reader,
 * its limits on rows, bytes and row length, per-row errors by row, line and column) around a record
 * kind's own parse and batch writer. Each batch is written in its own transaction; a dry run writes
 * each batch the same way and rolls it back, so it reports exactly what the import would do (each
 * batch as if the ones before it were written: the writer is told what they would have made) and
 * changes nothing. One crm.import.committed event, with the last batch, sums a real import up (no
 * per-record events, as contacts' imports).
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Executor } from '../../db/client.ts';
import { CsvReader } from '../../lib/csv.ts';
import { uuidv7 } from '../../lib/ids.ts';
import { findUnstorableInput } from '../../lib/text.ts';
import type { Actor } from '../actor.ts';
import {
  IMPORT_BATCH_ROWS,
  IMPORT_MAX_BYTES,
  IMPORT_MAX_REPORTED_ERRORS,
  IMPORT_MAX_ROW_CHARS,
  IMPORT_MAX_ROWS,
  type ImportRowError,
} from '../contacts/import.ts';
import { invalid, type FieldError } from '../errors.ts';
import { recordEvent } from '../events/outbox.ts';

const IMPORT_YIELD_ROWS = 500;

/** A row's cells by column name (empty cells left out), and its `custom_fields.<key>` cells. */
export type ImportCells = { cells: Record<string, string>; custom: Record<string, string> };

/** A bad value of a row: the column at fault (null for the row as a whole) and why. */
export type CellError = { field: string | null; message: string };

export type RowOutcome = { status: 'created' | 'updated' | 'unchanged' } | { status: 'failed'; errors: CellError[] };

export type CsvImportSpec<P> = {
  kind: 'company' | 'deal';
  /** The columns, lower case; `custom_fields.<key>` (or `custom.<key>`) columns are always allowed. */
  columns: readonly string[];
  /** Other names of a column. */
  aliases?: Record<string, string>;
  /** One row's cells to what the writer takes, or the columns at fault. */
  parse(row: ImportCells): { ok: true; value: P } | { ok: false; errors: CellError[] };
  /**
   * Writes a batch in the transaction given, in order; an outcome per row. `memo` is the writer's own
   * state across the batches of one import (what a dry run's rolled-back batches would have made).
   */
  write(tx: Executor, batch: P[], context: { actor: Actor; now: Date; memo: Map<string, unknown>; dryRun: boolean }): Promise<RowOutcome[]>;
};

export type CsvImportResult = {
  importId: string;
  objectKind: 'company' | 'deal';
  dryRun: boolean;
  rows: number;
  created: number;
  updated: number;
  unchanged: number;
  failed: number;
  errors: ImportRowError[];
  errorsTruncated: boolean;
  truncated: boolean;
};

type Pending<P> = { row: number; line: number; value: P };

/** Thrown to roll a dry run's batch back once its outcomes are known. */
class DryRunRollback extends Error {
  readonly outcomes: RowOutcome[];
  constructor(outcomes: RowOutcome[]) {
    super('dry run');
    this.outcomes = outcomes;
  }
}

/** A CRM field's pointer (from a record kind's normalization) as the CSV column it came from. */
export function columnOf(pointer: string, columns: Record<string, string> = {}): string | null {
  const path = pointer.replace(/^\//, '').split('/').filter(Boolean);
  if (path.length === 0) return null;
  const joined = path.join('.');
  return columns[joined] ?? columns[path[0]!] ?? joined;
}

/** Field errors as cell errors, each pointer named as its column. */
export const cellErrors = (errors: FieldError[], columns?: Record<string, string>): CellError[] =>
  errors.map((e) => ({ field: columnOf(e.pointer, columns), message: e.message }));

function readHeader(spec: CsvImportSpec<unknown>, cells: string[]): Array<{ column: string } | { custom: string }> {
  const errors: FieldError[] = [];
  const seen = new Set<string>();
  const columns = cells.map((cell, index) => {
    const name = cell.trim().toLowerCase();
    const custom = /^(?:custom_fields|custom)\.(.+)$/i.exec(cell.trim());
    let column: { column: string } | { custom: string } | undefined;
    if (custom) column = { custom: custom[1]! };
    else if (spec.columns.includes(name)) column = { column: name };
    else if (spec.aliases?.[name]) column = { column: spec.aliases[name] };
    const key = column ? ('column' in column ? column.column : `custom.${column.custom}`) : '';
    if (!column) errors.push({ pointer: `/columns/${index}`, message: `unknown column ${JSON.stringify(cell)}` });
    else if (seen.has(key)) errors.push({ pointer: `/columns/${index}`, message: `column ${JSON.stringify(cell)} appears twice` });
    seen.add(key);
    return column ?? { custom: '' };
  });
  if (errors.length > 0)
    throw invalid(
      `the CSV header is invalid: ${errors.map((e) => e.message).join('; ')}; the columns are ${spec.columns.join(', ')} and custom_fields.<key>`,
      errors,
    );
  return columns;
}

/**
 * Imports a stream of CSV (UTF-8, first line the header) with a record kind's spec: rows read as
 * they arrive, parsed, and written in batches of IMPORT_BATCH_ROWS (or, for a dry run, written and
 * rolled back). Bad rows are reported (row, line, column, message) and skipped. Reading stops after
 * IMPORT_MAX_ROWS rows or IMPORT_MAX_BYTES bytes (`truncated`, with an error naming the first row not read).
 */
export async function importCsv<P>(
  { db, clock }: { db: Executor; clock: { now(): Date } },
  actor: Actor,
  spec: CsvImportSpec<P>,
  input: { body: AsyncIterable<Uint8Array | string>; dryRun: boolean },
): Promise<CsvImportResult> {
  const result: CsvImportResult = {
    importId: uuidv7(),
    objectKind: spec.kind,
    dryRun: input.dryRun,
    rows: 0,
    created: 0,
    updated: 0,
    unchanged: 0,
    failed: 0,
    errors: [],
    errorsTruncated: false,
    truncated: false,
  };
  const memo = new Map<string, unknown>();
  let pending: Array<Pending<P>> = [];
  let header: ReturnType<typeof readHeader> | undefined;
  let lastLine = 0;
  let stopError: ImportRowError | undefined;

  const fail = (row: number, line: number, errors: CellError[]) => {
    result.failed++;
    for (const e of errors) result.errors.push({ row, line, field: e.field, message: e.message });
    if (result.errors.length > IMPORT_MAX_REPORTED_ERRORS * 2) trimErrors(result);
  };

  const record = (cells: string[], line: number) => {
    if (!header) {
      header = readHeader(spec as CsvImportSpec<unknown>, cells);
      return;
    }
    const row = ++result.rows;
    if (cells.length > header.length)
      return fail(row, line, [{ field: null, message: `the row has ${cells.length} cells; the header has ${header.length}` }]);
    const named: ImportCells = { cells: {}, custom: {} };
    header.forEach((column, i) => {
      const cell = cells[i]?.trim() ?? '';
      if (cell === '') return;
      if ('column' in column) named.cells[column.column] = cell;
      else named.custom[column.custom] = cell;
    });
    // Text the database cannot store (NUL, a lone surrogate) would fail the whole batch's statement.
    const unstorable = findUnstorableInput(named);
    if (unstorable)
      return fail(row, line, [{ field: unstorable.path.slice(1).map(String).join('.') || null, message: unstorable.message }]);
    const parsed = spec.parse(named);
    if (!parsed.ok) return fail(row, line, parsed.errors);
    pending.push({ row, line, value: parsed.value });
  };

  const flush = async (final: boolean) => {
    const batch = pending;
    pending = [];
    if (batch.length === 0 && !final) return;
    const write = (tx: Executor) =>
      batch.length
        ? spec.write(
            tx,
            batch.map((p) => p.value),
            { actor, now: clock.now(), memo, dryRun: input.dryRun },
          )
        : Promise.resolve([] as RowOutcome[]);
    let outcomes: RowOutcome[];
    if (input.dryRun) {
      try {
        await db.transaction(async (tx) => {
          throw new DryRunRollback(await write(tx));
        });
        throw new Error('unreachable: a dry run batch commits');
      } catch (err) {
        if (!(err instanceof DryRunRollback)) throw err;
        outcomes = err.outcomes;
      }
    } else {
      outcomes = await db.transaction(async (tx) => {
        const done = await write(tx);
        if (final) {
          const sum = { created: result.created, updated: result.updated, unchanged: result.unchanged, failed: result.failed };
          for (const o of done) sum[o.status]++;
          await recordEvent(tx, actor.organizationId, 'crm.import.committed', {
            import_id: result.importId,
            object_kind: spec.kind,
            ...sum,
            organization_id: actor.organizationId,
          });
        }
        return done;
      });
    }
    outcomes.forEach((outcome, i) => {
      const p = batch[i]!;
      if (outcome.status === 'failed') fail(p.row, p.line, outcome.errors);
      else result[outcome.status]++;
    });
  };

  const decoder = new TextDecoder('utf-8');
  const reader = new CsvReader(undefined, IMPORT_MAX_ROW_CHARS);
  let sinceYield = 0;
  const take = async (text: string, final: boolean): Promise<boolean> => {
    const records = final ? [...reader.push(text), ...reader.end()] : reader.push(text);
    for (const r of records) {
      lastLine = r.line;
      if (!r.tooLong && r.cells.every((c) => c.trim() === '')) continue;
      if (!header && r.tooLong)
        throw invalid(`the CSV header is longer than ${IMPORT_MAX_ROW_CHARS} characters`, [{ pointer: '/columns', message: 'too long' }]);
      if (header && result.rows >= IMPORT_MAX_ROWS) {
        stopError = {
          row: IMPORT_MAX_ROWS + 1,
          line: r.line,
          field: null,
          message: `a request imports at most ${IMPORT_MAX_ROWS} rows: this row and those after it were not imported`,
        };
        return true;
      }
      if (r.tooLong)
        fail(++result.rows, r.line, [
          { field: null, message: `the row is longer than ${IMPORT_MAX_ROW_CHARS} characters: it was not imported` },
        ]);
      else record(r.cells, r.line);
      if (pending.length >= IMPORT_BATCH_ROWS) await flush(false);
      else if (++sinceYield >= IMPORT_YIELD_ROWS) {
        sinceYield = 0;
        await nextTurn();
      }
    }
    if (final && reader.unterminated)
      result.errors.push({ row: result.rows, line: lastLine, field: null, message: 'the file ends inside a quoted field' });
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
  if (result.rows === 0 && result.errors.length === 0 && !stopError)
    throw invalid(`the CSV has no rows: send a header line and one line per ${spec.kind}`, [{ pointer: '/', message: 'no rows' }]);
  await flush(true);
  trimErrors(result);
  if (stopError) {
    result.truncated = true;
    result.errors.push(stopError);
  }
  return result;
}

function trimErrors(result: CsvImportResult) {
  result.errors.sort((a, b) => a.row - b.row);
  if (result.errors.length > IMPORT_MAX_REPORTED_ERRORS) {
    result.errors.length = IMPORT_MAX_REPORTED_ERRORS;
    result.errorsTruncated = true;
  }
}
