// The SDK with an OAuth token from the device flow: a 401 refreshes it through the token endpoint once,
// however many calls are refused at the same time, rotating the refresh token (onTokens gets the new
// pair), and repeats the calls; a token known to have expired is refreshed before it is sent; a refresh
// token the service refuses is an AuthenticationError.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { AuthenticationError, Parley, type OAuthTokens } from '@parley/sdk';
import { loginCookie, request, startTestServer, type TestServer } from '../../../test/harness.ts';
import { createOAuthClient, deviceFlowTokens, type ClientFixture } from '../../../test/oauth-client-fixture.ts';

let server: TestServer;
let client: ClientFixture;
let cookie: string;
before(async () => {
  server = await startTestServer();
  client = await createOAuthClient(server, { name: 'SDK test', scopes: ['channels:read', 'channels:write', 'messages:read'] });
  cookie = await loginCookie(server);
});
after(() => server?.close());

/** Tokens through the device flow, approved by the owner for the organization. */
const tokens = () => deviceFlowTokens(server, { clientId: client.clientId, cookie, organizationIds: [server.organizationId] });

/** A fetch that records what the client sends. */
function recordingFetch() {
  const sent: Array<{ method: string; path: string; authorization: string | null }> = [];
  const fetch = (input: Request) => {
    sent.push({ method: input.method, path: new URL(input.url).pathname, authorization: input.headers.get('authorization') });
    return globalThis.fetch(input);
  };
  return { sent, fetch };
}

const revoke = (token: string, hint: string) => request(server, 'POST', '/v1/oauth/revoke', { body: { token, token_type_hint: hint } });

test('a refused access token is refreshed once for calls refused together, the refresh token rotated and handed to onTokens', async () => {
  const issued = await tokens();
  assert.ok(issued.refresh_token);
  // The access token stops working (as when it expires); the refresh token still holds.
  assert.equal((await revoke(issued.access_token, 'access_token')).status, 200);
  const rotations: OAuthTokens[] = [];
  const { sent, fetch } = recordingFetch();
  const parley = new Parley({
    baseUrl: server.baseUrl,
    accessToken: issued.access_token,
    refreshToken: issued.refresh_token,
    clientId: client.clientId,
    onTokens: (t) => void rotations.push(t),
    fetch,
  });
  const answers = await Promise.all([
    parley.channels.list(),
    parley.channels.list({ limit: 1 }),
    parley.health.get(),
    parley.channels.list(),
  ]);
  assert.equal(answers.length, 4);
  assert.equal(rotations.length, 1, 'one refresh');
  assert.equal(sent.filter((s) => s.path === '/v1/oauth/token').length, 1, 'one request to the token endpoint');
  const [rotated] = rotations;
  assert.notEqual(rotated!.accessToken, issued.access_token);
  assert.notEqual(rotated!.refreshToken, issued.refresh_token, 'the refresh token rotated');
  assert.ok(rotated!.expiresAt && rotated!.expiresAt.getTime() > Date.now());
  server.registerSensitive('a rotated access token', rotated!.accessToken);
  server.registerSensitive('a rotated refresh token', rotated!.refreshToken);
  // The refused calls went again with the new token.
  const retried = sent.filter((s) => s.path === '/v1/channels' && s.authorization === `Bearer ${rotated!.accessToken}`);
  assert.equal(retried.length, 3);

  // Later calls carry the new token and need no refresh.
  await parley.channels.list();
  assert.equal(rotations.length, 1);
  assert.equal(sent.at(-1)!.authorization, `Bearer ${rotated!.accessToken}`);
  // The new access token is live at the service.
  const introspected = await request(server, 'POST', '/v1/oauth/introspect', { key: server.apiKey, body: { token: rotated!.accessToken } });
  assert.equal(introspected.body.active, true, introspected.text);
});

test('a token known to have expired is refreshed before it is sent, not after a 401', async () => {
  const issued = await tokens();
  const { sent, fetch } = recordingFetch();
  const rotations: OAuthTokens[] = [];
  const parley = new Parley({
    baseUrl: server.baseUrl,
    accessToken: issued.access_token,
    refreshToken: issued.refresh_token,
    clientId: client.clientId,
    expiresAt: new Date(Date.now() - 1000),
    onTokens: (t) => void rotations.push(t),
    fetch,
  });
  await parley.channels.list();
  assert.deepEqual(
    sent.map((s) => s.path),
    ['/v1/oauth/token', '/v1/channels'],
  );
  assert.equal(rotations.length, 1);
  server.registerSensitive('a rotated refresh token', rotations[0]!.refreshToken);
});

test('a refresh token the service refuses is an AuthenticationError naming invalid_grant', async () => {
  const issued = await tokens();
  // Revoking the refresh token revokes the whole grant: the access token too.
  assert.equal((await revoke(issued.refresh_token!, 'refresh_token')).status, 200);
  const parley = new Parley({
    baseUrl: server.baseUrl,
    accessToken: issued.access_token,
    refreshToken: issued.refresh_token,
    clientId: client.clientId,
  });
  const refused = await parley.channels.list().catch((e: unknown) => e);
  assert.ok(refused instanceof AuthenticationError, String(refused));
  assert.equal(refused.code, 'invalid_grant');
  assert.match(refused.message, /could not be refreshed/);
});

test('without a refresh token a refused access token is an AuthenticationError at once', async () => {
  const parley = new Parley({ baseUrl: server.baseUrl, accessToken: 'pla_not_a_token' });
  const refused = await parley.channels.list().catch((e: unknown) => e);
  assert.ok(refused instanceof AuthenticationError, String(refused));
  assert.equal(refused.status, 401);
});
