import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { queryRows } from '../../src/db/client.ts';
import type { SandboxGatewaySession } from '../../src/sandbox/contract.ts';
import { lidOf } from '../../src/sandbox/rules.ts';
import { movableClock, request, startTestServer, type TestServer } from '../harness.ts';
import { sandboxQuiet } from '../messages-helpers.ts';
import { hmacHex, insertSandboxChannel, startReceiver, type Received, type Receiver } from './receiver.ts';

let server: TestServer;
let receiver: Receiver;
let gw: SandboxGatewaySession;
/** The server's clock, moved forward by hand (QR codes lapse by it). */
const clock = movableClock();
const CALLBACK_SECRET = 'callback-secret-of-at-least-16-chars';

before(async () => {
  receiver = await startReceiver();
  server = await startTestServer({ env: { SANDBOX_STATUS_DELAY_MS: '50' }, worker: true, clock });
  gw = await server.container.sandbox!.provisionGatewaySession(server.container.database.db);
});
after(async () => {
  await server.close();
  await receiver.close();
});

const session = (suffix = '', s: SandboxGatewaySession = gw) => `/sandbox/gateway/sessions/${s.session}${suffix}`;
const call = (method: string, suffix: string, body?: unknown, s: SandboxGatewaySession = gw) =>
  request(server, method, session(suffix, s), { bearer: s.apiKey, body });
const sendMessage = (body: Record<string, unknown>) => call('POST', '/messages', body);

/** A `message.statuses` callback (statuses delivered together) counts as one `message.status` per status it carries. */
const flatten = (received: Received[]) =>
  received.flatMap((r) =>
    r.json?.event === 'message.statuses'
      ? (r.json.payload.statuses as unknown[]).map((payload) => ({ ...r, json: { ...r.json, event: 'message.status', payload } }))
      : [r],
  );
const events = (received: Received[], event: string, match: (payload: any) => boolean = () => true) =>
  flatten(received).filter((r) => r.json?.event === event && match(r.json.payload));

function assertSigned(delivery: Received) {
  assert.equal(delivery.headers['x-gateway-signature'], `sha256=${hmacHex(CALLBACK_SECRET, delivery.raw)}`);
  assert.match(String(delivery.headers['x-gateway-event-id']), /^[0-9a-f-]{36}$/);
  assert.equal(delivery.json.session, gw.session);
  assert.ok(!Number.isNaN(Date.parse(delivery.json.timestamp)));
}

test('provisioning returns a STOPPED session, its base URL and an API key that drives only it', async () => {
  assert.equal(gw.gatewayBase, `${server.baseUrl}/sandbox/gateway`);
  const res = await call('GET', '');
  assert.equal(res.status, 200);
  assert.deepEqual(res.body, { session: gw.session, status: 'STOPPED', me: null, settings: {}, presence: 'unavailable' });
  for (const bearer of [undefined, 'gwk_wrong']) {
    const denied = await request(server, 'GET', session(), { bearer });
    assert.equal(denied.status, 401);
    assert.deepEqual(denied.body, { error: { code: 'unauthorized', message: denied.body.error.message, retryable: false } });
  }
  const other = await server.container.sandbox!.provisionGatewaySession(server.container.database.db);
  const cross = await request(server, 'GET', session(), { bearer: other.apiKey });
  assert.equal(cross.status, 404);
  assert.equal(cross.body.error.code, 'not_found');
});

test('PUT registers the callback; start goes SCAN_QR with a signed session.status callback', async () => {
  const bad = await call('PUT', '', { callback_url: 'not a url', callback_secret: CALLBACK_SECRET });
  assert.equal(bad.status, 400);
  assert.equal(bad.body.error.code, 'invalid_request');
  const put = await call('PUT', '', { callback_url: receiver.url, callback_secret: CALLBACK_SECRET });
  assert.equal(put.status, 200);
  assert.deepEqual(put.body, { session: gw.session, status: 'STOPPED' });
  const again = await call('PUT', '', { callback_url: receiver.url, callback_secret: CALLBACK_SECRET });
  assert.deepEqual(again.body, put.body, 'PUT is idempotent');

  const notYet = await call('GET', '/qr');
  assert.equal(notYet.status, 409);

  const started = await call('POST', '/start');
  assert.equal(started.status, 200);
  assert.deepEqual(started.body, { session: gw.session, status: 'SCAN_QR' });
  const [callback] = events(await receiver.waitFor((r) => events(r, 'session.status').length >= 1), 'session.status');
  assertSigned(callback!);
  assert.deepEqual(callback!.json.payload, { status: 'SCAN_QR' });
});

