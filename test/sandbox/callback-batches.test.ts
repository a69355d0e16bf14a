/**
 * The sandbox's status callbacks delivered in batches: the status jobs of one session and step go
 * out as one signed `message.statuses` callback (the official number's as one webhook with many
 * `statuses`), and the next step of those messages is one job; a refused callback fails every job it
 * carried and enqueues nothing, so each is retried. No worker runs here: the test hands the queued
 * jobs to the sandbox itself, as the worker would.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { queryRows } from '../../src/db/client.ts';
import type { SandboxCallback } from '../../src/sandbox/sandbox.ts';
import type { SandboxGatewaySession } from '../../src/sandbox/contract.ts';
import { request, startTestServer, type TestServer } from '../harness.ts';
import { hmacHex, startReceiver, type Receiver } from './receiver.ts';

let server: TestServer;
let receiver: Receiver;
let gw: SandboxGatewaySession;
const CALLBACK_SECRET = 'callback-secret-of-at-least-16-chars';

const call = (method: string, suffix: string, body?: unknown) =>
  request(server, method, `/sandbox/gateway/sessions/${gw.session}${suffix}`, { bearer: gw.apiKey, body });

before(async () => {
  receiver = await startReceiver();
  server = await startTestServer({ env: { SANDBOX_STATUS_DELAY_MS: '0' } });
  gw = await server.container.sandbox!.provisionGatewaySession(server.container.database.db);
  assert.equal((await call('PUT', '', { callback_url: receiver.url, callback_secret: CALLBACK_SECRET })).status, 200);
  assert.equal((await call('POST', '/start')).status, 200);
  const qr = await call('GET', '/qr');
  assert.equal((await request(server, 'POST', '/sandbox/gateway/scan', { body: { qr: qr.body.qr } })).status < 300, true);
});
after(async () => {
  await server.close();
  await receiver.close();
});

type QueuedJob = { id: string; data: SandboxCallback };

/** The queued status callbacks (no worker takes them here). */
const queuedStatuses = (status: string) =>
  queryRows<QueuedJob>(
    server.container.database.db,
    sql`select id::text, data from pgboss.job where name = 'sandbox.callback' and state = 'created' and data->>'kind' = 'message.status' and data->>'status' = ${status} order by created_on, id`,
  );

const deliver = (jobs: QueuedJob[]) =>
  server.container.sandbox!.deliverCallbacks(
    server.container.database.db,
    jobs.map((j) => ({ id: j.id, payload: j.data })),
  );

/** Takes the jobs out of the queue (the worker would complete them). */
const settle = (jobs: QueuedJob[]) =>
  server.container.database.db.execute(
    sql`delete from pgboss.job where id in (${sql.join(
      jobs.map((j) => sql`${j.id}::uuid`),
      sql`, `,
    )})`,
  );

