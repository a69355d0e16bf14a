/**
 * A status report that skips steps (a callback lost while the service was down, or a provider that
 * only reports the last) still gives subscribers every step: the skipped statuses are recorded and
 * announced first, in order, and the history reads forward.
 */
// stores: both
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { eq, sql } from 'drizzle-orm';
import { queryRows } from '../../src/db/client.ts';
import { messages } from '../../src/db/schema.ts';
import { advanceStatus } from '../../src/domain/messages/messages.ts';
import { request, startTestServer, usingPostgres, type TestServer } from '../harness.ts';
import { eventually } from '../eventually.ts';
import { customerWrites, eventsOf, officialChannel, postOfficialStatuses, send, waitForStatus } from '../messages-helpers.ts';

let server: TestServer;
let channel: { id: string; phone: string };
let phoneNumberId: string;
before(async () => {
  // The sandbox's own status callbacks come ten minutes later: only the reports this test posts arrive.
  server = await startTestServer({ worker: true, env: { SANDBOX_STATUS_DELAY_MS: '600000' } });
  channel = await officialChannel(server);
  phoneNumberId = (await request(server, 'GET', `/v1/channels/${channel.id}`, { key: server.apiKey })).body.data.settings.phone_number_id;
});
after(() => server.close());

/** Posts status reports (one webhook, applied in order) through the provider's signed webhook, as the provider would. */
async function report(...statuses: Array<Record<string, unknown>>) {
  const posted = await postOfficialStatuses(server, { phone: channel.phone, phoneNumberId }, statuses);
  assert.equal(posted.status, 200, posted.text);
}

/** Waits until every provider webhook received so far has been applied. */
const applied = () =>
  eventually('the provider webhooks applied', async () => {
    const [row] = await queryRows<{ n: number }>(
      server.container.database.db,
      sql`select count(*)::int as n from provider_events where processed_at is null`,
    );
    return row!.n === 0 ? true : undefined;
  });

const statusesOf = (view: { history: Array<{ status: string }> }) => view.history.map((h) => h.status);

const updatesOf = async (id: string) =>
  (await eventsOf(server, 'message.status_update')).filter((e) => e.payload.message_id === id).map((e) => e.payload.status);

test('read on a sent message records and announces delivered first', async () => {
  const to = '4915112343131';
  await customerWrites(server, channel.id, to);
  const res = await send(server, { channel_id: channel.id, to, type: 'text', content: { body: 'skip me' } });
  assert.equal(res.status, 201, res.text);
  const sent = await waitForStatus(server, res.body.data.id, 'sent');
  await report({ id: sent.provider_message_id, status: 'read', recipient_id: to });
  const read = await waitForStatus(server, res.body.data.id, 'read');
  assert.deepEqual(
    read.history.map((h: { status: string }) => h.status),
    ['queued', 'sent', 'delivered', 'read'],
  );
  assert.deepEqual(await updatesOf(res.body.data.id), ['sent', 'delivered', 'read']);

  // The late delivered report moves nothing, adds no second `delivered` and announces nothing again.
  await report({ id: sent.provider_message_id, status: 'delivered', recipient_id: to });
  await applied();
  const after = await request(server, 'GET', `/v1/messages/${res.body.data.id}/status`, { key: server.apiKey });
  assert.deepEqual(statusesOf(after.body.data), ['queued', 'sent', 'delivered', 'read']);
  assert.deepEqual(await updatesOf(res.body.data.id), ['sent', 'delivered', 'read']);
});

test("the provider's own sent report after the dispatcher's adds no second sent row", async () => {
  const to = '4915112343434';
  await customerWrites(server, channel.id, to);
  const res = await send(server, { channel_id: channel.id, to, type: 'text', content: { body: 'sent once' } });
  assert.equal(res.status, 201, res.text);
  const sent = await waitForStatus(server, res.body.data.id, 'sent');
  const sentAt = sent.history.find((h: { status: string }) => h.status === 'sent').at as string;
  // The provider's time has second precision, so its `sent` reads earlier than the dispatcher's.
  const providerTime = String(Math.floor(Date.parse(sentAt) / 1000) - 1);
  await report(
    { id: sent.provider_message_id, status: 'sent', recipient_id: to, timestamp: providerTime },
    { id: sent.provider_message_id, status: 'delivered', recipient_id: to, timestamp: providerTime },
  );
  const delivered = await waitForStatus(server, res.body.data.id, 'delivered');
  assert.deepEqual(statusesOf(delivered), ['queued', 'sent', 'delivered']);
  assert.equal(delivered.history[1].at, sentAt, 'the first sent row is kept');
  assert.ok((await updatesOf(res.body.data.id)).includes('delivered'), 'message.status_update recorded with it');
});

test('delivered on a message still queued records and announces sent first, with message.sent', async () => {
  const to = '4915112343232';
  await customerWrites(server, channel.id, to);
  // No dispatcher: the message stays queued (as when the send's answer was lost), and the provider's
  // report names it by the id Parley sent as biz_opaque_callback_data.
  await server.container.dispatcher.stop({ timeoutMs: 1000 });
  try {
    const res = await send(server, { channel_id: channel.id, to, type: 'text', content: { body: 'answer lost' } });
    assert.equal(res.status, 201, res.text);
    await report({ id: 'wamid.skipped-steps-1', status: 'delivered', recipient_id: to, biz_opaque_callback_data: res.body.data.id });
    const delivered = await waitForStatus(server, res.body.data.id, 'delivered');
    assert.equal(delivered.provider_message_id, 'wamid.skipped-steps-1');
    assert.deepEqual(
      delivered.history.map((h: { status: string }) => h.status),
      ['queued', 'sent', 'delivered'],
    );
    assert.deepEqual(await updatesOf(res.body.data.id), ['sent', 'delivered']);
    const announced = (await eventsOf(server, 'message.sent')).filter((e) => e.payload.message_id === res.body.data.id);
    assert.equal(announced.length, 1);
  } finally {
    await server.container.dispatcher.start();
  }
});

