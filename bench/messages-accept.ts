/**
 * POST /v1/messages: how fast messages are accepted, next to two baselines measured in the same run.
 *
 *   node bench/messages-accept.ts                 PGlite on disk (the default deployment)
 *   node bench/messages-accept.ts --pglite-memory PGlite in memory
 *   node bench/messages-accept.ts --pg            PostgreSQL (TEST_DATABASE_URL, or --pg-url, or
 *                                                 postgresql://postgres@127.0.0.1:5432/test)
 *   options: --runs 3 --duration 5 (seconds per phase) --connections 10 --recipients 1000
 *            --log-level info --json file --write (rewrite the section messages-accept-<backend> of BENCHMARKS.md)
 *
 * Each run: a fresh database; the service (API role only: the worker is off while measuring, so
 * sending does not compete) in a child process on 127.0.0.1; a sandbox gateway channel, paired;
 * every recipient of the pool sent to once (warm-up: their conversations exist). Then:
 *   (b) bare   POST /bench/bare: the same body schema and response schema, no database;
 *   (a) accept POST /v1/messages, closed loop with `connections` clients: sustained 2xx/s and
 *              latency percentiles; every statement the server sends to the database is counted;
 *   (c) db     the same durable write without the service: pgbench on PostgreSQL (same client
 *              count), an in-process loop on PGlite. `single` = the message row alone in one
 *              statement (the row is its own dispatch job: the least a durable accept can write);
 *              `replay` = every statement one traced accept sent, as sent (the same write);
 *   (d) half   POST /v1/messages at half of (a)'s rate (open loop): latency percentiles.
 * Results: per run, then medians over the runs.
 */
import { writeFileSync } from 'node:fs';
import { machine as machineLines, writeSection } from './bench-report.ts';
import {
  backendOf,
  freshPgDatabase,
  hasFlag,
  load,
  loadNow,
  machine,
  median,
  messageBody,
  numberOption,
  option,
  pairedGatewayChannel,
  pgbench,
  pgbenchVersion,
  round,
  startServer,
  type BenchServer,
  type LoadResult,
} from './lib/common.ts';
import { buildScript, messageInsertOf, poolPhone, toPgbench, type Script, type TraceEntry } from './lib/replay.ts';

const backend = backendOf();
const runs = numberOption('runs', 3);
const seconds = numberOption('duration', 5);
const connections = numberOption('connections', 10);
const pool = numberOption('recipients', 1000);
const logLevel = option('log-level', 'info');
const verbose = hasFlag('verbose');

type Db = { tps: number; p50?: number; latencyMs?: number; failed?: number };
type Run = {
  load: number[];
  bare: LoadResult;
  accept: LoadResult;
  half: LoadResult & { target: number };
  statementsPerAccept: number;
  tracedStatements: number;
  db: { single: Db; replay: Db };
};

