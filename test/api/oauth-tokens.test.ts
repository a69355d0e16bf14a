/**
 * The OAuth back half over real HTTP, driven by openid-client as an integrator would: discovery by
 * issuer, the device flow and the code flow with PKCE through the real front-half routes, the token
 * endpoint's grants and refusals, refresh rotation and reuse detection, bearer access on API routes
 * (scopes, the organization header, removed members), introspection and revocation.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { and, eq, sql } from 'drizzle-orm';
import * as oidc from 'openid-client';
import { queryRows } from '../../src/db/client.ts';
import { memberships, oauthGrants, oauthTokens } from '../../src/db/schema.ts';
import { revokeMemberOAuthAccess } from '../../src/domain/oauth/membership.ts';
import { purgeExpiredOAuthFlows } from '../../src/domain/oauth/purge.ts';
import { addMember, addMembership } from '../../src/domain/organizations/organizations.ts';
import { findUserByEmail } from '../../src/domain/users/users.ts';
import { PERMISSIONS } from '../../src/domain/permissions.ts';
import { sha256Hex } from '../../src/lib/crypto.ts';
import { eventually } from '../eventually.ts';
import {
  createOtherOrganization,
  loginCookie,
  movableClock,
  OWNER_EMAIL,
  OWNER_PASSWORD,
  request,
  startTestServer,
  type ApiResponse,
  type TestServer,
} from '../harness.ts';
import { createGrant, createOAuthClient, type ClientFixture } from '../oauth-client-fixture.ts';
import { inviteNewMember } from '../org-helpers.ts';

const clock = movableClock();
let server: TestServer;
let cookie: string;
let client: ClientFixture;
let second: Awaited<ReturnType<typeof createOtherOrganization>>;

before(async () => {
  // A one-second poll interval: openid-client waits it for real between polls.
  server = await startTestServer({ clock, env: { OAUTH_DEVICE_POLL_INTERVAL: '1s' } });
  cookie = await loginCookie(server);
  client = await createOAuthClient(server, { name: 'Parley CLI', scopes: ['channels:read', 'messages:read', 'messages:send'] });
  second = await createOtherOrganization(server, 'second');
  const owner = await findUserByEmail(server.container.database.db, OWNER_EMAIL);
  await addMembership(
    { db: server.container.database.db, clock },
    { organizationId: second.organizationId, userId: owner!.id, role: 'admin' },
  );
});
after(() => server.close());

type Tokens = { access_token: string; refresh_token?: string; expires_in?: number; scope?: string; token_type?: string };

function remember(tokens: Tokens): Tokens {
  server.registerSensitive('an access token', tokens.access_token);
  server.registerSensitive('a refresh token', tokens.refresh_token);
  return tokens;
}

/** openid-client configured by discovery from the issuer (BASE_URL), as an integrator would. */
async function discover(of: ClientFixture, auth: 'none' | 'basic' | 'post' = 'none'): Promise<oidc.Configuration> {
  const method = auth === 'none' ? oidc.None() : auth === 'basic' ? oidc.ClientSecretBasic(of.secret!) : oidc.ClientSecretPost(of.secret!);
  return oidc.discovery(new URL(server.config.baseUrl), of.clientId, undefined, method, {
    algorithm: 'oauth2',
    execute: [oidc.allowInsecureRequests],
  });
}

const form = (body: Record<string, string>, headers: Record<string, string> = {}) =>
  request(server, 'POST', '/v1/oauth/token', {
    rawBody: new URLSearchParams(body).toString(),
    contentType: 'application/x-www-form-urlencoded',
    headers,
  });

/** A code exchanged at the token endpoint by the fixture client, as approvedCode made it, with any parameter changed or (undefined) left out. */
function exchange(approved: { code: string; verifier: string }, changes: Record<string, string | undefined> = {}) {
  const params: Record<string, string | undefined> = {
    grant_type: 'authorization_code',
    code: approved.code,
    redirect_uri: client.redirectUris[0]!,
    code_verifier: approved.verifier,
    client_id: client.clientId,
    ...changes,
  };
  return form(Object.fromEntries(Object.entries(params).filter((entry): entry is [string, string] => entry[1] !== undefined)));
}

/** Starts a device flow for the client and returns the device's answer. */
async function startDevice(of: ClientFixture, scope?: string) {
  const res = await request(server, 'POST', '/v1/oauth/device', { body: { client_id: of.clientId, ...(scope ? { scope } : {}) } });
  assert.equal(res.status, 200, res.text);
  server.registerSensitive('a device code', res.body.device_code);
  return res.body as { device_code: string; user_code: string; interval: number };
}

const approveDevice = (userCode: string, organizationIds: string[], as = cookie) =>
  request(server, 'POST', '/v1/oauth/device/approve', { cookie: as, body: { user_code: userCode, organization_ids: organizationIds } });

/** Tokens by the device flow, approved for the organizations through the real routes. */
async function deviceTokens(of: ClientFixture, organizationIds: string[], options: { scope?: string; as?: string } = {}): Promise<Tokens> {
  const started = await startDevice(of, options.scope);
  assert.equal((await approveDevice(started.user_code, organizationIds, options.as)).status, 200);
  const res = await form({
    grant_type: 'urn:ietf:params:oauth:grant-type:device_code',
    device_code: started.device_code,
    client_id: of.clientId,
  });
  assert.equal(res.status, 200, res.text);
  return remember(res.body);
}

