/**
 * Event replay: GET /v1/events lists the organization's events in commit order with an opaque cursor
 * that is always returned, so a reader can keep it and read on later without missing an event whose
 * transaction committed late (or newest first with order=desc, for people reading the log); retention
 * deletes old events with their deliveries and attempts.
 */
// stores: both
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { queryRows } from '../../src/db/client.ts';
import { recordEvent } from '../../src/domain/events/outbox.ts';
import { createOtherOrganization, request, startTestServer, usingPostgres, type TestServer } from '../harness.ts';
import { eventually } from '../eventually.ts';
import { startReceiver, type Receiver } from '../webhook-receiver.ts';

let server: TestServer;
let receiver: Receiver;
before(async () => {
  server = await startTestServer({ worker: true, env: { WEBHOOK_POLL_INTERVAL_MS: '50', EVENT_RETENTION_DAYS: '7' } });
  receiver = await startReceiver();
});
after(async () => {
  await server.close();
  await receiver.close();
});

const db = () => server.container.database.db;
const emit = (organizationId: string, status: string, at?: Date) =>
  db().transaction((tx) => recordEvent(tx, organizationId, 'conversation.updated', { conversation_id: 'c-1', status }, at));

async function readAll(key: string, query = '', cursor?: string) {
  const res = await request(server, 'GET', `/v1/events?limit=2${query}${cursor ? `&cursor=${cursor}` : ''}`, { key });
  assert.equal(res.status, 200, res.text);
  return res.body as {
    data: Array<{ id: string; type: string; created_at: string; data: Record<string, unknown> }>;
    meta: { next_cursor: string; has_more: boolean };
  };
}

async function eventsAfter(key: string, cursor: string | undefined, query = '') {
  const seen: Array<{ id: string; data: Record<string, unknown> }> = [];
  let next = cursor;
  for (;;) {
    const page = await readAll(key, query, next);
    seen.push(...page.data);
    assert.ok(page.meta.next_cursor, 'next_cursor is always set');
    next = page.meta.next_cursor;
    if (!page.meta.has_more) return { seen, cursor: next };
  }
}

test('pages through the events oldest first with a cursor that is always set; reading on later returns only newer ones', async () => {
  const other = await createOtherOrganization(server, 'replay');
  const ids = [];
  for (const status of ['a', 'b', 'c', 'd', 'e']) ids.push(await emit(other.organizationId, status));
  await emit(server.organizationId, 'not theirs');
  const first = await eventually('the events to be sequenced', async () => {
    const all = await eventsAfter(other.apiKey, undefined);
    return all.seen.length === 5 ? all : undefined;
  });
  assert.deepEqual(
    first.seen.map((e) => e.id),
    ids,
  );
  assert.deepEqual(
    first.seen.map((e) => e.data.status),
    ['a', 'b', 'c', 'd', 'e'],
  );
  const page = await readAll(other.apiKey);
  assert.equal(page.data.length, 2);
  assert.equal(page.meta.has_more, true);
  assert.equal(page.data[0]!.type, 'conversation.updated');
  assert.ok(Date.parse(page.data[0]!.created_at));
  assert.deepEqual(page.data[0]!.data, { conversation_id: 'c-1', status: 'a' }, 'the body its webhooks carry');

  const empty = await readAll(other.apiKey, '', first.cursor);
  assert.deepEqual(empty.data, []);
  assert.equal(empty.meta.next_cursor, first.cursor, 'nothing new: the same cursor back');
  const later = await emit(other.organizationId, 'f');
  const more = await eventually('the new event', async () => {
    const r = await eventsAfter(other.apiKey, first.cursor);
    return r.seen.length > 0 ? r : undefined;
  });
  assert.deepEqual(
    more.seen.map((e) => e.id),
    [later],
  );

  const filtered = await eventsAfter(other.apiKey, undefined, '&type=message.new');
  assert.deepEqual(filtered.seen, []);
  const since = await eventsAfter(other.apiKey, undefined, `&since=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`);
  assert.deepEqual(since.seen, []);
  // Its cursor read on alone (as the docs say: pass next_cursor each time) does not go back to the
  // events `since` (or `type`) left out: it stands where the log stood.
  assert.deepEqual((await eventsAfter(other.apiKey, since.cursor)).seen, [], 'nothing before `since` comes back');
  assert.deepEqual((await eventsAfter(other.apiKey, filtered.cursor)).seen, [], 'nor what `type` left out');
  assert.equal((await request(server, 'GET', '/v1/events?cursor=not-ours', { key: other.apiKey })).status, 400);
  assert.equal((await request(server, 'GET', '/v1/events?type=nope', { key: other.apiKey })).status, 400);
});

