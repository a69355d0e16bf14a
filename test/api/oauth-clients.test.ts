/**
 * OAuth client registration over real HTTP: public and confidential clients (the secret shown once,
 * stored hashed), the redirect URI rules (exact, https or loopback http), grant types and scopes (never
 * beyond the registering credential), list/get/update/rotate/delete, deleting ends everything the
 * client had going, roles, another organization's clients, and bad input storing nothing.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { eq, sql } from 'drizzle-orm';
import * as oidc from 'openid-client';
import { queryRows } from '../../src/db/client.ts';
import { oauthClients, oauthTokens } from '../../src/db/schema.ts';
import { addMembership } from '../../src/domain/organizations/organizations.ts';
import { GRANT_TYPES } from '../../src/domain/oauth/vocabulary.ts';
import { findUserByEmail } from '../../src/domain/users/users.ts';
import { sha256Hex } from '../../src/lib/crypto.ts';
import { checkAuthCases } from '../auth-cases.ts';
import {
  createKeyWith,
  createOtherOrganization,
  loginCookie,
  OWNER_EMAIL,
  request,
  startTestServer,
  type ApiResponse,
  type TestServer,
} from '../harness.ts';
import { authorizeQuery, createGrant, type ClientFixture } from '../oauth-client-fixture.ts';

let server: TestServer;
let cookie: string;
let ownerId: string;

before(async () => {
  server = await startTestServer();
  cookie = await loginCookie(server);
  ownerId = (await findUserByEmail(server.container.database.db, OWNER_EMAIL))!.id;
});
after(() => server.close());

const CLIENT_ID = /^pcl_[A-Za-z0-9_-]{22}$/;
const CLIENT_SECRET = /^pcs_[A-Za-z0-9_-]{43}$/;

const publicBody = (changes: Record<string, unknown> = {}) => ({
  name: 'Parley CLI',
  type: 'public',
  redirect_uris: ['http://127.0.0.1:53682/callback'],
  grant_types: [GRANT_TYPES.authorizationCode, GRANT_TYPES.deviceCode, GRANT_TYPES.refreshToken],
  scopes: ['channels:read', 'messages:read'],
  ...changes,
});

async function register(
  body: Record<string, unknown> = publicBody(),
  as: { cookie?: string; key?: string } = { cookie },
): Promise<Record<string, any>> {
  const res = await request(server, 'POST', '/v1/oauth/clients', { ...as, body });
  assert.equal(res.status, 201, res.text);
  return res.body.data;
}

/** A registered client as the flow helpers take it, asking for the given scopes at the given redirect URI. */
function asFixture(
  client: Record<string, any>,
  redirectUri: string = client.redirect_uris[0],
  scopes: string[] = client.scopes,
): ClientFixture {
  return { id: '', clientId: client.client_id, name: client.name, redirectUris: [redirectUri], scopes: scopes as ClientFixture['scopes'] };
}

async function clientCount(): Promise<number> {
  const rows = await queryRows<{ n: number }>(server.container.database.db, sql`select count(*)::int as n from oauth_clients`);
  return rows[0]!.n;
}

async function storedRow(clientId: string) {
  const [row] = await server.container.database.db.select().from(oauthClients).where(eq(oauthClients.clientId, clientId));
  return row;
}

test('a public client: a client_id, no secret, listed and read back as registered', async () => {
  const client = await register();
  assert.match(client.client_id, CLIENT_ID);
  assert.equal(client.client_secret, null);
  assert.equal(client.type, 'public');
  assert.equal(client.name, 'Parley CLI');
  assert.deepEqual(client.redirect_uris, ['http://127.0.0.1:53682/callback']);
  assert.deepEqual(client.grant_types, [GRANT_TYPES.authorizationCode, GRANT_TYPES.deviceCode, GRANT_TYPES.refreshToken]);
  assert.deepEqual(client.scopes, ['channels:read', 'messages:read']);
  assert.deepEqual(client.created_by, { type: 'user', id: ownerId });
  assert.equal((await storedRow(client.client_id))!.secretHash, null);

  const got = await request(server, 'GET', `/v1/oauth/clients/${client.client_id}`, { key: server.apiKey });
  assert.equal(got.status, 200, got.text);
  const { client_secret: _secret, ...record } = client;
  assert.deepEqual(got.body.data, record);
  const list = await request(server, 'GET', '/v1/oauth/clients', { cookie });
  assert.equal(list.status, 200);
  assert.deepEqual(list.body.data[0], record, 'newest first');

  // The flows know it at once: the device endpoint issues codes for it.
  const device = await request(server, 'POST', '/v1/oauth/device', { body: { client_id: client.client_id, scope: 'channels:read' } });
  assert.equal(device.status, 200, device.text);
  server.registerSensitive('a device code', device.body.device_code);
});

