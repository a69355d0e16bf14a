/**
 * Lag from an event's commit to its first delivery attempt, PostgreSQL, at a steady rate.
 *
 *   TEST_DATABASE_URL=postgres://postgres@127.0.0.1:5432/test node bench/webhooks-lag.ts [--runs 3] [--rate 200] [--seconds 20] [--endpoints 2]
 *
 * Each run: a fresh database; the service (`node src/main.ts`, api and worker roles, default
 * settings) with `endpoints` endpoints on a local receiver; 50 warm-up events; then `rate` events a
 * second for `seconds`, open loop (one event per transaction, recordEvent, from this process on a
 * pool of its own: the service learns of each commit by NOTIFY). Lag = the receiver's arrival time
 * of the first attempt minus the time the transaction's COMMIT returned, both in this process.
 *
 * Baseline, same run and receiver: the same rate of plain, unsigned POSTs from this process, timed
 * from the request to the receiver's arrival (no database): the network-and-event-loop floor.
 */
import os from 'node:os';
import { sql } from 'drizzle-orm';
import { queryRows } from '../src/db/client.ts';
import { recordEvent } from '../src/domain/events/outbox.ts';
import { median, writeSection } from './bench-report.ts';
import {
  createEndpoints,
  deployment,
  now,
  openProducer,
  option,
  runOnPostgres,
  startReceiver,
  startService,
  stats,
  waitFor,
} from './lib/webhooks.ts';

const runs = option('runs', 3);
const rate = option('rate', 200);
const seconds = option('seconds', 20);
const endpointCount = option('endpoints', 2);

type Lag = ReturnType<typeof stats>;
type Run = { lag: Lag; baseline: Lag; load: number[]; missing: number };

async function run(): Promise<Run> {
  const d = await deployment();
  const receiver = await startReceiver();
  const load = os.loadavg();
  const service = await startService(d.database, { LOG_LEVEL: 'warn' }, d.shared);
  try {
    await createEndpoints(service, receiver, endpointCount);
    const db = (await openProducer(d)).db;
    const [org] = await queryRows<{ id: string }>(db, sql`select id from organizations limit 1`);
    const emit = (i: number) =>
      db.transaction((tx) =>
        recordEvent(tx, org!.id, 'message.status_update', { message_id: `m-${i}`, status: 'delivered', organization_id: org!.id }),
      );
    for (let i = 0; i < 50; i++) await emit(-1 - i);
    await waitFor(() => receiver.total() >= 50 * endpointCount);

    const committed = new Map<string, number>();
    const total = rate * seconds;
    const interval = 1000 / rate;
    const start = now();
    const pending: Promise<void>[] = [];
    for (let i = 0; i < total; i++) {
      const at = start + i * interval;
      const wait = at - now();
      if (wait > 1) await new Promise((r) => setTimeout(r, wait));
      pending.push(emit(i).then((id) => void committed.set(id, now())));
    }
    await Promise.all(pending);
    await waitFor(() => [...committed.keys()].every((id) => receiver.first.has(`/e0 ${id}`)) || undefined, 60_000).catch(() => undefined);
    const lags: number[] = [];
    let missing = 0;
    for (const [id, at] of committed) {
      for (let e = 0; e < endpointCount; e++) {
        const got = receiver.first.get(`/e${e} ${id}`);
        if (got === undefined) missing++;
        else lags.push(got - at);
      }
    }

    // Baseline: plain POSTs at the same rate, timed to the arrival.
    const sentAt = new Map<string, number>();
    const posts: Promise<unknown>[] = [];
    const bStart = now();
    for (let i = 0; i < total; i++) {
      const wait = bStart + i * interval - now();
      if (wait > 1) await new Promise((r) => setTimeout(r, wait));
      const id = `b-${i}`;
      sentAt.set(id, now());
      posts.push(
        fetch(`${receiver.url}/baseline`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'webhook-id': id },
          body: '{"status":"delivered"}',
        }).then((r) => r.arrayBuffer()),
      );
    }
    await Promise.all(posts);
    const baseline = [...sentAt].map(([id, at]) => receiver.first.get(`/baseline ${id}`)! - at);
    const result = { lag: stats(lags), baseline: stats(baseline), load, missing };
    console.log(
      `run: lag p50 ${result.lag.p50.toFixed(1)} ms, p99 ${result.lag.p99.toFixed(1)} ms, max ${result.lag.max.toFixed(1)} ms over ${result.lag.n} deliveries (${missing} missing); baseline p50 ${result.baseline.p50.toFixed(2)} ms, p99 ${result.baseline.p99.toFixed(2)} ms`,
    );
    return result;
  } finally {
    await service.stop();
    await receiver.close();
    await d.cleanup();
  }
}

const { header, results } = await runOnPostgres(runs, run);
const m = (pick: (r: Run) => number) => median(results.map(pick));
const f = (v: number) => `${v.toFixed(1)} ms`;
const row = (name: string, pick: (r: Run) => Lag) =>
  `| ${name} | ${results.map((r) => pick(r).p99.toFixed(1)).join(' / ')} | ${f(m((r) => pick(r).p50))} | ${f(m((r) => pick(r).p90))} | **${f(m((r) => pick(r).p99))}** | ${f(m((r) => pick(r).max))} |`;
writeSection(
  'webhooks-lag',
  `## Webhook lag: commit to first attempt (bench/webhooks-lag.ts)

Command: \`TEST_DATABASE_URL=postgres://... node bench/webhooks-lag.ts --runs ${runs} --rate ${rate} --seconds ${seconds} --endpoints ${endpointCount}\` (${new Date().toISOString().slice(0, 10)})

${header}

The service (\`node src/main.ts\`, api and worker roles, default settings: polling floor 1 s, woken by NOTIFY) with ${endpointCount} endpoints on a local receiver; ${rate} events a second for ${seconds} s, one per transaction, recorded from the benchmark's own connection pool (so the service learns of each only through NOTIFY), each delivered to every endpoint. Lag = the receiver's arrival time of the first attempt minus the time COMMIT returned (same process, same clock), over every delivery of the run; medians over the runs.
Baseline, same run and receiver: plain unsigned POSTs at the same rate from the benchmark process, request to arrival.
Target: p99 under 200 ms at 200 events/s on 2 cores.

| | p99 per run | p50 | p90 | p99 | max |
| --- | --- | --- | --- | --- | --- |
${row('commit → first attempt', (r) => r.lag)}
${row('baseline: plain POST → arrival', (r) => r.baseline)}

p99 ratio to the baseline: ${(m((r) => r.lag.p99) / m((r) => r.baseline.p99)).toFixed(1)}×. Deliveries missing at the end: ${results.map((r) => r.missing).join(' / ')}.`,
);
console.log(`median p99 ${f(m((r) => r.lag.p99))}`);
