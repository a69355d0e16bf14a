/**
 * Latency from an event's commit to its arrival on open event streams (GET /v1/events/stream), PostgreSQL.
 *
 *   TEST_DATABASE_URL=postgres://postgres@127.0.0.1:5432/test node bench/events-stream.ts [--runs 3] [--events 300] [--rate 50] [--streams 10]
 *
 * Each run: a fresh database; the service (`node src/main.ts`, api and worker roles, default settings)
 * in a child process; `streams` streams open on it from this process (one API key, one connection
 * each); 20 warm-up events; then `events` events at `rate` a second, open loop, one per transaction
 * (recordEvent, from this process on a pool of its own: the service learns of each commit by
 * NOTIFY). Latency = the time the event's message is read off a stream minus the time the
 * transaction's COMMIT returned, both in this process, for every event on every stream. The path:
 * commit -> NOTIFY -> the worker's dispatcher gives it a position -> NOTIFY -> the API's hub reads it
 * -> every stream.
 *
 * Baseline in the same run, on the same database: one NOTIFY hop, `events` notifications at `rate` a
 * second from one connection to a LISTEN on another, both in this process, timed from the NOTIFY
 * statement's start to its arrival (the floor of each of the path's two NOTIFY hops).
 */
import os from 'node:os';
import { sql } from 'drizzle-orm';
import pg from 'pg';
import { queryRows } from '../src/db/client.ts';
import { recordEvent } from '../src/domain/events/outbox.ts';
import { median, percentile, writeSection } from './bench-report.ts';
import { deployment, now, openProducer, option, runOnPostgres, startService, waitFor, type Service } from './lib/webhooks.ts';

const runs = option('runs', 3);
const eventCount = option('events', 300);
const rate = option('rate', 50);
const streamCount = option('streams', 10);

type Stream = { arrivals: Map<string, number>; close(): void };

/** Opens a stream and notes when each event id arrives. */
async function openStream(service: Service): Promise<Stream> {
  const controller = new AbortController();
  const res = await fetch(`${service.baseUrl}/v1/events/stream`, { headers: { 'x-api-key': service.apiKey }, signal: controller.signal });
  if (res.status !== 200) throw new Error(`stream: ${res.status} ${await res.text()}`);
  const arrivals = new Map<string, number>();
  let started!: () => void;
  const ready = new Promise<void>((resolve) => (started = resolve));
  void (async () => {
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        const at = now();
        buffer += decoder.decode(chunk, { stream: true });
        for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          if (block.startsWith('retry:')) started();
          const data = /^data: (.*)$/m.exec(block)?.[1];
          if (data) arrivals.set((JSON.parse(data) as { id: string }).id, at);
        }
      }
    } catch {
      // closed here
    }
  })();
  await ready;
  return { arrivals, close: () => controller.abort() };
}

type Latency = { p50: number; p95: number; p99: number; max: number; n: number };
type Run = { latency: Latency; missing: number; load: number[]; floor: Latency };

function latencyOf(values: number[]): Latency {
  const sorted = [...values].sort((a, b) => a - b);
  return {
    p50: percentile(sorted, 50),
    p95: percentile(sorted, 95),
    p99: percentile(sorted, 99),
    max: sorted.at(-1) ?? Number.NaN,
    n: sorted.length,
  };
}

/** One NOTIFY hop on the database, at the same rate: sent from one connection, heard on another. */
async function notifyFloor(url: string): Promise<Latency> {
  const listener = new pg.Client({ connectionString: url });
  const sender = new pg.Client({ connectionString: url });
  await Promise.all([listener.connect(), sender.connect()]);
  try {
    const heard = new Map<string, number>();
    listener.on('notification', (n) => heard.set(n.payload ?? '', now()));
    await listener.query('listen bench_floor');
    const sent = new Map<string, number>();
    const start = now();
    for (let i = 0; i < eventCount; i++) {
      const wait = start + (i * 1000) / rate - now();
      if (wait > 1) await new Promise((r) => setTimeout(r, wait));
      // From the statement's start: its notification can arrive before the statement's own answer.
      sent.set(String(i), now());
      await sender.query('select pg_notify($1, $2)', ['bench_floor', String(i)]);
    }
    await waitFor(() => heard.size >= eventCount, 10_000).catch(() => undefined);
    return latencyOf([...sent].filter(([id]) => heard.has(id)).map(([id, at]) => heard.get(id)! - at));
  } finally {
    await Promise.all([listener.end(), sender.end()]);
  }
}

