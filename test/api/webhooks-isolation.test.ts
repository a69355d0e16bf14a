/**
 * Endpoints do not hold each other up, and each gets what it asked for: a receiver that hangs has its
 * attempts time out (recorded) while healthy endpoints are served at once; 1,000 events to three
 * endpoints, one of them dead, reach the two healthy ones on time; filters, disabled endpoints and
 * other organizations' events are respected.
 */
// stores: both
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { queryRows } from '../../src/db/client.ts';
import { recordEvent } from '../../src/domain/events/outbox.ts';
import { createOtherOrganization, request, startTestServer, usingPostgres, type TestServer } from '../harness.ts';
import { eventually } from '../eventually.ts';
import { peakConcurrency, startReceiver, type Receiver } from '../webhook-receiver.ts';

const BASE = '/v1/settings/developer/webhooks';
let server: TestServer;
let receiver: Receiver;
const ENDPOINT_CONCURRENCY = 8;
const TIMEOUT_MS = 3000;
before(async () => {
  server = await startTestServer({
    worker: true,
    env: {
      WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS),
      WEBHOOK_POLL_INTERVAL_MS: '100',
      WEBHOOK_ENDPOINT_CONCURRENCY: String(ENDPOINT_CONCURRENCY),
      WEBHOOK_RETRY_JITTER: '0',
    },
  });
  receiver = await startReceiver();
});
after(async () => {
  await server.close();
  await receiver.close();
});

async function createEndpoint(query: string, body: Record<string, unknown> = {}, key = server.apiKey) {
  const res = await request(server, 'POST', `${BASE}/endpoints`, { key, body: { url: `${receiver.url}?${query}`, ...body } });
  assert.equal(res.status, 201, res.text);
  return res.body.data as { id: string };
}

const at = (query: string) => receiver.requests.filter((r) => r.path.endsWith(`?${query}`));

/**
 * Records `count` events in transactions of `perTx`, one transaction every `everyMs` at most;
 * resolves to each event's id and commit time.
 */
async function emitMany(
  organizationId: string,
  count: number,
  perTx: number,
  type: 'conversation.updated' | 'message.sent' = 'conversation.updated',
  everyMs = 0,
) {
  const committed = new Map<string, number>();
  const db = server.container.database.db;
  const begin = performance.now();
  for (let done = 0; done < count; done += perTx) {
    // At least a turn of the event loop between transactions (the receiver lives in this process).
    const wait = begin + (done / perTx) * everyMs - performance.now();
    await new Promise((r) => (wait > 0 ? setTimeout(r, wait) : setImmediate(r)));
    const ids = await db.transaction(async (tx) => {
      const list: string[] = [];
      for (let i = done; i < Math.min(count, done + perTx); i++) {
        list.push(
          type === 'conversation.updated'
            ? await recordEvent(tx, organizationId, type, { conversation_id: `c-${i}`, status: 'open' })
            : await recordEvent(tx, organizationId, type, { conversation_id: `c-${i}`, message_id: `m-${i}`, channel_id: 'ch' }),
        );
      }
      return list;
    });
    const now = performance.timeOrigin + performance.now();
    for (const id of ids) committed.set(id, now);
  }
  return committed;
}

/**
 * The most attempts to the endpoint that were in flight at once, from the sender's own record of
 * each attempt (start and duration); a few ms of rounding are forgiven.
 */