test('five sends: their `sent` jobs go out as one signed message.statuses callback, and `delivered` follows as one job naming all five', async () => {
  const ids: string[] = [];
  for (let i = 0; i < 5; i++) {
    const res = await call('POST', '/messages', { to: `1555123450${i}`, type: 'text', content: { body: `batch ${i}` } });
    assert.equal(res.status, 201, res.text);
    ids.push(res.body.id as string);
  }
  const sentJobs = (await queuedStatuses('sent')).filter((j) =>
    ids.includes(String(j.data.kind === 'message.status' && j.data.message_id)),
  );
  assert.equal(sentJobs.length, 5, 'one job per send');

  const before = receiver.received.length;
  const failed = await deliver(sentJobs);
  assert.equal(failed.size, 0);
  const callbacks = receiver.received.slice(before);
  assert.equal(callbacks.length, 1, 'one callback for the five statuses');
  const [callback] = callbacks;
  assert.equal(callback!.json.event, 'message.statuses');
  assert.equal(callback!.json.session, gw.session);
  assert.equal(callback!.headers['x-gateway-signature'], `sha256=${hmacHex(CALLBACK_SECRET, callback!.raw)}`);
  assert.match(String(callback!.headers['x-gateway-event-id']), /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
  assert.deepEqual(callback!.json.payload, { statuses: ids.map((id) => ({ id, status: 'sent' })) });
  await settle(sentJobs);

  const rows = await queryRows<{ status: string; n: number }>(
    server.container.database.db,
    sql`select status, count(*)::int as n from sandbox_messages where id in (${sql.join(
      ids.map((id) => sql`${id}`),
      sql`, `,
    )}) group by status`,
  );
  assert.deepEqual(rows, [{ status: 'sent', n: 5 }]);
  const delivered = await queuedStatuses('delivered');
  assert.equal(delivered.length, 1, 'the next step of the batch is one job');
  assert.deepEqual(delivered[0]!.data, { kind: 'message.status', message_ids: ids, status: 'delivered' });

  // The same jobs delivered again (a retry) carry the same event id: Parley stores the callback once.
  const again = await deliver(sentJobs);
  assert.equal(again.size, 0);
  assert.equal(receiver.received.at(-1)!.headers['x-gateway-event-id'], callback!.headers['x-gateway-event-id']);
  await settle(await queuedStatuses('delivered'));
});

test('a refused batch fails every job it carried and enqueues no next step; a lone status is a message.status callback', async () => {
  const ids: string[] = [];
  for (let i = 0; i < 3; i++) {
    const res = await call('POST', '/messages', { to: `1555123460${i}`, type: 'text', content: { body: `refused ${i}` } });
    assert.equal(res.status, 201, res.text);
    ids.push(res.body.id as string);
  }
  const jobs = await queuedStatuses('sent');
  assert.equal(jobs.length, 3);
  receiver.refuseNext(1);
  const failed = await deliver(jobs);
  assert.deepEqual([...failed.keys()].sort(), jobs.map((j) => j.id).sort(), 'every job of the refused callback failed');
  assert.match(failed.get(jobs[0]!.id)!.message, /answered 500/);
  assert.equal((await queuedStatuses('delivered')).length, 0, 'no next step');
  const rows = await queryRows<{ status: string }>(
    server.container.database.db,
    sql`select distinct status from sandbox_messages where id = ${ids[0]!}`,
  );
  assert.notEqual(rows[0]!.status, 'sent', 'the status stays where it was');

  // Retried one at a time, each is a message.status callback of its own.
  const before = receiver.received.length;
  assert.equal((await deliver([jobs[0]!])).size, 0);
  const [one] = receiver.received.slice(before);
  assert.equal(one!.json.event, 'message.status');
  assert.equal(one!.headers['x-gateway-event-id'], jobs[0]!.id);
  assert.deepEqual(one!.json.payload, { id: ids[0], status: 'sent' });
  await settle(jobs);
});

/** The messages a status job names. */
const namedIds = (job: QueuedJob): string[] =>
  job.data.kind === 'message.status' ? (job.data.message_ids ?? (job.data.message_id ? [job.data.message_id] : [])) : [];

test('sends arriving at once with new idempotency keys are written together: their `sent` jobs are shared, each message named once; the same keys again answer 200 with the same ids', async () => {
  const bodies = Array.from({ length: 12 }, (_, i) => ({
    to: `155512347${String(i).padStart(2, '0')}`,
    type: 'text',
    content: { body: `together ${i}` },
    idempotency_key: `together-${i}`,
  }));
  const answers = await Promise.all(bodies.map((b) => call('POST', '/messages', b)));
  assert.ok(
    answers.every((a) => a.status === 201),
    answers.map((a) => `${a.status} ${a.text}`).join('\n'),
  );
  const ids = answers.map((a) => a.body.id as string);
  assert.equal(new Set(ids).size, ids.length);

  const jobs = (await queuedStatuses('sent')).filter((j) => namedIds(j).some((id) => ids.includes(id)));
  assert.deepEqual(jobs.flatMap(namedIds).sort(), [...ids].sort(), 'each send has its `sent` status once');
  assert.ok(jobs.length < ids.length, `${jobs.length} status jobs for ${ids.length} sends made at once: none were shared`);

  const again = await Promise.all(bodies.map((b) => call('POST', '/messages', b)));
  assert.deepEqual(
    again.map((a) => [a.status, a.body.id]),
    ids.map((id) => [200, id]),
  );
  const after = (await queuedStatuses('sent')).filter((j) => namedIds(j).some((id) => ids.includes(id)));
  assert.equal(after.length, jobs.length, 'a repeated key enqueued a status again');

  // Delivered as they were shared: one signed callback per job, every message's `sent` in them.
  const before = receiver.received.length;
  assert.equal((await deliver(jobs)).size, 0);
  const reported = receiver.received
    .slice(before)
    .flatMap((c) =>
      c.json.event === 'message.statuses'
        ? (c.json.payload as { statuses: Array<{ id: string }> }).statuses.map((s) => s.id)
        : [(c.json.payload as { id: string }).id],
    );
  assert.deepEqual(reported.sort(), [...ids].sort());
  await settle([...jobs, ...(await queuedStatuses('delivered')).filter((j) => namedIds(j).some((id) => ids.includes(id)))]);
});

test('a status step writes its status and enqueues the next step without a transaction of its own (two round trips, not four)', async () => {
  const res = await call('POST', '/messages', { to: '15551234700', type: 'text', content: { body: 'one step' } });
  assert.equal(res.status, 201, res.text);
  const id = res.body.id as string;
  const jobs = (await queuedStatuses('sent')).filter((j) => namedIds(j).includes(id));
  assert.equal(jobs.length, 1);
  // The executor handed to the sandbox, with every transaction it opens counted.
  const { db } = server.container.database;
  let transactions = 0;
  const counting = new Proxy(db, {
    get(target, key, receiver) {
      if (key === 'transaction') {
        return (...args: Parameters<typeof db.transaction>) => {
          transactions++;
          return target.transaction(...args);
        };
      }
      return Reflect.get(target, key, receiver) as unknown;
    },
  });
  const failed = await server.container.sandbox!.deliverCallbacks(
    counting,
    jobs.map((j) => ({ id: j.id, payload: j.data })),
  );
  assert.equal(failed.size, 0);
  assert.equal(transactions, 0, 'no BEGIN/COMMIT around the status and the next job');
  const [row] = await queryRows<{ status: string }>(db, sql`select status from sandbox_messages where id = ${id}`);
  assert.equal(row!.status, 'sent');
  const next = (await queuedStatuses('delivered')).filter((j) => namedIds(j).includes(id));
  assert.equal(next.length, 1, 'the next step enqueued');
  await settle([...jobs, ...next]);
});
