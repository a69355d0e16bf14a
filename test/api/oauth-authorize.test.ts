/**
 * The authorization code flow's front half over real HTTP: GET /v1/oauth/authorize (the error page
 * that never redirects, the errors that go back to the client, the stored request), and the consent
 * page's JSON routes (approve with organizations, deny, one decision, expiry, CSRF).
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import { eq } from 'drizzle-orm';
import { oauthAuthorizationRequests } from '../../src/db/schema.ts';
import { addMembership } from '../../src/domain/organizations/organizations.ts';
import { PERMISSION_DESCRIPTIONS } from '../../src/domain/permissions.ts';
import { findUserByEmail } from '../../src/domain/users/users.ts';
import { sha256Hex } from '../../src/lib/crypto.ts';
import {
  createOtherOrganization,
  loginCookie,
  movableClock,
  OWNER_EMAIL,
  request,
  startTestServer,
  type ApiResponse,
  type TestServer,
} from '../harness.ts';
import { authorizeQuery, countRows, createOAuthClient, pkcePair, type ClientFixture } from '../oauth-client-fixture.ts';

const clock = movableClock();
let server: TestServer;
let cookie: string;
let client: ClientFixture;
/** A second organization the owner also belongs to. */
let second: Awaited<ReturnType<typeof createOtherOrganization>>;
/** Another user, of another organization only. */
let stranger: { cookie: string; organizationId: string };

before(async () => {
  server = await startTestServer({ clock });
  cookie = await loginCookie(server);
  client = await createOAuthClient(server, {
    name: 'Acme CLI',
    redirectUris: ['http://127.0.0.1:53682/callback', 'https://app.example.com/oauth/done?tenant=7'],
  });
  second = await createOtherOrganization(server, 'second');
  const owner = await findUserByEmail(server.container.database.db, OWNER_EMAIL);
  await addMembership(
    { db: server.container.database.db, clock },
    { organizationId: second.organizationId, userId: owner!.id, role: 'member' },
  );
  const other = await createOtherOrganization(server, 'stranger');
  stranger = { cookie: await loginCookie(server, other.email, other.password), organizationId: other.organizationId };
});
after(() => server.close());

const authorize = (query: string) => request(server, 'GET', `/v1/oauth/authorize?${query}`);

/** The answer's redirect, with its query parameters. */
function redirectOf(res: ApiResponse): { base: string; params: URLSearchParams } {
  assert.equal(res.status, 303, res.text);
  const location = res.headers.get('location');
  assert.ok(location, 'a Location header');
  const [base, query] = location.split('?') as [string, string | undefined];
  return { base, params: new URLSearchParams(query ?? '') };
}

/** A stored pending request of the client, by its id from the consent redirect. */
async function pendingRequest(changes: Record<string, string | undefined> = {}, of = client): Promise<string> {
  const { base, params } = redirectOf(await authorize(authorizeQuery(of, changes)));
  assert.equal(base, `${server.config.appUrl}/oauth/authorize`);
  const id = params.get('request');
  assert.ok(id);
  return id;
}

async function rowOf(id: string) {
  const [row] = await server.container.database.db.select().from(oauthAuthorizationRequests).where(eq(oauthAuthorizationRequests.id, id));
  return row;
}

function assertErrorPage(res: ApiResponse, problem: RegExp) {
  assert.equal(res.status, 400, res.text);
  assert.equal(res.headers.get('location'), null, 'never redirected');
  assert.match(res.headers.get('content-type') ?? '', /^text\/html/);
  assert.match(res.text, /^<!doctype html>/);
  assert.match(res.text, problem);
  assert.equal(res.headers.get('x-frame-options'), 'DENY');
  assert.match(res.headers.get('content-security-policy') ?? '', /frame-ancestors 'none'/);
  assert.equal(res.headers.get('cache-control'), 'no-store');
  assert.doesNotMatch(res.text, /<script/i);
}

