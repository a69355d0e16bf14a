/**
 * From the 201 of POST /v1/messages to `delivered`, through the sandbox provider (no delay of its
 * own: SANDBOX_STATUS_DELAY_MS=0), with the worker role running in the same process.
 *
 *   node bench/messages-delivery.ts          PGlite on disk (--pglite-memory: in memory)
 *   node bench/messages-delivery.ts --pg     PostgreSQL (TEST_DATABASE_URL, --pg-url, or the local server)
 *   options: --runs 3 --messages 200 --rate 2 (messages per second, open loop) --log-level info --json file
 *            --write (rewrite the section messages-delivery-<backend> of BENCHMARKS.md)
 *
 * Each run: a fresh database; a paired sandbox gateway channel (pacing raised to 100/s so the
 * channel's default 5/s never queues); 5 messages of warm-up, waited for; then `messages` messages
 * at `rate`, each to one of 100 recipients. The way to `delivered` crosses the dispatcher and two
 * job queues (sandbox callbacks, provider webhooks), woken by NOTIFY. The 201's time is taken in this process when
 * the response arrives; `sent` and `delivered` are the times Parley recorded them (the status
 * history's created_at: same machine, same clock). Percentiles over every message of the run, then
 * the median of each over the runs.
 */
import { writeFileSync } from 'node:fs';
import { machine as machineLines, writeSection } from './bench-report.ts';
import {
  api,
  backendOf,
  freshPgDatabase,
  loadNow,
  machine,
  median,
  messageBody,
  numberOption,
  hasFlag,
  option,
  pairedGatewayChannel,
  percentile,
  round,
  startServer,
  type BenchServer,
} from './lib/common.ts';

const backend = backendOf();
const runs = numberOption('runs', 3);
const count = numberOption('messages', 200);
const rate = numberOption('rate', 2);
const logLevel = option('log-level', 'info');
const RECIPIENTS = 100;

const now = () => performance.timeOrigin + performance.now();

type Stats = { p50: number; p90: number; p99: number; max: number };
type QueueStat = { name: string; jobs: number; wait_p50: number; wait_p90: number; run_p50: number };
type Run = { load: number[]; delivered: Stats; sent: Stats; acceptLatency: Stats; missing: number; queues: QueueStat[] };

function stats(values: number[]): Stats {
  const xs = [...values].sort((a, b) => a - b);
  return { p50: percentile(xs, 50), p90: percentile(xs, 90), p99: percentile(xs, 99), max: xs[xs.length - 1] ?? NaN };
}

/** Sends n messages at `perSecond` (open loop); returns each one's id and 201 time. */
async function sendAt(server: BenchServer, channelId: string, n: number, perSecond: number, offset: number) {
  const sent: Array<{ id: string; at: number; latency: number }> = [];
  const start = now();
  const pending: Promise<void>[] = [];
  for (let i = 0; i < n; i++) {
    const due = start + (i * 1000) / perSecond;
    const wait = due - now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    pending.push(
      (async () => {
        const t0 = now();
        const res = await fetch(`${server.baseUrl}/v1/messages`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-api-key': server.apiKey },
          body: messageBody(channelId, (offset + i) % RECIPIENTS),
        });
        const body = (await res.json()) as { data: { id: string } };
        const at = now();
        if (res.status !== 201) throw new Error(`send answered ${res.status}: ${JSON.stringify(body)}`);
        sent.push({ id: body.data.id, at, latency: at - t0 });
      })(),
    );
  }
  await Promise.all(pending);
  return sent;
}

async function statusTimes(server: BenchServer, status: string): Promise<Map<string, number>> {
  const { rows } = await server.call<{ rows: Array<{ id: string; ms: string | number }> }>({
    cmd: 'sql',
    text: `select message_id::text as id, min(extract(epoch from created_at) * 1000)::float8 as ms from message_status_log where status = '${status}' group by message_id`,
  });
  return new Map(rows.map((r) => [r.id, Number(r.ms)]));
}

async function oneRun(): Promise<Run> {
  const database = backend === 'postgres' ? await freshPgDatabase() : undefined;
  const server = await startServer({ backend, databaseUrl: database?.url, worker: true, logLevel, statusDelayMs: 0 });
  try {
    const channelId = await pairedGatewayChannel(server, 100);
    const runLoad = loadNow();
    const waitDelivered = async (ids: string[]) => {
      const deadline = Date.now() + 60_000;
      let delivered = new Map<string, number>();
      while (Date.now() < deadline) {
        delivered = await statusTimes(server, 'delivered');
        if (ids.every((id) => delivered.has(id))) break;
        await new Promise((r) => setTimeout(r, 250));
      }
      return delivered;
    };
    const warm = await sendAt(server, channelId, 5, rate, 0);
    await waitDelivered(warm.map((s) => s.id));
    const sent = await sendAt(server, channelId, count, rate, 5);
    // Wait for every message to be delivered (or read), at most 60 s after the last was sent.
    const ids = sent.map((s) => s.id);
    const delivered = await waitDelivered(ids);
    const sentAt = await statusTimes(server, 'sent');
    const missing = ids.filter((id) => !delivered.has(id)).length;
    if (missing) {
      const res = await api(server, 'GET', `/v1/messages/${ids.find((id) => !delivered.has(id))}/status`);
      console.log(`  ! ${missing} messages not delivered within 60 s; one of them: ${JSON.stringify(res.body.data)}`);
    }
    // Where the time goes: per job queue, the wait from due (start_after) to picked up, and the run time.
    const { rows: queues } = await server.call<{ rows: QueueStat[] }>({
      cmd: 'sql',
      text: `select name, count(*)::int as jobs,
          round(percentile_cont(0.5) within group (order by extract(epoch from started_on - start_after) * 1000)::numeric, 0)::float8 as wait_p50,
          round(percentile_cont(0.9) within group (order by extract(epoch from started_on - start_after) * 1000)::numeric, 0)::float8 as wait_p90,
          round(percentile_cont(0.5) within group (order by extract(epoch from completed_on - started_on) * 1000)::numeric, 0)::float8 as run_p50
        from pgboss.job where started_on is not null and name in ('sandbox.callback', 'provider.inbound') group by name order by name`,
    });
    return {
      queues,
      load: runLoad,
      delivered: stats(sent.filter((s) => delivered.has(s.id)).map((s) => delivered.get(s.id)! - s.at)),
      sent: stats(sent.filter((s) => sentAt.has(s.id)).map((s) => sentAt.get(s.id)! - s.at)),
      acceptLatency: stats(sent.map((s) => s.latency)),
      missing,
    };
  } finally {
    await server.close();
    await database?.drop();
  }
}