/** One accept, traced: the statements and their values and rows. Three tries, the shortest kept (no background noise). */
async function traceAccept(server: BenchServer, channelId: string): Promise<{ entries: TraceEntry[]; since: number }> {
  let best: { entries: TraceEntry[]; since: number } | undefined;
  for (let i = 0; i < 3; i++) {
    await server.call({ cmd: 'trace', on: true });
    const since = Date.now();
    const res = await fetch(`${server.baseUrl}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': server.apiKey },
      body: messageBody(channelId, 0),
    });
    await res.text();
    const { entries } = await server.call<{ entries: TraceEntry[] }>({ cmd: 'trace', on: false });
    if (res.status !== 201) throw new Error(`traced accept answered ${res.status}`);
    if (!best || entries.length < best.entries.length) best = { entries, since };
  }
  return best!;
}

const short = (text: string) => text.replace(/\s+/g, ' ').trim().slice(0, 110);

async function oneRun(n: number): Promise<Run> {
  const database = backend === 'postgres' ? await freshPgDatabase() : undefined;
  const server = await startServer({ backend, databaseUrl: database?.url, worker: false, logLevel });
  try {
    const channelId = await pairedGatewayChannel(server);
    // From here on the API role only: accepted messages stay queued, nothing sends.
    await server.call({ cmd: 'restart', worker: false });
    const bodies = Array.from({ length: pool }, (_, i) => messageBody(channelId, i));
    // Warm-up: every recipient once (their conversations exist from now on), and the bare route.
    const warm = await load(server, '/v1/messages', bodies, { connections, amount: pool });
    if (warm.non2xx || warm.errors) throw new Error(`warm-up: ${warm.non2xx} non-2xx, ${warm.errors} errors`);
    await load(server, '/bench/bare', bodies, { connections, seconds: 2, auth: false });

    const trace = await traceAccept(server, channelId);
    const script: Script = buildScript(trace.entries, poolPhone(0), trace.since);
    if (n === 1) {
      console.log(`  one accept sent ${trace.entries.length} statements:`);
      for (const e of trace.entries) console.log(`    ${short(e.text)}`);
    }
    const runLoad = loadNow();

    const bare = await load(server, '/bench/bare', bodies, { connections, seconds, auth: false });
    await server.call({ cmd: 'count', on: true });
    const accept = await load(server, '/v1/messages', bodies, { connections, seconds });
    const { statements } = await server.call<{ statements: number }>({ cmd: 'count', on: false });
    if (accept.non2xx || accept.errors) console.log(`  ! accept: ${accept.non2xx} non-2xx, ${accept.errors} errors`);

    let db: Run['db'];
    const single = messageInsertOf(trace.entries, channelId);
    if (database) {
      const opts = { clients: connections, threads: 2, seconds };
      if (verbose) console.log(toPgbench(single, pool), toPgbench(script, pool));
      db = {
        single: await pgbench(database.url, toPgbench(single, pool), opts),
        replay: await pgbench(database.url, toPgbench(script, pool), opts),
      };
    } else {
      db = {
        single: await server.call<Db>({ cmd: 'sqlbench', script: single, seconds, concurrency: connections, pool }),
        replay: await server.call<Db>({ cmd: 'sqlbench', script, seconds, concurrency: connections, pool }),
      };
    }

    const target = Math.max(1, Math.floor(accept.rate / 2));
    const half = { ...(await load(server, '/v1/messages', bodies, { connections, seconds, rate: target })), target };
    return { load: runLoad, bare, accept, half, statementsPerAccept: statements / accept.ok, tracedStatements: trace.entries.length, db };
  } finally {
    await server.close();
    await database?.drop();
  }
}

const info = await machine(backend);
console.log(
  `messages-accept: ${backend}, ${runs} runs, ${seconds} s per phase, ${connections} connections, ${pool} recipients, log level ${logLevel}`,
);
console.log(
  `  ${info.cpus} CPUs (${info.cpuModel}), ${info.memoryGiB} GiB, node ${info.node}${info.postgres ? `, PostgreSQL ${info.postgres}` : ''}${backend === 'postgres' ? `, ${pgbenchVersion()}` : ''}`,
);
console.log(`  load average before: ${info.load.join(' ')}`);

const results: Run[] = [];
for (let n = 1; n <= runs; n++) {
  const r = await oneRun(n);
  results.push(r);
  const dbText = `single ${round(r.db.single.tps, 0)}, replay ${round(r.db.replay.tps, 0)}`;
  console.log(
    `run ${n} (load ${r.load.join(' ')}): bare ${round(r.bare.rate, 0)}/s p50/p90/p99 ${r.bare.p50}/${r.bare.p90}/${r.bare.p99} ms | ` +
      `accept ${round(r.accept.rate, 0)}/s p50/p90/p99 ${r.accept.p50}/${r.accept.p90}/${r.accept.p99} ms, ${round(r.statementsPerAccept, 2)} statements/accept | ` +
      `db tps ${dbText} | half rate ${r.half.target}/s: got ${round(r.half.rate, 0)}/s p50/p90/p99 ${r.half.p50}/${r.half.p90}/${r.half.p99} ms`,
  );
}

const m = (f: (r: Run) => number | undefined) => median(results.map((r) => f(r) ?? NaN));
const summary = {
  backend,
  runs,
  seconds,
  connections,
  recipients: pool,
  logLevel,
  machine: info,
  loadDuringRuns: results.map((r) => r.load),
  bare: { rate: m((r) => r.bare.rate), p50: m((r) => r.bare.p50), p90: m((r) => r.bare.p90), p99: m((r) => r.bare.p99) },
  accept: { rate: m((r) => r.accept.rate), p50: m((r) => r.accept.p50), p90: m((r) => r.accept.p90), p99: m((r) => r.accept.p99) },
  half: {
    target: m((r) => r.half.target),
    rate: m((r) => r.half.rate),
    p50: m((r) => r.half.p50),
    p90: m((r) => r.half.p90),
    p99: m((r) => r.half.p99),
  },
  db: { single: m((r) => r.db.single.tps), replay: m((r) => r.db.replay.tps) },
  statementsPerAccept: m((r) => r.statementsPerAccept),
  tracedStatements: m((r) => r.tracedStatements),
  // Ratios per run (accept and its baselines of the same run), then their median.
  ratios: {
    acceptOverBare: m((r) => r.accept.rate / r.bare.rate),
    acceptOverSingle: m((r) => r.accept.rate / r.db.single.tps),
    acceptOverReplay: m((r) => r.accept.rate / r.db.replay.tps),
  },
  perRun: results,
};
console.log('\nmedians over runs:');
console.log(
  `  bare route            ${round(summary.bare.rate, 0)}/s  p50/p90/p99 ${summary.bare.p50}/${summary.bare.p90}/${summary.bare.p99} ms`,
);
console.log(
  `  POST /v1/messages     ${round(summary.accept.rate, 0)}/s  p50/p90/p99 ${summary.accept.p50}/${summary.accept.p90}/${summary.accept.p99} ms`,
);
console.log(`  at half rate (${summary.half.target}/s)  p50/p90/p99 ${summary.half.p50}/${summary.half.p90}/${summary.half.p99} ms`);
console.log(
  `  database alone (tps)  single ${round(summary.db.single, 0)} (the message row), replay ${round(summary.db.replay, 0)} (the accept's statements as sent)`,
);
console.log(`  statements per accept ${round(summary.statementsPerAccept, 2)} (traced: ${summary.tracedStatements})`);
console.log(
  `  ratios                accept/bare ${round(summary.ratios.acceptOverBare * 100, 1)}%` +
    `, accept/single ${round(summary.ratios.acceptOverSingle * 100, 1)}%, accept/replay ${round(summary.ratios.acceptOverReplay * 100, 1)}%`,
);
console.log(`  load average after: ${loadNow().join(' ')}`);
const json = option('json', '');
if (json) writeFileSync(json, JSON.stringify(summary, null, 2));
if (hasFlag('write')) {
  const name = backend === 'postgres' ? 'PostgreSQL' : backend === 'pglite-disk' ? 'PGlite on disk' : 'PGlite in memory';
  const lat = (s: { p50: number; p90: number; p99: number }) => `${round(s.p50, 0)} / ${round(s.p90, 0)} / ${round(s.p99, 0)} ms`;
  const perRun = (f: (r: Run) => number) => results.map((r) => `${round(f(r) * 100, 0)}%`).join(', ');
  writeSection(
    `messages-accept-${backend === 'pglite-disk' ? 'pglite' : backend}`,
    `## Messages: accept rate (bench/messages-accept.ts), ${name}

Command: \`node bench/messages-accept.ts ${process.argv
      .slice(2)
      .filter((a) => a !== '--write')
      .join(' ')}\` (${new Date().toISOString().slice(0, 10)})

${machineLines(info.postgres ? { PostgreSQL: `${info.postgres} on 127.0.0.1 (same machine), ${pgbenchVersion()}` } : {})}

The service (API role, log level ${logLevel}) in a child process, a fresh database per run, a paired sandbox gateway channel, ${pool} recipients warmed up. Closed loop, ${connections} connections, ${seconds} s per phase. Baselines in the same run: \`bare\` (POST /bench/bare: the same schemas, no database), \`single\` (the message row alone in one statement) and \`replay\` (every statement of one traced accept, as sent) on the database without the service (${backend === 'postgres' ? 'pgbench' : 'an in-process loop'}). Ratios per run, then their median. Medians of ${runs} runs.

| Measure | Median | Ratio per run |
| --- | --- | --- |
| bare route (baseline) | ${round(summary.bare.rate, 0)}/s | |
| POST /v1/messages | **${round(summary.accept.rate, 0)}/s** | |
| accept / bare | ${round(summary.ratios.acceptOverBare * 100, 1)}% | ${perRun((r) => r.accept.rate / r.bare.rate)} |
| database alone, single (tps) | ${round(summary.db.single, 0)} | |
| database alone, replay (tps) | ${round(summary.db.replay, 0)} | |
| accept / replay (the same write) | **${round(summary.ratios.acceptOverReplay * 100, 1)}%** | ${perRun((r) => r.accept.rate / r.db.replay.tps)} |
| accept / single | ${round(summary.ratios.acceptOverSingle * 100, 1)}% | ${perRun((r) => r.accept.rate / r.db.single.tps)} |
| statements per accept | ${round(summary.statementsPerAccept, 2)} | |
| accept latency p50 / p90 / p99 | ${lat(summary.accept)} | |
| at half rate (${summary.half.target}/s, open loop) p50 / p90 / p99 | ${lat(summary.half)} | |`,
  );
}