/** A code approved on the consent route for the client's first redirect URI, with its PKCE verifier and state. */
async function approvedCode(config: oidc.Configuration, of: ClientFixture, organizationIds = [server.organizationId]) {
  const verifier = oidc.randomPKCECodeVerifier();
  const state = oidc.randomState();
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: of.redirectUris[0]!,
    scope: of.scopes.join(' '),
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    state,
  });
  const started = await request(server, 'GET', url.pathname + url.search);
  assert.equal(started.status, 303, started.text);
  const requestId = new URL(started.headers.get('location')!).searchParams.get('request');
  const approved = await request(server, 'POST', `/v1/oauth/authorization-requests/${requestId}/approve`, {
    cookie,
    body: { organization_ids: organizationIds },
  });
  assert.equal(approved.status, 200, approved.text);
  const callback = new URL(approved.body.data.redirect_to);
  server.registerSensitive('an authorization code', callback.searchParams.get('code') ?? undefined);
  return { callback, verifier, state, code: callback.searchParams.get('code')! };
}

async function oauthFailure(promise: Promise<unknown>, error: string): Promise<void> {
  await assert.rejects(promise, (err: Error & { error?: string; code?: string }) => {
    assert.equal(err.error, error, `${err.code}: ${err.message}`);
    return true;
  });
}

const channels = (bearer: string, headers: Record<string, string> = {}) => request(server, 'GET', '/v1/channels', { bearer, headers });

async function tokenCount(): Promise<number> {
  const rows = await queryRows<{ n: number }>(server.container.database.db, sql`select count(*)::int as n from oauth_tokens`);
  return rows[0]!.n;
}

test('discovery by issuer gives the RFC 8414 metadata', async () => {
  const res = await request(server, 'GET', '/.well-known/oauth-authorization-server');
  assert.equal(res.status, 200, res.text);
  const base = server.config.baseUrl;
  assert.equal(res.body.issuer, base);
  assert.equal(res.body.token_endpoint, `${base}/v1/oauth/token`);
  assert.equal(res.body.authorization_endpoint, `${base}/v1/oauth/authorize`);
  assert.equal(res.body.device_authorization_endpoint, `${base}/v1/oauth/device`);
  assert.equal(res.body.introspection_endpoint, `${base}/v1/oauth/introspect`);
  assert.equal(res.body.revocation_endpoint, `${base}/v1/oauth/revoke`);
  assert.deepEqual(res.body.grant_types_supported, ['authorization_code', 'refresh_token', 'urn:ietf:params:oauth:grant-type:device_code']);
  assert.deepEqual(res.body.response_types_supported, ['code']);
  assert.deepEqual(res.body.code_challenge_methods_supported, ['S256']);
  assert.deepEqual(res.body.token_endpoint_auth_methods_supported, ['none', 'client_secret_basic', 'client_secret_post']);
  assert.deepEqual(res.body.scopes_supported, [...PERMISSIONS]);
  assert.equal(res.body.service_documentation, `${base}/v1/docs`);
  const config = await discover(client);
  assert.equal(config.serverMetadata().token_endpoint, `${base}/v1/oauth/token`);
});

test('device flow through openid-client: pending while undecided, then tokens once, then invalid_grant', async () => {
  const config = await discover(client);
  const started = await oidc.initiateDeviceAuthorization(config, { scope: 'channels:read messages:read' });
  server.registerSensitive('a device code', started.device_code);
  const polling = oidc.pollDeviceAuthorizationGrant(config, started);
  // The device polls (authorization_pending) until the person approves on the verification page.
  await eventually(
    'a first poll',
    async () =>
      (
        await queryRows<{ last_polled_at: Date | null }>(
          server.container.database.db,
          sql`select last_polled_at from oauth_device_authorizations where device_code_hash = ${sha256Hex(started.device_code)}`,
        )
      )[0]?.last_polled_at,
  );
  assert.equal((await approveDevice(started.user_code, [server.organizationId])).status, 200);
  const tokens = remember(await polling);
  assert.match(tokens.access_token, /^pla_[A-Za-z0-9_-]{43}$/);
  assert.match(tokens.refresh_token!, /^plr_[A-Za-z0-9_-]{43}$/);
  assert.equal(tokens.token_type, 'bearer');
  assert.equal(tokens.expires_in, 3600);
  assert.equal(tokens.scope, 'channels:read messages:read');
  assert.equal((await channels(tokens.access_token)).status, 200);
  // The device code worked once.
  const again = await form({
    grant_type: 'urn:ietf:params:oauth:grant-type:device_code',
    device_code: started.device_code,
    client_id: client.clientId,
  });
  assert.equal(again.status, 400);
  assert.equal(again.body.error, 'invalid_grant');
  assert.equal((await channels(tokens.access_token)).status, 200, 'a second poll revokes nothing');
});