test('an unknown client, a missing or unregistered redirect_uri and a client without the code grant get the error page, never a redirect', async () => {
  const before = await countRows(server, 'oauth_authorization_requests');
  assertErrorPage(await authorize(authorizeQuery(client, { client_id: 'pcl_nobody' })), /no application is registered with this client_id/);
  assertErrorPage(await authorize(authorizeQuery(client, { client_id: undefined })), /client_id is missing/);
  assertErrorPage(await authorize(`${authorizeQuery(client)}&client_id=${client.clientId}`), /client_id is given more than once/);
  assertErrorPage(await authorize(authorizeQuery(client, { redirect_uri: undefined })), /redirect_uri is missing/);
  for (const wrong of [
    'http://127.0.0.1:53682/callback/',
    'http://127.0.0.1:53683/callback',
    'http://localhost:53682/callback',
    'https://evil.example/callback',
    'https://app.example.com/oauth/done',
  ]) {
    assertErrorPage(
      await authorize(authorizeQuery(client, { redirect_uri: wrong })),
      /redirect_uri is not one registered for Acme CLI: it must match a registered URI exactly/,
    );
  }
  // The page escapes what it shows: a client's name is the registrant's text.
  const html = await createOAuthClient(server, {
    name: '<img src=x onerror=alert(1)>',
    grantTypes: ['urn:ietf:params:oauth:grant-type:device_code'],
  });
  const page = await authorize(authorizeQuery(html));
  assertErrorPage(page, /is not registered for the authorization code flow/);
  assert.match(page.text, /&lt;img src=x onerror=alert\(1\)&gt;/);
  assert.doesNotMatch(page.text, /<img/);
  assert.equal(await countRows(server, 'oauth_authorization_requests'), before, 'nothing stored');
});

test('once client and redirect_uri are right, other problems go back to the redirect_uri with error, error_description, state and iss', async () => {
  const before = await countRows(server, 'oauth_authorization_requests');
  const cases: Array<[changes: Record<string, string | undefined>, error: string, description: RegExp]> = [
    [{ response_type: 'token' }, 'unsupported_response_type', /only response_type=code/],
    [{ response_type: undefined }, 'invalid_request', /response_type is missing/],
    [{ scope: 'channels:read messages:delete' }, 'invalid_scope', /unknown scope messages:delete/],
    [{ scope: 'channels:read webhooks:write' }, 'invalid_scope', /not registered for scope webhooks:write/],
    [{ code_challenge: undefined, code_challenge_method: undefined }, 'invalid_request', /public client must use PKCE/],
    [{ code_challenge_method: 'plain' }, 'invalid_request', /must be S256: plain is not supported/],
    [{ code_challenge_method: undefined }, 'invalid_request', /must be S256/],
    [{ code_challenge: 'too-short' }, 'invalid_request', /43 base64url characters/],
    [{ code_challenge: `${pkcePair().challenge.slice(0, 42)}=` }, 'invalid_request', /43 base64url characters/],
    [{ code_challenge: undefined, code_challenge_method: 'S256' }, 'invalid_request', /public client must use PKCE/],
    [{ scope: 'x'.repeat(2001) }, 'invalid_request', /scope is longer than 2000 characters/],
    [{ code_challenge_method: 'S256\u0000' }, 'invalid_request', /NUL character/],
  ];
  for (const [changes, error, description] of cases) {
    const state = `st-${randomUUID()}`;
    const { base, params } = redirectOf(await authorize(authorizeQuery(client, { ...changes, state })));
    const label = JSON.stringify(changes);
    assert.equal(base, client.redirectUris[0], label);
    assert.equal(params.get('error'), error, label);
    assert.match(params.get('error_description') ?? '', description, label);
    assert.equal(params.get('state'), state, `${label}: the state comes back`);
    assert.equal(params.get('iss'), server.config.baseUrl, `${label}: the issuer (RFC 9207)`);
    assert.equal(params.get('code'), null);
  }
  // A repeated parameter is refused too; a state too long to echo is left out.
  const twice = redirectOf(await authorize(`${authorizeQuery(client, { state: 'once' })}&scope=channels:read`));
  assert.equal(twice.params.get('error'), 'invalid_request');
  assert.match(twice.params.get('error_description')!, /scope is given more than once/);
  assert.equal(twice.params.get('state'), 'once');
  const longState = redirectOf(await authorize(authorizeQuery(client, { state: 's'.repeat(1001) })));
  assert.equal(longState.params.get('error'), 'invalid_request');
  assert.equal(longState.params.get('state'), null);
  // A registered redirect_uri with a query of its own keeps it.
  const withQuery = redirectOf(
    await authorize(authorizeQuery(client, { redirect_uri: client.redirectUris[1], response_type: 'id_token', state: 'q' })),
  );
  assert.equal(withQuery.base, 'https://app.example.com/oauth/done');
  assert.equal(withQuery.params.get('tenant'), '7');
  assert.equal(withQuery.params.get('error'), 'unsupported_response_type');
  assert.equal(await countRows(server, 'oauth_authorization_requests'), before, 'nothing stored');
});