async function run(): Promise<Run> {
  const d = await deployment();
  const load = os.loadavg();
  const service = await startService(d.database, { LOG_LEVEL: 'warn' }, d.shared);
  const streams: Stream[] = [];
  try {
    for (let i = 0; i < streamCount; i++) streams.push(await openStream(service));
    const db = (await openProducer(d)).db;
    const [org] = await queryRows<{ id: string }>(db, sql`select id from organizations limit 1`);
    const emit = (i: number) =>
      db.transaction((tx) =>
        recordEvent(tx, org!.id, 'message.status_update', { message_id: `m-${i}`, status: 'delivered', organization_id: org!.id }),
      );
    const warm: string[] = [];
    for (let i = 0; i < 20; i++) warm.push(await emit(-1 - i));
    await waitFor(() => streams.every((s) => warm.every((id) => s.arrivals.has(id))));

    const committed = new Map<string, number>();
    const interval = 1000 / rate;
    const start = now();
    const pending: Promise<void>[] = [];
    for (let i = 0; i < eventCount; i++) {
      const wait = start + i * interval - now();
      if (wait > 1) await new Promise((r) => setTimeout(r, wait));
      pending.push(emit(i).then((id) => void committed.set(id, now())));
    }
    await Promise.all(pending);
    await waitFor(() => streams.every((s) => [...committed.keys()].every((id) => s.arrivals.has(id))), 30_000).catch(() => undefined);
    const latencies: number[] = [];
    let missing = 0;
    for (const s of streams) {
      for (const [id, at] of committed) {
        const got = s.arrivals.get(id);
        if (got === undefined) missing++;
        else latencies.push(got - at);
      }
    }
    const floor = await notifyFloor(d.database.url);
    const result = { latency: latencyOf(latencies), missing, load, floor };
    console.log(
      `run: p50 ${result.latency.p50.toFixed(1)} ms, p95 ${result.latency.p95.toFixed(1)} ms, p99 ${result.latency.p99.toFixed(1)} ms, max ${result.latency.max.toFixed(1)} ms over ${result.latency.n} arrivals (${missing} missing) | one NOTIFY hop p50 ${floor.p50.toFixed(1)} ms, p95 ${floor.p95.toFixed(1)} ms`,
    );
    return result;
  } finally {
    for (const s of streams) s.close();
    await service.stop();
    await d.cleanup();
  }
}

const { header, results } = await runOnPostgres(runs, run);
const m = (pick: (r: Run) => number) => median(results.map(pick));
const f = (v: number) => `${v.toFixed(1)} ms`;
writeSection(
  'events-stream',
  `## Event stream: commit to arrival on open streams (bench/events-stream.ts)

Command: \`TEST_DATABASE_URL=postgres://... node bench/events-stream.ts --runs ${runs} --events ${eventCount} --rate ${rate} --streams ${streamCount}\` (${new Date().toISOString().slice(0, 10)})

${header}

The service (\`node src/main.ts\`, api and worker roles, default settings: EVENT_STREAM_POLL_MS 5 s under the NOTIFY) in a child process, ${streamCount} streams open on it (\`GET /v1/events/stream\`, one API key, a connection each) from the benchmark process; ${eventCount} events at ${rate} a second, one per transaction, recorded from the benchmark's own connection pool (the service learns of each only through NOTIFY: dispatcher gives positions, NOTIFY, the API's hub reads once and fans out). Latency = the time the message is read off a stream minus the time COMMIT returned (same process, same clock), over every event on every stream; medians over the runs. Baseline in the same run, same database: one NOTIFY hop (\`pg_notify\` from one connection, heard by a LISTEN on another, both in the benchmark's process, same rate and count, timed from the statement's start); the path crosses two such hops.
Target: p95 under 500 ms.

| | p95 per run | p50 | p95 | p99 | max |
| --- | --- | --- | --- | --- | --- |
| commit → message on the stream | ${results.map((r) => r.latency.p95.toFixed(1)).join(' / ')} | ${f(m((r) => r.latency.p50))} | **${f(m((r) => r.latency.p95))}** | ${f(m((r) => r.latency.p99))} | ${f(m((r) => r.latency.max))} |
| baseline: one NOTIFY hop | ${results.map((r) => r.floor.p95.toFixed(1)).join(' / ')} | ${f(m((r) => r.floor.p50))} | ${f(m((r) => r.floor.p95))} | ${f(m((r) => r.floor.p99))} | ${f(m((r) => r.floor.max))} |
| stream ÷ baseline (median of per-run ratios) | | ${m((r) => r.latency.p50 / r.floor.p50).toFixed(1)}× | ${m((r) => r.latency.p95 / r.floor.p95).toFixed(1)}× | ${m((r) => r.latency.p99 / r.floor.p99).toFixed(1)}× | |

Arrivals per run: ${results.map((r) => r.latency.n).join(' / ')}; missing at the end: ${results.map((r) => r.missing).join(' / ')}.`,
);
console.log(`median p95 ${f(m((r) => r.latency.p95))}`);