test('device flow: denial is access_denied, expiry expired_token, polling too fast slow_down with a longer interval', async () => {
  const config = await discover(client);
  const denied = await oidc.initiateDeviceAuthorization(config, {});
  server.registerSensitive('a device code', denied.device_code);
  assert.equal((await request(server, 'POST', '/v1/oauth/device/deny', { cookie, body: { user_code: denied.user_code } })).status, 200);
  await oauthFailure(oidc.pollDeviceAuthorizationGrant(config, denied), 'access_denied');

  const poll = (deviceCode: string) =>
    form({ grant_type: 'urn:ietf:params:oauth:grant-type:device_code', device_code: deviceCode, client_id: client.clientId });
  const fast = await startDevice(client);
  const first = await poll(fast.device_code);
  assert.equal(first.status, 400);
  assert.equal(first.body.error, 'authorization_pending');
  assert.equal(first.headers.get('cache-control'), 'no-store');
  const second = await poll(fast.device_code);
  assert.equal(second.body.error, 'slow_down');
  assert.match(second.body.error_description, /6 s/);
  const [row] = await queryRows<{ interval_seconds: number }>(
    server.container.database.db,
    sql`select interval_seconds from oauth_device_authorizations where device_code_hash = ${sha256Hex(fast.device_code)}`,
  );
  assert.equal(row!.interval_seconds, 6);
  clock.advance(6_000);
  assert.equal((await poll(fast.device_code)).body.error, 'authorization_pending', 'polling at the new interval is fine');

  const expiring = await oidc.initiateDeviceAuthorization(config, {});
  server.registerSensitive('a device code', expiring.device_code);
  clock.advance(11 * 60_000);
  await oauthFailure(oidc.pollDeviceAuthorizationGrant(config, expiring), 'expired_token');
});

test('device code: two polls at once after approval issue the tokens once', async () => {
  const started = await startDevice(client);
  assert.equal((await approveDevice(started.user_code, [server.organizationId])).status, 200);
  const body = { grant_type: 'urn:ietf:params:oauth:grant-type:device_code', device_code: started.device_code, client_id: client.clientId };
  const results = await Promise.all(Array.from({ length: 6 }, () => form(body)));
  const ok = results.filter((r) => r.status === 200);
  assert.equal(ok.length, 1, results.map((r) => r.text).join('\n'));
  remember(ok[0]!.body);
  for (const r of results.filter((r) => r.status !== 200)) assert.equal(r.body.error, 'invalid_grant');
  const grants = await server.container.database.db
    .select()
    .from(oauthGrants)
    .where(eq(oauthGrants.id, (await tokenRow(ok[0]!.body.access_token)).grantId));
  assert.equal(grants.length, 1);
});

async function tokenRow(token: string) {
  const [row] = await server.container.database.db
    .select()
    .from(oauthTokens)
    .where(eq(oauthTokens.tokenHash, sha256Hex(token)));
  return row!;
}

test('code flow with PKCE through openid-client; a wrong verifier or redirect_uri is refused and spends the code; a reused code kills its tokens', async () => {
  const config = await discover(client);
  const good = await approvedCode(config, client);
  const tokens = remember(
    await oidc.authorizationCodeGrant(config, good.callback, { pkceCodeVerifier: good.verifier, expectedState: good.state }),
  );
  assert.equal(tokens.scope, client.scopes.join(' '));
  assert.ok(tokens.refresh_token);
  assert.equal((await channels(tokens.access_token)).status, 200);

  // The same code again: refused, and every token it produced is revoked.
  const replay = await exchange(good);
  assert.equal(replay.status, 400);
  assert.equal(replay.body.error, 'invalid_grant');
  assert.match(replay.body.error_description, /already used/);
  assert.equal((await channels(tokens.access_token)).status, 401);
  const refreshed = await form({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token!, client_id: client.clientId });
  assert.equal(refreshed.body.error, 'invalid_grant');

  // A wrong verifier, a wrong redirect_uri, a missing verifier: refused, nothing issued, and the code is
  // spent (a failed exchange consumes it), so the right verifier afterwards gets nothing.
  const before = await tokenCount();
  const wrongVerifier = await approvedCode(config, client);
  await oauthFailure(
    oidc.authorizationCodeGrant(config, wrongVerifier.callback, {
      pkceCodeVerifier: oidc.randomPKCECodeVerifier(),
      expectedState: wrongVerifier.state,
    }),
    'invalid_grant',
  );
  const wrongRedirect = await approvedCode(config, client);
  const redirectRefused = await exchange(wrongRedirect, { redirect_uri: 'http://127.0.0.1:53682/elsewhere' });
  assert.equal(redirectRefused.body.error, 'invalid_grant');
  assert.match(redirectRefused.body.error_description, /redirect_uri/);
  const noVerifier = await approvedCode(config, client);
  const verifierMissing = await exchange(noVerifier, { code_verifier: undefined });
  assert.equal(verifierMissing.body.error, 'invalid_grant');
  assert.match(verifierMissing.body.error_description, /code_verifier is missing/);
  for (const spent of [wrongVerifier, wrongRedirect, noVerifier]) {
    const again = await exchange(spent);
    assert.equal(again.status, 400, again.text);
    assert.equal(again.body.error, 'invalid_grant');
    assert.match(again.body.error_description, /already used/);
  }
  assert.equal(await tokenCount(), before);

  // Another client cannot redeem the code; an expired code is refused.
  const late = await approvedCode(config, client);
  const thief = await createOAuthClient(server);
  const stolen = await exchange(late, { client_id: thief.clientId });
  assert.equal(stolen.body.error, 'invalid_grant');
  assert.match(stolen.body.error_description, /unknown/);
  clock.advance(61_000);
  await oauthFailure(
    oidc.authorizationCodeGrant(config, late.callback, { pkceCodeVerifier: late.verifier, expectedState: late.state }),
    'invalid_grant',
  );
});