test('a valid request is stored pending for ten minutes and sent to the consent page; an empty scope means every registered scope', async () => {
  const { challenge } = pkcePair();
  const id = await pendingRequest({ scope: 'messages:read channels:read messages:read', state: 'xyz', code_challenge: challenge });
  const row = await rowOf(id);
  assert.ok(row);
  assert.equal(row.status, 'pending');
  assert.equal(row.redirectUri, client.redirectUris[0]);
  assert.deepEqual(row.scopes, ['messages:read', 'channels:read']);
  assert.equal(row.state, 'xyz');
  assert.equal(row.codeChallenge, challenge);
  assert.equal(row.codeChallengeMethod, 'S256');
  assert.equal(row.userId, null);
  assert.equal(row.codeHash, null);
  const ttl = row.expiresAt.getTime() - row.createdAt.getTime();
  assert.equal(ttl, 10 * 60_000);

  const all = await rowOf(await pendingRequest({ scope: undefined, state: undefined }));
  assert.deepEqual(all!.scopes, client.scopes);
  assert.equal(all!.state, null);

  // A confidential client may go without PKCE.
  const confidential = await createOAuthClient(server, { type: 'confidential' });
  const plain = await rowOf(await pendingRequest({ code_challenge: undefined, code_challenge_method: undefined }, confidential));
  assert.equal(plain!.codeChallenge, null);
  assert.equal(plain!.codeChallengeMethod, null);
});

test('the consent page reads the request: the client, the scopes in words and the organizations to choose; sessions only', async () => {
  const id = await pendingRequest({ scope: 'channels:read messages:send' });
  const res = await request(server, 'GET', `/v1/oauth/authorization-requests/${id}`, { cookie });
  assert.equal(res.status, 200, res.text);
  const view = res.body.data;
  assert.equal(view.id, id);
  assert.deepEqual(view.client, { client_id: client.clientId, name: 'Acme CLI' });
  assert.deepEqual(view.scopes, [
    { name: 'channels:read', description: PERMISSION_DESCRIPTIONS['channels:read'] },
    { name: 'messages:send', description: PERMISSION_DESCRIPTIONS['messages:send'] },
  ]);
  assert.equal(view.redirect_uri, client.redirectUris[0]);
  assert.deepEqual(
    view.organizations.map((o: { organization_id: string; role: string }) => [o.organization_id, o.role]),
    [
      [server.organizationId, 'owner'],
      [second.organizationId, 'member'],
    ],
  );
  assert.equal(Date.parse(view.expires_at), (await rowOf(id))!.expiresAt.getTime());
  assert.equal(res.headers.get('cache-control'), 'no-store');

  const anonymous = await request(server, 'GET', `/v1/oauth/authorization-requests/${id}`);
  assert.equal(anonymous.status, 401);
  const byKey = await request(server, 'GET', `/v1/oauth/authorization-requests/${id}`, { key: server.apiKey });
  assert.equal(byKey.status, 403);
  assert.equal(byKey.body.detail, 'this operation needs a dashboard session');
  for (const unknown of [randomUUID(), 'not-a-uuid']) {
    const res404 = await request(server, 'GET', `/v1/oauth/authorization-requests/${unknown}`, { cookie });
    assert.equal(res404.status, 404, res404.text);
    assert.equal(res404.body.detail, 'authorization request not found');
  }
  assert.equal((await request(server, 'GET', `/v1/oauth/authorization-requests/${'x'.repeat(65)}`, { cookie })).status, 400);
});