test('the QR stays until it lapses, then a new one is issued; a lapsed QR cannot be scanned; scanning pairs the session', async () => {
  const first = await call('GET', '/qr');
  assert.equal(first.status, 200);
  assert.equal(typeof first.body.qr, 'string');
  const lifetime = Date.parse(first.body.expires_at) - clock.now().getTime();
  assert.ok(lifetime > 55_000 && lifetime <= 60_000, `QR lives 60 s (got ${lifetime} ms)`);
  const same = await call('GET', '/qr');
  assert.equal(same.body.qr, first.body.qr);

  clock.advance(61_000);
  const lapsed = await request(server, 'POST', '/sandbox/gateway/scan', { body: { qr: first.body.qr } });
  assert.equal(lapsed.status, 410);
  assert.equal(lapsed.body.error.code, 'qr_expired');
  const second = await call('GET', '/qr');
  assert.equal(second.status, 200);
  assert.notEqual(second.body.qr, first.body.qr);
  assert.ok(Date.parse(second.body.expires_at) > Date.parse(first.body.expires_at));
  const replaced = await request(server, 'POST', '/sandbox/gateway/scan', { body: { qr: first.body.qr } });
  assert.equal(replaced.status, 404);

  const scanned = await request(server, 'POST', '/sandbox/gateway/scan', { body: { qr: second.body.qr, phone: '+15550107777' } });
  assert.equal(scanned.status, 200, scanned.text);
  assert.equal(scanned.body.status, 'WORKING');
  const described = await call('GET', '');
  assert.deepEqual(described.body, {
    session: gw.session,
    status: 'WORKING',
    me: { id: '15550107777@c.us', phone: '15550107777' },
    settings: {},
    presence: 'unavailable',
  });
  const reused = await request(server, 'POST', '/sandbox/gateway/scan', { body: { qr: second.body.qr } });
  assert.equal(reused.status, 404, 'a QR pairs once');

  const working = events(
    await receiver.waitFor((r) => events(r, 'session.status', (p) => p.status === 'WORKING').length >= 1),
    'session.status',
    (p) => p.status === 'WORKING',
  );
  assertSigned(working[0]!);
  assert.deepEqual(working[0]!.json.payload, { status: 'WORKING', me: { id: '15550107777@c.us', phone: '15550107777' } });
  const noQr = await call('GET', '/qr');
  assert.equal(noQr.status, 409);
});

test('a send with an idempotency key twice answers the same id and sends one message; sent, delivered, read follow, signed', async () => {
  const body = { to: '15551234567', type: 'text', content: { body: 'hello from the gateway' }, idempotency_key: 'parley-msg-1' };
  const first = await sendMessage(body);
  assert.equal(first.status, 201, first.text);
  assert.equal(typeof first.body.id, 'string');
  const second = await sendMessage(body);
  assert.equal(second.status, 200);
  assert.deepEqual(second.body, first.body);
  const rows = await queryRows<{ n: number }>(
    server.container.database.db,
    sql`select count(*)::int as n from sandbox_messages where account_id = ${gw.session} and idempotency_key = 'parley-msg-1'`,
  );
  assert.equal(rows[0]!.n, 1);

  const id = first.body.id as string;
  const mine = (p: any) => p.id === id;
  await receiver.waitFor((r) => events(r, 'message.status', mine).length >= 3);
  await sandboxQuiet(server.container.database.db, id);
  const statuses = events(receiver.received, 'message.status', mine);
  assert.deepEqual(
    statuses.map((s) => s.json.payload.status),
    ['sent', 'delivered', 'read'],
    'one message, so one set of statuses',
  );
  for (const s of statuses) {
    assertSigned(s);
    assert.deepEqual(Object.keys(s.json).sort(), ['event', 'payload', 'session', 'timestamp']);
  }
  assert.equal(new Set(statuses.map((s) => s.headers['x-gateway-event-id'])).size, 3, 'each event has its own id');
});