test('confidential clients authenticate by client_secret_basic or client_secret_post, exactly one', async () => {
  const confidential = await createOAuthClient(server, { type: 'confidential', name: 'Back office' });
  for (const method of ['basic', 'post'] as const) {
    const config = await discover(confidential, method);
    const code = await approvedCode(config, confidential);
    remember(await oidc.authorizationCodeGrant(config, code.callback, { pkceCodeVerifier: code.verifier, expectedState: code.state }));
  }
  const basic = (id: string, secret: string) =>
    `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;
  const body = { grant_type: 'refresh_token', refresh_token: 'plr_unknown' };
  const wrongBasic = await form(body, { authorization: basic(confidential.clientId, 'pcs_wrong') });
  assert.equal(wrongBasic.status, 401);
  assert.equal(wrongBasic.body.error, 'invalid_client');
  assert.match(wrongBasic.headers.get('www-authenticate') ?? '', /^Basic /);
  const wrongPost = await form({ ...body, client_id: confidential.clientId, client_secret: 'pcs_wrong' });
  assert.equal(wrongPost.status, 401);
  assert.equal(wrongPost.headers.get('www-authenticate'), null);
  const both = await form(
    { ...body, client_secret: confidential.secret! },
    { authorization: basic(confidential.clientId, confidential.secret!) },
  );
  assert.equal(both.status, 400);
  assert.equal(both.body.error, 'invalid_request');
  const noSecret = await form({ ...body, client_id: confidential.clientId });
  assert.equal(noSecret.status, 401);
  assert.equal(noSecret.body.error, 'invalid_client');
  const publicWithSecret = await form({ ...body, client_id: client.clientId, client_secret: 'pcs_whatever' });
  assert.equal(publicWithSecret.status, 401);
  const rightBasic = await form(body, { authorization: basic(confidential.clientId, confidential.secret!) });
  assert.equal(rightBasic.status, 400, 'authenticated: the grant itself is what fails');
  assert.equal(rightBasic.body.error, 'invalid_grant');
});

test('refresh: rotation, scope narrowing, sliding expiry, and a rotated token presented again revokes the grant', async () => {
  const config = await discover(client);
  const first = await deviceTokens(client, [server.organizationId]);
  clock.advance(60_000);
  const second = remember(await oidc.refreshTokenGrant(config, first.refresh_token!));
  assert.notEqual(second.refresh_token, first.refresh_token);
  const [oldRow, newRow] = [await tokenRow(first.refresh_token!), await tokenRow(second.refresh_token!)];
  assert.ok(oldRow.rotatedAt);
  assert.equal(newRow.expiresAt.getTime() - newRow.createdAt.getTime(), 30 * 86_400_000, 'a full refresh lifetime from now');
  assert.ok(newRow.expiresAt > oldRow.expiresAt, 'sliding');

  // Narrowing: the access token gets fewer scopes, the refresh token keeps them; widening is invalid_scope.
  const narrow = remember(await oidc.refreshTokenGrant(config, second.refresh_token!, { scope: 'messages:read' }));
  assert.equal(narrow.scope, 'messages:read');
  const narrowed = await channels(narrow.access_token);
  assert.equal(narrowed.status, 403);
  assert.match(narrowed.body.detail, /channels:read/);
  assert.equal(narrowed.body.permission, 'channels:read');
  assert.deepEqual((await tokenRow(narrow.refresh_token!)).scopes, client.scopes);
  await oauthFailure(oidc.refreshTokenGrant(config, narrow.refresh_token!, { scope: 'channels:write' }), 'invalid_scope');

  // The rotated (second) refresh token again: the whole grant dies, the newest tokens with it.
  await oauthFailure(oidc.refreshTokenGrant(config, second.refresh_token!), 'invalid_grant');
  assert.equal((await channels(narrow.access_token)).status, 401);
  assert.equal((await channels(first.access_token)).status, 401);
  await oauthFailure(oidc.refreshTokenGrant(config, narrow.refresh_token!), 'invalid_grant');

  // Expired refresh tokens are refused.
  const old = await deviceTokens(client, [server.organizationId]);
  clock.advance(31 * 86_400_000);
  await oauthFailure(oidc.refreshTokenGrant(config, old.refresh_token!), 'invalid_grant');
  assert.equal((await channels(old.access_token)).status, 401, 'expired access token');
  cookie = await loginCookie(server);
});

test('a client without the refresh grant gets no refresh token; one without a grant type is unauthorized_client', async () => {
  const noRefresh = await createOAuthClient(server, { grantTypes: ['urn:ietf:params:oauth:grant-type:device_code'] });
  const tokens = await deviceTokens(noRefresh, [server.organizationId]);
  assert.equal(tokens.refresh_token, undefined);
  const res = await form({
    grant_type: 'authorization_code',
    code: 'plc_x',
    redirect_uri: noRefresh.redirectUris[0]!,
    client_id: noRefresh.clientId,
  });
  assert.equal(res.status, 400);
  assert.equal(res.body.error, 'unauthorized_client');
});

test('bearer access: scopes, the organization header, and never interchangeable with API keys', async () => {
  const one = await deviceTokens(client, [server.organizationId], { scope: 'channels:read' });
  assert.equal((await channels(one.access_token)).status, 200);
  const missing = await request(server, 'GET', '/v1/messages', { bearer: one.access_token });
  assert.equal(missing.status, 403);
  assert.equal(missing.body.detail, 'the access token lacks scope messages:read');

  // An API key as a bearer, and a token as X-Api-Key: both 401.
  for (const res of [await channels(server.apiKey), await request(server, 'GET', '/v1/channels', { key: one.access_token })]) {
    assert.equal(res.status, 401);
    assert.equal(res.body.detail, 'invalid or missing API key');
  }

  // A token reaching two organizations needs X-Organization-Id naming one of them.
  const both = await deviceTokens(client, [server.organizationId, second.organizationId], { scope: 'channels:read' });
  const bare = await channels(both.access_token);
  assert.equal(bare.status, 400);
  assert.match(bare.body.detail, /X-Organization-Id/);
  assert.equal((await channels(both.access_token, { 'x-organization-id': second.organizationId })).status, 200);
  const third = await createOtherOrganization(server, 'third');
  const foreign = await channels(both.access_token, { 'x-organization-id': third.organizationId });
  assert.equal(foreign.status, 400);
  assert.match(foreign.body.detail, /does not reach organization/);
  const narrowForeign = await channels(one.access_token, { 'x-organization-id': second.organizationId });
  assert.equal(narrowForeign.status, 400);
});

test("a removed member's tokens stop working; a role change narrows them; a changed client narrows them", async () => {
  const db = server.container.database.db;
  const email = `member-${Date.now()}@example.com`;
  const userId = await addMember(
    { db, clock },
    { organizationId: server.organizationId, email, name: 'Member', password: OWNER_PASSWORD, role: 'admin' },
  );
  const memberCookie = await loginCookie(server, email, OWNER_PASSWORD);
  const writer = await createOAuthClient(server, { scopes: ['channels:read', 'api_keys:write', 'api_keys:read'] });
  const tokens = await deviceTokens(writer, [server.organizationId], { as: memberCookie });
  const newKey = () =>
    request(server, 'POST', '/v1/api-keys', { bearer: tokens.access_token, body: { name: 'by token', permissions: ['channels:read'] } });
  const created = await newKey();
  assert.equal(created.status, 201, created.text);
  server.registerSensitive('an API key', created.body.data?.secret ?? created.body.secret);

  // Demoted to member (members may not write API keys): the next requests lack the permission.
  await db
    .update(memberships)
    .set({ role: 'member' })
    .where(and(eq(memberships.userId, userId), eq(memberships.organizationId, server.organizationId)));
  await eventually('the demotion to reach the token', async () => (await newKey()).status === 403);
  assert.equal((await channels(tokens.access_token)).status, 200);

  // The client loses channels:read: the token does too.
  await db.execute(sql`update oauth_clients set scopes = array['api_keys:read'] where id = ${writer.id}`);
  await eventually('the client change to reach the token', async () => (await channels(tokens.access_token)).status === 403);

  // Removed from the organization: the token stops working, and so does its refresh.
  await db.transaction(async (tx) => {
    await tx.delete(memberships).where(and(eq(memberships.userId, userId), eq(memberships.organizationId, server.organizationId)));
    await revokeMemberOAuthAccess({ db: tx, clock }, { userId, organizationId: server.organizationId });
  });
  await eventually(
    'the removal to reach the token',
    async () => (await request(server, 'GET', '/v1/api-keys', { bearer: tokens.access_token })).status === 401,
  );
  const refreshed = await form({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token!, client_id: writer.clientId });
  assert.equal(refreshed.body.error, 'invalid_grant');
});

test('introspection: confidential clients see their own tokens, credentials with oauth:introspect those of their organization', async () => {
  const confidential = await createOAuthClient(server, { type: 'confidential', name: 'Resource server' });
  const config = await discover(confidential, 'basic');
  const code = await approvedCode(config, confidential);
  const tokens = remember(
    await oidc.authorizationCodeGrant(config, code.callback, { pkceCodeVerifier: code.verifier, expectedState: code.state }),
  );
  const seen = await oidc.tokenIntrospection(config, tokens.access_token);
  assert.equal(seen.active, true);
  assert.equal(seen.client_id, confidential.clientId);
  assert.equal(seen.scope, confidential.scopes.join(' '));
  assert.equal(seen.token_type, 'Bearer');
  const owner = await findUserByEmail(server.container.database.db, OWNER_EMAIL);
  assert.equal(seen.sub, owner!.id);
  assert.deepEqual(seen.organization_ids, [server.organizationId]);
  assert.equal((seen.exp as number) - (seen.iat as number), 3600);
  const refresh = await oidc.tokenIntrospection(config, tokens.refresh_token!);
  assert.equal(refresh.token_type, 'refresh_token');

  // Another client's token, an unknown one: exactly {active: false}.
  const others = await deviceTokens(client, [server.organizationId]);
  assert.deepEqual(await oidc.tokenIntrospection(config, others.access_token), { active: false });
  assert.deepEqual(await oidc.tokenIntrospection(config, 'pla_nothing'), { active: false });

  // An API key with oauth:introspect (JSON body), of the token's organization or not.
  const introspect = (token: string, options: { key?: string; bearer?: string; cookie?: string } = {}) =>
    request(server, 'POST', '/v1/oauth/introspect', { ...options, body: { token } });
  const byKey = await introspect(others.access_token, { key: server.apiKey });
  assert.equal(byKey.status, 200);
  assert.equal(byKey.body.active, true);
  assert.equal(byKey.body.client_id, client.clientId);
  assert.deepEqual((await introspect(others.access_token, { key: second.apiKey })).body, { active: false });
  assert.equal((await introspect(others.access_token, { cookie })).body.active, true);
  const unauthenticated = await introspect(others.access_token);
  assert.equal(unauthenticated.status, 401);
  assert.equal(unauthenticated.body.error, 'invalid_client');
  const noPermission = await introspect(others.access_token, { bearer: others.access_token });
  assert.equal(noPermission.status, 403);

  // Revoked or expired: inactive.
  await oidc.tokenRevocation(config, tokens.access_token);
  assert.deepEqual(await oidc.tokenIntrospection(config, tokens.access_token), { active: false });
});

test('revocation: the client or the holder revokes an access token alone, a refresh token with its grant; unknown tokens are fine', async () => {
  const config = await discover(client);
  const a = await deviceTokens(client, [server.organizationId]);
  const b = remember(await oidc.refreshTokenGrant(config, a.refresh_token!));
  await oidc.tokenRevocation(config, b.access_token, { token_type_hint: 'access_token' });
  assert.equal((await channels(b.access_token)).status, 401, 'the very next request');
  assert.equal((await channels(a.access_token)).status, 200, 'only that access token');
  // Another client cannot revoke it: 200, and the token still works.
  const other = await createOAuthClient(server);
  const foreign = await request(server, 'POST', '/v1/oauth/revoke', { body: { token: a.access_token, client_id: other.clientId } });
  assert.equal(foreign.status, 200);
  assert.equal((await channels(a.access_token)).status, 200);
  // The refresh token takes the grant with it.
  const revoked = await request(server, 'POST', '/v1/oauth/revoke', {
    rawBody: new URLSearchParams({ token: b.refresh_token!, client_id: client.clientId }).toString(),
    contentType: 'application/x-www-form-urlencoded',
  });
  assert.equal(revoked.status, 200, revoked.text);
  assert.equal((await channels(a.access_token)).status, 401);
  await oauthFailure(oidc.refreshTokenGrant(config, b.refresh_token!), 'invalid_grant');
  for (const token of [b.refresh_token!, 'pla_unknown', 'whatever']) {
    assert.equal((await request(server, 'POST', '/v1/oauth/revoke', { body: { token, client_id: client.clientId } })).status, 200);
  }

  // The spec's body alone, no client credentials: holding the token is the proof (RFC 7009's body, as
  // large providers accept it). An access token goes alone, a refresh token with its grant.
  const c = await deviceTokens(client, [server.organizationId]);
  const d = remember(await oidc.refreshTokenGrant(config, c.refresh_token!));
  const bare = await request(server, 'POST', '/v1/oauth/revoke', { body: { token: d.access_token, token_type_hint: 'access_token' } });
  assert.equal(bare.status, 200, bare.text);
  assert.deepEqual(bare.body, {});
  assert.equal((await channels(d.access_token)).status, 401, 'revoked by its holder');
  assert.equal((await channels(c.access_token)).status, 200, 'only that access token');
  const bareForm = await request(server, 'POST', '/v1/oauth/revoke', {
    rawBody: new URLSearchParams({ token: d.refresh_token!, token_type_hint: 'refresh_token' }).toString(),
    contentType: 'application/x-www-form-urlencoded',
  });
  assert.equal(bareForm.status, 200, bareForm.text);
  assert.equal((await channels(c.access_token)).status, 401, 'the refresh token took its grant');
  for (const token of ['pla_unknown', 'whatever', d.access_token]) {
    const res = await request(server, 'POST', '/v1/oauth/revoke', { body: { token, token_type_hint: 'access_token' } });
    assert.equal(res.status, 200, `${token}: ${res.text}`);
  }
  // Client credentials, when given, must hold: a wrong secret or an unknown client is 401, and the token stays.
  const confidential = await createOAuthClient(server, { type: 'confidential', name: 'Revoker', scopes: ['channels:read'] });
  const owner = await findUserByEmail(server.container.database.db, OWNER_EMAIL);
  const granted = await createGrant(server, { client: confidential, userId: owner!.id, organizationIds: [server.organizationId] });
  const e = { access_token: granted.accessToken };
  const basic = (secret: string) => `Basic ${Buffer.from(`${confidential.clientId}:${secret}`).toString('base64')}`;
  const wrongSecret = await request(server, 'POST', '/v1/oauth/revoke', {
    body: { token: e.access_token },
    headers: { authorization: basic('not-the-secret') },
  });
  assert.equal(wrongSecret.status, 401, wrongSecret.text);
  assert.equal(wrongSecret.body.error, 'invalid_client');
  const unknownClient = await request(server, 'POST', '/v1/oauth/revoke', { body: { token: e.access_token, client_id: 'pcl_nobody' } });
  assert.equal(unknownClient.status, 401, unknownClient.text);
  assert.equal((await channels(e.access_token)).status, 200, 'a refused revocation leaves the token');
  const right = await request(server, 'POST', '/v1/oauth/revoke', {
    body: { token: e.access_token },
    headers: { authorization: basic(confidential.secret!) },
  });
  assert.equal(right.status, 200, right.text);
  assert.equal((await channels(e.access_token)).status, 401);
});

test('bad input at the token endpoint: the documented OAuth error, nothing stored', async () => {
  const before = await tokenCount();
  const cases: Array<[string, () => Promise<ApiResponse>, number, string, RegExp]> = [
    [
      'JSON body',
      () => request(server, 'POST', '/v1/oauth/token', { body: { grant_type: 'refresh_token' } }),
      400,
      'invalid_request',
      /application\/x-www-form-urlencoded/,
    ],
    [
      'text body',
      () => request(server, 'POST', '/v1/oauth/token', { rawBody: 'grant_type=x', contentType: 'text/plain' }),
      400,
      'invalid_request',
      /application\/x-www-form-urlencoded/,
    ],
    ['no body', () => request(server, 'POST', '/v1/oauth/token'), 400, 'invalid_request', /grant_type is missing/],
    ['missing grant_type', () => form({ client_id: client.clientId }), 400, 'invalid_request', /grant_type is missing/],
    ['unknown grant_type', () => form({ grant_type: 'password', client_id: client.clientId }), 400, 'unsupported_grant_type', /password/],
    [
      'duplicated parameter',
      () =>
        request(server, 'POST', '/v1/oauth/token', {
          rawBody: 'grant_type=refresh_token&grant_type=refresh_token',
          contentType: 'application/x-www-form-urlencoded',
        }),
      400,
      'invalid_request',
      /more than once/,
    ],
    ['missing client', () => form({ grant_type: 'refresh_token', refresh_token: 'plr_x' }), 400, 'invalid_request', /client_id is missing/],
    [
      'unknown client',
      () => form({ grant_type: 'refresh_token', refresh_token: 'plr_x', client_id: 'pcl_nobody' }),
      401,
      'invalid_client',
      /client authentication failed/,
    ],
    [
      'missing code',
      () => form({ grant_type: 'authorization_code', client_id: client.clientId, redirect_uri: 'x' }),
      400,
      'invalid_request',
      /code is missing/,
    ],
    [
      'missing device_code',
      () => form({ grant_type: 'urn:ietf:params:oauth:grant-type:device_code', client_id: client.clientId }),
      400,
      'invalid_request',
      /device_code is missing/,
    ],
    [
      'missing refresh_token',
      () => form({ grant_type: 'refresh_token', client_id: client.clientId }),
      400,
      'invalid_request',
      /refresh_token is missing/,
    ],
    [
      'malformed verifier',
      () =>
        form({ grant_type: 'authorization_code', client_id: client.clientId, code: 'plc_x', redirect_uri: 'x', code_verifier: 'short' }),
      400,
      'invalid_request',
      /code_verifier/,
    ],
    [
      'oversized code',
      () => form({ grant_type: 'authorization_code', client_id: client.clientId, code: 'plc_' + 'x'.repeat(300), redirect_uri: 'x' }),
      400,
      'invalid_request',
      /code/,
    ],
    [
      'NUL in a parameter',
      () => form({ grant_type: 'refresh_token', client_id: client.clientId, refresh_token: 'plr_\u0000' }),
      400,
      'invalid_request',
      /refresh_token/,
    ],
    [
      'malformed Basic',
      () => form({ grant_type: 'refresh_token', refresh_token: 'plr_x' }, { authorization: 'Basic !!!' }),
      401,
      'invalid_client',
      /Basic/,
    ],
  ];
  for (const [label, send, status, error, description] of cases) {
    const res = await send();
    assert.equal(res.status, status, `${label}: ${res.text}`);
    assert.equal(res.body.error, error, `${label}: ${res.text}`);
    assert.match(res.body.error_description, description, label);
    assert.equal(res.headers.get('cache-control'), 'no-store', label);
  }
  assert.equal(await tokenCount(), before);

  // Introspection and revocation: JSON or form, each refusal an OAuth body, nothing revoked.
  const revokedBefore = await revokedCount();
  const key = server.apiKey;
  const endpointCases: Array<[string, () => Promise<ApiResponse>, number, RegExp]> = [
    ['introspect: empty token', () => request(server, 'POST', '/v1/oauth/introspect', { key, body: { token: '' } }), 400, /token/],
    ['introspect: missing token', () => request(server, 'POST', '/v1/oauth/introspect', { key, body: {} }), 400, /token/],
    [
      'introspect: oversized token',
      () => request(server, 'POST', '/v1/oauth/introspect', { key, body: { token: 'pla_' + 'x'.repeat(600) } }),
      400,
      /token/,
    ],
    [
      'introspect: malformed JSON',
      () => request(server, 'POST', '/v1/oauth/introspect', { key, rawBody: '{"token":', contentType: 'application/json' }),
      400,
      /malformed JSON/,
    ],
    [
      'introspect: text body',
      () => request(server, 'POST', '/v1/oauth/introspect', { key, rawBody: 'token=x', contentType: 'text/plain' }),
      415,
      /Content-Type/,
    ],
    [
      'revoke: duplicated token',
      () =>
        request(server, 'POST', '/v1/oauth/revoke', {
          rawBody: 'token=a&token=b&client_id=x',
          contentType: 'application/x-www-form-urlencoded',
        }),
      400,
      /more than once/,
    ],
    ['revoke: missing token', () => request(server, 'POST', '/v1/oauth/revoke', { body: { client_id: client.clientId } }), 400, /token/],
    [
      'revoke: token of the wrong type',
      () => request(server, 'POST', '/v1/oauth/revoke', { body: { token: 42, client_id: client.clientId } }),
      400,
      /token/,
    ],
    [
      'revoke: text body',
      () => request(server, 'POST', '/v1/oauth/revoke', { rawBody: 'token=x', contentType: 'text/plain' }),
      415,
      /Content-Type/,
    ],
  ];
  for (const [label, send, status, description] of endpointCases) {
    const res = await send();
    assert.equal(res.status, status, `${label}: ${res.text}`);
    assert.equal(res.body.error, 'invalid_request', `${label}: ${res.text}`);
    assert.match(res.body.error_description, description, label);
  }
  assert.equal(await revokedCount(), revokedBefore);
});

async function revokedCount(): Promise<number> {
  const rows = await queryRows<{ n: number }>(
    server.container.database.db,
    sql`select count(*)::int as n from oauth_tokens where revoked_at is not null`,
  );
  return rows[0]!.n;
}

test('the purge removes tokens a day after expiry and grants a day after revocation', async () => {
  const tokens = await deviceTokens(client, [server.organizationId]);
  const row = await tokenRow(tokens.access_token);
  clock.advance(3600_000 + 86_400_000 + 1000);
  await purgeExpiredOAuthFlows({ db: server.container.database.db, clock });
  const rows = await server.container.database.db.select().from(oauthTokens).where(eq(oauthTokens.id, row.id));
  assert.equal(rows.length, 0);
  assert.ok((await tokenRow(tokens.refresh_token!)).id, 'the refresh token lives on');
  await request(server, 'POST', '/v1/oauth/revoke', { body: { token: tokens.refresh_token!, client_id: client.clientId } });
  clock.advance(86_400_000 + 1000);
  const purged = await purgeExpiredOAuthFlows({ db: server.container.database.db, clock });
  assert.ok(purged.grants >= 1);
  assert.equal((await server.container.database.db.select().from(oauthGrants).where(eq(oauthGrants.id, row.grantId))).length, 0);
});

test("through the routes: a member's token follows their memberships (role change, removal from one organization, then the other) at once", async () => {
  const invited = await inviteNewMember(server, { cookie }, server.organizationId, 'admin', 'routed');
  // The same person joins the second organization (the owner is an admin there) with the same account.
  const again = await request(server, 'POST', `/v1/organizations/${second.organizationId}/invitations`, {
    cookie,
    body: { email: invited.email, role: 'admin' },
  });
  assert.equal(again.status, 201, again.text);
  assert.equal(
    (await request(server, 'POST', '/v1/invitations/accept', { cookie: invited.cookie, body: { token: again.body.data.token } })).status,
    200,
  );

  const writer = await createOAuthClient(server, { scopes: ['channels:read', 'api_keys:read', 'api_keys:write', 'members:read'] });
  const tokens = await deviceTokens(writer, [server.organizationId, second.organizationId], { as: invited.cookie });
  const inFirst = { 'x-organization-id': server.organizationId };
  const orgs = await request(server, 'GET', '/v1/organizations', { bearer: tokens.access_token, headers: inFirst });
  assert.equal(orgs.status, 200, orgs.text);
  assert.deepEqual(
    (orgs.body.data as Array<{ id: string }>).map((o) => o.id).sort(),
    [server.organizationId, second.organizationId].sort(),
  );
  const newKey = () =>
    request(server, 'POST', '/v1/api-keys', {
      bearer: tokens.access_token,
      headers: inFirst,
      body: { name: 'by token', permissions: ['channels:read'] },
    });
  const created = await newKey();
  assert.equal(created.status, 201, created.text);
  server.registerSensitive('an API key', created.body.data.secret);

  // Demoted by the owner through the route: the very next request lacks api_keys:write.
  const demoted = await request(server, 'PATCH', `/v1/organizations/${server.organizationId}/members/${invited.userId}`, {
    cookie,
    body: { role: 'member' },
  });
  assert.equal(demoted.status, 200, demoted.text);
  const refused = await newKey();
  assert.equal(refused.status, 403);
  assert.equal(refused.body.detail, 'the access token lacks scope api_keys:write');

  // Removed from the first organization: the token no longer reaches it, the second still works.
  assert.equal(
    (await request(server, 'DELETE', `/v1/organizations/${server.organizationId}/members/${invited.userId}`, { cookie })).status,
    204,
  );
  const gone = await request(server, 'GET', '/v1/channels', { bearer: tokens.access_token, headers: inFirst });
  assert.equal(gone.status, 400);
  assert.match(gone.body.detail, /does not reach organization/);
  assert.equal(
    (await request(server, 'GET', `/v1/organizations/${server.organizationId}/members`, { bearer: tokens.access_token })).status,
    404,
  );
  const left = await request(server, 'GET', '/v1/channels', { bearer: tokens.access_token });
  assert.equal(left.status, 200, 'one organization left: no header needed');
  assert.equal(
    (await request(server, 'GET', `/v1/organizations/${second.organizationId}/members`, { bearer: tokens.access_token })).status,
    200,
  );

  // Removed from the second too: the token and its refresh token are dead.
  assert.equal(
    (await request(server, 'DELETE', `/v1/organizations/${second.organizationId}/members/${invited.userId}`, { cookie })).status,
    204,
  );
  assert.equal((await request(server, 'GET', '/v1/channels', { bearer: tokens.access_token })).status, 401);
  const refreshed = await form({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token!, client_id: writer.clientId });
  assert.equal(refreshed.body.error, 'invalid_grant');
});

test('a client changed through the routes takes effect at once at the token endpoints (the process forgets the clients it remembered)', async () => {
  const confidential = await createOAuthClient(server, { type: 'confidential', name: 'Rotating backend' });
  const basic = (secret: string) => `Basic ${Buffer.from(`${confidential.clientId}:${secret}`).toString('base64')}`;
  const introspect = (secret: string) =>
    request(server, 'POST', '/v1/oauth/introspect', { headers: { authorization: basic(secret) }, body: { token: 'pla_nothing' } });
  // Remembered now.
  assert.equal((await introspect(confidential.secret!)).status, 200);
  const rotated = await request(server, 'POST', `/v1/oauth/clients/${confidential.clientId}/secret`, { key: server.apiKey });
  assert.equal(rotated.status, 200, rotated.text);
  server.registerSensitive('a client secret', rotated.body.data.client_secret);
  const old = await introspect(confidential.secret!);
  assert.equal(old.status, 401, 'the old secret stops working on the next request');
  assert.equal(old.body.error, 'invalid_client');
  assert.equal((await introspect(rotated.body.data.client_secret)).status, 200);

  // Deleted: the next token request of the client is invalid_client.
  assert.equal((await request(server, 'DELETE', `/v1/oauth/clients/${confidential.clientId}`, { key: server.apiKey })).status, 204);
  assert.equal((await introspect(rotated.body.data.client_secret)).status, 401);
});