test('a third-party client library (openid-client) starts the device flow with a client registered through the API', async () => {
  const client = await register(
    publicBody({ redirect_uris: [], grant_types: [GRANT_TYPES.deviceCode, GRANT_TYPES.refreshToken], scopes: ['channels:read'] }),
  );
  const config = new oidc.Configuration(
    { issuer: server.config.baseUrl, device_authorization_endpoint: `${server.config.baseUrl}/v1/oauth/device` },
    client.client_id,
    undefined,
    oidc.None(),
  );
  oidc.allowInsecureRequests(config);
  const started = await oidc.initiateDeviceAuthorization(config, { scope: 'channels:read' });
  server.registerSensitive('a device code', started.device_code);
  assert.equal(started.verification_uri, `${server.config.appUrl}/device`);
  const lookup = await request(server, 'POST', '/v1/oauth/device/lookup', { cookie, body: { user_code: started.user_code } });
  assert.equal(lookup.status, 200, lookup.text);
  assert.deepEqual(lookup.body.data.client, { client_id: client.client_id, name: 'Parley CLI' });
  await assert.rejects(
    oidc.initiateDeviceAuthorization(config, { scope: 'messages:read' }),
    (err: Error & { error?: string }) => err.error === 'invalid_scope',
  );
});

test('a confidential client: its secret is shown once, stored as SHA-256, never shown again', async () => {
  const client = await register(publicBody({ type: 'confidential', name: 'Shop backend' }), { key: server.apiKey });
  assert.match(client.client_secret, CLIENT_SECRET);
  assert.equal(client.created_by, null, 'an API key registered it');
  const row = (await storedRow(client.client_id))!;
  assert.equal(row.secretHash, sha256Hex(client.client_secret));
  assert.equal(JSON.stringify(row).includes(client.client_secret), false);
  const got = await request(server, 'GET', `/v1/oauth/clients/${client.client_id}`, { cookie });
  const list = await request(server, 'GET', '/v1/oauth/clients?limit=200', { cookie });
  for (const res of [got, list]) {
    assert.equal(res.text.includes(client.client_secret), false);
    assert.equal(res.text.includes('client_secret'), false);
  }
});

test('redirect URIs: https, or http on loopback (127.0.0.0/8, [::1], localhost), stored exactly', async () => {
  const accepted = [
    'https://app.example.com/oauth/callback?tenant=acme',
    'http://127.0.0.1:53682/callback',
    'http://127.45.6.7/cb',
    'http://[::1]:8080/cb',
    'http://localhost:3000/cb',
    'http://LOCALHOST/cb',
  ];
  const client = await register(publicBody({ redirect_uris: accepted }));
  assert.deepEqual(client.redirect_uris, accepted);
  // Exact: the authorize endpoint accepts each as registered.
  for (const uri of accepted) {
    const res = await request(server, 'GET', `/v1/oauth/authorize?${authorizeQuery(asFixture(client, uri, ['channels:read']))}`);
    assert.equal(res.status, 303, `${uri}: ${res.text}`);
    assert.match(res.headers.get('location') ?? '', /\/oauth\/authorize\?request=/);
  }

  const before = await clientCount();
  const refused: Array<[uri: string, problem: RegExp]> = [
    ['http://app.example.com/cb', /http is allowed only on a loopback address/],
    ['http://10.0.0.1/cb', /loopback/],
    ['http://[::2]/cb', /loopback/],
    ['http://127.0.0.1.example.com/cb', /loopback/],
    ['/callback', /absolute URI/],
    ['app.example.com/cb', /absolute URI/],
    ['https://app.example.com/cb#done', /fragment/],
    ['https://*.example.com/cb', /wildcard/],
    ['https://app.example.com/*', /wildcard/],
    ['https://user:pass@app.example.com/cb', /user name or password/],
    ['com.example.app:/oauth2redirect', /https/],
    ['javascript:alert(1)', /https/],
    ['ftp://127.0.0.1/cb', /https/],
    [`https://app.example.com/${'a'.repeat(2000)}`, /2000 characters/],
  ];
  for (const [uri, problem] of refused) {
    const res = await request(server, 'POST', '/v1/oauth/clients', {
      cookie,
      body: publicBody({ redirect_uris: ['https://ok.example.com/cb', uri] }),
    });
    assert.equal(res.status, 400, `${uri}: ${res.text}`);
    assert.match(res.headers.get('content-type') ?? '', /application\/problem\+json/);
    assert.deepEqual(
      res.body.errors.map((e: { pointer: string }) => e.pointer),
      ['/redirect_uris/1'],
      uri,
    );
    assert.equal(res.body.errors[0].location, 'body');
    assert.match(res.body.errors[0].message, problem, uri);
  }
  assert.equal(await clientCount(), before, 'nothing stored');
});

