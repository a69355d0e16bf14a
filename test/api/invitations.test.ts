/**
 * Invitations through real HTTP: the one-time link (shown once, only its hash stored, expiring),
 * lookup, accepting as a new user (signed up and signed in) and as an existing signed-in user, the
 * refusals (another email, an account that must sign in, used, cancelled, expired), who may invite
 * whom, the throttle on unknown links, and bad input storing nothing.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { queryRows } from '../../src/db/client.ts';
import { sha256Hex } from '../../src/lib/crypto.ts';
import { createOtherOrganization, loginCookie, movableClock, request, startTestServer, type TestServer } from '../harness.ts';
import { cookieFrom, inviteNewMember, MEMBER_PASSWORD } from '../org-helpers.ts';

let server: TestServer;
let owner: string;
const clock = movableClock();

before(async () => {
  server = await startTestServer({ clock, env: { INVITATION_TTL: '1h' } });
  owner = await loginCookie(server);
});
after(async () => {
  await server?.close();
});

const invitationsPath = () => `/v1/organizations/${server.organizationId}/invitations`;
const invite = (body: unknown, as: { cookie?: string; key?: string } = { cookie: owner }) =>
  request(server, 'POST', invitationsPath(), { ...as, body });

async function count(table: string): Promise<number> {
  const [row] = await queryRows<{ n: number }>(server.container.database.db, sql`select count(*)::int as n from ${sql.identifier(table)}`);
  return row!.n;
}

test('an invitation answers its one-time link once; only its hash is stored; a new user signs up through it', async () => {
  const created = await invite({ email: 'Newcomer@Example.com', role: 'admin' });
  assert.equal(created.status, 201, created.text);
  const { token, url, id, mailed } = created.body.data;
  assert.match(token, /^pli_[A-Za-z0-9_-]{40,}$/);
  assert.equal(url, `${server.config.appUrl}/invitations#token=${token}`);
  assert.equal(mailed, false, 'no SMTP_URL: nothing is mailed');
  const [row] = await queryRows<{ token_hash: string }>(
    server.container.database.db,
    sql`select token_hash from invitations where id = ${id}`,
  );
  assert.equal(row!.token_hash, sha256Hex(token));
  const stored = await queryRows<{ t: string }>(server.container.database.db, sql`select row_to_json(i)::text as t from invitations i`);
  assert.ok(
    stored.every((r) => !r.t.includes(token)),
    'the token itself is stored nowhere',
  );

  const listed = await request(server, 'GET', invitationsPath(), { cookie: owner });
  assert.equal(listed.status, 200);
  const shown = listed.body.data.find((i: { id: string }) => i.id === id);
  assert.equal(shown.role, 'admin');
  assert.equal('token' in shown || 'url' in shown, false, 'the link is never shown again');

  const lookup = await request(server, 'POST', '/v1/invitations/lookup', { body: { token } });
  assert.equal(lookup.status, 200, lookup.text);
  assert.deepEqual(
    { ...lookup.body.data, expires_at: undefined },
    {
      organization_name: 'My organization',
      role: 'admin',
      email: 'Newcomer@Example.com',
      inviter_name: 'Owner',
      account_exists: false,
      expires_at: undefined,
    },
  );

  const accepted = await request(server, 'POST', '/v1/invitations/accept', {
    body: { token, name: 'New Comer', password: MEMBER_PASSWORD },
  });
  assert.equal(accepted.status, 200, accepted.text);
  assert.equal(accepted.body.data.created, true);
  assert.equal(accepted.body.data.organization_id, server.organizationId);
  const session = await request(server, 'GET', '/v1/auth/session', { cookie: cookieFrom(accepted) });
  assert.equal(session.status, 200);
  assert.equal(session.body.data.user.email, 'Newcomer@Example.com');
  assert.equal(session.body.data.role, 'admin');
  assert.equal(session.body.data.organization_id, server.organizationId);
  // The password works for logging in later.
  await loginCookie(server, 'newcomer@example.com', MEMBER_PASSWORD);

  const again = await request(server, 'POST', '/v1/invitations/accept', { body: { token, name: 'Twice', password: MEMBER_PASSWORD } });
  assert.equal(again.status, 410, again.text);
  assert.equal((await request(server, 'POST', '/v1/invitations/lookup', { body: { token } })).status, 410);
  assert.equal(
    (await request(server, 'GET', invitationsPath(), { cookie: owner })).body.data.some((i: { id: string }) => i.id === id),
    false,
    'no longer pending',
  );
});

test('an existing user accepts while signed in, with the same email only; signed out they are told to sign in', async () => {
  const other = await createOtherOrganization(server, 'existing');
  const stranger = await createOtherOrganization(server, 'stranger');
  const created = await invite({ email: other.email.toUpperCase(), role: 'member' });
  assert.equal(created.status, 201, created.text);
  const { token } = created.body.data;
  assert.equal((await request(server, 'POST', '/v1/invitations/lookup', { body: { token } })).body.data.account_exists, true);

  const users = await count('users');
  const signedOut = await request(server, 'POST', '/v1/invitations/accept', {
    body: { token, name: 'Impostor', password: MEMBER_PASSWORD },
  });
  assert.equal(signedOut.status, 409, signedOut.text);
  assert.match(signedOut.body.detail, /sign in/);
  assert.equal(await count('users'), users);

  const wrongUser = await request(server, 'POST', '/v1/invitations/accept', {
    cookie: await loginCookie(server, stranger.email, stranger.password),
    body: { token },
  });
  assert.equal(wrongUser.status, 403, wrongUser.text);

  const cookie = await loginCookie(server, other.email, other.password);
  const accepted = await request(server, 'POST', '/v1/invitations/accept', { cookie, body: { token } });
  assert.equal(accepted.status, 200, accepted.text);
  assert.equal(accepted.body.data.created, false);
  assert.equal(accepted.headers.get('set-cookie'), null, 'the existing session is kept');
  const mine = await request(server, 'GET', '/v1/organizations', { cookie });
  assert.deepEqual(
    mine.body.data.map((o: { id: string; role: string }) => [o.id, o.role]),
    [
      [other.organizationId, 'owner'],
      [server.organizationId, 'member'],
    ],
  );
  // The strangers' attempt did not make them a member.
  const members = await request(server, 'GET', `/v1/organizations/${server.organizationId}/members`, { cookie: owner });
  assert.equal(
    members.body.data.some((m: { email: string }) => m.email === stranger.email),
    false,
  );
});

test('who may invite whom: an admin not an owner, a member nobody; an existing member is a conflict on /email', async () => {
  const admin = await inviteNewMember(server, { cookie: owner }, server.organizationId, 'admin', 'inviting-admin');
  const member = await inviteNewMember(server, { cookie: owner }, server.organizationId, 'member', 'plain-member');
  const byAdmin = await invite({ email: 'would-be-owner@example.com', role: 'owner' }, { cookie: admin.cookie });
  assert.equal(byAdmin.status, 403, byAdmin.text);
  assert.match(byAdmin.body.detail, /only an owner/);
  assert.equal((await invite({ email: 'colleague@example.com', role: 'admin' }, { cookie: admin.cookie })).status, 201);
  assert.equal((await invite({ email: 'other@example.com', role: 'member' }, { cookie: member.cookie })).status, 403);
  assert.equal((await invite({ email: 'by-key@example.com', role: 'owner' }, { key: server.apiKey })).status, 403, 'a key is no owner');
  assert.equal((await invite({ email: 'by-key@example.com', role: 'member' }, { key: server.apiKey })).status, 201);

  const existing = await invite({ email: member.email.toUpperCase(), role: 'member' });
  assert.equal(existing.status, 409, existing.text);
  assert.deepEqual(
    existing.body.errors.map((e: { pointer: string; location: string }) => [e.pointer, e.location]),
    [['/email', 'body']],
  );
});

test('a cancelled, replaced or expired link is gone', async () => {
  const first = await invite({ email: 'replaced@example.com', role: 'member' });
  const second = await invite({ email: 'replaced@example.com', role: 'admin' });
  assert.equal(
    (await request(server, 'POST', '/v1/invitations/lookup', { body: { token: first.body.data.token } })).status,
    410,
    'replaced',
  );
  assert.equal(
    (await request(server, 'POST', '/v1/invitations/lookup', { body: { token: second.body.data.token } })).body.data.role,
    'admin',
  );

  const cancelled = await request(server, 'DELETE', `${invitationsPath()}/${second.body.data.id}`, { cookie: owner });
  assert.equal(cancelled.status, 204, cancelled.text);
  assert.equal(
    (await request(server, 'DELETE', `${invitationsPath()}/${second.body.data.id}`, { cookie: owner })).status,
    404,
    'cancelled once',
  );
  const afterCancel = await request(server, 'POST', '/v1/invitations/accept', {
    body: { token: second.body.data.token, name: 'Late', password: MEMBER_PASSWORD },
  });
  assert.equal(afterCancel.status, 410, afterCancel.text);

  const expiring = await invite({ email: 'slow@example.com', role: 'member' });
  clock.advance(61 * 60_000);
  const users = await count('users');
  const expired = await request(server, 'POST', '/v1/invitations/accept', {
    body: { token: expiring.body.data.token, name: 'Slow', password: MEMBER_PASSWORD },
  });
  assert.equal(expired.status, 410, expired.text);
  assert.match(expired.body.detail, /expired/);
  assert.equal(await count('users'), users);
  assert.equal(
    (await request(server, 'GET', invitationsPath(), { cookie: owner })).body.data.some(
      (i: { email: string }) => i.email === 'slow@example.com',
    ),
    false,
    'expired: not pending',
  );
});

test('bad input: the documented error naming the field, and nothing stored', async () => {
  const invitations = await count('invitations');
  const cases: Array<[string, { body?: unknown; rawBody?: string; contentType?: string }, number, string | undefined]> = [
    ['missing email', { body: { role: 'member' } }, 400, '/email'],
    ['not an email', { body: { email: 'nobody', role: 'member' } }, 400, '/email'],
    ['oversized email', { body: { email: `${'a'.repeat(320)}@example.com`, role: 'member' } }, 400, '/email'],
    ['unknown role', { body: { email: 'x@example.com', role: 'king' } }, 400, '/role'],
    ['malformed JSON', { rawBody: '{"email":' }, 400, undefined],
    ['wrong content type', { rawBody: 'email=x@example.com', contentType: 'text/plain' }, 415, undefined],
  ];
  for (const [label, options, status, pointer] of cases) {
    const res = await request(server, 'POST', invitationsPath(), { cookie: owner, ...options });
    assert.equal(res.status, status, `${label}: ${res.text}`);
    if (pointer) assert.equal(res.body.errors?.[0]?.pointer, pointer, label);
  }
  assert.equal(await count('invitations'), invitations, 'no invitation stored');

  for (const [label, body, pointer] of [
    ['missing token', {}, '/token'],
    ['not an invitation token', { token: 'prl_abcdefghijklmnop' }, '/token'],
    ['oversized token', { token: `pli_${'a'.repeat(300)}` }, '/token'],
    ['wrong type', { token: 7 }, '/token'],
  ] as const) {
    for (const path of ['/v1/invitations/lookup', '/v1/invitations/accept']) {
      const res = await request(server, 'POST', path, { body });
      assert.equal(res.status, 400, `${path} ${label}: ${res.text}`);
      assert.equal(res.body.errors?.[0]?.pointer, pointer, `${path} ${label}`);
    }
  }
  assert.equal(
    (await request(server, 'POST', '/v1/invitations/accept', { rawBody: 'token=x', contentType: 'application/x-www-form-urlencoded' }))
      .status,
    415,
  );

  const { token } = (await invite({ email: 'careful@example.com', role: 'member' })).body.data;
  const users = await count('users');
  for (const [label, body, pointers] of [
    ['no name or password', { token }, ['/name', '/password']],
    ['no password', { token, name: 'Careful' }, ['/password']],
    ['short password', { token, name: 'Careful', password: 'short' }, ['/password']],
    ['oversized name', { token, name: 'n'.repeat(201), password: MEMBER_PASSWORD }, ['/name']],
  ] as const) {
    const res = await request(server, 'POST', '/v1/invitations/accept', { body });
    assert.equal(res.status, 400, `${label}: ${res.text}`);
    assert.deepEqual(
      res.body.errors.map((e: { pointer: string }) => e.pointer),
      pointers,
      label,
    );
  }
  assert.equal(await count('users'), users, 'nobody signed up');
  assert.equal((await request(server, 'POST', '/v1/invitations/lookup', { body: { token } })).status, 200, 'the link still works');
});

// Last: it leaves this address throttled.
test('unknown links from one address are throttled: 429 with Retry-After, a real link included', async () => {
  const { token } = (await invite({ email: 'throttled@example.com', role: 'member' })).body.data;
  let refused: Awaited<ReturnType<typeof request>> | undefined;
  for (let i = 0; i < 20 && !refused; i++) {
    const res = await request(server, 'POST', '/v1/invitations/lookup', { body: { token: `pli_guess${i}xxxxxxxxxxxxxxxxxxxx` } });
    if (res.status === 429) refused = res;
    else assert.equal(res.status, 404, res.text);
  }
  assert.ok(refused, 'guessing is throttled');
  assert.ok(Number(refused.headers.get('retry-after')) >= 1);
  assert.equal(
    (await request(server, 'POST', '/v1/invitations/accept', { body: { token, name: 'Blocked', password: MEMBER_PASSWORD } })).status,
    429,
    'nothing is looked up while throttled',
  );
  clock.advance(16 * 60_000);
  assert.equal((await request(server, 'POST', '/v1/invitations/lookup', { body: { token } })).status, 200, 'the wait ends');
});