async function peakAttemptsInFlight(query: string): Promise<number> {
  const rows = await queryRows<{ attempted_at: Date | string; duration_ms: number }>(
    server.container.database.db,
    sql`select a.attempted_at, a.duration_ms from webhook_attempt_log a join webhook_endpoints e on e.id = a.endpoint_id where e.url like ${'%?' + query}`,
  );
  assert.ok(rows.length > 0, `attempts to ${query} are recorded`);
  const marks = rows.flatMap((r) => {
    const start = new Date(r.attempted_at).getTime();
    return [
      [start, 1],
      [Math.max(start, start + r.duration_ms - 5), -1],
    ] as Array<[number, number]>;
  });
  marks.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let open = 0;
  let peak = 0;
  for (const [, step] of marks) peak = Math.max(peak, (open += step));
  return peak;
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

test('a hanging receiver times out (recorded) and never delays a healthy endpoint', async () => {
  const slow = await createEndpoint('hang');
  await createEndpoint('fast');
  receiver.answer((r) => (r.path.endsWith('?hang') ? 'hang' : { status: 200 }));
  const committed = await emitMany(server.organizationId, 20, 1);
  await eventually('the fast endpoint to get all 20', () => (at('fast').length >= 20 ? true : undefined), 10_000);
  const lags = at('fast').map((r) => r.receivedAt - committed.get(String(r.headers['webhook-id']))!);
  // Held up by the hanging one, it would wait a timeout (3 s) at least: any lag below that cannot be
  // a wait for it, however loaded the machine (half the timeout failed under load, at 2 s).
  assert.ok(Math.max(...lags) < TIMEOUT_MS, `the fast endpoint waited for nobody (max lag ${Math.round(Math.max(...lags))} ms)`);

  const timedOut = await eventually('a timed-out attempt in the log', async () => {
    const res = await request(server, 'GET', `${BASE}/deliveries?endpoint_id=${slow.id}`, { key: server.apiKey });
    return res.body.data.find((d: { attempts: unknown[] }) => d.attempts.length > 0);
  });
  const attempt = timedOut.attempts[0];
  assert.equal(attempt.error, `timed out after ${TIMEOUT_MS} ms`);
  assert.equal(attempt.status_code, null);
  assert.ok(attempt.duration_ms >= TIMEOUT_MS - 100, String(attempt.duration_ms));
  const peak = await peakAttemptsInFlight('hang');
  assert.ok(peak <= ENDPOINT_CONCURRENCY, `at most ${ENDPOINT_CONCURRENCY} attempts in flight to one endpoint (saw ${peak})`);
  assert.ok(peakConcurrency(at('hang'), TIMEOUT_MS) >= Math.min(ENDPOINT_CONCURRENCY, 4), 'the hanging endpoint was tried in parallel');
  assert.equal(timedOut.status, 'pending', 'and it is retried');
  await request(server, 'PATCH', `${BASE}/endpoints/${slow.id}`, { key: server.apiKey, body: { enabled: false } });
});

test('1,000 events to three endpoints, one dead: the two healthy ones get every event on time', async () => {
  const other = await createOtherOrganization(server, 'bulk');
  const healthy1 = 'bulk-a';
  const healthy2 = 'bulk-b';
  await createEndpoint(healthy1, {}, other.apiKey);
  await createEndpoint(healthy2, {}, other.apiKey);
  await createEndpoint('bulk-dead', {}, other.apiKey);
  receiver.answer((r) => (r.path.endsWith('?bulk-dead') ? 'hang' : { status: 200 }));
  const started = performance.timeOrigin + performance.now();
  // 200 events a second for 5 seconds.
  const committed = await emitMany(other.organizationId, 1000, 20, 'conversation.updated', 100);
  const lastCommit = Math.max(...committed.values());
  const distinct = (name: string) => new Set(at(name).map((r) => r.headers['webhook-id'])).size;
  await eventually(
    'both healthy endpoints to get all 1,000',
    () => (distinct(healthy1) >= 1000 && distinct(healthy2) >= 1000 ? true : undefined),
    60_000,
  );
  const finished = performance.timeOrigin + performance.now();
  const db = server.container.database.db;
  for (const name of [healthy1, healthy2]) {
    const ids = new Set(at(name).map((r) => r.headers['webhook-id']));
    assert.equal(ids.size, 1000, `${name} got every event`);
    for (const id of committed.keys()) assert.ok(ids.has(id), `${name} got ${id}`);
    // A repeat is only ever a retry after an attempt that failed (a timeout): every request is an attempt on record.
    await eventually(`${name}'s attempts to be recorded`, async () => {
      const [r] = await queryRows<{ n: number }>(
        db,
        sql`select count(*)::int as n from webhook_attempt_log a join webhook_endpoints e on e.id = a.endpoint_id where e.url like ${'%?' + name}`,
      );
      return r!.n === at(name).length ? true : undefined;
    });
  }
  const lags = [healthy1, healthy2].flatMap((name) => {
    const first = new Map<string, number>();
    for (const r of at(name)) if (!first.has(String(r.headers['webhook-id']))) first.set(String(r.headers['webhook-id']), r.receivedAt);
    return [...first].map(([id, receivedAt]) => receivedAt - committed.get(id)!);
  });
  const p99 = percentile(lags, 99);

  // The dead one holds at most ENDPOINT_CONCURRENCY requests; its other deliveries wait for it, not the others.
  const peak = await peakAttemptsInFlight('bulk-dead');
  assert.ok(peak <= ENDPOINT_CONCURRENCY, `attempts in flight to the dead endpoint at once: ${peak}`);
  // Were the healthy ones queued behind the dead one, they would get ENDPOINT_CONCURRENCY events per
  // 3 s timeout: six minutes for 1,000. On PostgreSQL they are served within a second; embedded PGlite
  // (one connection, in this one process, for the test's writes, the engine and the API) falls behind
  // 400 deliveries a second on a busy 2-core machine, so its bound is looser — still far below the
  // six minutes that queueing behind the dead endpoint would take.
  const bound = usingPostgres ? 1000 : 60_000;
  assert.ok(p99 < bound, `p99 lag to the healthy endpoints ${Math.round(p99)} ms (bound ${bound} ms)`);
  assert.ok(
    finished - lastCommit < bound + 1000,
    `the last healthy delivery came ${Math.round(finished - lastCommit)} ms after the last commit`,
  );
  console.log(
    `# 1,000 events at 200/s, one endpoint dead: p50 ${Math.round(percentile(lags, 50))} ms, p99 ${Math.round(p99)} ms lag to the healthy ones; done ${((finished - started) / 1000).toFixed(1)} s after the first commit`,
  );
});

test('filters: an endpoint gets only its types; disabled endpoints and other organizations get nothing', async () => {
  receiver.answer(() => ({ status: 200 }));
  const other = await createOtherOrganization(server, 'filters');
  await createEndpoint('only-sent', { event_types: ['message.sent'] }, other.apiKey);
  await createEndpoint('only-conv', { event_types: ['conversation.updated', 'contact.updated'] }, other.apiKey);
  await createEndpoint('all', {}, other.apiKey);
  await createEndpoint('off', { enabled: false }, other.apiKey);
  const stranger = await createOtherOrganization(server, 'stranger');
  await createEndpoint('stranger', {}, stranger.apiKey);

  const sent = await emitMany(other.organizationId, 3, 3, 'message.sent');
  const conv = await emitMany(other.organizationId, 2, 1, 'conversation.updated');
  await eventually('the catch-all endpoint to get all 5', () => (at('all').length >= 5 ? true : undefined));
  // Every event is handed out by now (the catch-all has them all); once no delivery waits, every receiver has what it will get.
  await eventually('no delivery of the organization left to send', async () => {
    const [row] = await queryRows<{ n: number }>(
      server.container.database.db,
      sql`select count(*)::int as n from webhook_deliveries where organization_id = ${other.organizationId} and status = 'pending'`,
    );
    return row!.n === 0;
  });
  const ids = (q: string) => new Set(at(q).map((r) => String(r.headers['webhook-id'])));
  assert.deepEqual(ids('only-sent'), new Set(sent.keys()));
  assert.ok(at('only-sent').every((r) => r.headers['webhook-event-type'] === 'message.sent'));
  assert.deepEqual(ids('only-conv'), new Set(conv.keys()));
  assert.deepEqual(ids('all'), new Set([...sent.keys(), ...conv.keys()]));
  assert.equal(at('off').length, 0, 'a disabled endpoint gets nothing');
  assert.equal(at('stranger').length, 0, "another organization's endpoint gets nothing");
});
