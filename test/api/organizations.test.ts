/**
 * Organizations and members through real HTTP: create, list, rename, leave; role changes and their
 * effect on the very next request; a removal ending the member's sessions, API keys and OAuth access
 * in that organization only; nothing of one organization reachable with anything of another; bad input.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { queryRows } from '../../src/db/client.ts';
import { oauthGrantOrganizations, oauthGrants, oauthTokens } from '../../src/db/schema.ts';
import { openSession } from '../../src/domain/sessions/sessions.ts';
import { randomToken, sha256Hex } from '../../src/lib/crypto.ts';
import { uuidv7 } from '../../src/lib/ids.ts';
import { checkAuthCases } from '../auth-cases.ts';
import { createOtherOrganization, loginCookie, request, startTestServer, type TestServer } from '../harness.ts';
import { createOAuthClient } from '../oauth-client-fixture.ts';
import { inviteNewMember } from '../org-helpers.ts';

let server: TestServer;
let owner: string;

before(async () => {
  server = await startTestServer();
  owner = await loginCookie(server);
});
after(async () => {
  await server?.close();
});

const orgPath = (id: string, rest = '') => `/v1/organizations/${id}${rest}`;

async function count(table: string, where = sql`true`): Promise<number> {
  const [row] = await queryRows<{ n: number }>(
    server.container.database.db,
    sql`select count(*)::int as n from ${sql.identifier(table)} where ${where}`,
  );
  return row!.n;
}

test('a signed-in user creates an organization, becomes its owner, lists, reads and renames it', async () => {
  const created = await request(server, 'POST', '/v1/organizations', { cookie: owner, body: { name: '  Second Org  ' } });
  assert.equal(created.status, 201, created.text);
  assert.equal(created.body.data.name, 'Second Org');
  assert.equal(created.body.data.role, 'owner');
  const id = created.body.data.id as string;

  const listed = await request(server, 'GET', '/v1/organizations', { cookie: owner });
  assert.equal(listed.status, 200);
  assert.deepEqual(
    listed.body.data.map((o: { id: string; role: string }) => [o.id, o.role]),
    [
      [server.organizationId, 'owner'],
      [id, 'owner'],
    ],
  );

  // The new organization's own routes, and any route through X-Organization-Id.
  const read = await request(server, 'GET', orgPath(id), { cookie: owner });
  assert.equal(read.status, 200, read.text);
  const members = await request(server, 'GET', orgPath(id, '/members'), { cookie: owner });
  assert.equal(members.body.data.length, 1);
  assert.equal(members.body.data[0].role, 'owner');
  const session = await request(server, 'GET', '/v1/auth/session', { cookie: owner, headers: { 'x-organization-id': id } });
  assert.equal(session.body.data.organization_id, id);

  const renamed = await request(server, 'PATCH', orgPath(id), { cookie: owner, body: { name: 'Renamed Org' } });
  assert.equal(renamed.status, 200, renamed.text);
  assert.equal((await request(server, 'GET', orgPath(id), { cookie: owner })).body.data.name, 'Renamed Org');

  // An API key sees its own organization only, with no role; it cannot create organizations.
  const byKey = await request(server, 'GET', '/v1/organizations', { key: server.apiKey });
  assert.deepEqual(
    byKey.body.data.map((o: { id: string; role: null }) => [o.id, o.role]),
    [[server.organizationId, null]],
  );
  const keyCreates = await request(server, 'POST', '/v1/organizations', { key: server.apiKey, body: { name: 'By key' } });
  assert.equal(keyCreates.status, 403, keyCreates.text);
});

test('the last owner cannot leave; a member who leaves loses the organization at once', async () => {
  const { id } = (await request(server, 'POST', '/v1/organizations', { cookie: owner, body: { name: 'Leaving Org' } })).body.data;
  const refused = await request(server, 'POST', orgPath(id, '/leave'), { cookie: owner });
  assert.equal(refused.status, 409, refused.text);
  assert.match(refused.body.detail, /last owner/);
  const member = await inviteNewMember(server, { cookie: owner }, id, 'member', 'leaver');
  assert.equal((await request(server, 'GET', orgPath(id), { cookie: member.cookie })).status, 200);
  const left = await request(server, 'POST', orgPath(id, '/leave'), { cookie: member.cookie });
  assert.equal(left.status, 204, left.text);
  // Their session was in that organization: it ended with the membership.
  assert.equal((await request(server, 'GET', '/v1/auth/session', { cookie: member.cookie })).status, 401);
  const members = await request(server, 'GET', orgPath(id, '/members'), { cookie: owner });
  assert.deepEqual(members.body.data.map((m: { user_id: string }) => m.user_id).includes(member.userId), false);
  // A key cannot leave: there is nobody to leave.
  assert.equal((await request(server, 'POST', orgPath(server.organizationId, '/leave'), { key: server.apiKey })).status, 403);
});

test('role changes apply on the next request; only an owner makes owners; the last owner cannot be demoted', async () => {
  const { id } = (await request(server, 'POST', '/v1/organizations', { cookie: owner, body: { name: 'Roles Org' } })).body.data;
  const member = await inviteNewMember(server, { cookie: owner }, id, 'member', 'climber');
  const rename = () => request(server, 'PATCH', orgPath(id), { cookie: member.cookie, body: { name: 'Climber was here' } });
  const refused = await rename();
  assert.equal(refused.status, 403, refused.text);
  assert.match(refused.body.detail, /members:write/);

  const promoted = await request(server, 'PATCH', orgPath(id, `/members/${member.userId}`), { cookie: owner, body: { role: 'admin' } });
  assert.equal(promoted.status, 200, promoted.text);
  assert.equal(promoted.body.data.role, 'admin');
  assert.equal((await rename()).status, 200, 'the same session renames on its next request');

  // An admin neither makes owners nor unmakes them, nor removes one.
  const ownerId = (await request(server, 'GET', '/v1/auth/session', { cookie: owner })).body.data.user.id as string;
  assert.equal(
    (await request(server, 'PATCH', orgPath(id, `/members/${member.userId}`), { cookie: member.cookie, body: { role: 'owner' } })).status,
    403,
  );
  assert.equal(
    (await request(server, 'PATCH', orgPath(id, `/members/${ownerId}`), { cookie: member.cookie, body: { role: 'member' } })).status,
    403,
  );
  assert.equal((await request(server, 'DELETE', orgPath(id, `/members/${ownerId}`), { cookie: member.cookie })).status, 403);

  // The last owner cannot be demoted (or removed); with a second owner, they can.
  const lastOwner = await request(server, 'PATCH', orgPath(id, `/members/${ownerId}`), { cookie: owner, body: { role: 'admin' } });
  assert.equal(lastOwner.status, 409, lastOwner.text);
  assert.equal((await request(server, 'DELETE', orgPath(id, `/members/${ownerId}`), { cookie: owner })).status, 409);
  assert.equal(
    (await request(server, 'PATCH', orgPath(id, `/members/${member.userId}`), { cookie: owner, body: { role: 'owner' } })).status,
    200,
  );
  const demoted = await request(server, 'PATCH', orgPath(id, `/members/${ownerId}`), { cookie: member.cookie, body: { role: 'member' } });
  assert.equal(demoted.status, 200, demoted.text);
  // The former owner lost members:write on their next request.
  const formerOwner = await request(server, 'PATCH', orgPath(id), { cookie: owner, body: { name: 'Back' } });
  assert.equal(formerOwner.status, 403, formerOwner.text);
  assert.equal((await request(server, 'GET', orgPath(id), { cookie: owner })).body.data.role, 'member');

  assert.equal(
    (await request(server, 'PATCH', orgPath(id, `/members/${randomUUID()}`), { cookie: member.cookie, body: { role: 'admin' } })).status,
    404,
  );
});

test("a removal ends the member's session, API keys and OAuth access in that organization, and nothing elsewhere", async () => {
  const db = server.container.database.db;
  const clock = server.container.clock;
  const { id: orgA } = (await request(server, 'POST', '/v1/organizations', { cookie: owner, body: { name: 'Removal Org' } })).body.data;
  const member = await inviteNewMember(server, { cookie: owner }, orgA, 'admin', 'removed');
  // The member's own organization C, and a session acting there.
  const { id: orgC } = (await request(server, 'POST', '/v1/organizations', { cookie: member.cookie, body: { name: 'Member Own Org' } }))
    .body.data;
  const inC = await openSession({ db, clock, ttlHours: 1 }, { userId: member.userId, organizationId: orgC, ip: '127.0.0.1' });
  const cookieC = `parley_session=${inC.token}`;
  server.registerSensitive('a session cookie', inC.token);

  const keyA = await request(server, 'POST', '/v1/api-keys', {
    cookie: member.cookie,
    body: { name: 'member key A', permissions: ['channels:read'] },
  });
  assert.equal(keyA.status, 201, keyA.text);
  const keyC = await request(server, 'POST', '/v1/api-keys', {
    cookie: cookieC,
    body: { name: 'member key C', permissions: ['channels:read'] },
  });
  assert.equal(keyC.status, 201, keyC.text);
  const ownersKey = await request(server, 'POST', '/v1/api-keys', {
    cookie: owner,
    headers: { 'x-organization-id': orgA },
    body: { name: 'owner key A', permissions: ['channels:read'] },
  });
  assert.equal(ownersKey.status, 201);
  // Used once: the keys are in the process cache now.
  for (const key of [keyA.body.data.secret, keyC.body.data.secret, ownersKey.body.data.secret]) {
    assert.equal((await request(server, 'GET', '/v1/channels', { key })).status, 200);
  }

  // OAuth: one grant reaching A and C, one reaching A only, each with a token.
  const client = await createOAuthClient(server);
  const now = clock.now();
  const grants = { both: uuidv7(), onlyA: uuidv7() };
  for (const [grant, orgs] of [
    [grants.both, [orgA, orgC]],
    [grants.onlyA, [orgA]],
  ] as const) {
    await db
      .insert(oauthGrants)
      .values({ id: grant, clientId: client.id, userId: member.userId, scopes: ['channels:read'], createdAt: now });
    await db.insert(oauthGrantOrganizations).values(orgs.map((organizationId) => ({ grantId: grant, organizationId })));
    await db.insert(oauthTokens).values({
      id: uuidv7(),
      grantId: grant,
      kind: 'access',
      tokenHash: sha256Hex(randomToken(32)),
      scopes: ['channels:read'],
      createdAt: now,
      expiresAt: new Date(now.getTime() + 3_600_000),
    });
  }

  const removed = await request(server, 'DELETE', orgPath(orgA, `/members/${member.userId}`), { cookie: owner });
  assert.equal(removed.status, 204, removed.text);

  // In A: the session that acted there, the key they made there: gone at once.
  assert.equal((await request(server, 'GET', '/v1/auth/session', { cookie: member.cookie })).status, 401);
  const deadKey = await request(server, 'GET', '/v1/channels', { key: keyA.body.data.secret });
  assert.equal(deadKey.status, 401, 'the revoked key is forgotten by the cache');
  assert.equal((await request(server, 'GET', orgPath(orgA), { cookie: cookieC })).status, 404, 'the session of C does not reach A');
  assert.equal((await request(server, 'GET', '/v1/channels', { cookie: cookieC, headers: { 'x-organization-id': orgA } })).status, 403);
  // Elsewhere: C's session and key, and the owner's key of A, still work.
  assert.equal((await request(server, 'GET', '/v1/auth/session', { cookie: cookieC })).status, 200);
  assert.deepEqual(
    (await request(server, 'GET', '/v1/organizations', { cookie: cookieC })).body.data.map((o: { id: string }) => o.id),
    [orgC],
  );
  assert.equal((await request(server, 'GET', '/v1/channels', { key: keyC.body.data.secret })).status, 200);
  assert.equal((await request(server, 'GET', '/v1/channels', { key: ownersKey.body.data.secret })).status, 200);

  const reach = await queryRows<{ grant_id: string; organization_id: string }>(
    db,
    sql`select grant_id, organization_id from oauth_grant_organizations where grant_id in (${grants.both}, ${grants.onlyA})`,
  );
  assert.deepEqual(
    reach.map((r) => [r.grant_id, r.organization_id]),
    [[grants.both, orgC]],
  );
  const state = await queryRows<{ id: string; revoked: boolean; tokens_live: number }>(
    db,
    sql`select g.id, g.revoked_at is not null as revoked, (select count(*)::int from oauth_tokens t where t.grant_id = g.id and t.revoked_at is null) as tokens_live from oauth_grants g where g.id in (${grants.both}, ${grants.onlyA})`,
  );
  const byId = Object.fromEntries(state.map((s) => [s.id, s]));
  assert.deepEqual(
    { revoked: byId[grants.both]!.revoked, live: byId[grants.both]!.tokens_live },
    { revoked: false, live: 1 },
    'the grant reaching C stays',
  );
  assert.deepEqual(
    { revoked: byId[grants.onlyA]!.revoked, live: byId[grants.onlyA]!.tokens_live },
    { revoked: true, live: 0 },
    'the grant reaching only A is revoked with its tokens',
  );

  assert.equal(
    (await request(server, 'DELETE', orgPath(orgA, `/members/${member.userId}`), { cookie: owner })).status,
    404,
    'removed once',
  );
});

test('nothing of organization A is reachable with anything of organization B', async () => {
  const b = await createOtherOrganization(server, 'orgs-b');
  const bCookie = await loginCookie(server, b.email, b.password);
  const a = server.organizationId;
  const unknown = randomUUID();
  const invitation = await request(server, 'POST', orgPath(a, '/invitations'), {
    cookie: owner,
    body: { email: 'pending-a@example.com', role: 'member' },
  });
  assert.equal(invitation.status, 201);
  const ownerId = (await request(server, 'GET', '/v1/auth/session', { cookie: owner })).body.data.user.id as string;
  const before = {
    org: (await request(server, 'GET', orgPath(a), { cookie: owner })).text,
    members: (await request(server, 'GET', orgPath(a, '/members'), { cookie: owner })).text,
  };
  const ops: Array<[string, (org: string) => string, unknown?]> = [
    ['GET', (o) => orgPath(o)],
    ['PATCH', (o) => orgPath(o), { name: 'Taken' }],
    ['POST', (o) => orgPath(o, '/leave')],
    ['GET', (o) => orgPath(o, '/members')],
    ['PATCH', (o) => orgPath(o, `/members/${ownerId}`), { role: 'member' }],
    ['DELETE', (o) => orgPath(o, `/members/${ownerId}`)],
    ['GET', (o) => orgPath(o, '/invitations')],
    ['POST', (o) => orgPath(o, '/invitations'), { email: 'intruder@example.com', role: 'owner' }],
    ['DELETE', (o) => orgPath(o, `/invitations/${invitation.body.data.id}`)],
  ];
  for (const [method, path, body] of ops) {
    for (const [label, as] of [
      ['B key', { key: b.apiKey }],
      ['B session', { cookie: bCookie }],
    ] as const) {
      const real = await request(server, method, path(a), { ...as, body });
      const fake = await request(server, method, path(unknown), { ...as, body });
      assert.equal(real.status, 404, `${method} ${path(a)} with ${label}: ${real.status} ${real.text}`);
      assert.deepEqual(
        [real.status, real.body.detail],
        [fake.status, fake.body.detail],
        `${method} with ${label}: A answers like an unknown organization`,
      );
    }
  }
  assert.equal((await request(server, 'GET', orgPath(a), { cookie: owner })).text, before.org);
  assert.equal((await request(server, 'GET', orgPath(a, '/members'), { cookie: owner })).text, before.members);
  assert.equal((await request(server, 'GET', orgPath(a, '/invitations'), { cookie: owner })).body.data.length, 1, "A's invitation stays");
  const bList = await request(server, 'GET', '/v1/organizations', { cookie: bCookie });
  assert.deepEqual(
    bList.body.data.map((o: { id: string }) => o.id),
    [b.organizationId],
  );

  // A header naming another organization than the path is a contradiction; a path id that is no id is unknown.
  const contradiction = await request(server, 'GET', orgPath(a), { cookie: owner, headers: { 'x-organization-id': b.organizationId } });
  assert.equal(contradiction.status, 400, contradiction.text);
  assert.equal(contradiction.body.errors[0].pointer, '/x-organization-id');
  assert.equal((await request(server, 'GET', orgPath('not-an-id'), { cookie: owner })).status, 404);
  assert.equal((await request(server, 'GET', orgPath('not-an-id'))).status, 401, 'no credential: 401 before anything');
});

test('the auth cases of every organization route', async () => {
  const a = server.organizationId;
  const user = randomUUID();
  await checkAuthCases(server, [
    { method: 'GET', path: '/v1/organizations' },
    { method: 'GET', path: orgPath(a) },
    { method: 'PATCH', path: orgPath(a), body: { name: 'x' }, permission: 'members:write' },
    { method: 'GET', path: orgPath(a, '/members'), permission: 'members:read' },
    { method: 'PATCH', path: orgPath(a, `/members/${user}`), body: { role: 'member' }, permission: 'members:write' },
    { method: 'DELETE', path: orgPath(a, `/members/${user}`), permission: 'members:write' },
    { method: 'GET', path: orgPath(a, '/invitations'), permission: 'members:read' },
    { method: 'POST', path: orgPath(a, '/invitations'), body: { email: 'x@example.com', role: 'member' }, permission: 'members:write' },
    { method: 'DELETE', path: orgPath(a, `/invitations/${user}`), permission: 'members:write' },
  ]);
});

test('bad input: the documented error naming the field, and nothing stored', async () => {
  const organizations = await count('organizations');
  const cases: Array<[string, { body?: unknown; rawBody?: string; contentType?: string }, number, string | undefined]> = [
    ['missing name', { body: {} }, 400, '/name'],
    ['empty name', { body: { name: '   ' } }, 400, '/name'],
    ['oversized name', { body: { name: 'x'.repeat(201) } }, 400, '/name'],
    ['wrong type', { body: { name: 42 } }, 400, '/name'],
    ['malformed JSON', { rawBody: '{"name":' }, 400, undefined],
    ['wrong content type', { rawBody: 'name=x', contentType: 'application/x-www-form-urlencoded' }, 415, undefined],
  ];
  for (const [label, options, status, pointer] of cases) {
    const res = await request(server, 'POST', '/v1/organizations', { cookie: owner, ...options });
    assert.equal(res.status, status, `${label}: ${res.text}`);
    if (pointer) assert.equal(res.body.errors?.[0]?.pointer, pointer, label);
  }
  assert.equal(await count('organizations'), organizations, 'no organization stored');
  const a = server.organizationId;
  const name = (await request(server, 'GET', orgPath(a), { cookie: owner })).body.data.name;
  assert.equal((await request(server, 'PATCH', orgPath(a), { cookie: owner, body: { name: '' } })).status, 400);
  assert.equal((await request(server, 'GET', orgPath(a), { cookie: owner })).body.data.name, name);
  const ownerId = (await request(server, 'GET', '/v1/auth/session', { cookie: owner })).body.data.user.id as string;
  const badRole = await request(server, 'PATCH', orgPath(a, `/members/${ownerId}`), { cookie: owner, body: { role: 'god' } });
  assert.equal(badRole.status, 400, badRole.text);
  assert.equal(badRole.body.errors[0].pointer, '/role');
  assert.equal((await request(server, 'GET', orgPath(a), { cookie: owner })).body.data.role, 'owner');
  assert.equal((await request(server, 'PATCH', orgPath(a, '/members/not-an-id'), { cookie: owner, body: { role: 'member' } })).status, 404);
});
