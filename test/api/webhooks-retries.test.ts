/**
 * Retries: a receiver that fails N times then succeeds gets the same webhook-id every time and the
 * delivery succeeds; a schedule that runs out leaves the delivery failed, and the retry route sends
 * it again; every attempt is in the delivery log; an endpoint failing for too long is disabled with
 * the reason shown. The schedule is shortened through WEBHOOK_RETRY_SCHEDULE.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { queryRows } from '../../src/db/client.ts';
import { recordEvent } from '../../src/domain/events/outbox.ts';
import { movableClock, request, startTestServer, type TestServer } from '../harness.ts';
import { eventually } from '../eventually.ts';
import { startReceiver, verifyWith, type Receiver } from '../webhook-receiver.ts';

const BASE = '/v1/settings/developer/webhooks';
let server: TestServer;
let receiver: Receiver;
/** The server's clock, moved forward by hand: an endpoint is disabled after failing for WEBHOOK_DISABLE_AFTER by it. */
const clock = movableClock();
before(async () => {
  server = await startTestServer({
    worker: true,
    clock,
    env: {
      WEBHOOK_RETRY_SCHEDULE: '0,100ms,200ms,100ms',
      WEBHOOK_RETRY_JITTER: '0',
      WEBHOOK_POLL_INTERVAL_MS: '50',
      WEBHOOK_DISABLE_AFTER: '1s',
      WEBHOOK_DISABLE_MIN_FAILURES: '6',
    },
  });
  receiver = await startReceiver();
});
after(async () => {
  await server.close();
  await receiver.close();
});

async function createEndpoint(path: string, extra: Record<string, unknown> = {}) {
  const res = await request(server, 'POST', `${BASE}/endpoints`, {
    key: server.apiKey,
    body: { url: `${receiver.url}?${path}`, ...extra },
  });
  assert.equal(res.status, 201, res.text);
  return res.body.data as { id: string; secret: string };
}

function emit(status = 'open'): Promise<string> {
  return server.container.database.db.transaction((tx) =>
    recordEvent(tx, server.organizationId, 'conversation.updated', { conversation_id: 'c-1', status }),
  );
}

const to = (path: string) => receiver.requests.filter((r) => r.path.endsWith(`?${path}`));

async function deliveriesOf(query: string) {
  const res = await request(server, 'GET', `${BASE}/deliveries?${query}`, { key: server.apiKey });
  assert.equal(res.status, 200, res.text);
  return res.body.data as Array<Record<string, any>>;
}

test('a receiver failing twice then answering 2xx gets the same webhook-id each time, with the schedule between', async () => {
  const endpoint = await createEndpoint('flaky');
  let calls = 0;
  receiver.answer((r) => (r.path.endsWith('?flaky') && ++calls <= 2 ? { status: 503, body: `busy ${calls}` } : { status: 204 }));
  const eventId = await emit();
  await eventually('three attempts', () => (to('flaky').length >= 3 ? true : undefined));
  const got = to('flaky');
  assert.deepEqual(
    got.map((r) => r.headers['webhook-id']),
    [eventId, eventId, eventId],
    'one webhook-id across retries',
  );
  for (const r of got) assert.deepEqual(verifyWith(endpoint.secret, r), { conversation_id: 'c-1', status: 'open' });
  const gap1 = got[1]!.receivedAt - got[0]!.receivedAt;
  const gap2 = got[2]!.receivedAt - got[1]!.receivedAt;
  assert.ok(gap1 >= 95, `the first retry waits 100 ms (waited ${gap1})`);
  assert.ok(gap2 >= 195, `the second retry waits 200 ms (waited ${gap2})`);

  const [delivery] = await eventually('the delivery to succeed', async () => {
    const list = await deliveriesOf(`message_id=${eventId}`);
    return list[0]?.status === 'succeeded' ? list : undefined;
  });
  assert.equal(delivery!.endpoint_id, endpoint.id);
  assert.equal(delivery!.event_type, 'conversation.updated');
  assert.equal(delivery!.attempt_count, 3);
  assert.equal(delivery!.last_status_code, 204);
  assert.equal(delivery!.next_attempt_at, null);
  const attempts = delivery!.attempts;
  assert.deepEqual(
    attempts.map((a: { status_code: number }) => a.status_code),
    [204, 503, 503],
    'newest first',
  );
  assert.deepEqual(
    attempts.map((a: { response_body: string }) => a.response_body),
    [null, null, null],
    'a 204 has no body; the answers of failures are not kept',
  );
  assert.deepEqual(
    attempts.map((a: { error: string | null }) => a.error),
    [null, 'HTTP 503', 'HTTP 503'],
  );
  assert.ok(attempts.every((a: { trigger: string; duration_ms: number }) => a.trigger === 'scheduled' && a.duration_ms >= 0));
  await eventually('the health to show the success', async () => {
    const settings = await request(server, 'GET', BASE, { key: server.apiKey });
    const health = settings.body.data.endpoints.find((e: { id: string }) => e.id === endpoint.id).health;
    return health.consecutive_failures === 0 && health.last_success_at ? true : undefined;
  });
});