test('grant types: known ones; the code grant needs a redirect URI; the device grant does not; refresh alone is refused', async () => {
  const device = await register(publicBody({ redirect_uris: undefined, grant_types: [GRANT_TYPES.deviceCode, GRANT_TYPES.refreshToken] }));
  assert.deepEqual(device.redirect_uris, []);
  const before = await clientCount();
  const cases: Array<[label: string, changes: Record<string, unknown>, pointer: string, message: RegExp]> = [
    [
      'code grant without redirect URIs',
      { redirect_uris: [], grant_types: [GRANT_TYPES.authorizationCode] },
      '/redirect_uris',
      /at least one redirect URI/,
    ],
    ['unknown grant type', { grant_types: [GRANT_TYPES.deviceCode, 'client_credentials'] }, '/grant_types/1', /unknown grant type/],
    ['implicit', { grant_types: ['implicit'] }, '/grant_types/0', /unknown grant type/],
    ['refresh alone', { grant_types: [GRANT_TYPES.refreshToken] }, '/grant_types', /must include authorization_code or/],
    ['no grant type', { grant_types: [] }, '/grant_types', /.+/],
  ];
  for (const [label, changes, pointer, message] of cases) {
    const res = await request(server, 'POST', '/v1/oauth/clients', { cookie, body: publicBody(changes) });
    assert.equal(res.status, 400, `${label}: ${res.text}`);
    const error = res.body.errors.find((e: { pointer: string }) => e.pointer === pointer);
    assert.ok(error, `${label}: ${res.text}`);
    assert.match(error.message, message, label);
  }
  assert.equal(await clientCount(), before, 'nothing stored');
});

test('scopes are permission names, never beyond what the registering credential holds', async () => {
  const before = await clientCount();
  const unknown = await request(server, 'POST', '/v1/oauth/clients', {
    cookie,
    body: publicBody({ scopes: ['channels:read', 'messages:delete'] }),
  });
  assert.equal(unknown.status, 400, unknown.text);
  assert.equal(unknown.body.errors[0].pointer, '/scopes/1');
  assert.equal((await request(server, 'POST', '/v1/oauth/clients', { cookie, body: publicBody({ scopes: [] }) })).status, 400);

  const narrow = await createKeyWith(server, ['oauth_clients:write', 'oauth_clients:read', 'channels:read']);
  const beyond = await request(server, 'POST', '/v1/oauth/clients', {
    key: narrow,
    body: publicBody({ scopes: ['channels:read', 'messages:send'] }),
  });
  assert.equal(beyond.status, 403, beyond.text);
  assert.match(beyond.body.detail, /messages:send/);
  assert.doesNotMatch(beyond.body.detail, /channels:read/);
  assert.equal(await clientCount(), before, 'nothing stored');

  const within = await register(publicBody({ scopes: ['channels:read', 'channels:read'] }), { key: narrow });
  assert.deepEqual(within.scopes, ['channels:read'], 'repeats dropped');

  // Nor may it change, rotate or delete a client that reaches further than it does.
  const wide = await register(publicBody({ type: 'confidential', scopes: ['channels:read', 'messages:send'] }));
  for (const [method, path, body] of [
    ['PATCH', `/v1/oauth/clients/${wide.client_id}`, { name: 'taken over' }],
    ['POST', `/v1/oauth/clients/${wide.client_id}/secret`, undefined],
    ['DELETE', `/v1/oauth/clients/${wide.client_id}`, undefined],
  ] as const) {
    const res = await request(server, method, path, { key: narrow, body });
    assert.equal(res.status, 403, `${method} ${path}: ${res.text}`);
    assert.match(res.body.detail, /messages:send/);
  }
  assert.equal((await storedRow(wide.client_id))!.secretHash, sha256Hex(wide.client_secret), 'unchanged');
});

