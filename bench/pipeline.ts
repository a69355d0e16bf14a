/**
 * The message pipeline end to end: accept -> sent -> delivered -> read, each step with its webhooks
 * delivered, through one default process (`node src/main.ts`, roles api and worker, log level warn,
 * rate limit off) with the sandbox provider in it (SANDBOX_STATUS_DELAY_MS=0).
 *
 *   node bench/pipeline.ts           embedded PGlite (on disk, in the service's data directory)
 *   node bench/pipeline.ts --pg      PostgreSQL (TEST_DATABASE_URL, --pg-url, or the local server)
 *   options: --runs 3 --messages 3000 --rate 200 --seconds 15 --pacing 1000 --concurrency 32
 *            --json file (write the summary) --before file (a summary to show as the "before" row)
 *            --write (rewrite this benchmark's section of BENCHMARKS.md)
 *
 * Each run: a fresh database; a paired sandbox gateway channel with pacing raised to `pacing`/s; one
 * webhook endpoint on a receiver on 127.0.0.1, subscribed to message.sent and message.status_update;
 * 20 messages of warm-up, waited for. Then two phases:
 *  - burst: `messages` messages to as many recipients, POSTed by `concurrency` clients as fast as the
 *    API takes them. Rates are counted from the first POST to the last 201 (accepted/s), to the last
 *    message.sent webhook (sent/s), and to the last `read` status webhook (read/s: the end-to-end
 *    rate); webhook deliveries/s over the whole phase.
 *  - steady: `rate` messages a second for `seconds`, open loop; accept -> read is the time from the
 *    201 to the arrival of the message's `read` status webhook at the receiver (p50/p99).
 * Afterwards the service is stopped and its database read: per job queue, the wait from due
 * (start_after) to picked up; event -> first webhook attempt; `sent` rows per message.
 * Baseline in the same run: plain POSTs to the same receiver from a child process (the loopback and
 * HTTP-client floor of a webhook delivery), see bench/lib/webhooks.ts baselineRate.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { openDatabase, queryRows } from '../src/db/client.ts';
import { machine, median, percentile, writeSection } from './bench-report.ts';
import { backendOf, cpuUsOf, hasFlag, numberOption, option, pgServerUrl, postgresCpuUs } from './lib/common.ts';
import { burst, deployWithTraffic, now, sleep, steady, untilRead, type Seen } from './lib/message-traffic.ts';
import { baselineRate } from './lib/webhooks.ts';

const backend = backendOf() === 'postgres' ? 'postgres' : 'pglite';
const runs = numberOption('runs', 3);
const count = numberOption('messages', 3000);
const rate = numberOption('rate', 200);
const seconds = numberOption('seconds', 15);
const pacing = numberOption('pacing', 1000);
const concurrency = numberOption('concurrency', 32);
const WARM_UP = 20;

// ---------------------------------------------------------------------------------------------
// A run

type Percentiles = { p50: number; p99: number; max: number; n: number };
type QueueWait = { name: string; jobs: number; wait_p50: number; wait_p99: number; wait_max: number };
type Run = {
  load: number[];
  burst: {
    acceptedPerSecond: number;
    sentPerSecond: number;
    readPerSecond: number;
    webhooksPerSecond: number;
    seconds: number;
    missing: number;
    /** CPU ms per message over the burst, by process: the service, PostgreSQL (NaN on PGlite: it runs in the service), this benchmark. */
    cpuMsPerMessage: { service: number; postgres: number; bench: number };
  };
  steady: { acceptToRead: Percentiles; acceptToSent: Percentiles; readPerSecond: number; missing: number };
  queues: QueueWait[];
  webhookLag: Percentiles;
  sentRowsPerMessage: number;
  baselinePostsPerSecond: number;
};

const stats = (values: number[]): Percentiles => {
  const xs = [...values].sort((a, b) => a - b);
  return { p50: percentile(xs, 50), p99: percentile(xs, 99), max: xs.at(-1) ?? NaN, n: xs.length };
};

