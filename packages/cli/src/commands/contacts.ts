/**
 * `parley contacts import FILE`: a CSV or JSON lines file to POST /v1/contacts/import, with a
 * progress bar (cli-progress) over the bytes the service has taken. The service reads the body as it
 * arrives and commits it in batches, so the bytes it has taken are the work done: the body goes out
 * in chunks handed over only as the connection drains (a stream body through the SDK's `fetch`).
 */
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import type { Context } from '../context.ts';
import { usageError } from '../errors.ts';
import type { Action } from '../program.ts';

const TYPES: Record<string, string> = { csv: 'text/csv', ndjson: 'application/x-ndjson' };
const CHUNK_BYTES = 64 * 1024;

type ImportResult = {
  import_id: string;
  rows: number;
  created: number;
  updated: number;
  unchanged: number;
  failed: number;
  errors: Array<{ row: number; line: number; field: string | null; message: string }>;
  errors_truncated: boolean;
  truncated: boolean;
};

/** The file's format: --format, else its extension (.csv; .ndjson, .jsonl). */
export function importFormat(file: string, format: string | undefined): 'csv' | 'ndjson' {
  if (format !== undefined) {
    if (format !== 'csv' && format !== 'ndjson') throw usageError('--format: csv or ndjson');
    return format;
  }
  const ext = path.extname(file).toLowerCase();
  if (ext === '.csv' || ext === '.tsv') return 'csv';
  if (ext === '.ndjson' || ext === '.jsonl') return 'ndjson';
  throw usageError(`cannot tell the format of ${file} from its name: add --format csv or --format ndjson`);
}

/**
 * A fetch that sends a request's body as a stream of chunks, each handed over when the connection
 * asks for more, telling onSent how far it got: progress as the receiver takes it.
 */
export function progressFetch(onSent: (sent: number, total: number) => void): typeof fetch {
  return async (input, init) => {
    const request = new Request(input, init);
    if (!request.body) return fetch(request);
    const bytes = new Uint8Array(await request.arrayBuffer());
    let offset = 0;
    const body = new ReadableStream<Uint8Array>(
      {
        pull(controller) {
          if (offset >= bytes.length) {
            controller.close();
            return;
          }
          const chunk = bytes.subarray(offset, offset + CHUNK_BYTES);
          offset += chunk.length;
          controller.enqueue(chunk);
          onSent(offset, bytes.length);
        },
      },
      { highWaterMark: 0 },
    );
    return fetch(request.url, {
      method: request.method,
      headers: request.headers,
      body,
      signal: request.signal,
      redirect: request.redirect,
      duplex: 'half',
    } as RequestInit);
  };
}

export function registerContacts(program: Command, action: Action): void {
  const contacts = program.command('contacts').description('Contacts');
  contacts
    .command('import')
    .description('Import contacts from a CSV or JSON lines file (each row upserted; bad rows listed)')
    .argument('<file>', 'the file (.csv, or .ndjson / .jsonl)')
    .option('--format <format>', 'csv or ndjson (default: from the file name)')
    .action(
      action(async (ctx: Context, options: { format?: string }, file: string) => {
        const format = importFormat(file, options.format);
        let size: number;
        try {
          size = statSync(file).size;
        } catch {
          throw usageError(`cannot read ${file}`);
        }
        const text = readFileSync(file, 'utf8');
        const { default: cliProgress } = await import('cli-progress');
        const bar = new cliProgress.SingleBar(
          {
            format: `Importing ${path.basename(file)} |{bar}| {percentage}% {value}/{total} bytes`,
            hideCursor: true,
            clearOnComplete: true,
          },
          cliProgress.Presets.shades_classic,
        );
        // Drawn only on a terminal (cli-progress draws nothing elsewhere), never into --json output.
        const showBar = Boolean(process.stderr.isTTY) && !ctx.output.json;
        if (showBar) bar.start(size, 0);
        const parley = ctx.client(undefined, { fetch: progressFetch((sent) => showBar && bar.update(sent)) });
        let result: ImportResult;
        try {
          result = (await parley.contacts.importContacts({ body: text, headers: { 'content-type': TYPES[format]! } })).data as ImportResult;
        } finally {
          if (showBar) bar.stop();
        }
        ctx.output.result(result, () => {
          ctx.output.line(
            `Imported ${result.rows} rows: ${result.created} created, ${result.updated} updated, ${result.unchanged} unchanged, ${result.failed} failed.`,
          );
          if (result.errors.length > 0) {
            ctx.output.table(result.errors, [
              { header: 'row', value: (e) => e.row },
              { header: 'line', value: (e) => e.line },
              { header: 'field', value: (e) => e.field },
              { header: 'problem', value: (e) => e.message },
            ]);
          }
          if (result.errors_truncated) ctx.output.line('(more rows failed than are listed)');
          if (result.truncated)
            ctx.output.line('The file went past the import limits: the rows from the first one listed on were not read.');
        });
      }),
    );
}
