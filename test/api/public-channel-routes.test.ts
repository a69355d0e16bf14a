/**
 * Public per-channel routes (provider webhooks, the sandbox's inbound door) answer an unknown
 * channel id exactly as a real channel whose signature, verify token or sandbox binding fails, so
 * nobody can tell which channel ids exist.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { signBody } from '../../src/providers/signature.ts';
import { insertSandboxChannel } from '../sandbox/receiver.ts';
import { request, startTestServer, type ApiResponse, type TestServer } from '../harness.ts';

let server: TestServer;
before(async () => {
  server = await startTestServer();
});
after(() => server.close());

const UNKNOWN = '0195b3c0-0000-7000-8000-000000000000';

async function createChannel(body: Record<string, unknown>): Promise<{ id: string; settings: Record<string, unknown> }> {
  const res = await request(server, 'POST', '/v1/channels', { key: server.apiKey, body });
  assert.equal(res.status, 201, res.text);
  return res.body.data;
}

/** Status, content type and body, without what differs per request (its id). */
function answer(res: ApiResponse) {
  const body = res.body && typeof res.body === 'object' ? { ...res.body, request_id: undefined } : res.text;
  return { status: res.status, type: res.headers.get('content-type'), body };
}

function assertSameAnswer(real: ApiResponse, unknown: ApiResponse, what: string) {
  assert.notEqual(real.status, 404, `${what}: a real channel is not 404`);
  assert.deepEqual(answer(unknown), answer(real), `${what}: an unknown channel answers like a real one`);
}

test('official per-channel webhook: a bad signature on a real channel and any request on an unknown one answer alike', async () => {
  const channel = await createChannel({ platform: 'chatapp_official', name: 'Official' });
  const payload = JSON.stringify({ object: 'whatsapp_business_account', entry: [] });
  const post = (id: string) =>
    request(server, 'POST', `/v1/providers/chatapp_official/webhook/${id}`, {
      rawBody: payload,
      headers: { 'x-hub-signature-256': signBody('guess', payload) },
    });
  const real = await post(channel.id);
  assert.equal(real.status, 401);
  assertSameAnswer(real, await post(UNKNOWN), 'POST');
  assertSameAnswer(real, await post('not-a-uuid'), 'POST with a malformed id');

  const challenge = (id: string) =>
    request(server, 'GET', `/v1/providers/chatapp_official/webhook/${id}?hub.mode=subscribe&hub.verify_token=guess-guess&hub.challenge=42`);
  const realChallenge = await challenge(channel.id);
  assert.equal(realChallenge.status, 403);
  assertSameAnswer(realChallenge, await challenge(UNKNOWN), 'GET challenge');
});

test('gateway callback: a bad signature on a real channel and an unknown channel answer alike', async () => {
  const channel = await createChannel({ platform: 'chatapp_unofficial', name: 'Gateway', sandbox: true });
  const payload = JSON.stringify({
    event: 'session.status',
    session: channel.settings.session,
    timestamp: new Date().toISOString(),
    payload: { status: 'WORKING' },
  });
  const post = (id: string) =>
    request(server, 'POST', `/v1/providers/chatapp_unofficial/webhook/${id}`, {
      rawBody: payload,
      headers: { 'x-gateway-signature': signBody('guess', payload) },
    });
  const real = await post(channel.id);
  assert.equal(real.status, 401);
  assertSameAnswer(real, await post(UNKNOWN), 'POST');
  // Unsigned, too.
  const unsigned = (id: string) => request(server, 'POST', `/v1/providers/chatapp_unofficial/webhook/${id}`, { rawBody: payload });
  assertSameAnswer(await unsigned(channel.id), await unsigned(UNKNOWN), 'unsigned POST');
});

test('/sandbox/inbound: a real channel not bound to the sandbox and an unknown id answer alike', async () => {
  const unbound = await insertSandboxChannel(server, { platform: 'chatapp_official', providerRef: '999999999999998', sandbox: false });
  const inbound = (id: string) =>
    request(server, 'POST', '/sandbox/inbound', {
      key: server.apiKey,
      body: { channel_id: id, from: '15551230000', type: 'text', content: { body: 'x' } },
    });
  const real = await inbound(unbound);
  assert.equal(real.status, 404);
  assert.deepEqual(answer(await inbound(UNKNOWN)), answer(real));
});