test('a schedule that runs out leaves the delivery failed; the retry route sends it again with the same webhook-id', async () => {
  const endpoint = await createEndpoint('down');
  let up = false;
  receiver.answer((r) => (r.path.endsWith('?down') && !up ? { status: 500, body: 'down' } : { status: 200, body: 'ok' }));
  const eventId = await emit('closed');
  const failed = await eventually('the delivery to fail', async () => {
    const [d] = await deliveriesOf(`endpoint_id=${endpoint.id}&status=failed`);
    return d;
  });
  assert.equal(failed.message_id, eventId);
  assert.equal(failed.attempt_count, 4, 'as many attempts as the schedule has entries');
  assert.equal(failed.attempts.length, 4);
  assert.equal(to('down').length, 4);
  // Nothing is scheduled, so no attempt can follow (the engine sends only what is due).
  assert.equal(failed.next_attempt_at, null, 'no attempt after the schedule ran out');

  // Retried while the receiver is still down: one attempt, and it is failed again (no new schedule).
  const early = await request(server, 'POST', `${BASE}/deliveries/${eventId}/retry`, { key: server.apiKey });
  assert.equal(early.status, 202, early.text);
  const failedAgain = await eventually('the manual attempt to fail', async () => {
    const [d] = await deliveriesOf(`endpoint_id=${endpoint.id}&message_id=${eventId}`);
    return d?.status === 'failed' && d.attempt_count === 5 ? d : undefined;
  });
  assert.equal(failedAgain.attempts[0].trigger, 'manual');
  assert.equal(failedAgain.next_attempt_at, null, 'a failed manual attempt is not rescheduled');
  assert.equal(to('down').length, 5);

  up = true;
  const retry = await request(server, 'POST', `${BASE}/deliveries/${eventId}/retry`, { key: server.apiKey });
  assert.equal(retry.status, 202, retry.text);
  assert.equal(retry.body.data.message_id, eventId);
  assert.ok(retry.body.data.retried.some((r: { endpoint_id: string }) => r.endpoint_id === endpoint.id));
  const done = await eventually('the manual attempt to succeed', async () => {
    const [d] = await deliveriesOf(`endpoint_id=${endpoint.id}&message_id=${eventId}`);
    return d?.status === 'succeeded' ? d : undefined;
  });
  assert.equal(done.attempt_count, 6);
  assert.equal(done.attempts[0].trigger, 'manual');
  assert.equal(to('down').at(-1)!.headers['webhook-id'], eventId);
  assert.ok(verifyWith(endpoint.secret, to('down').at(-1)!));

  // Where it succeeded it is not sent again.
  const again = await request(server, 'POST', `${BASE}/deliveries/${eventId}/retry`, {
    key: server.apiKey,
    body: { endpoint_id: endpoint.id },
  });
  assert.equal(again.status, 202);
  assert.deepEqual(again.body.data.retried, []);
  assert.deepEqual(again.body.data.skipped, [{ endpoint_id: endpoint.id, reason: 'already succeeded' }]);
  assert.equal(
    (await request(server, 'POST', `${BASE}/deliveries/0196b1f2-1c9e-7a01-b2c3-d4e5f6a7b8c9/retry`, { key: server.apiKey })).status,
    404,
  );
  assert.equal((await request(server, 'POST', `${BASE}/deliveries/nope/retry`, { key: server.apiKey })).status, 404);
});