async function oneRun(): Promise<Run> {
  const load = os.loadavg().map((l) => Math.round(l * 100) / 100);
  const { service, receiver, channelId, database, dataDir, stopService, close } = await deployWithTraffic(backend, pacing, WARM_UP);
  try {
    // Burst.
    const deliveriesBefore = receiver.deliveries();
    const pid = service.child.pid!;
    const cpu0 = { service: cpuUsOf(pid), postgres: postgresCpuUs(), bench: process.cpuUsage() };
    const t0 = now();
    const accepted = await burst(service, channelId, count, WARM_UP, concurrency);
    const burstMissing = await untilRead(
      receiver,
      accepted.map((a) => a.id),
    );
    // CPU per message over the burst: the service, PostgreSQL's processes (on PGlite, inside the
    // service), and this process (the clients posting and the webhook receiver).
    const ownUs = process.cpuUsage(cpu0.bench);
    const cpuMsPerMessage = {
      service: (cpuUsOf(pid) - cpu0.service) / 1000 / count,
      postgres: backend === 'postgres' ? (postgresCpuUs() - cpu0.postgres) / 1000 / count : NaN,
      bench: (ownUs.user + ownUs.system) / 1000 / count,
    };
    const last = (f: (s: Seen) => number | undefined) =>
      Math.max(...accepted.map((a) => f(receiver.seen.get(a.id) ?? {}) ?? NaN).filter(Number.isFinite));
    const lastAccept = Math.max(...accepted.map((a) => a.at));
    const lastRead = last((s) => s.read);
    // The deliveries of the phase: 3 per message (sent, status sent... see the receiver) until the last read.
    const burstDeliveries = receiver.deliveries() - deliveriesBefore;
    const perSecond = (n: number, until: number) => n / ((until - t0) / 1000);
    const burstResult = {
      acceptedPerSecond: perSecond(count, lastAccept),
      sentPerSecond: perSecond(
        count,
        last((s) => s.sent),
      ),
      readPerSecond: perSecond(count - burstMissing, lastRead),
      webhooksPerSecond: perSecond(burstDeliveries, receiver.lastAt()),
      seconds: (lastRead - t0) / 1000,
      missing: burstMissing,
      cpuMsPerMessage,
    };

    // Steady.
    await sleep(1000);
    const s0 = now();
    const steadyAccepted = await steady(service, channelId, rate * seconds, WARM_UP + count, rate);
    const steadyMissing = await untilRead(
      receiver,
      steadyAccepted.map((a) => a.id),
    );
    const reads = steadyAccepted.map((a) => ({ a, s: receiver.seen.get(a.id) })).filter((x) => x.s?.read !== undefined);
    const steadyResult = {
      acceptToRead: stats(reads.map((x) => x.s!.read! - x.a.at)),
      acceptToSent: stats(reads.filter((x) => x.s!.sent !== undefined).map((x) => x.s!.sent! - x.a.at)),
      readPerSecond: reads.length / ((Math.max(...reads.map((x) => x.s!.read!)) - s0) / 1000),
      missing: steadyMissing,
    };

    // The floor of a delivery, on the same receiver.
    const baselinePostsPerSecond = await baselineRate(
      `${receiver.url}/baseline`,
      3000,
      32,
      JSON.stringify({ message_id: 'baseline', status: 'read' }),
    );

    await stopService();
    const opened = database
      ? await openDatabase({ kind: 'postgres', url: database.url, poolSize: 2 })
      : await openDatabase({ kind: 'pglite', dataDir: path.join(dataDir, 'db') });
    try {
      const db = opened.db;
      const queues = await queryRows<QueueWait>(
        db,
        sql`select name, count(*)::int as jobs,
              coalesce(percentile_cont(0.5) within group (order by extract(epoch from started_on - start_after) * 1000), 0)::float8 as wait_p50,
              coalesce(percentile_cont(0.99) within group (order by extract(epoch from started_on - start_after) * 1000), 0)::float8 as wait_p99,
              coalesce(max(extract(epoch from started_on - start_after) * 1000), 0)::float8 as wait_max
            from pgboss.job where started_on is not null and name in ('sandbox.callback', 'provider.inbound')
            group by name order by name`,
      );
      const lags = await queryRows<{ ms: number }>(
        db,
        sql`select extract(epoch from min(a.attempted_at) - min(e.created_at))::float8 * 1000 as ms
              from webhook_deliveries d join events e on e.id = d.event_id join webhook_attempt_log a on a.delivery_id = d.id
             group by d.id`,
      );
      const [sentRows] = await queryRows<{ ratio: number }>(
        db,
        sql`select (count(*)::float8 / greatest(1, count(distinct message_id)))::float8 as ratio from message_status_log where status = 'sent'`,
      );
      return {
        load,
        burst: burstResult,
        steady: steadyResult,
        queues,
        webhookLag: stats(lags.map((l) => Number(l.ms))),
        sentRowsPerMessage: Number(sentRows?.ratio ?? NaN),
        baselinePostsPerSecond,
      };
    } finally {
      await opened.close();
    }
  } finally {
    await close();
  }
}

