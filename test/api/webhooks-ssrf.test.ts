/**
 * SSRF: without ALLOW_PRIVATE_NETWORK_TARGETS, endpoint URLs must be https and public, on create and
 * update, whether the sandbox is on or not (it never widens what webhooks may reach); and the check
 * is made again when delivering, so an endpoint whose address became private (DNS rebinding, or a row
 * that got there any other way) is refused then too, and nothing of any answer is kept.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { webhookEndpoints } from '../../src/db/schema.ts';
import { recordEvent } from '../../src/domain/events/outbox.ts';
import { generateSecret } from '../../src/domain/webhooks/signing.ts';
import { uuidv7 } from '../../src/lib/ids.ts';
import { request, startTestServer, type TestServer } from '../harness.ts';
import { eventually } from '../eventually.ts';
import { startReceiver, type Receiver } from '../webhook-receiver.ts';

const BASE = '/v1/settings/developer/webhooks';
let server: TestServer;
let receiver: Receiver;
before(async () => {
  server = await startTestServer({
    worker: true,
    env: { PROVIDER_SANDBOX: 'false', ALLOW_PRIVATE_NETWORK_TARGETS: 'false', WEBHOOK_POLL_INTERVAL_MS: '50' },
  });
  receiver = await startReceiver();
});
after(async () => {
  await server.close();
  await receiver.close();
});

test('create and update refuse plain http, private, loopback and link-local targets', async () => {
  const port = new URL(receiver.url).port;
  const refused: Array<[string, RegExp]> = [
    [receiver.url, /https/],
    [`https://127.0.0.1:${port}/hook`, /private or loopback/],
    ['https://localhost/hook', /private or loopback/],
    ['https://10.1.2.3/hook', /private or loopback/],
    ['https://192.168.0.10/hook', /private or loopback/],
    ['https://169.254.169.254/latest/meta-data', /private or loopback/],
    ['https://[::1]/hook', /private or loopback/],
    ['https://[::ffff:127.0.0.1]/hook', /private or loopback/],
    ['https://user:secret@93.184.216.34/hook', /credentials/],
  ];
  for (const [url, reason] of refused) {
    const res = await request(server, 'POST', `${BASE}/endpoints`, { key: server.apiKey, body: { url } });
    assert.equal(res.status, 400, `${url}: ${res.text}`);
    assert.match(res.body.detail, reason, url);
    assert.equal(res.body.errors[0].pointer, '/url');
    // What would let a local receiver through is named; credentials in a URL are never let through.
    const named = /ALLOW_PRIVATE_NETWORK_TARGETS=true/;
    if (reason.source === 'credentials') assert.doesNotMatch(res.body.detail, named, url);
    else assert.match(res.body.errors[0].message, named, url);
  }
  // A public address is fine (an IP literal: no DNS needed here).
  const ok = await request(server, 'POST', `${BASE}/endpoints`, {
    key: server.apiKey,
    body: { url: 'https://93.184.216.34/hook', enabled: false },
  });
  assert.equal(ok.status, 201, ok.text);
  const patched = await request(server, 'PATCH', `${BASE}/endpoints/${ok.body.data.id}`, {
    key: server.apiKey,
    body: { url: `https://127.0.0.1:${port}/hook` },
  });
  assert.equal(patched.status, 400);
  assert.match(patched.body.detail, /private or loopback/);
});

test('delivery checks the address again: a private target is refused and the attempt says why', async () => {
  // As if the name had re-resolved to a private address since it was checked.
  const id = uuidv7();
  const port = new URL(receiver.url).port;
  await server.container.database.db.insert(webhookEndpoints).values({
    id,
    organizationId: server.organizationId,
    url: `https://127.0.0.1:${port}/hook`,
    secretSealed: server.container.sealer.seal(generateSecret()),
  });
  const eventId = await server.container.database.db.transaction((tx) =>
    recordEvent(tx, server.organizationId, 'conversation.updated', { conversation_id: 'c', status: 'open' }),
  );
  const delivery = await eventually('the refused attempt', async () => {
    const res = await request(server, 'GET', `${BASE}/deliveries?message_id=${eventId}&endpoint_id=${id}`, { key: server.apiKey });
    return res.body.data[0]?.attempts.length > 0 ? res.body.data[0] : undefined;
  });
  assert.equal(delivery.attempts[0].status_code, null);
  assert.match(delivery.attempts[0].error, /^refused: host 127\.0\.0\.1 resolves to a private or loopback address/);
  const test = await request(server, 'POST', `${BASE}/endpoints/${id}/test`, { key: server.apiKey, body: {} });
  assert.equal(test.body.data.succeeded, false);
  assert.match(test.body.data.attempt.error, /^refused: /);
  assert.equal(receiver.requests.length, 0, 'nothing reached the private address');
});

describe('with the sandbox on (the default) and no explicit allowance', () => {
  let sandboxed: TestServer;
  before(async () => {
    sandboxed = await startTestServer({ worker: true, env: { ALLOW_PRIVATE_NETWORK_TARGETS: 'false', WEBHOOK_POLL_INTERVAL_MS: '50' } });
    assert.equal(sandboxed.config.providerSandbox, true);
  });
  after(() => sandboxed.close());

  test('create refuses http, private, loopback and IPv4-embedding IPv6 targets: the sandbox widens nothing', async () => {
    const port = new URL(receiver.url).port;
    const refused: Array<[string, RegExp]> = [
      [receiver.url, /https/],
      ['http://169.254.169.254/latest/meta-data/iam/security-credentials/', /https/],
      ['https://169.254.169.254/latest/meta-data/iam/security-credentials/', /private or loopback/],
      [`https://127.0.0.2:${port}/hook`, /private or loopback/],
      [`https://[::127.0.0.1]:${port}/hook`, /private or loopback/],
      [`https://[::7f00:1]:${port}/hook`, /private or loopback/],
      [`https://[2002:7f00:1::1]:${port}/hook`, /private or loopback/],
      [`https://[::ffff:127.0.0.1]:${port}/hook`, /private or loopback/],
      [`https://[64:ff9b::a9fe:a9fe]/latest/meta-data`, /private or loopback/],
      // The sandbox's own routes are an exception for sandbox-bound channels only, never for webhooks.
      [`${sandboxed.baseUrl}/sandbox/inbound`, /https/],
    ];
    for (const [url, reason] of refused) {
      const res = await request(sandboxed, 'POST', `${BASE}/endpoints`, { key: sandboxed.apiKey, body: { url } });
      assert.equal(res.status, 400, `${url}: ${res.text}`);
      assert.match(res.body.detail, reason, url);
      assert.equal(res.body.errors[0].pointer, '/url');
    }
  });

  test('a test send to a private endpoint is refused before connecting; its delivery keeps no answer', async () => {
    // An endpoint stored under an earlier configuration (or any other way): checked again on every attempt.
    const id = uuidv7();
    await sandboxed.container.database.db.insert(webhookEndpoints).values({
      id,
      organizationId: sandboxed.organizationId,
      url: receiver.url,
      secretSealed: sandboxed.container.sealer.seal(generateSecret()),
    });
    const seen = receiver.requests.length;
    receiver.answer(() => ({ status: 200, body: '{"AccessKeyId":"internal"}' }));
    const res = await request(sandboxed, 'POST', `${BASE}/endpoints/${id}/test`, { key: sandboxed.apiKey, body: {} });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.data.succeeded, false);
    assert.equal(res.body.data.attempt.status_code, null);
    assert.equal(res.body.data.attempt.response_body, null);
    assert.match(res.body.data.attempt.error, /^refused: must be an https URL/);
    const deliveries = await request(sandboxed, 'GET', `${BASE}/deliveries?endpoint_id=${id}`, { key: sandboxed.apiKey });
    assert.equal(deliveries.status, 200, deliveries.text);
    assert.equal(deliveries.body.data[0].attempts[0].response_body, null);
    assert.equal(JSON.stringify(deliveries.body).includes('internal'), false);
    assert.equal(receiver.requests.length, seen, 'nothing reached the private address');
  });
});