test('a delivery keeps its latest attempt in its row and earlier ones as rows; one stored before that lists and retries the same', async () => {
  const endpoint = await createEndpoint('folded');
  let calls = 0;
  receiver.answer((r) =>
    r.path.endsWith('?folded') && ++calls === 1 ? { status: 502, body: 'bad gateway' } : { status: 200, body: 'ok' },
  );
  const stored = async (deliveryId: string) => {
    const rows = await queryRows<{ status_code: number }>(
      server.container.database.db,
      sql`select status_code from webhook_attempts where delivery_id = ${deliveryId} order by attempted_at`,
    );
    const [row] = await queryRows<{ latest: { status_code: number; trigger: string } | null }>(
      server.container.database.db,
      sql`select latest_attempt as latest from webhook_deliveries where id = ${deliveryId}`,
    );
    return { rows: rows.map((r) => r.status_code), latest: row!.latest };
  };
  // The first attempt fails: it is retried, and both attempts are listed, newest first.
  const failedFirst = await emit('pending');
  const [delivery] = await eventually('the retried delivery to succeed', async () => {
    const list = await deliveriesOf(`message_id=${failedFirst}&endpoint_id=${endpoint.id}`);
    return list[0]?.status === 'succeeded' ? list : undefined;
  });
  assert.deepEqual(
    delivery!.attempts.map((a: { status_code: number }) => a.status_code),
    [200, 502],
  );
  const split = await stored(delivery!.id);
  assert.deepEqual(split.rows, [502], 'the attempt the retry replaced is a row of webhook_attempts');
  assert.equal(split.latest?.status_code, 200, 'the latest attempt is in the delivery row');

  // Succeeding at once writes no attempt row.
  const atOnce = await emit('snoozed');
  const [quick] = await eventually('the delivery to succeed', async () => {
    const list = await deliveriesOf(`message_id=${atOnce}&endpoint_id=${endpoint.id}`);
    return list[0]?.status === 'succeeded' ? list : undefined;
  });
  assert.equal(quick!.attempts.length, 1);
  assert.deepEqual(await stored(quick!.id).then((s) => s.rows), []);

  // A delivery as stored before latest_attempt existed (every attempt a row): listed the same, and a
  // manual retry adds its attempt without losing one.
  await server.container.database.db.execute(sql`
    with moved as (
      insert into webhook_attempts (id, organization_id, delivery_id, endpoint_id, trigger, attempted_at, status_code, duration_ms, response_body, error)
      select id, organization_id, delivery_id, endpoint_id, trigger, attempted_at, status_code, duration_ms, response_body, error
        from webhook_attempt_log where delivery_id = ${quick!.id}
    )
    update webhook_deliveries set latest_attempt = null, status = 'failed' where id = ${quick!.id}`);
  const [asBefore] = await deliveriesOf(`message_id=${atOnce}&endpoint_id=${endpoint.id}`);
  assert.deepEqual(asBefore!.attempts, quick!.attempts);
  const retry = await request(server, 'POST', `${BASE}/deliveries/${atOnce}/retry`, {
    key: server.apiKey,
    body: { endpoint_id: endpoint.id },
  });
  assert.equal(retry.status, 202, retry.text);
  const [retried] = await eventually('the manual attempt to succeed', async () => {
    const list = await deliveriesOf(`message_id=${atOnce}&endpoint_id=${endpoint.id}`);
    return list[0]?.status === 'succeeded' && list[0].attempt_count === 2 ? list : undefined;
  });
  assert.deepEqual(
    retried!.attempts.map((a: { trigger: string }) => a.trigger),
    ['manual', 'scheduled'],
  );
  assert.deepEqual(retried!.attempts[1], quick!.attempts[0]);
});

test('the retry route also sends the event to a matching endpoint created after it', async () => {
  receiver.answer(() => ({ status: 200 }));
  const eventId = await emit('open');
  await eventually('the event to be dispatched', async () => ((await deliveriesOf(`message_id=${eventId}`)).length > 0 ? true : undefined));
  const late = await createEndpoint('late', { event_types: ['conversation.updated'] });
  const unrelated = await createEndpoint('unrelated', { event_types: ['message.new'] });
  const retry = await request(server, 'POST', `${BASE}/deliveries/${eventId}/retry`, { key: server.apiKey });
  assert.equal(retry.status, 202);
  assert.ok(retry.body.data.retried.some((r: { endpoint_id: string }) => r.endpoint_id === late.id));
  assert.ok(!retry.body.data.retried.some((r: { endpoint_id: string }) => r.endpoint_id === unrelated.id), 'the filter still applies');
  const got = await eventually('the late endpoint to get it', () => to('late').find((r) => r.headers['webhook-id'] === eventId));
  assert.ok(verifyWith(late.secret, got));
  assert.equal(to('unrelated').length, 0);
});