test('approval for chosen organizations sends the browser to the redirect_uri with a one-time code, state and iss; the row holds what the token endpoint needs', async () => {
  const id = await pendingRequest({ state: 'opaque state/with spaces' });
  const started = clock.now().getTime();
  const res = await request(server, 'POST', `/v1/oauth/authorization-requests/${id}/approve`, {
    cookie,
    body: { organization_ids: [second.organizationId, server.organizationId, second.organizationId] },
  });
  assert.equal(res.status, 200, res.text);
  const target = new URL(res.body.data.redirect_to);
  assert.equal(`${target.origin}${target.pathname}`, client.redirectUris[0]);
  const code = target.searchParams.get('code')!;
  server.registerSensitive('an authorization code', code);
  assert.match(code, /^plc_[A-Za-z0-9_-]{43}$/);
  assert.equal(target.searchParams.get('state'), 'opaque state/with spaces');
  assert.equal(target.searchParams.get('iss'), server.config.baseUrl);

  const row = (await rowOf(id))!;
  assert.equal(row.status, 'approved');
  assert.equal(row.codeHash, sha256Hex(code));
  assert.deepEqual([...row.organizationIds!].sort(), [server.organizationId, second.organizationId].sort());
  const owner = await findUserByEmail(server.container.database.db, OWNER_EMAIL);
  assert.equal(row.userId, owner!.id);
  assert.ok(row.decidedAt);
  // The code lives for the code lifetime from the approval, not the request's ten minutes.
  const lifetime = row.expiresAt.getTime() - started;
  assert.ok(lifetime >= server.config.oauth.codeTtlMs && lifetime < server.config.oauth.codeTtlMs + 5000, `${lifetime} ms`);
  assert.equal(JSON.stringify(row).includes(code), false, 'only the hash is stored');

  // Decided: the decider is told so; to anyone else it is unknown.
  for (const [method, path] of [
    ['GET', `/v1/oauth/authorization-requests/${id}`],
    ['POST', `/v1/oauth/authorization-requests/${id}/approve`],
    ['POST', `/v1/oauth/authorization-requests/${id}/deny`],
  ] as const) {
    const body = path.endsWith('/approve') ? { organization_ids: [server.organizationId] } : undefined;
    const again = await request(server, method, path, { cookie, body });
    assert.equal(again.status, 409, `${method} ${path}: ${again.text}`);
    assert.equal(again.body.detail, 'this authorization request was already approved');
    const strangers = await request(server, method, path, {
      cookie: stranger.cookie,
      body: body && { organization_ids: [stranger.organizationId] },
    });
    assert.equal(strangers.status, 404, strangers.text);
  }
  assert.equal((await rowOf(id))!.codeHash, sha256Hex(code), 'the code did not change');
});

test('denial sends the browser back with access_denied and the state', async () => {
  const id = await pendingRequest({ redirect_uri: client.redirectUris[1], state: 'deny-me' });
  const res = await request(server, 'POST', `/v1/oauth/authorization-requests/${id}/deny`, { cookie });
  assert.equal(res.status, 200, res.text);
  const [base, query] = res.body.data.redirect_to.split('?');
  assert.equal(base, 'https://app.example.com/oauth/done');
  const params = new URLSearchParams(query);
  assert.equal(params.get('tenant'), '7');
  assert.equal(params.get('error'), 'access_denied');
  assert.equal(params.get('state'), 'deny-me');
  assert.equal(params.get('code'), null);
  const row = (await rowOf(id))!;
  assert.equal(row.status, 'denied');
  assert.equal(row.codeHash, null);
  const again = await request(server, 'POST', `/v1/oauth/authorization-requests/${id}/approve`, {
    cookie,
    body: { organization_ids: [server.organizationId] },
  });
  assert.equal(again.status, 409);
  assert.equal(again.body.detail, 'this authorization request was already denied');
});

test('approving an organization the user is not in, none, or malformed ones is refused and leaves the request pending', async () => {
  const id = await pendingRequest();
  const approve = (body: unknown, options: { contentType?: string; rawBody?: string } = {}) =>
    request(server, 'POST', `/v1/oauth/authorization-requests/${id}/approve`, { cookie, body, ...options });
  const foreign = await approve({ organization_ids: [server.organizationId, stranger.organizationId] });
  assert.equal(foreign.status, 403, foreign.text);
  assert.equal(foreign.body.detail, `not a member of organization ${stranger.organizationId}: choose organizations you belong to`);
  assert.deepEqual(foreign.body.errors, [
    { pointer: '/organization_ids/1', location: 'body', message: 'not an organization you are a member of' },
  ]);
  const unknownOrg = await approve({ organization_ids: [randomUUID()] });
  assert.equal(unknownOrg.status, 403);
  for (const body of [
    {},
    { organization_ids: [] },
    { organization_ids: ['not-a-uuid'] },
    { organization_ids: server.organizationId },
    { organization_ids: Array.from({ length: 101 }, () => randomUUID()) },
  ]) {
    const res = await approve(body);
    assert.equal(res.status, 400, `${JSON.stringify(body).slice(0, 80)}: ${res.text}`);
    assert.equal(res.body.errors[0].pointer.startsWith('/organization_ids'), true, res.text);
  }
  assert.equal((await approve(undefined)).status, 400, 'no body');
  assert.equal(
    (await approve(undefined, { rawBody: '{"organization_ids":', contentType: 'application/json' })).status,
    400,
    'malformed JSON',
  );
  const huge = await approve(undefined, {
    rawBody: JSON.stringify({ organization_ids: [server.organizationId], pad: 'x'.repeat(server.config.bodyLimitBytes) }),
  });
  assert.equal(huge.status, 413);
  assert.equal((await rowOf(id))!.status, 'pending');
});

