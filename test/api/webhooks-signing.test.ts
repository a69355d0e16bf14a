/**
 * Signing: every delivery verifies with the standardwebhooks package acting as an independent
 * receiver; the body is the event's flat body, the type travels in headers; during a rotation both
 * secrets verify, after 24 hours only the new one.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { WebhookVerificationError } from 'standardwebhooks';
import { recordEvent } from '../../src/domain/events/outbox.ts';
import type { Clock } from '../../src/lib/clock.ts';
import { request, startTestServer, type TestServer } from '../harness.ts';
import { eventually } from '../eventually.ts';
import { startReceiver, verifyWith, type Receiver } from '../webhook-receiver.ts';

let offsetMs = 0;
const clock: Clock = { now: () => new Date(Date.now() + offsetMs) };
let server: TestServer;
let receiver: Receiver;
before(async () => {
  server = await startTestServer({ worker: true, clock, env: { WEBHOOK_POLL_INTERVAL_MS: '50' } });
  receiver = await startReceiver();
});
after(async () => {
  await server.close();
  await receiver.close();
});

const BASE = '/v1/settings/developer/webhooks';

async function createEndpoint(body: Record<string, unknown>) {
  const res = await request(server, 'POST', `${BASE}/endpoints`, { key: server.apiKey, body });
  assert.equal(res.status, 201, res.text);
  return res.body.data as { id: string; secret: string };
}

async function emit(type: 'channel.status_update', body: Record<string, unknown>): Promise<string> {
  return server.container.database.db.transaction((tx) => recordEvent(tx, server.organizationId, type, body as never));
}

test('a delivery is the flat event body, signed by the Standard Webhooks scheme, with aliases', async () => {
  const endpoint = await createEndpoint({ url: `${receiver.url}?endpoint=1`, description: 'signing' });
  assert.match(endpoint.secret, /^whsec_[A-Za-z0-9+/]{32}$/, 'whsec_ + base64 of 24 bytes');
  assert.equal(Buffer.from(endpoint.secret.slice(6), 'base64').length, 24);
  const body = {
    channel_id: '0196b1f2-0a00-7000-8000-000000000001',
    status: 'connected',
    previous_status: 'pairing',
    reason: 'scan "ok" ✓',
    reason_code: null,
    organization_id: server.organizationId,
  };
  const eventId = await emit('channel.status_update', body);
  const received = await eventually('the delivery', () => receiver.requests.find((r) => r.headers['webhook-id'] === eventId));

  assert.equal(received.method, 'POST');
  assert.equal(received.headers['content-type'], 'application/json');
  assert.deepEqual(JSON.parse(received.body), body, 'the body is the flat event body, the type not repeated');
  assert.equal(received.headers['webhook-event-type'], 'channel.status_update');
  assert.equal(received.headers['x-parley-event-type'], 'channel.status_update');
  assert.equal(received.headers['x-parley-webhook-id'], eventId);
  assert.equal(received.headers['x-parley-webhook-timestamp'], received.headers['webhook-timestamp']);
  assert.equal(received.headers['x-parley-webhook-signature'], received.headers['webhook-signature']);
  const ts = Number(received.headers['webhook-timestamp']);
  assert.ok(Math.abs(ts - Date.now() / 1000) < 30, 'the timestamp is unix seconds, now');
  assert.match(String(received.headers['webhook-signature']), /^v1,[A-Za-z0-9+/]+=*$/, 'one signature outside a rotation');

  assert.deepEqual(verifyWith(endpoint.secret, received), body, 'standardwebhooks verifies it');
  // A tampered body, another secret, or a stale timestamp do not verify.
  assert.throws(
    () => verifyWith(endpoint.secret, { ...received, body: received.body.replace('connected', 'connectex') }),
    WebhookVerificationError,
  );
  assert.throws(() => verifyWith('whsec_' + Buffer.alloc(24, 7).toString('base64'), received), WebhookVerificationError);
  assert.throws(() => verifyWith(endpoint.secret, received, Date.now() + 10 * 60_000), WebhookVerificationError);

  // The revealed secret is the one that signs.
  const revealed = await request(server, 'GET', `${BASE}/endpoints/${endpoint.id}/secret`, { key: server.apiKey });
  assert.equal(revealed.status, 200);
  assert.equal(revealed.body.data.secret, endpoint.secret);
  assert.equal(revealed.body.data.previous_secret, null);
});

test('after rotate-secret both secrets sign for 24 hours, then only the new one', async () => {
  offsetMs = 0;
  const endpoint = await createEndpoint({ url: `${receiver.url}?endpoint=2`, event_types: ['channel.status_update'] });
  const mine = (id: string) => receiver.requests.find((r) => r.headers['webhook-id'] === id && r.path.endsWith('endpoint=2'));
  const rotated = await request(server, 'POST', `${BASE}/endpoints/${endpoint.id}/rotate-secret`, { key: server.apiKey });
  assert.equal(rotated.status, 200, rotated.text);
  const fresh = rotated.body.data.secret as string;
  assert.match(fresh, /^whsec_/);
  assert.notEqual(fresh, endpoint.secret);
  const expires = Date.parse(rotated.body.data.previous_secret_expires_at);
  assert.ok(Math.abs(expires - (Date.now() + 24 * 3_600_000)) < 60_000, 'the overlap is 24 hours');
  assert.equal(rotated.body.data.endpoint.previous_secret_expires_at, rotated.body.data.previous_secret_expires_at);

  const during = await emit('channel.status_update', {
    channel_id: 'c1',
    status: 'connected',
    previous_status: null,
    reason: null,
    reason_code: null,
    organization_id: server.organizationId,
  });
  const first = await eventually('the delivery during the overlap', () => mine(during));
  assert.equal(String(first.headers['webhook-signature']).split(' ').length, 2, 'two signatures, space-separated');
  assert.ok(verifyWith(fresh, first), 'the new secret verifies');
  assert.ok(verifyWith(endpoint.secret, first), 'the old secret still verifies');
  const revealed = await request(server, 'GET', `${BASE}/endpoints/${endpoint.id}/secret`, { key: server.apiKey });
  assert.equal(revealed.body.data.secret, fresh);
  assert.equal(revealed.body.data.previous_secret, endpoint.secret);

  // A test send signs the same way.
  const testSend = await request(server, 'POST', `${BASE}/endpoints/${endpoint.id}/test`, { key: server.apiKey, body: {} });
  assert.equal(testSend.status, 200, testSend.text);
  const tested = mine(testSend.body.data.message_id)!;
  assert.ok(verifyWith(endpoint.secret, tested) && verifyWith(fresh, tested));

  // 24 hours and a minute later (the receiver's clock moves too).
  offsetMs = 24 * 3_600_000 + 60_000;
  const later = await emit('channel.status_update', {
    channel_id: 'c1',
    status: 'disconnected',
    previous_status: 'connected',
    reason: null,
    reason_code: null,
    organization_id: server.organizationId,
  });
  const second = await eventually('the delivery after the overlap', () => mine(later));
  const now = Date.now() + offsetMs;
  assert.equal(String(second.headers['webhook-signature']).split(' ').length, 1, 'one signature again');
  assert.ok(verifyWith(fresh, second, now), 'the new secret verifies');
  assert.throws(() => verifyWith(endpoint.secret, second, now), WebhookVerificationError, 'the old secret no longer does');
  const settings = await request(server, 'GET', BASE, { key: server.apiKey });
  assert.equal(settings.body.data.endpoints.find((e: { id: string }) => e.id === endpoint.id).previous_secret_expires_at, null);
  const afterReveal = await request(server, 'GET', `${BASE}/endpoints/${endpoint.id}/secret`, { key: server.apiKey });
  assert.equal(afterReveal.body.data.previous_secret, null);
  offsetMs = 0;
});

test('secrets never reach the logs', () => {
  const all = server.logs.join('\n');
  assert.equal(/whsec_/.test(all), false);
});
