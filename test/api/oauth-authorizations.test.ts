/**
 * The applications a user authorized, over real HTTP: GET /v1/auth/authorizations lists the signed-in
 * user's usable grants (client, scopes, organizations), DELETE revokes one with all its tokens, another
 * user's grant is not found, and signing in again revokes nothing. Grants are rows made by the fixture
 * until the token endpoint (which makes them) is merged.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { eq } from 'drizzle-orm';
import { oauthGrants, oauthTokens } from '../../src/db/schema.ts';
import { addMembership } from '../../src/domain/organizations/organizations.ts';
import { findUserByEmail } from '../../src/domain/users/users.ts';
import { createOtherOrganization, loginCookie, movableClock, OWNER_EMAIL, request, startTestServer, type TestServer } from '../harness.ts';
import { createGrant, createOAuthClient, type ClientFixture } from '../oauth-client-fixture.ts';

const clock = movableClock();
let server: TestServer;
let cookie: string;
let ownerId: string;
let cli: ClientFixture;
let other: Awaited<ReturnType<typeof createOtherOrganization>>;
let otherCookie: string;

before(async () => {
  server = await startTestServer({ clock });
  cookie = await loginCookie(server);
  ownerId = (await findUserByEmail(server.container.database.db, OWNER_EMAIL))!.id;
  cli = await createOAuthClient(server, { name: 'Parley CLI', scopes: ['channels:read', 'messages:read', 'messages:send'] });
  other = await createOtherOrganization(server, 'second');
  await addMembership(
    { db: server.container.database.db, clock },
    { organizationId: other.organizationId, userId: ownerId, role: 'admin' },
  );
  otherCookie = await loginCookie(server, other.email, other.password);
});
after(() => server.close());

const list = (as = cookie, query = '') => request(server, 'GET', `/v1/auth/authorizations${query}`, { cookie: as });

async function tokensOf(grantId: string) {
  return server.container.database.db.select().from(oauthTokens).where(eq(oauthTokens.grantId, grantId));
}

test("the list shows the user's usable grants: the application, the scopes and the organizations, newest first", async () => {
  const desktop = await createOAuthClient(server, { name: 'Desktop app', scopes: ['contacts:read'] });
  const older = await createGrant(server, {
    client: cli,
    userId: ownerId,
    organizationIds: [server.organizationId],
    scopes: ['channels:read'],
    createdAt: new Date(clock.now().getTime() - 60_000),
  });
  const newer = await createGrant(server, {
    client: desktop,
    userId: ownerId,
    organizationIds: [server.organizationId, other.organizationId],
  });
  // Not listed: another user's, a revoked one, and one whose tokens all expired.
  const theirs = await createGrant(server, { client: cli, userId: other.userId, organizationIds: [other.organizationId] });
  const revoked = await createGrant(server, { client: cli, userId: ownerId, organizationIds: [server.organizationId] });
  await server.container.database.db.update(oauthGrants).set({ revokedAt: clock.now() }).where(eq(oauthGrants.id, revoked.id));
  const expired = await createGrant(server, {
    client: cli,
    userId: ownerId,
    organizationIds: [server.organizationId],
    createdAt: new Date(clock.now().getTime() - 31 * 86_400_000),
  });

  const res = await list();
  assert.equal(res.status, 200, res.text);
  const ids = res.body.data.map((a: { id: string }) => a.id);
  assert.deepEqual(ids, [newer.id, older.id]);
  for (const hidden of [theirs.id, revoked.id, expired.id]) assert.equal(res.text.includes(hidden), false);
  const [first, second] = res.body.data;
  assert.deepEqual(first.client, { client_id: desktop.clientId, name: 'Desktop app' });
  assert.deepEqual(first.scopes, ['contacts:read']);
  const names = new Map([
    [
      server.organizationId,
      (await request(server, 'GET', '/v1/auth/session', { cookie })).body.data.organizations.find(
        (o: { organization_id: string }) => o.organization_id === server.organizationId,
      ).organization_name,
    ],
    [other.organizationId, 'second org'],
  ]);
  assert.deepEqual(
    [...first.organizations].sort((a: { id: string }, b: { id: string }) => a.id.localeCompare(b.id)),
    [...names].map(([id, name]) => ({ id, name })).sort((a, b) => a.id.localeCompare(b.id)),
  );
  assert.equal(first.last_used_at, null);
  assert.ok(Date.parse(first.created_at) > Date.parse(second.created_at));
  assert.deepEqual(second.client, { client_id: cli.clientId, name: 'Parley CLI' });
  assert.deepEqual(
    second.organizations.map((o: { id: string }) => o.id),
    [server.organizationId],
  );
  assert.deepEqual(Object.keys(second).sort(), ['client', 'created_at', 'id', 'last_used_at', 'organizations', 'scopes']);
  for (const grant of [older, newer]) {
    assert.equal(res.text.includes(grant.accessToken), false);
    assert.equal(res.text.includes(grant.refreshToken), false);
  }

  const theirList = await list(otherCookie);
  assert.deepEqual(
    theirList.body.data.map((a: { id: string }) => a.id),
    [theirs.id],
    'each user sees their own',
  );

  const paged = await list(cookie, '?limit=1');
  assert.deepEqual(
    paged.body.data.map((a: { id: string }) => a.id),
    [newer.id],
  );
  const rest = await list(cookie, `?limit=1&cursor=${paged.body.meta.next_cursor}`);
  assert.equal(rest.body.data[0].id, older.id);
  assert.equal((await list(cookie, '?cursor=forged')).status, 400);
  for (const g of [older, newer]) await request(server, 'DELETE', `/v1/auth/authorizations/${g.id}`, { cookie });
});

test('signing in again revokes no grant and no token', async () => {
  const grant = await createGrant(server, { client: cli, userId: ownerId, organizationIds: [server.organizationId] });
  const again = await loginCookie(server);
  assert.notEqual(again, cookie);
  const res = await list(again);
  assert.equal(
    res.body.data.some((a: { id: string }) => a.id === grant.id),
    true,
  );
  const tokens = await tokensOf(grant.id);
  assert.equal(tokens.length, 2);
  assert.ok(
    tokens.every((t) => t.revokedAt === null),
    'the tokens are untouched',
  );
  await request(server, 'DELETE', `/v1/auth/authorizations/${grant.id}`, { cookie });
});

test('revoking a grant revokes it and every token it issued; once', async () => {
  const grant = await createGrant(server, { client: cli, userId: ownerId, organizationIds: [server.organizationId] });
  const kept = await createGrant(server, { client: cli, userId: ownerId, organizationIds: [server.organizationId] });
  const res = await request(server, 'DELETE', `/v1/auth/authorizations/${grant.id}`, { cookie });
  assert.equal(res.status, 204, res.text);
  const [row] = await server.container.database.db.select().from(oauthGrants).where(eq(oauthGrants.id, grant.id));
  assert.ok(row!.revokedAt, 'the grant is revoked');
  const tokens = await tokensOf(grant.id);
  assert.equal(tokens.length, 2);
  assert.ok(
    tokens.every((t) => t.revokedAt !== null),
    'every token of it is revoked',
  );
  assert.ok(
    (await tokensOf(kept.id)).every((t) => t.revokedAt === null),
    "another grant's tokens are not",
  );
  assert.deepEqual(
    (await list()).body.data.map((a: { id: string }) => a.id),
    [kept.id],
  );
  const again = await request(server, 'DELETE', `/v1/auth/authorizations/${grant.id}`, { cookie });
  assert.equal(again.status, 404);
  assert.equal(again.body.detail, 'authorization not found');
  await request(server, 'DELETE', `/v1/auth/authorizations/${kept.id}`, { cookie });
});

test("another user's grant is not found, and stays as it was", async () => {
  const theirs = await createGrant(server, { client: cli, userId: other.userId, organizationIds: [other.organizationId] });
  const res = await request(server, 'DELETE', `/v1/auth/authorizations/${theirs.id}`, { cookie });
  const unknown = await request(server, 'DELETE', '/v1/auth/authorizations/0196b1f2-0a00-7000-8000-000000000999', { cookie });
  assert.equal(res.status, 404, res.text);
  assert.equal(res.body.detail, unknown.body.detail);
  assert.equal((await request(server, 'DELETE', '/v1/auth/authorizations/not-a-uuid', { cookie })).status, 404);
  assert.equal((await request(server, 'DELETE', `/v1/auth/authorizations/${'a'.repeat(65)}`, { cookie })).status, 400);
  assert.ok((await tokensOf(theirs.id)).every((t) => t.revokedAt === null));
  assert.ok(
    (await list(otherCookie)).body.data.some((a: { id: string }) => a.id === theirs.id),
    'still listed for its user',
  );
});

test('a dashboard session only: API keys get 403, no credential 401', async () => {
  const grant = await createGrant(server, { client: cli, userId: ownerId, organizationIds: [server.organizationId] });
  for (const [method, path] of [
    ['GET', '/v1/auth/authorizations'],
    ['DELETE', `/v1/auth/authorizations/${grant.id}`],
  ] as const) {
    const byKey = await request(server, method, path, { key: server.apiKey });
    assert.equal(byKey.status, 403, byKey.text);
    assert.equal(byKey.body.detail, 'this operation needs a dashboard session');
    const anonymous = await request(server, method, path);
    assert.equal(anonymous.status, 401);
  }
  assert.ok(
    (await tokensOf(grant.id)).every((t) => t.revokedAt === null),
    'nothing revoked',
  );
});
