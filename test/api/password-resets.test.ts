/**
 * Password-reset links: POST /v1/organizations/{organizationID}/members/{userID}/password-reset
 * (owners and admins, members:write) and the public POST /v1/auth/password-reset. One-time, expiring,
 * only hashed at rest, never in a log; redeeming ends every session and voids older links.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { eq } from 'drizzle-orm';
import { passwordResets, users } from '../../src/db/schema.ts';
import { sha256Hex } from '../../src/lib/crypto.ts';
import { addMembership } from '../../src/domain/organizations/organizations.ts';
import {
  createKeyWith,
  createOtherOrganization,
  loginCookie,
  movableClock,
  request,
  startTestServer,
  type TestServer,
} from '../harness.ts';
import { addPerson, signIn, type Person } from '../accounts-fixtures.ts';

let server: TestServer;
const clock = movableClock();
let ownerCookie: string;
before(async () => {
  server = await startTestServer({ clock, env: { PASSWORD_RESET_TTL: '30m', LOGIN_THROTTLE_ADDRESS_FREE_ATTEMPTS: '1000' } });
  ownerCookie = await loginCookie(server);
});
after(() => server.close());

const resetPath = (userId: string, organizationId = server.organizationId) =>
  `/v1/organizations/${organizationId}/members/${userId}/password-reset`;

/** A reset link for the person, made by the owner; its token is registered for the log audit. */
async function makeLink(person: { userId: string }, as: { cookie?: string; key?: string } = { cookie: ownerCookie }) {
  const res = await request(server, 'POST', resetPath(person.userId), as);
  assert.equal(res.status, 201, res.text);
  const token = decodeURIComponent(new URL(res.body.data.url).hash.replace(/^#token=/, ''));
  server.registerSensitive('a password-reset token', token);
  return { res, token };
}

async function redeem(token: string, newPassword: string) {
  return request(server, 'POST', '/v1/auth/password-reset', { body: { token, new_password: newPassword } });
}

async function sessionStatus(cookie: string): Promise<number> {
  return (await request(server, 'GET', '/v1/auth/session', { cookie })).status;
}

async function passwordHashOf(userId: string): Promise<string> {
  const [row] = await server.container.database.db.select({ hash: users.passwordHash }).from(users).where(eq(users.id, userId));
  return row!.hash;
}

describe('making a link', () => {
  test('answers the one-time link once: APP_URL/reset-password with a prefixed token in the fragment; only its SHA-256 is stored', async () => {
    const member = await addPerson(server, 'member');
    const { res, token } = await makeLink(member);
    assert.deepEqual(Object.keys(res.body.data).sort(), ['email', 'expires_at', 'mailed', 'url', 'user_id']);
    assert.equal(res.body.data.user_id, member.userId);
    assert.equal(res.body.data.email, member.email);
    assert.ok(res.body.data.url.startsWith(`${server.config.appUrl}/reset-password#token=plp_`), res.body.data.url);
    assert.match(token, /^plp_[A-Za-z0-9_-]{43}$/);
    const expires = Date.parse(res.body.data.expires_at) - clock.now().getTime();
    assert.ok(expires > 29 * 60_000 && expires <= 30 * 60_000, `expires in ${expires} ms`);
    const rows = await server.container.database.db.select().from(passwordResets).where(eq(passwordResets.userId, member.userId));
    assert.equal(rows.length, 1);
    assert.equal(rows[0]!.tokenHash, sha256Hex(token));
    assert.equal(JSON.stringify(rows).includes(token), false);
    assert.equal(res.headers.get('cache-control'), 'no-store');
  });

  test('an admin resets a member or another admin, but not an owner; an owner resets an owner', async () => {
    const admin = await addPerson(server, 'admin');
    const adminCookie = await signIn(server, admin);
    await makeLink(await addPerson(server, 'member'), { cookie: adminCookie });
    await makeLink(await addPerson(server, 'admin'), { cookie: adminCookie });
    const owner = await addPerson(server, 'owner');
    const refused = await request(server, 'POST', resetPath(owner.userId), { cookie: adminCookie });
    assert.equal(refused.status, 403, refused.text);
    assert.equal(refused.body.detail, "only an owner can reset an owner's password");
    await makeLink(owner, { cookie: ownerCookie });
  });

  test('a member holds no members:write (403); an API key with it resets a member but not an owner', async () => {
    const member = await addPerson(server, 'member');
    const memberCookie = await signIn(server, member);
    const res = await request(server, 'POST', resetPath((await addPerson(server, 'member')).userId), { cookie: memberCookie });
    assert.equal(res.status, 403);
    assert.equal(res.body.permission, 'members:write');
    const key = await createKeyWith(server, ['members:write']);
    await makeLink(await addPerson(server, 'member'), { key });
    const owner = await addPerson(server, 'owner');
    assert.equal((await request(server, 'POST', resetPath(owner.userId), { key })).status, 403);
    const readOnly = await createKeyWith(server, ['members:read']);
    assert.equal((await request(server, 'POST', resetPath(member.userId), { key: readOnly })).status, 403);
  });

  test("another organization's member, an unknown user, another organization's path id and a malformed id all answer 404, and store nothing", async () => {
    const other = await createOtherOrganization(server, 'elsewhere');
    const before = (await server.container.database.db.select().from(passwordResets)).length;
    const answers = [];
    for (const path of [
      resetPath(other.userId),
      resetPath(randomUUID()),
      resetPath((await addPerson(server, 'member')).userId, other.organizationId),
      resetPath('not-a-uuid'),
    ]) {
      const res = await request(server, 'POST', path, { cookie: ownerCookie });
      answers.push([res.status, res.body.detail]);
    }
    // The path's organization decides: one the caller does not reach is as unknown as one that does not exist.
    assert.deepEqual(answers, [
      [404, 'member not found'],
      [404, 'member not found'],
      [404, 'organization not found'],
      [404, 'member not found'],
    ]);
    // And the other organization's owner cannot reach ours.
    const mine = await addPerson(server, 'member');
    const res = await request(server, 'POST', resetPath(mine.userId, server.organizationId), { key: other.apiKey });
    assert.equal(res.status, 404);
    assert.equal((await server.container.database.db.select().from(passwordResets)).length, before);
  });

  test('a person who also belongs to another organization is refused (403): their account is not this organization’s to hand over', async () => {
    const other = await createOtherOrganization(server, 'shared');
    const member = await addPerson(server, 'member');
    await addMembership(
      { db: server.container.database.db, clock: server.container.clock },
      { organizationId: other.organizationId, userId: member.userId, role: 'member' },
    );
    const res = await request(server, 'POST', resetPath(member.userId), { cookie: ownerCookie });
    assert.equal(res.status, 403, res.text);
    assert.match(res.body.detail, /also belongs to another organization/);
  });
});

describe('using a link', () => {
  test('sets the password once, ends every session of the user; a second use is 410', async () => {
    const member = await addPerson(server, 'member');
    const sessions = [await signIn(server, member), await signIn(server, member)];
    const { token } = await makeLink(member);
    const newPassword = 'the reset passphrase';
    const res = await redeem(token, newPassword);
    assert.equal(res.status, 204, res.text);
    for (const cookie of sessions) assert.equal(await sessionStatus(cookie), 401);
    assert.equal(await sessionStatus(ownerCookie), 200, "the owner's session is not the member's");
    assert.equal((await request(server, 'POST', '/v1/auth/login', { body: { email: member.email, password: newPassword } })).status, 200);
    assert.equal(
      (await request(server, 'POST', '/v1/auth/login', { body: { email: member.email, password: member.password } })).status,
      401,
    );
    const again = await redeem(token, 'yet another passphrase');
    assert.equal(again.status, 410, again.text);
    assert.equal(again.body.code, 'gone');
    assert.equal((await request(server, 'POST', '/v1/auth/login', { body: { email: member.email, password: newPassword } })).status, 200);
  });

  test("earlier unused links of the user stop working once one is used; another user's links do not", async () => {
    const member = await addPerson(server, 'member');
    const bystander = await addPerson(server, 'member');
    const first = await makeLink(member);
    const second = await makeLink(member);
    const theirs = await makeLink(bystander);
    assert.equal((await redeem(second.token, 'the second passphrase')).status, 204);
    const old = await redeem(first.token, 'the first passphrase');
    assert.equal(old.status, 410);
    assert.match(old.body.detail, /already used/);
    assert.equal((await redeem(theirs.token, 'the bystander passphrase')).status, 204);
  });

  test('a link expires after PASSWORD_RESET_TTL (410), and the password stays', async () => {
    const member = await addPerson(server, 'member');
    const { token } = await makeLink(member);
    const before = await passwordHashOf(member.userId);
    clock.advance(30 * 60_000 + 1000);
    const res = await redeem(token, 'too late passphrase');
    assert.equal(res.status, 410);
    assert.match(res.body.detail, /expired/);
    assert.equal(await passwordHashOf(member.userId), before);
  });

  test('a password change by the user voids the links made before it', async () => {
    const member = await addPerson(server, 'member');
    const { token } = await makeLink(member);
    const cookie = await signIn(server, member);
    const changed = await request(server, 'POST', '/v1/auth/password', {
      cookie,
      body: { current_password: member.password, new_password: 'changed by myself' },
    });
    assert.equal(changed.status, 200, changed.text);
    assert.equal((await redeem(token, 'the link passphrase')).status, 410);
  });

  test('an unknown token is 404; a bad new password is 400 naming /new_password and leaves the link usable', async () => {
    assert.equal((await redeem(`plp_${'A'.repeat(43)}`, 'whatever passphrase')).status, 404);
    const member = await addPerson(server, 'member');
    const { token } = await makeLink(member);
    const before = await passwordHashOf(member.userId);
    for (const newPassword of ['short', member.email, 'x'.repeat(1025)]) {
      const res = await redeem(token, newPassword);
      assert.equal(res.status, 400, res.text);
      assert.equal(res.body.errors[0].pointer, '/new_password');
    }
    assert.equal(await passwordHashOf(member.userId), before);
    assert.equal((await redeem(token, 'finally a good one')).status, 204);
  });

  test('malformed, missing, oversized and non-JSON bodies are refused with the documented errors', async () => {
    const cases: Array<[unknown, string]> = [
      [{ new_password: 'a fine passphrase' }, '/token'],
      [{ token: 'plp_x' }, '/new_password'],
      [{ token: 'x'.repeat(201), new_password: 'a fine passphrase' }, '/token'],
      [{ token: 5, new_password: 'a fine passphrase' }, '/token'],
    ];
    for (const [body, pointer] of cases) {
      const res = await request(server, 'POST', '/v1/auth/password-reset', { body });
      assert.equal(res.status, 400, res.text);
      assert.equal(res.body.errors[0].pointer, pointer);
    }
    assert.equal((await request(server, 'POST', '/v1/auth/password-reset', { rawBody: '{"token":' })).status, 400);
    assert.equal(
      (await request(server, 'POST', '/v1/auth/password-reset', { rawBody: 'token=x', contentType: 'application/x-www-form-urlencoded' }))
        .status,
      415,
    );
  });

  test('the token never appears in a log line, even when the request fails', async () => {
    const member = await addPerson(server, 'member');
    const { token } = await makeLink(member);
    await redeem(token, 'short');
    await redeem(token, 'a fine passphrase here');
    await redeem(token, 'a fine passphrase here');
    assert.equal(
      server.logs.some((line) => line.includes(token) || line.includes('plp_')),
      false,
    );
  });
});

describe('guessing tokens', () => {
  let guessing: TestServer;
  before(async () => {
    guessing = await startTestServer({ clock, env: { LOGIN_THROTTLE_ADDRESS_FREE_ATTEMPTS: '3' } });
  });
  after(() => guessing.close());

  test('unknown tokens from one address are throttled: 429 with Retry-After, and a real token waits too', async () => {
    const statuses = [];
    for (let i = 0; i < 5; i++) {
      statuses.push(
        (
          await request(guessing, 'POST', '/v1/auth/password-reset', {
            body: { token: `plp_guess_${i}_${'x'.repeat(30)}`, new_password: 'a fine passphrase' },
          })
        ).status,
      );
    }
    assert.deepEqual(statuses, [404, 404, 404, 404, 429]);
    const owner = await loginCookie(guessing);
    const person: Person = await addPerson(guessing, 'member');
    const link = await request(guessing, 'POST', `/v1/organizations/${guessing.organizationId}/members/${person.userId}/password-reset`, {
      cookie: owner,
    });
    const token = decodeURIComponent(new URL(link.body.data.url).hash.slice('#token='.length));
    guessing.registerSensitive('a password-reset token', token);
    const held = await request(guessing, 'POST', '/v1/auth/password-reset', { body: { token, new_password: 'a fine passphrase' } });
    assert.equal(held.status, 429);
    assert.ok(Number(held.headers.get('retry-after')) >= 1);
    clock.advance(Number(held.headers.get('retry-after')) * 1000);
    assert.equal(
      (await request(guessing, 'POST', '/v1/auth/password-reset', { body: { token, new_password: 'a fine passphrase' } })).status,
      204,
    );
  });
});