const info = await machine(backend);
console.log(`messages-delivery: ${backend}, ${runs} runs, ${count} messages at ${rate}/s, sandbox status delay 0, log level ${logLevel}`);
console.log(
  `  ${info.cpus} CPUs (${info.cpuModel}), ${info.memoryGiB} GiB, node ${info.node}${info.postgres ? `, PostgreSQL ${info.postgres}` : ''}`,
);
console.log(`  load average before: ${info.load.join(' ')}`);
const fmt = (s: Stats) => `p50/p90/p99/max ${round(s.p50, 0)}/${round(s.p90, 0)}/${round(s.p99, 0)}/${round(s.max, 0)} ms`;
const results: Run[] = [];
for (let n = 1; n <= runs; n++) {
  const r = await oneRun();
  results.push(r);
  console.log(
    `run ${n} (load ${r.load.join(' ')}): 201 -> delivered ${fmt(r.delivered)} | 201 -> sent ${fmt(r.sent)} | POST latency ${fmt(r.acceptLatency)}${r.missing ? ` | ${r.missing} missing` : ''}`,
  );
  console.log(
    `  job queues (wait from due to picked up p50/p90, run p50, ms): ${r.queues.map((q) => `${q.name} ${q.jobs} jobs ${q.wait_p50}/${q.wait_p90}, ${q.run_p50}`).join('; ')}`,
  );
}
const med = (f: (r: Run) => Stats): Stats => ({
  p50: median(results.map((r) => f(r).p50)),
  p90: median(results.map((r) => f(r).p90)),
  p99: median(results.map((r) => f(r).p99)),
  max: median(results.map((r) => f(r).max)),
});
const summary = {
  backend,
  runs,
  messages: count,
  rate,
  machine: info,
  delivered: med((r) => r.delivered),
  sent: med((r) => r.sent),
  acceptLatency: med((r) => r.acceptLatency),
  perRun: results,
};
console.log('\nmedians over runs:');
console.log(`  201 -> delivered  ${fmt(summary.delivered)}`);
console.log(`  201 -> sent       ${fmt(summary.sent)}`);
console.log(`  POST latency      ${fmt(summary.acceptLatency)}`);
console.log(`  load average after: ${loadNow().join(' ')}`);
const json = option('json', '');
if (json) writeFileSync(json, JSON.stringify(summary, null, 2));
if (hasFlag('write')) {
  const name = backend === 'postgres' ? 'PostgreSQL' : backend === 'pglite-disk' ? 'PGlite on disk' : 'PGlite in memory';
  const cells = (s: Stats) => `${round(s.p50, 0)} / ${round(s.p90, 0)} / ${round(s.p99, 0)} / ${round(s.max, 0)} ms`;
  const ratio = (f: (r: Run) => number) => results.map((r) => `${round(f(r), 1)}×`).join(', ');
  writeSection(
    `messages-delivery-${backend === 'pglite-disk' ? 'pglite' : backend}`,
    `## Messages: accept to delivered (bench/messages-delivery.ts), ${name}

Command: \`node bench/messages-delivery.ts ${process.argv
      .slice(2)
      .filter((a) => a !== '--write')
      .join(' ')}\` (${new Date().toISOString().slice(0, 10)})

${machineLines(info.postgres ? { PostgreSQL: `${info.postgres} on 127.0.0.1 (same machine)` } : {})}

Worker role on, SANDBOX_STATUS_DELAY_MS=0, a paired sandbox gateway channel (pacing 100/s), a fresh database per run, 5 warm-up messages, then ${count} messages at ${rate}/s (open loop) to 100 recipients. The 201 is timed here when the response arrives; \`sent\` and \`delivered\` are the times Parley recorded them (status history, same clock). Baseline in the same run: the POST's own latency (one request through the API and one commit), against which the four hops to \`delivered\` are a ratio. Medians of ${runs} runs.
Target (issue 14): accept → delivered p50 < 100 ms.

| Measure | p50 / p90 / p99 / max | p50 × POST p50, per run |
| --- | --- | --- |
| POST latency (baseline) | ${cells(summary.acceptLatency)} | |
| 201 → sent | ${cells(summary.sent)} | ${ratio((r) => r.sent.p50 / r.acceptLatency.p50)} |
| 201 → delivered | **${cells(summary.delivered)}** | ${ratio((r) => r.delivered.p50 / r.acceptLatency.p50)} |`,
  );
}