// ---------------------------------------------------------------------------------------------
// Report

const r0 = (v: number) => (Number.isFinite(v) ? Math.round(v).toLocaleString('en-US') : 'n/a');
const r2 = (v: number) => (Number.isFinite(v) ? v.toFixed(2) : 'n/a');

type Summary = {
  label: string;
  backend: string;
  acceptedPerSecond: number;
  sentPerSecond: number;
  readPerSecond: number;
  webhooksPerSecond: number;
  steadyP50: number;
  steadyP99: number;
  steadyReadPerSecond: number;
  sentRowsPerMessage: number;
  baselinePostsPerSecond: number;
  queues: Record<string, { wait_p50: number; wait_p99: number; wait_max: number }>;
  webhookLagP50: number;
  webhookLagP99: number;
  cpuMsPerMessage: { service: number; postgres: number; bench: number };
  runs: Run[];
};

function summarize(label: string, results: Run[]): Summary {
  const med = (f: (r: Run) => number) => median(results.map(f));
  const queues: Summary['queues'] = {};
  for (const name of ['sandbox.callback', 'provider.inbound']) {
    const of = (r: Run) => r.queues.find((q) => q.name === name);
    if (!results.some(of)) continue;
    queues[name] = {
      wait_p50: med((r) => of(r)?.wait_p50 ?? NaN),
      wait_p99: med((r) => of(r)?.wait_p99 ?? NaN),
      wait_max: med((r) => of(r)?.wait_max ?? NaN),
    };
  }
  return {
    label,
    backend,
    acceptedPerSecond: med((r) => r.burst.acceptedPerSecond),
    sentPerSecond: med((r) => r.burst.sentPerSecond),
    readPerSecond: med((r) => r.burst.readPerSecond),
    webhooksPerSecond: med((r) => r.burst.webhooksPerSecond),
    steadyP50: med((r) => r.steady.acceptToRead.p50),
    steadyP99: med((r) => r.steady.acceptToRead.p99),
    steadyReadPerSecond: med((r) => r.steady.readPerSecond),
    sentRowsPerMessage: med((r) => r.sentRowsPerMessage),
    baselinePostsPerSecond: med((r) => r.baselinePostsPerSecond),
    queues,
    webhookLagP50: med((r) => r.webhookLag.p50),
    webhookLagP99: med((r) => r.webhookLag.p99),
    cpuMsPerMessage: {
      service: med((r) => r.burst.cpuMsPerMessage.service),
      postgres: med((r) => r.burst.cpuMsPerMessage.postgres),
      bench: med((r) => r.burst.cpuMsPerMessage.bench),
    },
    runs: results,
  };
}

/** The messages a second the machine's cores allow at this CPU cost per message (every process of the run counted). */
const ceiling = (c: { service: number; postgres: number; bench: number }) =>
  (os.availableParallelism() * 1000) / (c.service + (Number.isFinite(c.postgres) ? c.postgres : 0) + c.bench);

function cpuCell(c: Summary['cpuMsPerMessage'] | undefined): string {
  if (!c) return 'n/a';
  return `${r2(c.service)} / ${backend === 'postgres' ? r2(c.postgres) : '(in service)'} / ${r2(c.bench)} (${r0(ceiling(c))}/s)`;
}

function row(s: Summary): string {
  const q = (name: string) =>
    s.queues[name] ? `${r0(s.queues[name].wait_p50)} / ${r0(s.queues[name].wait_p99)} / ${r0(s.queues[name].wait_max)}` : 'n/a';
  return `| ${s.label} | ${r0(s.acceptedPerSecond)} | ${r0(s.sentPerSecond)} | **${r0(s.readPerSecond)}** | ${r0(s.webhooksPerSecond)} (${r2(s.webhooksPerSecond / s.baselinePostsPerSecond)}× of ${r0(s.baselinePostsPerSecond)}) | ${r0(s.steadyP50)} / **${r0(s.steadyP99)}** ms | ${q('sandbox.callback')} | ${q('provider.inbound')} | ${r0(s.webhookLagP50)} / ${r0(s.webhookLagP99)} | ${r2(s.sentRowsPerMessage)} | ${cpuCell(s.cpuMsPerMessage)} |`;
}