test('a refused callback is retried with the same event id', async () => {
  receiver.refuseNext(1, (r) => r.json?.event === 'message.status');
  const res = await sendMessage({ to: '15551230042', type: 'text', content: { body: 'retry' }, idempotency_key: 'parley-msg-retry' });
  assert.equal(res.status, 201);
  const id = res.body.id as string;
  const [sent] = events(
    await receiver.waitFor((r) => events(r, 'message.status', (p) => p.id === id).length >= 1, 30_000),
    'message.status',
    (p) => p.id === id,
  );
  const [refused] = events(receiver.refused, 'message.status', (p) => p.id === id);
  assert.equal(refused!.json.payload.status, 'sent');
  assert.equal(sent!.json.payload.status, 'sent');
  assert.equal(sent!.headers['x-gateway-event-id'], refused!.headers['x-gateway-event-id']);
});

test('a send can be looked up by its idempotency key: the accepted one is found, a throttled or unknown key is 404', async () => {
  const sent = await sendMessage({ to: '15551239876', type: 'text', content: { body: 'look me up' }, idempotency_key: 'parley-lookup-1' });
  assert.equal(sent.status, 201, sent.text);
  const found = await call('GET', '/idempotency-keys/parley-lookup-1');
  assert.equal(found.status, 200, found.text);
  assert.equal(found.body.id, sent.body.id);
  assert.equal(found.body.idempotency_key, 'parley-lookup-1');
  assert.ok(!Number.isNaN(Date.parse(found.body.created_at)));
  const unknown = await call('GET', '/idempotency-keys/parley-never-sent');
  assert.equal(unknown.status, 404);
  assert.equal(unknown.body.error.code, 'not_found');
  const throttled = await sendMessage({
    to: '15557770429',
    type: 'text',
    content: { body: 'x' },
    idempotency_key: 'parley-lookup-throttled',
  });
  assert.equal(throttled.status, 429);
  assert.equal((await call('GET', '/idempotency-keys/parley-lookup-throttled')).status, 404, 'a refused send was not accepted');
  const other = await server.container.sandbox!.provisionGatewaySession(server.container.database.db);
  assert.equal(
    (await call('GET', '/idempotency-keys/parley-lookup-1', undefined, other)).status,
    404,
    "another session's keys are not its own",
  );
  assert.equal((await request(server, 'GET', session('/idempotency-keys/parley-lookup-1'), { bearer: 'gwk_wrong' })).status, 401);
});

test('recipient patterns: 0001 fails after acceptance, 0002 is refused, 0429 is rate limited once per idempotency key', async () => {
  const undeliverable = await sendMessage({ to: '15557770001', type: 'text', content: { body: 'x' }, idempotency_key: 'k-0001' });
  assert.equal(undeliverable.status, 201);
  const refused = await sendMessage({ to: '15557770002', type: 'text', content: { body: 'x' }, idempotency_key: 'k-0002' });
  assert.equal(refused.status, 400);
  assert.deepEqual(refused.body.error.code, 'invalid_recipient');
  assert.equal(refused.body.error.retryable, false);

  const throttled = await sendMessage({ to: '15557770429', type: 'text', content: { body: 'x' }, idempotency_key: 'k-0429' });
  assert.equal(throttled.status, 429);
  assert.equal(throttled.body.error.code, 'rate_limited');
  assert.equal(throttled.body.error.retryable, true);
  const retried = await sendMessage({ to: '15557770429', type: 'text', content: { body: 'x' }, idempotency_key: 'k-0429' });
  assert.equal(retried.status, 201);
  const repeated = await sendMessage({ to: '15557770429', type: 'text', content: { body: 'x' }, idempotency_key: 'k-0429' });
  assert.equal(repeated.status, 200);
  assert.equal(repeated.body.id, retried.body.id);
  const fresh = await sendMessage({ to: '15557770429', type: 'text', content: { body: 'x' }, idempotency_key: 'k-0429-b' });
  assert.equal(fresh.status, 429, 'another message is throttled on its own first attempt');

  const failedId = undeliverable.body.id as string;
  const [failed] = events(
    await receiver.waitFor((r) => events(r, 'message.status', (p) => p.id === failedId).length >= 1),
    'message.status',
    (p) => p.id === failedId,
  );
  assert.deepEqual(failed!.json.payload, {
    id: failedId,
    status: 'failed',
    error: { code: 'undeliverable', message: 'message undeliverable' },
  });
  const retriedId = retried.body.id as string;
  await receiver.waitFor((r) => events(r, 'message.status', (p) => p.id === retriedId && p.status === 'read').length >= 1);
});