test('a member (no oauth_clients:write) may read clients but not register, change or delete them', async () => {
  const other = await createOtherOrganization(server, 'member');
  await addMembership(
    { db: server.container.database.db, clock: server.container.clock },
    { organizationId: server.organizationId, userId: other.userId, role: 'member' },
  );
  const memberCookie = await loginCookie(server, other.email, other.password);
  const headers = { 'x-organization-id': server.organizationId };
  const client = await register();
  const before = await clientCount();
  for (const [method, path, body] of [
    ['POST', '/v1/oauth/clients', publicBody()],
    ['PATCH', `/v1/oauth/clients/${client.client_id}`, { name: 'renamed' }],
    ['POST', `/v1/oauth/clients/${client.client_id}/secret`, undefined],
    ['DELETE', `/v1/oauth/clients/${client.client_id}`, undefined],
  ] as const) {
    const res = await request(server, method, path, { cookie: memberCookie, headers, body });
    assert.equal(res.status, 403, `${method} ${path}: ${res.text}`);
    assert.match(res.body.detail, /oauth_clients:write/);
  }
  assert.equal(await clientCount(), before);
  const read = await request(server, 'GET', `/v1/oauth/clients/${client.client_id}`, { cookie: memberCookie, headers });
  assert.equal(read.status, 200, read.text);
  assert.equal(read.body.data.name, 'Parley CLI');
});

test('update: each member changes alone, the result is checked whole, bad values change nothing', async () => {
  const client = await register();
  const patch = (body: unknown) => request(server, 'PATCH', `/v1/oauth/clients/${client.client_id}`, { cookie, body });
  const renamed = await patch({ name: '  Parley CLI 2  ' });
  assert.equal(renamed.status, 200, renamed.text);
  assert.equal(renamed.body.data.name, 'Parley CLI 2');
  assert.deepEqual(renamed.body.data.redirect_uris, client.redirect_uris);
  assert.ok(renamed.body.data.updated_at >= client.updated_at);

  const changed = await patch({
    redirect_uris: ['https://cli.example.com/done'],
    grant_types: [GRANT_TYPES.authorizationCode],
    scopes: ['messages:read'],
  });
  assert.equal(changed.status, 200, changed.text);
  assert.deepEqual(
    [changed.body.data.redirect_uris, changed.body.data.grant_types, changed.body.data.scopes],
    [['https://cli.example.com/done'], [GRANT_TYPES.authorizationCode], ['messages:read']],
  );
  // The old redirect URI no longer works; the new one does.
  const old = await request(
    server,
    'GET',
    `/v1/oauth/authorize?${authorizeQuery(asFixture(client, client.redirect_uris[0], ['messages:read']))}`,
  );
  assert.equal(old.status, 400, 'an unregistered redirect_uri gets the error page');
  const device = await request(server, 'POST', '/v1/oauth/device', { body: { client_id: client.client_id } });
  assert.equal(device.body.error, 'unauthorized_client', 'the device grant was taken away');

  const unchanged = await patch({});
  assert.equal(unchanged.status, 200);
  assert.deepEqual(unchanged.body.data, changed.body.data, 'an empty change changes nothing');

  const current = changed.body.data;
  const cases: Array<[label: string, body: unknown, pointer: string]> = [
    ['no redirect URI left for the code grant', { redirect_uris: [] }, '/redirect_uris'],
    ['an http redirect URI', { redirect_uris: ['http://cli.example.com/done'] }, '/redirect_uris/0'],
    ['an unknown grant type', { grant_types: ['password'] }, '/grant_types/0'],
    ['no scope', { scopes: [] }, '/scopes'],
    ['an unknown scope', { scopes: ['everything'] }, '/scopes/0'],
    ['an empty name', { name: '   ' }, '/name'],
    ['a long name', { name: 'n'.repeat(101) }, '/name'],
    ['a name that is not a string', { name: 5 }, '/name'],
    ['too many redirect URIs', { redirect_uris: Array.from({ length: 11 }, (_, i) => `https://cli.example.com/${i}`) }, '/redirect_uris'],
    ['a NUL in the name', { name: 'a\u0000b' }, '/name'],
  ];
  for (const [label, body, pointer] of cases) {
    const res = await patch(body);
    assert.equal(res.status, 400, `${label}: ${res.text}`);
    assert.ok(
      res.body.errors.some((e: { pointer: string }) => e.pointer === pointer),
      `${label}: ${res.text}`,
    );
  }
  assert.deepEqual((await request(server, 'GET', `/v1/oauth/clients/${client.client_id}`, { cookie })).body.data, current, 'unchanged');
});

