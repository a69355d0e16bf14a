/**
 * The service's own OAuth client (`parley-cli`, domain/oauth/first-party.ts): on a fresh installation
 * with nothing registered, a device signs in by the device flow with it and refreshes; it reaches no
 * more than its scopes; no organization's management routes see, change or delete it; a start
 * writes it back as this version has it, and leaves an unchanged row alone.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { eq } from 'drizzle-orm';
import { oauthClients } from '../../src/db/schema.ts';
import { CLI_CLIENT_ID, ensureFirstPartyClients, FIRST_PARTY_CLIENTS } from '../../src/domain/oauth/first-party.ts';
import { GRANT_TYPES } from '../../src/domain/oauth/vocabulary.ts';
import { loginCookie, request, startTestServer, type TestServer } from '../harness.ts';
import { deviceFlowTokens, startDeviceFlow } from '../oauth-client-fixture.ts';

let server: TestServer;
let cookie: string;

before(async () => {
  server = await startTestServer();
  cookie = await loginCookie(server);
});
after(() => server.close());

const rowOf = async () =>
  (await server.container.database.db.select().from(oauthClients).where(eq(oauthClients.clientId, CLI_CLIENT_ID)))[0]!;

test('a fresh installation has the CLI client: a device signs in with it, calls the API, and refreshes', async () => {
  const row = await rowOf();
  assert.equal(row.organizationId, null);
  assert.equal(row.type, 'public');
  assert.equal(row.secretHash, null);
  assert.deepEqual(row.grantTypes, [GRANT_TYPES.deviceCode, GRANT_TYPES.refreshToken]);

  const tokens = await deviceFlowTokens(server, { clientId: CLI_CLIENT_ID, cookie, organizationIds: [server.organizationId] });
  assert.equal(tokens.scope, FIRST_PARTY_CLIENTS[0]!.scopes.join(' '), 'no scope asked: every scope of the client');
  const channels = await request(server, 'GET', '/v1/channels', { headers: { authorization: `Bearer ${tokens.access_token}` } });
  assert.equal(channels.status, 200, channels.text);
  // Beyond its scopes: an API key listing is refused by name.
  const keys = await request(server, 'GET', '/v1/api-keys', { headers: { authorization: `Bearer ${tokens.access_token}` } });
  assert.equal(keys.status, 403, keys.text);

  const refreshed = await request(server, 'POST', '/v1/oauth/token', {
    rawBody: new URLSearchParams({
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token!,
      client_id: CLI_CLIENT_ID,
    }).toString(),
    contentType: 'application/x-www-form-urlencoded',
  });
  assert.equal(refreshed.status, 200, refreshed.text);
  server.registerSensitive('an access token', refreshed.body.access_token);
  server.registerSensitive('a refresh token', refreshed.body.refresh_token);
  assert.notEqual(refreshed.body.refresh_token, tokens.refresh_token, 'rotated');
});

test('a scope the CLI client is not registered for is refused at the start', async () => {
  const res = await request(server, 'POST', '/v1/oauth/device', { body: { client_id: CLI_CLIENT_ID, scope: 'api_keys:write' } });
  assert.equal(res.status, 400, res.text);
  assert.equal(res.body.error, 'invalid_scope');
  // A narrower one is fine.
  await startDeviceFlow(server, { client_id: CLI_CLIENT_ID, scope: 'channels:read' });
});

test("no organization's management routes list, read, change or delete the first-party client", async () => {
  const list = await request(server, 'GET', '/v1/oauth/clients', { key: server.apiKey });
  assert.equal(list.status, 200, list.text);
  assert.ok(!list.body.data.some((c: { client_id: string }) => c.client_id === CLI_CLIENT_ID));
  const path = `/v1/oauth/clients/${CLI_CLIENT_ID}`;
  assert.equal((await request(server, 'GET', path, { key: server.apiKey })).status, 404);
  assert.equal((await request(server, 'PATCH', path, { key: server.apiKey, body: { name: 'Mine now' } })).status, 404);
  assert.equal((await request(server, 'POST', `${path}/secret`, { key: server.apiKey })).status, 404);
  assert.equal((await request(server, 'DELETE', path, { key: server.apiKey })).status, 404);
  assert.equal((await rowOf()).name, 'Parley CLI');
});

test('a start writes the client back as this version has it, and leaves an unchanged row alone', async () => {
  const db = server.container.database.db;
  const before = await rowOf();
  await ensureFirstPartyClients(db, server.container.clock);
  assert.deepEqual(await rowOf(), before, 'unchanged: not written');

  await db
    .update(oauthClients)
    .set({ scopes: ['channels:read'], name: 'Old name' })
    .where(eq(oauthClients.id, before.id));
  await ensureFirstPartyClients(db, server.container.clock);
  const after = await rowOf();
  assert.equal(after.id, before.id, 'the same row (its grants stay)');
  assert.deepEqual(after.scopes, FIRST_PARTY_CLIENTS[0]!.scopes);
  assert.equal(after.name, 'Parley CLI');
});