test('bodies the gateway cannot send are 400 invalid_request or unsupported_type', async () => {
  const cases: Array<[Record<string, unknown>, string]> = [
    [{ to: 'bob', type: 'text', content: { body: 'x' } }, 'invalid_request'],
    [{ to: '15551234567', type: 'fax', content: {} }, 'unsupported_type'],
    [{ to: '15551234567', type: 'text', content: { body: '' } }, 'invalid_request'],
    [{ to: '15551234567', type: 'text', content: 'hello' }, 'invalid_request'],
    [{ to: '15551234567', type: 'image', content: { caption: 'no media' } }, 'invalid_request'],
    [
      { to: '15551234567', type: 'buttons', content: { body: 'x', buttons: [1, 2, 3, 4].map((i) => ({ id: `${i}`, title: `${i}` })) } },
      'invalid_request',
    ],
    [{ to: '15551234567', type: 'template', content: { template_name: 'flat' } }, 'invalid_request'],
    [{ to: '15551234567', type: 'contact', content: { full_name: 'Ana', emails: [{ email: 'ana@example.com' }] } }, 'invalid_request'],
    [{ to: '15551234567', type: 'text', content: { body: 'x' }, idempotency_key: 7 }, 'invalid_request'],
  ];
  for (const [body, code] of cases) {
    const res = await sendMessage(body);
    assert.equal(res.status, 400, JSON.stringify(body));
    assert.equal(res.body.error.code, code, JSON.stringify(body));
    assert.equal(res.body.error.retryable, false);
  }
  const ok = await sendMessage({ to: '15551234567', type: 'buttons', content: { body: 'pick', buttons: [{ id: 'a', title: 'A' }] } });
  assert.equal(ok.status, 201);
  // A contact card's numbers may all be in `phones`.
  const card = await sendMessage({
    to: '15551234567',
    type: 'contact',
    content: { full_name: 'Ana', phones: [{ phone: '+5511912345678', type: 'WORK' }, { phone: '+5511912345679' }] },
  });
  assert.equal(card.status, 201, card.text);
});

test('contacts lookup tells who is on the chat app', async () => {
  const found = await call('GET', '/contacts/15551234567');
  assert.deepEqual(found.body, { exists: true, id: '15551234567@c.us', name: 'Sandbox 4567' });
  const missing = await call('GET', '/contacts/15557770002');
  assert.equal(missing.body.exists, false);
});