test("rotating a confidential client's secret: the new one shown once, the old one gone; a public client has none", async () => {
  const client = await register(publicBody({ type: 'confidential' }));
  const rotated = await request(server, 'POST', `/v1/oauth/clients/${client.client_id}/secret`, { cookie });
  assert.equal(rotated.status, 200, rotated.text);
  assert.equal(rotated.body.data.client_id, client.client_id);
  assert.match(rotated.body.data.client_secret, CLIENT_SECRET);
  assert.notEqual(rotated.body.data.client_secret, client.client_secret);
  const row = (await storedRow(client.client_id))!;
  assert.equal(row.secretHash, sha256Hex(rotated.body.data.client_secret));
  assert.notEqual(row.secretHash, sha256Hex(client.client_secret), 'the old secret no longer matches');
  const got = await request(server, 'GET', `/v1/oauth/clients/${client.client_id}`, { cookie });
  assert.equal(got.text.includes(rotated.body.data.client_secret), false);

  const pub = await register();
  const refused = await request(server, 'POST', `/v1/oauth/clients/${pub.client_id}/secret`, { cookie });
  assert.equal(refused.status, 409, refused.text);
  assert.match(refused.body.detail, /public client has no secret/);
  assert.equal((await storedRow(pub.client_id))!.secretHash, null);
  assert.equal((await request(server, 'POST', '/v1/oauth/clients/pcl_unknown/secret', { cookie })).status, 404);
});

test('deleting a client revokes its tokens and grants and kills its authorization requests and device authorizations in flight', async () => {
  const client = await register();
  const row = (await storedRow(client.client_id))!;
  const grant = await createGrant(server, {
    client: { id: row.id, scopes: ['channels:read'] },
    userId: ownerId,
    organizationIds: [server.organizationId],
  });
  const started = await request(
    server,
    'GET',
    `/v1/oauth/authorize?${authorizeQuery(asFixture(client, client.redirect_uris[0], ['channels:read']))}`,
  );
  const requestId = new URL(started.headers.get('location')!).searchParams.get('request')!;
  assert.equal((await request(server, 'GET', `/v1/oauth/authorization-requests/${requestId}`, { cookie })).status, 200);
  const device = await request(server, 'POST', '/v1/oauth/device', { body: { client_id: client.client_id } });
  server.registerSensitive('a device code', device.body.device_code);
  assert.equal(
    (await request(server, 'POST', '/v1/oauth/device/lookup', { cookie, body: { user_code: device.body.user_code } })).status,
    200,
  );
  assert.equal(
    (await request(server, 'GET', '/v1/auth/authorizations', { cookie })).body.data.some((a: { id: string }) => a.id === grant.id),
    true,
  );

  const deleted = await request(server, 'DELETE', `/v1/oauth/clients/${client.client_id}`, { cookie });
  assert.equal(deleted.status, 204, deleted.text);

  assert.equal((await request(server, 'GET', `/v1/oauth/clients/${client.client_id}`, { cookie })).status, 404);
  assert.equal((await request(server, 'DELETE', `/v1/oauth/clients/${client.client_id}`, { cookie })).status, 404);
  const tokens = await server.container.database.db.select().from(oauthTokens).where(eq(oauthTokens.grantId, grant.id));
  assert.deepEqual(tokens, [], 'its tokens are gone');
  assert.equal(
    (await request(server, 'GET', '/v1/auth/authorizations', { cookie })).body.data.some((a: { id: string }) => a.id === grant.id),
    false,
  );
  const approve = await request(server, 'POST', `/v1/oauth/authorization-requests/${requestId}/approve`, {
    cookie,
    body: { organization_ids: [server.organizationId] },
  });
  assert.equal(approve.status, 404, approve.text);
  const approveDevice = await request(server, 'POST', '/v1/oauth/device/approve', {
    cookie,
    body: { user_code: device.body.user_code, organization_ids: [server.organizationId] },
  });
  assert.equal(approveDevice.status, 404, approveDevice.text);
  const again = await request(server, 'POST', '/v1/oauth/device', { body: { client_id: client.client_id } });
  assert.equal(again.status, 401);
  assert.equal(again.body.error, 'invalid_client');
});