test('the delivery log filters by endpoint, event type, status, message id and time, and pages with a cursor', async () => {
  receiver.answer(() => ({ status: 200 }));
  const endpoint = await createEndpoint('log');
  const start = new Date(Date.now() - 1000).toISOString();
  const ids: string[] = [];
  for (let i = 0; i < 5; i++) ids.push(await emit(`s${i}`));
  await eventually('five deliveries', async () =>
    (await deliveriesOf(`endpoint_id=${endpoint.id}&status=succeeded`)).length === 5 ? true : undefined,
  );
  const page1 = await request(server, 'GET', `${BASE}/deliveries?endpoint_id=${endpoint.id}&limit=2`, { key: server.apiKey });
  assert.equal(page1.body.data.length, 2);
  assert.ok(page1.body.meta.next_cursor);
  const page2 = await request(
    server,
    'GET',
    `${BASE}/deliveries?endpoint_id=${endpoint.id}&limit=2&cursor=${page1.body.meta.next_cursor}`,
    { key: server.apiKey },
  );
  const page3 = await request(
    server,
    'GET',
    `${BASE}/deliveries?endpoint_id=${endpoint.id}&limit=2&cursor=${page2.body.meta.next_cursor}`,
    { key: server.apiKey },
  );
  assert.equal(page3.body.meta.next_cursor, null);
  const seen = [...page1.body.data, ...page2.body.data, ...page3.body.data].map((d: { message_id: string }) => d.message_id);
  assert.deepEqual(seen, [...ids].reverse(), 'newest first, each once');
  assert.equal((await deliveriesOf(`endpoint_id=${endpoint.id}&event_type=message.new`)).length, 0);
  assert.equal((await deliveriesOf(`endpoint_id=${endpoint.id}&event_type=conversation.updated`)).length, 5);
  assert.equal((await deliveriesOf(`endpoint_id=${endpoint.id}&status=failed`)).length, 0);
  assert.equal((await deliveriesOf(`endpoint_id=${endpoint.id}&since=${start}`)).length, 5);
  assert.equal((await deliveriesOf(`endpoint_id=${endpoint.id}&until=${start}`)).length, 0);
  assert.equal((await deliveriesOf(`message_id=${ids[2]}&endpoint_id=${endpoint.id}`)).length, 1);
  const bad = await request(server, 'GET', `${BASE}/deliveries?cursor=garbage`, { key: server.apiKey });
  assert.equal(bad.status, 400);
  assert.equal((await request(server, 'GET', `${BASE}/deliveries?status=lost`, { key: server.apiKey })).status, 400);
});

test('an endpoint that keeps failing is disabled with the reason shown, and its pending deliveries fail', async () => {
  const endpoint = await createEndpoint('dead');
  receiver.answer((r) => (r.path.endsWith('?dead') ? { status: 410, body: 'gone' } : { status: 200 }));
  // More than 6 failures, over longer than WEBHOOK_DISABLE_AFTER (1 s): six, then the clock moves on, then one more.
  for (let i = 0; i < 6; i++) await emit('open');
  await eventually('six failed attempts', () => to('dead').length >= 6);
  clock.advance(1500);
  await emit('open');
  const disabled = await eventually('the endpoint to be disabled', async () => {
    const settings = await request(server, 'GET', BASE, { key: server.apiKey });
    const e = settings.body.data.endpoints.find((x: { id: string }) => x.id === endpoint.id);
    return e.enabled ? undefined : e;
  });
  assert.match(
    disabled.disabled_reason,
    /^disabled automatically: no delivery succeeded since .* \(\d+ failed attempts; the last: HTTP 410\)/,
  );
  assert.ok(disabled.health.consecutive_failures >= 6);
  assert.ok(disabled.health.failing_since);
  await eventually('no pending delivery left', async () =>
    (await deliveriesOf(`endpoint_id=${endpoint.id}&status=pending`)).length === 0 ? true : undefined,
  );
  const count = to('dead').length;
  // A healthy endpoint beside it: once it has the event, the event has been handed out to every endpoint.
  await createEndpoint('witness');
  const later = await emit('open');
  await eventually('the healthy endpoint to get the event', () => to('witness').some((r) => r.headers['webhook-id'] === later));
  assert.deepEqual(await deliveriesOf(`endpoint_id=${endpoint.id}&message_id=${later}`), [], 'a disabled endpoint gets nothing new');
  assert.equal(to('dead').length, count);

  // Enabling it again clears the reason and the count; a retry of a failed message works.
  const enabled = await request(server, 'PATCH', `${BASE}/endpoints/${endpoint.id}`, { key: server.apiKey, body: { enabled: true } });
  assert.equal(enabled.body.data.enabled, true);
  assert.equal(enabled.body.data.disabled_reason, null);
  assert.equal(enabled.body.data.health.consecutive_failures, 0);
});
