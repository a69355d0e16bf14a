/**
 * The log audit, driven on purpose: at LOG_LEVEL=trace, every flow that handles a secret or a
 * personal value (login, API keys, webhook secrets, channel credentials, contacts, messages, and
 * the failures that once logged SQL with its parameters) runs, and the logs are searched for each
 * value. Every other test file gets the same search when its server closes (test/harness.ts).
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { auditLogs, freePort, loginCookie, OWNER_EMAIL, request, startTestServer, type TestServer } from '../harness.ts';
import { customerWrites, pairedGatewayChannel } from '../messages-helpers.ts';

let server: TestServer;
let closedPort: number;
before(async () => {
  closedPort = await freePort();
  server = await startTestServer({
    worker: true,
    env: {
      LOG_LEVEL: 'trace',
      ALLOW_PRIVATE_NETWORK_TARGETS: 'true',
      OFFICIAL_API_BASE: `http://127.0.0.1:${closedPort}`,
      SANDBOX_STATUS_DELAY_MS: '0',
    },
  });
});
after(() => server?.close());

test('no secret, password, cookie, token or personal value the flows handled appears in the trace-level logs', async () => {
  const key = server.apiKey;
  const loopback = `http://127.0.0.1:${closedPort}`;

  // Sessions and passwords.
  const wrongPassword = 'Wrong-Password-For-The-Audit-1';
  assert.equal((await request(server, 'POST', '/v1/auth/login', { body: { email: OWNER_EMAIL, password: wrongPassword } })).status, 401);
  const cookie = await loginCookie(server);
  assert.equal((await request(server, 'GET', '/v1/auth/session', { cookie })).status, 200);

  // API keys: created, used, a wrong one tried, a bearer token tried.
  const created = await request(server, 'POST', '/v1/api-keys', {
    cookie,
    body: { name: 'audit key', permissions: ['contacts:read', 'contacts:write'] },
  });
  assert.equal(created.status, 201, created.text);
  const secret = created.body.data.secret as string;
  assert.equal((await request(server, 'GET', '/v1/contacts', { key: secret })).status, 200);
  assert.equal((await request(server, 'GET', '/v1/contacts', { key: `${secret.slice(0, -4)}XXXX` })).status, 401);
  assert.equal((await request(server, 'GET', '/v1/channels', { bearer: 'Audit-Bearer-Token-That-Is-Not-Valid' })).status, 401);

  // Webhook secrets: created, rotated, revealed; an endpoint that fails (closed port) is tested.
  const endpoint = await request(server, 'POST', '/v1/settings/developer/webhooks/endpoints', {
    key,
    body: { url: `${loopback}/hook`, description: 'audit' },
  });
  assert.equal(endpoint.status, 201, endpoint.text);
  const endpointId = endpoint.body.data.id as string;
  const rotated = await request(server, 'POST', `/v1/settings/developer/webhooks/endpoints/${endpointId}/rotate-secret`, { key });
  assert.equal(rotated.status, 200, rotated.text);
  const revealed = await request(server, 'GET', `/v1/settings/developer/webhooks/endpoints/${endpointId}/secret`, { key });
  assert.equal(revealed.status, 200, revealed.text);
  await request(server, 'POST', `/v1/settings/developer/webhooks/endpoints/${endpointId}/test`, { key });

  // Channel credentials, for a provider that cannot be reached (a closed loopback port).
  const official = await request(server, 'POST', '/v1/channels', {
    key,
    body: {
      platform: 'chatapp_official',
      name: 'Audit official',
      settings: { phone_number_id: '109876543210987', waba_id: '209876543210987', api_base: loopback },
      credentials: {
        access_token: 'EAAG-Audit-Access-Token-1234567890',
        app_secret: 'audit-app-secret-0987654321',
        verify_token: 'audit-verify-token-5555',
      },
    },
  });
  assert.ok(official.status < 500, official.text);
  if (official.status === 201) await request(server, 'POST', `/v1/channels/${official.body.data.id}/connect`, { key });
  const gatewayCreds = await request(server, 'POST', '/v1/channels', {
    key,
    body: {
      platform: 'chatapp_unofficial',
      name: 'Audit gateway',
      settings: { gateway_base: loopback },
      credentials: { api_key: 'gw-audit-api-key-abcdef123456' },
    },
  });
  assert.ok(gatewayCreds.status < 500, gatewayCreds.text);
  if (gatewayCreds.status === 201)
    await request(server, 'PATCH', `/v1/channels/${gatewayCreds.body.data.id}`, {
      key,
      body: { credentials: { api_key: 'gw-audit-api-key-rotated-654321' } },
    });

  // Contacts: names, emails, phones, notes; found by phone, searched by name.
  const phone = '+4915112398765';
  const contact = await request(server, 'POST', '/v1/contacts', {
    key,
    body: {
      phone_number: phone,
      name: 'Auditia Privatperson',
      email: 'auditia.private@example.org',
      external_source: 'crm',
      external_id: 'audit-external-778899',
    },
  });
  assert.equal(contact.status, 201, contact.text);
  const contactId = contact.body.data.id as string;
  await request(server, 'POST', `/v1/contacts/${contactId}/notes`, { key, body: { body: 'Prefers calls after six; allergic to peanuts' } });
  await request(server, 'POST', `/v1/contacts/${contactId}/suppressions`, {
    key,
    body: { channel: 'all', reason: 'asked never to be contacted again' },
  });
  assert.equal((await request(server, 'GET', `/v1/contacts/phone/${encodeURIComponent(phone)}`, { key })).status, 200);
  assert.equal((await request(server, 'GET', `/v1/contacts?search=${encodeURIComponent('Auditia Privatperson')}`, { key })).status, 200);
  await request(server, 'POST', '/v1/contacts/lookup', {
    key,
    body: { identifiers: [{ type: 'email', value: 'auditia.private@example.org' }] },
  });

  // Messages out and in, with their content.
  const gateway = await pairedGatewayChannel(server, 'Audit paired');
  const customer = '+4915112391234';
  server.registerSensitive('the customer phone', customer);
  await customerWrites(server, gateway.id, customer, 'text', { body: 'My card number is 4111 1111 1111 1111' });
  server.registerSensitive('an inbound message body', 'My card number is 4111 1111 1111 1111');
  await request(server, 'POST', '/v1/messages', {
    key,
    body: { channel_id: gateway.id, to: customer, type: 'text', content: { body: 'Your one-time code is 918273' } },
  });
  await request(server, 'GET', `/v1/messages?to=${encodeURIComponent(customer)}`, { key });

  // Failures that once logged the SQL with its parameters (names, emails, phones, search terms).
  await request(server, 'POST', '/v1/contacts', {
    key,
    body: { phone_number: '+4915112390001', name: 'Nul\u0000Byte Person', email: 'nul.byte@example.org' },
  });
  await request(server, 'PATCH', `/v1/contacts/${contactId}`, { key, body: { name: 'Lone\ud800Surrogate Person' } });
  await request(server, 'GET', `/v1/contacts?search=${encodeURIComponent('Searched\u0000Person')}`, { key });
  server.registerSensitive('a search term', 'Searched\u0000Person');
  await request(server, 'POST', `/v1/contacts/${contactId}/notes`, { key, body: { body: 'Note with a NUL \u0000 about the diagnosis' } });

  // The audit searches what these logs really hold: a value known to be logged is found.
  const canary = 'log-audit-canary-4242';
  await request(server, 'GET', '/v1/health', { headers: { 'x-request-id': canary } });
  assert.ok(auditLogs(server.logs, new Map([[canary, 'canary']])).length === 1, 'the audit finds a value that is in the logs');
  // A PIN of digits is found where it stands alone, not among a response time's decimals.
  const pinLines = ['{"msg":"request completed","ms":12.4567891}', '{"body":{"pin":"456789"}}'];
  assert.deepEqual(auditLogs(pinLines.slice(0, 1), new Map([['456789', 'a PIN']])), [], 'digits inside a longer number are not the PIN');
  assert.equal(auditLogs(pinLines, new Map([['456789', 'a PIN']])).length, 1, 'the PIN standing alone is found');
  assert.ok(server.logs.length > 50, `trace logging wrote ${server.logs.length} lines`);

  const registered = [...server.sensitive.keys()];
  for (const value of [
    secret,
    wrongPassword,
    cookie.split('=')[1]!,
    'auditia.private@example.org',
    phone,
    'EAAG-Audit-Access-Token-1234567890',
    rotated.body.data.secret,
    revealed.body.data.secret,
  ]) {
    assert.ok(registered.includes(value), `the audit looks for ${value.slice(0, 6)}…`);
  }
  const findings = auditLogs(server.logs, server.sensitive);
  assert.deepEqual(findings, [], 'sensitive values in the logs');
});