test("another organization's client is not found by any route, and stays as it was", async () => {
  const other = await createOtherOrganization(server, 'isolated');
  const theirs = await register(publicBody({ type: 'confidential', name: 'Theirs' }), { key: other.apiKey });
  const mine = await register();
  for (const [method, path, body] of [
    ['GET', `/v1/oauth/clients/${theirs.client_id}`, undefined],
    ['PATCH', `/v1/oauth/clients/${theirs.client_id}`, { name: 'taken over' }],
    ['POST', `/v1/oauth/clients/${theirs.client_id}/secret`, undefined],
    ['DELETE', `/v1/oauth/clients/${theirs.client_id}`, undefined],
  ] as const) {
    for (const as of [{ key: server.apiKey }, { cookie }]) {
      const res = await request(server, method, path, { ...as, body });
      const unknown = await request(server, method, path.replace(theirs.client_id, 'pcl_AAAAAAAAAAAAAAAAAAAAAA'), { ...as, body });
      assert.equal(res.status, 404, `${method} ${path}: ${res.text}`);
      assert.equal(res.body.detail, 'OAuth client not found');
      assert.equal(unknown.body.detail, res.body.detail);
    }
  }
  const list = await request(server, 'GET', '/v1/oauth/clients?limit=200', { key: server.apiKey });
  assert.equal(list.text.includes(theirs.client_id), false);
  const theirList = await request(server, 'GET', '/v1/oauth/clients', { key: other.apiKey });
  assert.deepEqual(
    theirList.body.data.map((c: { client_id: string }) => c.client_id),
    [theirs.client_id],
  );
  assert.equal(theirList.text.includes(mine.client_id), false);
  const row = (await storedRow(theirs.client_id))!;
  assert.equal(row.name, 'Theirs');
  assert.equal(row.secretHash, sha256Hex(theirs.client_secret));
});