test('order=desc: newest first, the cursor reading on into older events; the cursors of one order are refused by the other and by the stream', async () => {
  const other = await createOtherOrganization(server, 'newest-first');
  const ids = [];
  for (const status of ['a', 'b', 'c', 'd', 'e']) ids.push(await emit(other.organizationId, status));
  await emit(server.organizationId, 'not theirs');
  const newest = await eventually('the events to be sequenced', async () => {
    const all = await eventsAfter(other.apiKey, undefined, '&order=desc');
    return all.seen.length === 5 ? all : undefined;
  });
  assert.deepEqual(
    newest.seen.map((e) => e.id),
    [...ids].reverse(),
    'newest first, every one once across the pages',
  );
  const first = await readAll(other.apiKey, '&order=desc');
  assert.deepEqual(
    first.data.map((e) => e.data.status),
    ['e', 'd'],
  );
  assert.equal(first.meta.has_more, true);
  const second = await readAll(other.apiKey, '&order=desc', first.meta.next_cursor);
  assert.deepEqual(
    second.data.map((e) => e.data.status),
    ['c', 'b'],
  );
  // The type filter, newest first too.
  await emit(other.organizationId, 'f');
  const filtered = await eventually('the new event', async () => {
    const page = await readAll(other.apiKey, '&order=desc&type=conversation.updated');
    return page.data[0]?.data.status === 'f' ? page : undefined;
  });
  assert.equal(filtered.data.length, 2);
  assert.deepEqual((await readAll(other.apiKey, '&order=desc&type=message.new')).data, []);

  // A cursor means "after" in one order and "before" in the other: each is refused where it would mislead.
  const ascCursor = (await readAll(other.apiKey)).meta.next_cursor;
  const wrongWay = await request(server, 'GET', `/v1/events?order=desc&cursor=${ascCursor}`, { key: other.apiKey });
  assert.equal(wrongWay.status, 400, wrongWay.text);
  assert.deepEqual(
    wrongWay.body.errors.map((e: { pointer: string; location: string }) => [e.location, e.pointer]),
    [['query', '/cursor']],
  );
  const backwards = await request(server, 'GET', `/v1/events?cursor=${first.meta.next_cursor}`, { key: other.apiKey });
  assert.equal(backwards.status, 400, backwards.text);
  const stream = await request(server, 'GET', `/v1/events/stream?cursor=${first.meta.next_cursor}`, { key: other.apiKey });
  assert.equal(stream.status, 400, stream.text);
  const bad = await request(server, 'GET', '/v1/events?order=sideways', { key: other.apiKey });
  assert.equal(bad.status, 400);
  assert.match(bad.text, /order/);
});

test('an event whose transaction commits late comes after the cursor, not before it (PostgreSQL: real concurrent transactions)', async (t) => {
  if (!usingPostgres) {
    t.skip('PGlite runs one transaction at a time, so there is no late commit to order');
    return;
  }
  const other = await createOtherOrganization(server, 'late');
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  let lateId = '';
  // The late event takes its seq first, then waits before committing.
  const late = db().transaction(async (tx) => {
    lateId = await recordEvent(tx, other.organizationId, 'conversation.updated', { conversation_id: 'c-late', status: 'late' });
    await held;
  });
  await eventually('the late event to take its seq', () => (lateId ? true : undefined));
  const early = await emit(other.organizationId, 'early');
  const before = await eventually('the early event to be listed', async () => {
    const r = await eventsAfter(other.apiKey, undefined);
    return r.seen.length === 1 ? r : undefined;
  });
  assert.deepEqual(
    before.seen.map((e) => e.id),
    [early],
  );
  release();
  await late;
  const after = await eventually('the late event after the cursor', async () => {
    const r = await eventsAfter(other.apiKey, before.cursor);
    return r.seen.length === 1 ? r : undefined;
  });
  assert.deepEqual(
    after.seen.map((e) => e.id),
    [lateId],
    'a reader holding the cursor still gets the late event',
  );
  const [order] = await queryRows<{ late_seq: number; early_seq: number }>(
    db(),
    sql`select (select seq from events where id = ${lateId}) as late_seq, (select seq from events where id = ${early}) as early_seq`,
  );
  assert.ok(Number(order!.late_seq) < Number(order!.early_seq), 'the late event has the lower seq: paging on seq would have skipped it');
});

test('retention: events older than EVENT_RETENTION_DAYS go, with their deliveries and attempts', async () => {
  const created = await request(server, 'POST', '/v1/settings/developer/webhooks/endpoints', {
    key: server.apiKey,
    body: { url: receiver.url },
  });
  assert.equal(created.status, 201);
  const now = Date.now();
  const old = await emit(server.organizationId, 'old', new Date(now - 8 * 86_400_000));
  const recent = await emit(server.organizationId, 'recent', new Date(now - 6 * 86_400_000));
  await eventually('both to be delivered', () =>
    receiver.requests.filter((r) => r.headers['webhook-id'] === old || r.headers['webhook-id'] === recent).length >= 2 ? true : undefined,
  );
  const count = async (table: 'events' | 'webhook_deliveries' | 'webhook_attempt_log', id: string) => {
    const column =
      table === 'events'
        ? sql`id`
        : table === 'webhook_deliveries'
          ? sql`message_id`
          : sql`delivery_id in (select id from webhook_deliveries where message_id = ${id})`;
    const where = table === 'webhook_attempt_log' ? column : sql`${column} = ${id}`;
    const [row] = await queryRows<{ n: number }>(db(), sql`select count(*)::int as n from ${sql.raw(table)} where ${where}`);
    return row!.n;
  };
  await eventually('the old attempt to be recorded', async () => ((await count('webhook_attempt_log', old)) > 0 ? true : undefined));
  await server.container.jobHandlers()['webhooks.cleanup']({}, {} as never);
  assert.equal(await count('events', old), 0);
  assert.equal(await count('webhook_deliveries', old), 0);
  assert.equal(await count('webhook_attempt_log', old), 0);
  assert.equal(await count('events', recent), 1);
  assert.equal(await count('webhook_deliveries', recent), 1);
});
