/**
 * Scale-out at full size: the scenario of test/process/scale-out.ts (2 API processes, worker
 * processes on one PostgreSQL database, official and gateway sandbox channels, two webhook endpoints,
 * idempotent POSTs through both APIs) with all its assertions, and its throughput end to end (first
 * POST to the last message read) with 1 and 2 worker processes, and with 3 of which one is SIGKILLed
 * halfway (and an API process killed and restarted).
 *
 *   node bench/scale-out.ts            PostgreSQL (TEST_DATABASE_URL, --pg-url, or the local server)
 *   options: --runs 1 --messages 20000 --concurrency 32 --workers 1,2,3k (k: with the kills)
 *            --kill-runs N (runs of the layouts with the kills; default --runs: they prove the
 *            scenario holds, their rate is not a target)
 *            --write (rewrite this benchmark's section of BENCHMARKS.md)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runScaleOut, type ScaleOutResult } from '../test/process/scale-out.ts';
import { machine, median, writeSection } from './bench-report.ts';
import { freshPgDatabase, hasFlag, numberOption, option, pgServerUrl, round } from './lib/common.ts';

const runs = numberOption('runs', 1);
const killRuns = numberOption('kill-runs', runs);
const count = numberOption('messages', 20_000);
const concurrency = numberOption('concurrency', 32);
const APIS = 2;
const layouts = option('workers', '1,2,3k')
  .split(',')
  .map((w) => ({ workers: Number.parseInt(w, 10), kill: w.endsWith('k') }));

type Layout = (typeof layouts)[number];
const runsOf = (l: Layout) => (l.kill ? killRuns : runs);
const labelOf = (l: Layout) =>
  `${APIS} API + ${l.workers} worker${l.workers === 1 ? '' : 's'}${l.kill ? ', one SIGKILLed halfway, an API restarted' : ''}`;

async function oneRun(layout: Layout): Promise<ScaleOutResult> {
  const database = await freshPgDatabase();
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'parley-scale-out-'));
  try {
    return await runScaleOut({
      deployment: { dataDir, databaseUrl: database.url },
      apis: APIS,
      workers: layout.workers,
      messages: count,
      kill: layout.kill,
      concurrency,
      deadlineMs: 30 * 60_000,
      log: (line) => console.log(`  ${new Date().toISOString().slice(11, 19)} ${line}`),
    });
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
    await database.drop();
  }
}

const header = machine({
  Database: `PostgreSQL on ${new URL(pgServerUrl()).host} (same machine), a fresh database per run`,
  Service: '`node src/main.ts` processes: ROLES=api and ROLES=worker, LOG_LEVEL=warn, RATE_LIMIT_PER_MINUTE=0, SANDBOX_STATUS_DELAY_MS=20',
});
console.log(`scale-out: ${count} messages, ${runs} run(s) per layout (${killRuns} with the kills), ${concurrency} clients\n${header}`);
const rows: Array<{ layout: Layout; results: ScaleOutResult[] }> = [];
for (const layout of layouts) {
  const results: ScaleOutResult[] = [];
  for (let n = 1; n <= runsOf(layout); n++) {
    console.log(
      `${labelOf(layout)}, run ${n} (load ${os
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')})`,
    );
    const r = await oneRun(layout);
    console.log(
      `  accepted in ${r.acceptSeconds.toFixed(1)} s, read in ${r.endToEndSeconds.toFixed(1)} s: ${round(r.rate)} messages/s end to end; ${r.events} events, ${r.webhookRequests} webhook requests; ${r.retried} POSTs retried through another API; service CPU ${round(r.cpuSeconds)} s (${round((r.cpuSeconds / r.messages) * 1000)} ms a message)`,
    );
    results.push(r);
  }
  rows.push({ layout, results });
}

const base = median(rows[0]!.results.map((r) => r.rate));
const table = [
  '| Processes | Accepted/s | Read/s (end to end) | × the first row | First POST → last read | Service CPU a message | Events (each at both endpoints) |',
  '| --- | --- | --- | --- | --- | --- | --- |',
  ...rows.map(({ layout, results }) => {
    const rate = median(results.map((r) => r.rate));
    const accepted = median(results.map((r) => r.messages / r.acceptSeconds));
    return `| ${labelOf(layout)} | ${round(accepted, 0)} | **${round(rate, 0)}** | ${round(rate / base, 2)}× | ${round(median(results.map((r) => r.endToEndSeconds)))} s | ${round(median(results.map((r) => (r.cpuSeconds / r.messages) * 1000)))} ms | ${median(results.map((r) => r.events)).toLocaleString('en-US')} |`;
  }),
].join('\n');
console.log(`\n${table}`);
if (hasFlag('write')) {
  writeSection(
    'scale-out',
    `## Scale-out: API and worker processes on one database (bench/scale-out.ts)

Command: \`node bench/scale-out.ts ${process.argv
      .slice(2)
      .filter((a) => a !== '--write')
      .join(' ')}\` (${new Date().toISOString().slice(0, 10)})

${header}

Each run: a fresh database; ${APIS} API processes and the worker processes named; 2 official and 2 gateway channels bound to the sandbox (pacing raised to 1,000/s; official: templates to recipients of their own and every fourth a text to one of 4 customers who wrote in; gateway: texts to recipients of their own), 2 webhook endpoints (receivers on 127.0.0.1) subscribed to message.new, message.sent and message.status_update; ${count.toLocaleString('en-US')} messages POSTed by ${concurrency} clients through the APIs in turn, each with an Idempotency-Key, every 50th again through the other API (a replay). The run passes only when every message is read, the sandbox holds each exactly once, every event reached both endpoints and nothing is left queued, due, pending or held (the assertions of test/process/scale-out.ts). Read/s: messages over the time from the first POST to the last message's last update. Service CPU: user + system seconds of the API and worker processes (from /proc, start-up included; PostgreSQL's own not counted) over the messages, which the machine's other work does not inflate as it does the rates. Medians of ${runs} run(s) per row${killRuns !== runs && layouts.some((l) => l.kill) ? ` (${killRuns} for the row with the kills: it proves the scenario holds under kills; its rate is no target)` : ''}; the machine's other work shows in the load average above.

${table}`,
  );
}