test('bad input on each route: the documented problem naming the field, and nothing stored', async () => {
  const before = await clientCount();
  const post = (options: Parameters<typeof request>[3]) => request(server, 'POST', '/v1/oauth/clients', { cookie, ...options });
  const cases: Array<[label: string, send: () => Promise<ApiResponse>, status: number, pointer?: string]> = [
    ['no body', () => post({}), 400],
    ['malformed JSON', () => post({ rawBody: '{"name":' }), 400],
    ['a JSON array', () => post({ rawBody: '[]' }), 400],
    ['missing name', () => post({ body: publicBody({ name: undefined }) }), 400, '/name'],
    ['missing type', () => post({ body: publicBody({ type: undefined }) }), 400, '/type'],
    ['unknown type', () => post({ body: publicBody({ type: 'secret' }) }), 400, '/type'],
    ['missing grant_types', () => post({ body: publicBody({ grant_types: undefined }) }), 400, '/grant_types'],
    ['missing scopes', () => post({ body: publicBody({ scopes: undefined }) }), 400, '/scopes'],
    ['scopes not an array', () => post({ body: publicBody({ scopes: 'channels:read' }) }), 400, '/scopes'],
    ['redirect_uris not strings', () => post({ body: publicBody({ redirect_uris: [42] }) }), 400, '/redirect_uris/0'],
    ['an empty redirect URI', () => post({ body: publicBody({ redirect_uris: [''] }) }), 400, '/redirect_uris/0'],
    [
      'too many redirect URIs',
      () => post({ body: publicBody({ redirect_uris: Array.from({ length: 11 }, (_, i) => `https://a.example.com/${i}`) }) }),
      400,
      '/redirect_uris',
    ],
    ['a long name', () => post({ body: publicBody({ name: 'x'.repeat(101) }) }), 400, '/name'],
    [
      'a NUL in a redirect URI',
      () => post({ body: publicBody({ redirect_uris: ['https://a.example.com/\u0000'] }) }),
      400,
      '/redirect_uris/0',
    ],
    ['a form body', () => post({ rawBody: 'name=x&type=public', contentType: 'application/x-www-form-urlencoded' }), 415],
    ['body too large', () => post({ body: publicBody({ name: 'x'.repeat(server.config.bodyLimitBytes) }) }), 413],
    ['a forged cursor', () => request(server, 'GET', '/v1/oauth/clients?cursor=bm90LWEtY3Vyc29y', { cookie }), 400, '/cursor'],
    ['limit 0', () => request(server, 'GET', '/v1/oauth/clients?limit=0', { cookie }), 400, '/limit'],
    ['a client_id too long', () => request(server, 'GET', `/v1/oauth/clients/${'p'.repeat(65)}`, { cookie }), 400, '/clientID'],
    ['PATCH without a body', () => request(server, 'PATCH', '/v1/oauth/clients/pcl_x', { cookie }), 400],
    [
      'PATCH with a bad grant list',
      () => request(server, 'PATCH', '/v1/oauth/clients/pcl_x', { cookie, body: { grant_types: 'device' } }),
      400,
      '/grant_types',
    ],
  ];
  for (const [label, send, status, pointer] of cases) {
    const res = await send();
    assert.equal(res.status, status, `${label}: ${res.text}`);
    assert.match(res.headers.get('content-type') ?? '', /application\/problem\+json/, label);
    if (pointer)
      assert.ok(
        res.body.errors?.some((e: { pointer: string }) => e.pointer === pointer),
        `${label}: ${res.text}`,
      );
  }
  assert.equal(await clientCount(), before, 'nothing stored');
});

test('pages: newest first, by cursor', async () => {
  const other = await createOtherOrganization(server, 'paged');
  const made: string[] = [];
  for (let i = 0; i < 3; i++) made.push((await register(publicBody({ name: `Paged ${i}` }), { key: other.apiKey })).client_id);
  const first = await request(server, 'GET', '/v1/oauth/clients?limit=2', { key: other.apiKey });
  assert.deepEqual(
    first.body.data.map((c: { client_id: string }) => c.client_id),
    [made[2], made[1]],
  );
  const second = await request(server, 'GET', `/v1/oauth/clients?limit=2&cursor=${first.body.meta.next_cursor}`, { key: other.apiKey });
  assert.deepEqual(
    second.body.data.map((c: { client_id: string }) => c.client_id),
    [made[0]],
  );
  assert.equal(second.body.meta.next_cursor, null);
});

test('the auth cases: no credential, unknown, revoked or foreign credentials, a missing permission', async () => {
  const client = await register();
  await checkAuthCases(server, [
    { method: 'POST', path: '/v1/oauth/clients', body: publicBody(), permission: 'oauth_clients:write' },
    { method: 'GET', path: '/v1/oauth/clients', permission: 'oauth_clients:read' },
    { method: 'GET', path: `/v1/oauth/clients/${client.client_id}`, permission: 'oauth_clients:read' },
    { method: 'PATCH', path: `/v1/oauth/clients/${client.client_id}`, body: { name: 'x' }, permission: 'oauth_clients:write' },
    { method: 'POST', path: `/v1/oauth/clients/${client.client_id}/secret`, permission: 'oauth_clients:write' },
    { method: 'DELETE', path: `/v1/oauth/clients/${client.client_id}`, permission: 'oauth_clients:write' },
  ]);
  assert.equal((await request(server, 'GET', `/v1/oauth/clients/${client.client_id}`, { cookie })).status, 200, 'still there');
});
