/**
 * Signed webhook deliveries per second, PostgreSQL, from a backlog.
 *
 *   TEST_DATABASE_URL=postgres://postgres@127.0.0.1:5432/test node bench/webhooks-throughput.ts [--runs 3] [--events 10000] [--endpoints 2]
 *
 * Each run: a fresh database; the service (`node src/main.ts`, api role) creates `endpoints`
 * endpoints on a local receiver and stops; `events` events are recorded (recordEvent, 500 per
 * transaction) with no worker running; then a worker-only service starts and dispatches and
 * delivers them all (every event to every endpoint: events x endpoints signed deliveries). Rate =
 * deliveries between the first and the last arrival at the receiver; the run ends when all are
 * recorded `succeeded`. The receiver checks every 50th signature with the standardwebhooks package.
 *
 * Baseline, same run, same receiver: a child process POSTing the same number of plain, unsigned
 * copies of a body with undici's fetch and 64 in flight (the engine's in-flight count for 2
 * endpoints), i.e. the HTTP ceiling of this machine without the database.
 */
import os from 'node:os';
import { sql } from 'drizzle-orm';
import { queryRows } from '../src/db/client.ts';
import { recordEvent } from '../src/domain/events/outbox.ts';
import { machine, median, writeSection } from './bench-report.ts';
import {
  baselineRate,
  createEndpoints,
  deployment,
  now,
  openProducer,
  option,
  postgresVersion,
  serverUrl,
  startReceiver,
  startService,
} from './lib/webhooks.ts';

const runs = option('runs', 3);
const events = option('events', 10_000);
const endpointCount = option('endpoints', 2);
const BODY = { conversation_id: '0196b1f2-1c9e-7a01-b2c3-d4e5f6a7b8c9', status: 'open' };

type Run = { rate: number; seconds: number; baseline: number; load: number[]; verified: { checked: number; failed: number } };

async function run(): Promise<Run> {
  const d = await deployment();
  const receiver = await startReceiver();
  try {
    const load = os.loadavg();
    const setup = await startService(d.database, { ROLES: 'api', LOG_LEVEL: 'warn' }, d.shared);
    await createEndpoints(setup, receiver, endpointCount);
    await setup.stop();
    const db = (await openProducer(d)).db;
    const [org] = await queryRows<{ id: string }>(db, sql`select id from organizations limit 1`);
    for (let done = 0; done < events; done += 500) {
      await db.transaction(async (tx) => {
        for (let i = done; i < Math.min(events, done + 500); i++) await recordEvent(tx, org!.id, 'conversation.updated', BODY);
      });
    }
    const expected = events * endpointCount;
    const worker = await startService(d.database, { ROLES: 'worker', LOG_LEVEL: 'info' }, d.shared);
    const started = now();
    while (receiver.total() < expected) {
      if (now() - started > 600_000) throw new Error(`only ${receiver.total()} of ${expected} arrived`);
      await new Promise((r) => setTimeout(r, 50));
    }
    const { first, last } = receiver.span();
    for (;;) {
      const [row] = await queryRows<{ n: number }>(db, sql`select count(*)::int as n from webhook_deliveries where status = 'succeeded'`);
      if (row!.n >= expected) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const recorded = now();
    await worker.stop();
    const distinct = receiver.first.size;
    if (distinct !== expected) throw new Error(`${distinct} distinct deliveries arrived, expected ${expected}`);
    const rate = (expected - 1) / ((last - first) / 1000);
    const baseline = await baselineRate(`${receiver.url}/baseline`, expected, 64, JSON.stringify(BODY));
    console.log(
      `run: ${Math.round(rate)} deliveries/s (${((last - first) / 1000).toFixed(2)} s; all recorded ${((recorded - first) / 1000).toFixed(2)} s after the first arrival); baseline ${Math.round(baseline)} POST/s; signatures checked ${receiver.verified().checked}, failed ${receiver.verified().failed}`,
    );
    return { rate, seconds: (last - first) / 1000, baseline, load, verified: receiver.verified() };
  } finally {
    await receiver.close();
    await d.cleanup();
  }
}

const results: Run[] = [];
const pgVersion = await postgresVersion(serverUrl());
const header = machine({ Database: `${pgVersion} on 127.0.0.1 (same machine), a fresh database per run` });
for (let i = 0; i < runs; i++) results.push(await run());
const rate = median(results.map((r) => r.rate));
const baseline = median(results.map((r) => r.baseline));
const checked = results.reduce((n, r) => n + r.verified.checked, 0);
const failed = results.reduce((n, r) => n + r.verified.failed, 0);
const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
writeSection(
  'webhooks-throughput',
  `## Webhook delivery throughput (bench/webhooks-throughput.ts)

Command: \`TEST_DATABASE_URL=postgres://... node bench/webhooks-throughput.ts --runs ${runs} --events ${events} --endpoints ${endpointCount}\` (${new Date().toISOString().slice(0, 10)})

${header}

${fmt(events)} events recorded with no worker running, then a worker-only service (\`node src/main.ts\`, ROLES=worker, default settings: 256 attempts in flight, 32 per endpoint) dispatches and delivers them to ${endpointCount} endpoints on a local receiver that answers 204: ${fmt(events * endpointCount)} signed deliveries per run, each recorded \`succeeded\` with its attempt. Rate between the first and the last arrival.
Baseline, same run and receiver: a separate process POSTing as many plain unsigned bodies with undici's fetch, 64 in flight, no database.
Target: 1,000 deliveries/s on 2 cores.

| | Runs | Median | Ratio to baseline |
| --- | --- | --- | --- |
| signed deliveries/s | ${results.map((r) => fmt(r.rate)).join(' / ')} | **${fmt(rate)}** | ${(rate / baseline).toFixed(2)}× |
| baseline: plain POSTs/s | ${results.map((r) => fmt(r.baseline)).join(' / ')} | ${fmt(baseline)} | 1.00× |

Signatures checked by the receiver with the standardwebhooks package: ${checked} (every 50th request), ${failed} failed.`,
);
console.log(`median ${fmt(rate)} deliveries/s; baseline ${fmt(baseline)} POST/s`);