test('/sandbox/inbound delivers text and images as signed message callbacks; the image is fetchable', async () => {
  const channelId = await insertSandboxChannel(server, { platform: 'chatapp_unofficial', providerRef: gw.session });
  const text = await request(server, 'POST', '/sandbox/inbound', {
    key: server.apiKey,
    body: { channel_id: channelId, from: '15551230099', type: 'text', content: { body: 'hi gateway' }, name: 'Grace', reply_to: 'ABC' },
  });
  assert.equal(text.status, 202, text.text);
  const image = await request(server, 'POST', '/sandbox/inbound', {
    key: server.apiKey,
    body: { channel_id: channelId, from: '15551230099', type: 'image', content: { caption: 'pic' } },
  });
  assert.equal(image.status, 202);
  const ids = [text.body.provider_message_id, image.body.provider_message_id];
  const all = await receiver.waitFor((r) => ids.every((id) => events(r, 'message', (p) => p.id === id).length === 1));
  const [t] = events(all, 'message', (p) => p.id === ids[0]);
  assertSigned(t!);
  assert.deepEqual(t!.json.payload, {
    id: ids[0],
    from: '15551230099',
    // The sender's privacy id beside the number (the sandbox's: sandbox/rules.ts lidOf).
    from_lid: lidOf('15551230099'),
    from_name: 'Grace',
    type: 'text',
    content: { body: 'hi gateway' },
    reply_to: 'ABC',
  });
  const [i] = events(all, 'message', (p) => p.id === ids[1]);
  assert.equal(i!.json.payload.type, 'image');
  assert.equal(i!.json.payload.content.caption, 'pic');
  assert.equal(i!.json.payload.content.mime_type, 'image/png');
  const media = await call('GET', `/media/${encodeURIComponent(i!.json.payload.content.media_id)}`);
  assert.equal(media.status, 200);
  assert.equal(media.body.mime_type, 'image/png');
  const download = await fetch(media.body.url);
  assert.equal(download.status, 200);
  assert.equal(download.headers.get('content-type'), 'image/png');
  const unknown = await call('GET', '/media/media_nope');
  assert.equal(unknown.status, 404);
});

test('logout stops the session (with a callback); it then neither sends nor receives', async () => {
  const out = await call('POST', '/logout');
  assert.deepEqual(out.body, { session: gw.session, status: 'STOPPED' });
  await receiver.waitFor((r) => events(r, 'session.status', (p) => p.status === 'STOPPED').length >= 1);
  const send = await sendMessage({ to: '15551234567', type: 'text', content: { body: 'x' }, idempotency_key: 'after-logout' });
  assert.equal(send.status, 409);
  assert.equal(send.body.error.code, 'session_not_working');
  const known = await sendMessage({
    to: '15551234567',
    type: 'text',
    content: { body: 'hello from the gateway' },
    idempotency_key: 'parley-msg-1',
  });
  assert.equal(known.status, 200, 'an already-sent key still answers its id');
  const [channel] = await queryRows<{ id: string }>(
    server.container.database.db,
    sql`select id from channels where provider_ref = ${gw.session}`,
  );
  const inbound = await request(server, 'POST', '/sandbox/inbound', {
    key: server.apiKey,
    body: { channel_id: channel!.id, from: '15551230099', type: 'text', content: { body: 'x' } },
  });
  assert.equal(inbound.status, 409);
  const described = await call('GET', '');
  assert.deepEqual(described.body, { session: gw.session, status: 'STOPPED', me: null, settings: {}, presence: 'unavailable' });
});

test("a body with text that cannot be stored is a 400 in the gateway's error shape, not a failure", async () => {
  for (const body of [{ qr: '\u0000' }, { qr: 'abc\uD800' }, { ['q\u0000r']: 'x' }]) {
    const res = await request(server, 'POST', '/sandbox/gateway/scan', { body });
    assert.equal(res.status, 400, res.text);
    assert.equal(res.body.error.code, 'invalid_request');
    assert.equal(res.body.error.retryable, false);
  }
});

test('a session report delivered late (its first delivery refused) keeps the time the session changed', async () => {
  const other = await server.container.sandbox!.provisionGatewaySession(server.container.database.db);
  const put = await call('PUT', '', { callback_url: receiver.url, callback_secret: CALLBACK_SECRET }, other);
  assert.equal(put.status, 200);
  const mine = (r: Received) => r.json?.event === 'session.status' && r.json.session === other.session;
  receiver.refuseNext(1, mine);
  const started = await call('POST', '/start', undefined, other);
  assert.equal(started.status, 200);
  await receiver.waitFor(() => receiver.refused.some(mine));
  const changedAt = receiver.refused.find(mine)!.json.timestamp as string;
  // The retry goes out an hour later by the server's clock: a gateway stamps the change, not the delivery.
  clock.advance(3_600_000);
  const delivered = (await receiver.waitFor((r) => r.some(mine), 30_000)).filter(mine);
  assert.equal(delivered[0]!.json.payload.status, 'SCAN_QR');
  assert.equal(delivered[0]!.json.timestamp, changedAt);
  assert.ok(Date.parse(changedAt) < clock.now().getTime() - 3_000_000);
});