test('CSRF: a cross-origin POST and a form-encoded POST to the consent routes are refused', async () => {
  const id = await pendingRequest();
  const crossOrigin = await request(server, 'POST', `/v1/oauth/authorization-requests/${id}/approve`, {
    cookie,
    body: { organization_ids: [server.organizationId] },
    headers: { origin: 'https://evil.example' },
  });
  assert.equal(crossOrigin.status, 403, crossOrigin.text);
  assert.match(crossOrigin.body.detail, /cross-origin request refused/);
  const crossDeny = await request(server, 'POST', `/v1/oauth/authorization-requests/${id}/deny`, {
    cookie,
    headers: { origin: 'https://evil.example' },
  });
  assert.equal(crossDeny.status, 403);
  const form = await request(server, 'POST', `/v1/oauth/authorization-requests/${id}/approve`, {
    cookie,
    rawBody: `organization_ids=${server.organizationId}`,
    contentType: 'application/x-www-form-urlencoded',
  });
  assert.equal(form.status, 415, form.text);
  const text = await request(server, 'POST', `/v1/oauth/authorization-requests/${id}/deny`, {
    cookie,
    rawBody: 'x',
    contentType: 'text/plain',
  });
  assert.equal(text.status, 415);
  assert.equal((await rowOf(id))!.status, 'pending', 'nothing was decided');
  // The pages themselves refuse to be framed (clickjacking), built or not.
  for (const page of [`/app/oauth/authorize?request=${id}`, '/app/device?user_code=BCDF-GHJK']) {
    const res = await request(server, 'GET', page);
    assert.equal(res.headers.get('x-frame-options'), 'DENY', page);
    assert.match(res.headers.get('content-security-policy') ?? '', /frame-ancestors 'none'/, page);
  }
  // The dashboard's own origin is welcome.
  const own = await request(server, 'POST', `/v1/oauth/authorization-requests/${id}/approve`, {
    cookie,
    body: { organization_ids: [server.organizationId] },
    headers: { origin: new URL(server.config.appUrl).origin },
  });
  assert.equal(own.status, 200, own.text);
  server.registerSensitive('an authorization code', new URL(own.body.data.redirect_to).searchParams.get('code') ?? undefined);
});

test('of concurrent decisions only one takes effect: one code, the others told it was decided', async () => {
  const id = await pendingRequest();
  const cookies = [cookie, cookie, await loginCookie(server), cookie, await loginCookie(server)];
  const answers = await Promise.all(
    cookies.map((c, i) =>
      i === 3
        ? request(server, 'POST', `/v1/oauth/authorization-requests/${id}/deny`, { cookie: c })
        : request(server, 'POST', `/v1/oauth/authorization-requests/${id}/approve`, {
            cookie: c,
            body: { organization_ids: [server.organizationId] },
          }),
    ),
  );
  const statuses = answers.map((a) => a.status);
  assert.equal(statuses.filter((s) => s === 200).length, 1, `statuses ${statuses}`);
  assert.equal(statuses.filter((s) => s === 409).length, 4, `statuses ${statuses}`);
  const winner = answers.find((a) => a.status === 200)!;
  const code = new URL(winner.body.data.redirect_to).searchParams.get('code');
  server.registerSensitive('an authorization code', code ?? undefined);
  const row = (await rowOf(id))!;
  if (code) assert.equal(row.codeHash, sha256Hex(code));
  else assert.equal(row.status, 'denied');
});

test('a request left undecided expires: 410, and it can no longer be approved', async () => {
  const id = await pendingRequest();
  clock.advance(10 * 60_000 + 1000);
  const read = await request(server, 'GET', `/v1/oauth/authorization-requests/${id}`, { cookie });
  assert.equal(read.status, 410, read.text);
  assert.equal(read.body.detail, 'this authorization request expired: go back to the application and start again');
  const approve = await request(server, 'POST', `/v1/oauth/authorization-requests/${id}/approve`, {
    cookie,
    body: { organization_ids: [server.organizationId] },
  });
  assert.equal(approve.status, 410);
  assert.equal((await request(server, 'POST', `/v1/oauth/authorization-requests/${id}/deny`, { cookie })).status, 410);
  assert.equal((await rowOf(id))!.status, 'pending');
});

test('a HEAD request (a link checker, a prefetch) stores no pending request', async () => {
  const before = await countRows(server, 'oauth_authorization_requests');
  const res = await request(server, 'HEAD', `/v1/oauth/authorize?${authorizeQuery(client)}`);
  assert.ok(res.status >= 400, `HEAD answered ${res.status}`);
  assert.equal(await countRows(server, 'oauth_authorization_requests'), before);
});