test('two reports racing: a later step blocked behind an earlier one still lands once that commits', {
  skip: !usingPostgres && 'needs two connections (PostgreSQL)',
}, async () => {
  const to = '4915112343133';
  await customerWrites(server, channel.id, to);
  const res = await send(server, { channel_id: channel.id, to, type: 'text', content: { body: 'race' } });
  const id = res.body.data.id as string;
  // The sandbox's own reports come much later: the message stays `sent` until this test moves it.
  await waitForStatus(server, id, 'sent');
  const db = server.container.database.db;
  const [row] = await db.select().from(messages).where(eq(messages.id, id));
  const now = new Date();
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  let firstMoved = false;
  // `delivered` takes the row first and holds it; `read`, read from the same `sent` row, waits behind it.
  const first = db.transaction(async (tx) => {
    await advanceStatus(tx, row!, 'delivered', now, now);
    firstMoved = true;
    await gate;
  });
  await eventually('delivered holding the row', async () => (firstMoved ? true : undefined));
  const second = db.transaction((tx) => advanceStatus(tx, row!, 'read', now, now));
  await eventually('read waiting for the row', async () => {
    const waiting = await queryRows<{ n: number }>(
      db,
      sql`select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`,
    );
    return waiting[0]!.n > 0 ? true : undefined;
  });
  release();
  await first;
  assert.equal(await second, true, 'read moved the message');
  const [after] = await db.select({ status: messages.status }).from(messages).where(eq(messages.id, id));
  assert.equal(after!.status, 'read');
});

test('a report naming a message not known yet does not hold up the others of its delivery: they apply, it waits on its own', async () => {
  const to = '4915112343535';
  await customerWrites(server, channel.id, to);
  const res = await send(server, { channel_id: channel.id, to, type: 'text', content: { body: 'not held up' } });
  assert.equal(res.status, 201, res.text);
  const sent = await waitForStatus(server, res.body.data.id, 'sent');
  // One webhook: a status for a send Parley has not recorded yet (its answer still on its way), and one for a known message.
  await report(
    { id: 'wamid.not-known-yet-1', status: 'delivered', recipient_id: to },
    { id: sent.provider_message_id, status: 'delivered', recipient_id: to },
  );
  // Well inside the two minutes the unknown report is looked for again.
  await waitForStatus(server, res.body.data.id, 'delivered', 15_000);
  const [waiting] = await queryRows<{ n: number }>(
    server.container.database.db,
    sql`select count(*)::int as n from provider_events where processed_at is null and payload::text like '%wamid.not-known-yet-1%'`,
  );
  assert.equal(waiting!.n, 1, 'the unknown report waits as a delivery of its own');
});

test('a delivery of status reports only is applied before the provider is answered: stored done, with no job', async () => {
  const to = '4915112343636';
  await customerWrites(server, channel.id, to);
  const res = await send(server, { channel_id: channel.id, to, type: 'text', content: { body: 'applied on receipt' } });
  const sent = await waitForStatus(server, res.body.data.id, 'sent');
  await report({ id: sent.provider_message_id, status: 'delivered', recipient_id: to });
  // Answered: already applied, no waiting.
  const now = (await request(server, 'GET', `/v1/messages/${res.body.data.id}`, { key: server.apiKey })).body.data;
  assert.equal(now.status, 'delivered');
  const db = server.container.database.db;
  const stored = await queryRows<{ id: string; processed: boolean }>(
    db,
    sql`select id, processed_at is not null as processed from provider_events where payload::text like ${`%${sent.provider_message_id}%`}`,
  );
  assert.deepEqual(
    stored.map((s) => s.processed),
    [true],
  );
  const [jobs] = await queryRows<{ n: number }>(
    db,
    sql`select count(*)::int as n from pgboss.job where name = 'provider.inbound' and data->>'provider_event_id' = ${stored[0]!.id}`,
  );
  assert.equal(jobs!.n, 0);
  assert.ok((await updatesOf(res.body.data.id)).includes('delivered'), 'message.status_update recorded with it');
});

test('a report not known when it arrives waits in a delivery of its own whose job is due at once (its send is usually just behind)', async () => {
  await report({ id: 'wamid.not-known-yet-2', status: 'delivered', recipient_id: '4915112343737' });
  const db = server.container.database.db;
  const rows = await queryRows<{ id: string; processed: boolean }>(
    db,
    sql`select id, processed_at is not null as processed from provider_events where payload::text like '%wamid.not-known-yet-2%' order by id`,
  );
  // The delivery as received is done; the report went on to one of its own (and on from there while it stays unknown).
  assert.equal(rows[0]!.processed, true);
  assert.ok(rows.length >= 2, 'the report waits in a delivery of its own');
  const [job] = await queryRows<{ waited_ms: number }>(
    db,
    sql`select extract(epoch from (start_after - created_on)) * 1000 as waited_ms from pgboss.job where name = 'provider.inbound' and data->>'provider_event_id' = ${rows[1]!.id}`,
  );
  assert.ok(job, 'its job');
  assert.ok(Number(job.waited_ms) < 500, `due at once, not after ${job.waited_ms} ms`);
});
