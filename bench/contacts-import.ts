/**
 * Bulk import of 100,000 contacts as CSV through POST /v1/contacts/import, over HTTP, into a fresh
 * database on TEST_DATABASE_URL's PostgreSQL server (or embedded PGlite with --pglite).
 *
 *   TEST_DATABASE_URL=postgres://postgres@127.0.0.1:5432/test node bench/contacts-import.ts [--runs 3] [--pglite]
 *
 * Each run imports into a new organization: first every row is new (100,000 creates), then the same
 * file again (100,000 unchanged), then the file with every name changed (100,000 updates). The body
 * is generated while it is sent, as a client streaming a file would. Target: under 30 s on 2 cores.
 * Baseline in the same run: the same file streamed to a bare HTTP server in this process that reads
 * it and answers (the upload and CSV generation alone, no parsing or database).${values.pglite ? '\nPGlite keeps the database in this process\'s memory, so the RSS growth here is mostly the data itself.' : ''}
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { machine, median, writeSection } from './bench-report.ts';
import { createOtherOrganization, startTestServer, type TestServer } from '../test/harness.ts';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '3' },
    rows: { type: 'string', default: '100000' },
    pglite: { type: 'boolean', default: false },
    write: { type: 'boolean', default: false },
  },
});
const RUNS = Number(values.runs);
const ROWS = Number(values.rows);
if (!values.pglite && !process.env.TEST_DATABASE_URL) {
  console.error('set TEST_DATABASE_URL to a PostgreSQL server (a fresh database is made on it), or pass --pglite');
  process.exit(2);
}
if (values.pglite) delete process.env.TEST_DATABASE_URL;

function csvStream(rows: number, nameSuffix: string): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let i = 0;
  return new ReadableStream({
    pull(controller) {
      if (i === 0) controller.enqueue(encoder.encode('phone_number,name,email,external_source,external_id,custom_fields.plan\n'));
      if (i >= rows) return controller.close();
      const lines: string[] = [];
      for (const end = Math.min(rows, i + 2000); i < end; i++) {
        const n = String(i).padStart(7, '0');
        lines.push(
          `+1 415 ${n.slice(0, 3)} ${n.slice(3)},"Person ${i}${nameSuffix}",p${i}@import.example,erp,E-${i},${i % 3 === 0 ? 'pro' : 'free'}\n`,
        );
      }
      controller.enqueue(encoder.encode(lines.join('')));
    },
  });
}

type Run = { seconds: number; created: number; updated: number; unchanged: number; failed: number; rssGrowthMiB: number };

async function importOnce(server: TestServer, key: string, suffix: string): Promise<Run> {
  const rssBefore = process.memoryUsage().rss;
  let peak = rssBefore;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 50);
  const started = performance.now();
  const response = await fetch(`${server.baseUrl}/v1/contacts/import`, {
    method: 'POST',
    headers: { 'x-api-key': key, 'content-type': 'text/csv', accept: 'application/json' },
    body: csvStream(ROWS, suffix),
    duplex: 'half',
  } as RequestInit);
  const body = (await response.json()) as { data: Run & { rows: number } };
  const seconds = (performance.now() - started) / 1000;
  clearInterval(sampler);
  if (response.status !== 200 || body.data.rows !== ROWS || body.data.failed !== 0)
    throw new Error(`import failed: ${response.status} ${JSON.stringify(body).slice(0, 500)}`);
  return {
    seconds,
    created: body.data.created,
    updated: body.data.updated,
    unchanged: body.data.unchanged,
    failed: body.data.failed,
    rssGrowthMiB: (peak - rssBefore) / 2 ** 20,
  };
}

/** The baseline: the same stream to a bare server that only reads it; seconds. */
async function uploadOnce(url: string): Promise<number> {
  const started = performance.now();
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'text/csv' },
    body: csvStream(ROWS, ''),
    duplex: 'half',
  } as RequestInit);
  const { bytes } = (await response.json()) as { bytes: number };
  if (!(bytes > 0)) throw new Error('the baseline received nothing');
  return (performance.now() - started) / 1000;
}

const bare = createServer((req, res) => {
  let bytes = 0;
  req.on('data', (c: Buffer) => (bytes += c.length));
  req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ bytes })));
});
await new Promise<void>((r) => bare.listen(0, '127.0.0.1', r));
const bareUrl = `http://127.0.0.1:${(bare.address() as AddressInfo).port}/upload`;
const server = await startTestServer({ env: { LOG_LEVEL: 'warn' } });
const header = machine({
  Database: values.pglite
    ? 'embedded PGlite (in memory)'
    : `PostgreSQL on ${new URL(process.env.TEST_DATABASE_URL!).host} (same machine), fresh database`,
});
try {
  const results = { create: [] as Run[], unchanged: [] as Run[], update: [] as Run[] };
  const baseline: number[] = [];
  for (let r = 0; r < RUNS; r++) {
    baseline.push(await uploadOnce(bareUrl));
    const org = await createOtherOrganization(server, `import${r}`);
    results.create.push(await importOnce(server, org.apiKey, ''));
    results.unchanged.push(await importOnce(server, org.apiKey, ''));
    results.update.push(await importOnce(server, org.apiKey, ' (renamed)'));
    console.log(
      `run ${r + 1}:`,
      JSON.stringify({ create: results.create.at(-1), unchanged: results.unchanged.at(-1), update: results.update.at(-1) }),
    );
  }
  const row = (label: string, runs: Run[], field: 'created' | 'updated' | 'unchanged') => {
    const s = median(runs.map((x) => x.seconds));
    const ratio = median(runs.map((x, i) => x.seconds / baseline[i]!));
    return `| ${label} | ${runs.map((x) => x.seconds.toFixed(2)).join(' / ')} | **${s.toFixed(2)} s** | ${Math.round(ROWS / s).toLocaleString('en')} | ${ratio.toFixed(1)}× | ${runs[0]![field].toLocaleString('en')} | ${median(runs.map((x) => x.rssGrowthMiB)).toFixed(0)} MiB |`;
  };
  const report = `## Contacts bulk import (bench/contacts-import.ts)

Command: \`${values.pglite ? '' : 'TEST_DATABASE_URL=postgres://... '}node bench/contacts-import.ts --runs ${RUNS}${values.pglite ? ' --pglite' : ''}\` (${new Date().toISOString().slice(0, 10)})

${header}

${ROWS.toLocaleString('en')} CSV rows (phone, name, email, external id, one custom field) streamed to POST /v1/contacts/import over HTTP; each run into a new organization.
Target: under 30 s on 2 cores.${values.pglite ? "\nPGlite keeps the database in this process's memory, so the RSS growth here is mostly the data itself." : ''}

| Import | Runs (s) | Median | Rows/s | × baseline (median of per-run ratios) | Rows counted | Peak RSS growth (client + server process) |
| --- | --- | --- | --- | --- | --- | --- |
| baseline: the same stream to a bare server | ${baseline.map((x) => x.toFixed(2)).join(' / ')} | ${median(baseline).toFixed(2)} s | ${Math.round(ROWS / median(baseline)).toLocaleString('en')} | 1.0× | | |
${row('all new (creates)', results.create, 'created')}
${row('same file again (unchanged)', results.unchanged, 'unchanged')}
${row('every name changed (updates)', results.update, 'updated')}
`;
  console.log(report);
  writeSection(values.pglite ? 'contacts-import-pglite' : 'contacts-import', report);
} finally {
  await server.close();
  bare.close();
}