const header = machine({
  Database:
    backend === 'postgres'
      ? `PostgreSQL on ${new URL(pgServerUrl()).host} (same machine), a fresh database per run`
      : "embedded PGlite on disk (the service's data directory), fresh per run",
  Service:
    '`node src/main.ts` as its own process: roles api and worker, LOG_LEVEL=warn, RATE_LIMIT_PER_MINUTE=0, SANDBOX_STATUS_DELAY_MS=0',
});
const label = option('label', 'this run');
console.log(
  `pipeline: ${backend}, ${runs} runs, burst ${count} messages (${concurrency} clients), steady ${rate}/s for ${seconds} s, pacing ${pacing}/s`,
);
console.log(header);
const results: Run[] = [];
for (let n = 1; n <= runs; n++) {
  const r = await oneRun();
  results.push(r);
  console.log(
    `run ${n} (load ${r.load.join(' ')}): burst accepted ${r0(r.burst.acceptedPerSecond)}/s, sent ${r0(r.burst.sentPerSecond)}/s, read ${r0(r.burst.readPerSecond)}/s (${r.burst.seconds.toFixed(1)} s), webhooks ${r0(r.burst.webhooksPerSecond)}/s${r.burst.missing ? `, ${r.burst.missing} not read` : ''}` +
      ` | steady ${rate}/s: accept->read p50/p99/max ${r0(r.steady.acceptToRead.p50)}/${r0(r.steady.acceptToRead.p99)}/${r0(r.steady.acceptToRead.max)} ms, accept->sent p50/p99 ${r0(r.steady.acceptToSent.p50)}/${r0(r.steady.acceptToSent.p99)} ms, read ${r0(r.steady.readPerSecond)}/s${r.steady.missing ? `, ${r.steady.missing} not read` : ''}`,
  );
  console.log(
    `  queue waits p50/p99/max ms: ${r.queues.map((q) => `${q.name} (${q.jobs} jobs) ${r0(q.wait_p50)}/${r0(q.wait_p99)}/${r0(q.wait_max)}`).join('; ')} | event -> first webhook attempt p50/p99 ${r0(r.webhookLag.p50)}/${r0(r.webhookLag.p99)} ms | sent rows per message ${r2(r.sentRowsPerMessage)} | baseline POSTs ${r0(r.baselinePostsPerSecond)}/s | burst CPU ms/message ${cpuCell(r.burst.cpuMsPerMessage)}`,
  );
}
const summary = summarize(label, results);
const json = option('json', '');
if (json) writeFileSync(json, JSON.stringify(summary, null, 2));
const beforeFile = option('before', '');
const before = beforeFile ? (JSON.parse(readFileSync(beforeFile, 'utf8')) as Summary) : undefined;

const table = [
  '| Code | Accepted/s | Sent/s | Read/s (end to end) | Webhook deliveries/s (× baseline POSTs/s) | Steady accept → read p50 / p99 | sandbox.callback wait p50 / p99 / max ms | provider.inbound wait p50 / p99 / max ms | Event → first webhook attempt p50 / p99 ms | `sent` rows per message | Burst CPU ms per message: service / PostgreSQL / benchmark (messages/s the cores allow at that cost) |',
  '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
  ...(before ? [row(before)] : []),
  row(summary),
].join('\n');
console.log(`\n${table}`);
if (hasFlag('write')) {
  writeSection(
    `pipeline-${backend}`,
    `## Message pipeline end to end (bench/pipeline.ts), ${backend === 'postgres' ? 'PostgreSQL' : 'PGlite'}

Command: \`node bench/pipeline.ts ${process.argv
      .slice(2)
      .filter((a) => a !== '--write')
      .join(' ')}\` (${new Date().toISOString().slice(0, 10)})

${header}

Burst: ${count.toLocaleString('en-US')} text messages to as many recipients, POSTed by ${concurrency} clients, on a paired sandbox gateway channel with pacing raised to ${pacing}/s, one webhook endpoint (a receiver on 127.0.0.1) subscribed to message.sent and message.status_update. Rates run from the first POST to the last 201 (accepted), the last message.sent webhook (sent), the last \`read\` status webhook (read: end to end). Steady: ${rate} messages/s for ${seconds} s, open loop; accept → read is the 201 to the arrival of the message's \`read\` webhook. Queue waits: pg-boss's due (start_after) to picked up, over the whole run. CPU per message: user + system time over the burst (/proc) of the service process, of every PostgreSQL process on the machine, and of this benchmark (its clients and the webhook receiver), divided by the burst's messages; the machine's ${os.availableParallelism()} cores divided by their sum is the rate they allow at that cost. Baseline (same run, same receiver): plain unsigned POSTs from a child process, 32 in flight. Medians of ${runs} runs.
Targets (issue 14): read/s ≥ 300; steady p99 accept → read < 2,000 ms at 200/s; one \`sent\` row per message.

${table}`,
  );
}
