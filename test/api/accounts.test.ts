/**
 * A signed-in user's own account: PATCH /v1/auth/account (name, email) and POST /v1/auth/password.
 * The current password is a throttled login attempt; after a new email or password the user's other
 * sessions end and the current one stays; bad input stores nothing.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { eq } from 'drizzle-orm';
import { users } from '../../src/db/schema.ts';
import { movableClock, request, startTestServer, type TestServer } from '../harness.ts';
import { addPerson, signIn } from '../accounts-fixtures.ts';

let server: TestServer;
const clock = movableClock();
before(async () => {
  server = await startTestServer({
    clock,
    env: { LOGIN_THROTTLE_ACCOUNT_FREE_ATTEMPTS: '3', LOGIN_THROTTLE_ADDRESS_FREE_ATTEMPTS: '1000' },
  });
});
after(() => server.close());

async function storedUser(userId: string) {
  const [row] = await server.container.database.db.select().from(users).where(eq(users.id, userId));
  return row!;
}

async function sessionStatus(cookie: string): Promise<number> {
  return (await request(server, 'GET', '/v1/auth/session', { cookie })).status;
}

async function canLogIn(email: string, password: string): Promise<boolean> {
  // Past any throttle wait: this asks whether the password is right, not whether attempts remain.
  clock.advance(60 * 60_000);
  const res = await request(server, 'POST', '/v1/auth/login', { body: { email, password } });
  return res.status === 200;
}

describe('PATCH /v1/auth/account', () => {
  test('changes the name; no session ends and no password is needed', async () => {
    const person = await addPerson(server, 'member');
    const [current, other] = [await signIn(server, person), await signIn(server, person)];
    const res = await request(server, 'PATCH', '/v1/auth/account', { cookie: current, body: { name: '  Renamed Person ' } });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.data.name, 'Renamed Person');
    assert.equal(res.body.data.email, person.email);
    assert.equal((await storedUser(person.userId)).name, 'Renamed Person');
    assert.equal(await sessionStatus(other), 200);
    assert.equal((await request(server, 'GET', '/v1/auth/session', { cookie: current })).body.data.user.name, 'Renamed Person');
  });

  test('a new email needs current_password: without it 400 naming /current_password, and nothing changes', async () => {
    const person = await addPerson(server, 'member');
    const cookie = await signIn(server, person);
    const res = await request(server, 'PATCH', '/v1/auth/account', {
      cookie,
      body: { email: 'new-address@example.com', name: 'Not Stored' },
    });
    assert.equal(res.status, 400, res.text);
    assert.deepEqual(res.body.errors, [{ pointer: '/current_password', location: 'body', message: 'required to change the email' }]);
    const row = await storedUser(person.userId);
    assert.equal(row.email, person.email);
    assert.equal(row.name, 'member person');
  });

  test('a wrong current password is 403 naming /current_password and counts as a failed login: after the free attempts even the right one waits (429)', async () => {
    const person = await addPerson(server, 'member');
    const cookie = await signIn(server, person);
    for (let i = 0; i < 4; i++) {
      const res = await request(server, 'PATCH', '/v1/auth/account', {
        cookie,
        body: { email: `guess${i}@example.com`, current_password: `wrong guess ${i}` },
      });
      assert.equal(res.status, 403, res.text);
      assert.equal(res.body.errors[0].pointer, '/current_password');
      assert.equal(res.body.errors[0].location, 'body');
    }
    const held = await request(server, 'PATCH', '/v1/auth/account', {
      cookie,
      body: { email: 'held@example.com', current_password: person.password },
    });
    assert.equal(held.status, 429, held.text);
    assert.ok(Number(held.headers.get('retry-after')) >= 1);
    // The same throttle holds the login form for this email.
    const login = await request(server, 'POST', '/v1/auth/login', { body: { email: person.email, password: person.password } });
    assert.equal(login.status, 429);
    assert.equal((await storedUser(person.userId)).email, person.email);
    clock.advance(60 * 60_000);
    const after = await request(server, 'PATCH', '/v1/auth/account', {
      cookie,
      body: { email: `Moved-${person.email}`, current_password: person.password },
    });
    assert.equal(after.status, 200, after.text);
  });

  test('an email another account uses (in any case) is 409 naming /email, and nothing changes', async () => {
    const person = await addPerson(server, 'member');
    const other = await addPerson(server, 'member');
    const cookie = await signIn(server, person);
    // Without the right password nothing is told about the address.
    const guessed = await request(server, 'PATCH', '/v1/auth/account', {
      cookie,
      body: { email: other.email, current_password: 'not my password' },
    });
    assert.equal(guessed.status, 403, guessed.text);
    const res = await request(server, 'PATCH', '/v1/auth/account', {
      cookie,
      body: { email: other.email.toUpperCase(), current_password: person.password, name: 'Not Stored' },
    });
    assert.equal(res.status, 409, res.text);
    assert.deepEqual(res.body.errors, [{ pointer: '/email', location: 'body', message: 'already used by another account' }]);
    const row = await storedUser(person.userId);
    assert.equal(row.email, person.email);
    assert.equal(row.name, 'member person');
  });

  test('a new email ends every other session of the user, keeps this one, and is the one to sign in with', async () => {
    const person = await addPerson(server, 'member');
    const bystander = await addPerson(server, 'member');
    const bystanderCookie = await signIn(server, bystander);
    const [current, other1, other2] = [await signIn(server, person), await signIn(server, person), await signIn(server, person)];
    const email = `moved-${person.email}`;
    const res = await request(server, 'PATCH', '/v1/auth/account', { cookie: current, body: { email, current_password: person.password } });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.data.email, email);
    assert.equal(res.body.data.email_verified, false);
    assert.equal(await sessionStatus(current), 200);
    assert.equal(await sessionStatus(other1), 401);
    assert.equal(await sessionStatus(other2), 401);
    assert.equal(await sessionStatus(bystanderCookie), 200, "another user's session is not touched");
    assert.equal(await canLogIn(email, person.password), true);
    assert.equal(await canLogIn(person.email, person.password), false);
  });

  test('the same email is no change: no password needed and no session ends', async () => {
    const person = await addPerson(server, 'member');
    const [current, other] = [await signIn(server, person), await signIn(server, person)];
    const res = await request(server, 'PATCH', '/v1/auth/account', { cookie: current, body: { email: ` ${person.email}` } });
    assert.equal(res.status, 200, res.text);
    assert.equal(await sessionStatus(other), 200);
  });

  test('bad input is 400 naming the field and stores nothing; other content types 415', async () => {
    const person = await addPerson(server, 'member');
    const cookie = await signIn(server, person);
    const cases: Array<[unknown, string]> = [
      [{}, '/'],
      [{ name: '' }, '/name'],
      [{ name: '   ' }, '/name'],
      [{ name: 'x'.repeat(201) }, '/name'],
      [{ name: 42 }, '/name'],
      [{ email: 'not an email', current_password: person.password }, '/email'],
      [{ email: `${'x'.repeat(320)}@example.com`, current_password: person.password }, '/email'],
      [{ email: 'new@example.com', current_password: 'x'.repeat(1025) }, '/current_password'],
    ];
    for (const [body, pointer] of cases) {
      const res = await request(server, 'PATCH', '/v1/auth/account', { cookie, body });
      assert.equal(res.status, 400, `${JSON.stringify(body).slice(0, 80)}: ${res.text}`);
      assert.ok(
        res.body.errors.some((e: { pointer: string }) => e.pointer === pointer),
        `${pointer} in ${res.text}`,
      );
    }
    const malformed = await request(server, 'PATCH', '/v1/auth/account', { cookie, rawBody: '{"name":' });
    assert.equal(malformed.status, 400);
    const form = await request(server, 'PATCH', '/v1/auth/account', {
      cookie,
      rawBody: 'name=x',
      contentType: 'application/x-www-form-urlencoded',
    });
    assert.equal(form.status, 415);
    const row = await storedUser(person.userId);
    assert.equal(row.name, 'member person');
    assert.equal(row.email, person.email);
  });

  test('needs a dashboard session: an API key is 403, no credential 401', async () => {
    const keyed = await request(server, 'PATCH', '/v1/auth/account', { key: server.apiKey, body: { name: 'Key' } });
    assert.equal(keyed.status, 403);
    assert.equal(keyed.body.detail, 'this operation needs a dashboard session');
    assert.equal((await request(server, 'PATCH', '/v1/auth/account', { body: { name: 'Nobody' } })).status, 401);
  });
});

describe('POST /v1/auth/password', () => {
  test('sets the new password, ends every other session and keeps this one', async () => {
    const person = await addPerson(server, 'admin');
    const [current, other1, other2] = [await signIn(server, person), await signIn(server, person), await signIn(server, person)];
    const newPassword = 'a brand new passphrase';
    const res = await request(server, 'POST', '/v1/auth/password', {
      cookie: current,
      body: { current_password: person.password, new_password: newPassword },
    });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body, { data: { ended_sessions: 2 } });
    assert.equal(await sessionStatus(current), 200);
    assert.equal(await sessionStatus(other1), 401);
    assert.equal(await sessionStatus(other2), 401);
    assert.equal(await canLogIn(person.email, newPassword), true);
    assert.equal(await canLogIn(person.email, person.password), false);
    assert.equal(res.text.includes(newPassword), false);
  });

  test('a wrong current password is 403 naming /current_password; the password stays; repeated, the login throttle answers 429', async () => {
    const person = await addPerson(server, 'member');
    const cookie = await signIn(server, person);
    const before = (await storedUser(person.userId)).passwordHash;
    for (let i = 0; i < 4; i++) {
      const res = await request(server, 'POST', '/v1/auth/password', {
        cookie,
        body: { current_password: `wrong ${i} password`, new_password: 'a brand new passphrase' },
      });
      assert.equal(res.status, 403, res.text);
      assert.deepEqual(res.body.errors, [{ pointer: '/current_password', location: 'body', message: 'is not your current password' }]);
    }
    const held = await request(server, 'POST', '/v1/auth/password', {
      cookie,
      body: { current_password: person.password, new_password: 'a brand new passphrase' },
    });
    assert.equal(held.status, 429);
    assert.match(held.body.detail, /too many failed password checks for this account/);
    assert.equal((await storedUser(person.userId)).passwordHash, before);
    assert.equal(await sessionStatus(cookie), 200, 'a refused change ends no session');
  });

  test('the password rules: too short, too long, or the email is 400 naming /new_password, and nothing changes', async () => {
    const person = await addPerson(server, 'member');
    const [cookie, other] = [await signIn(server, person), await signIn(server, person)];
    const before = (await storedUser(person.userId)).passwordHash;
    for (const newPassword of ['short', 'x'.repeat(1025), person.email.toUpperCase(), ' '.repeat(12)]) {
      const res = await request(server, 'POST', '/v1/auth/password', {
        cookie,
        body: { current_password: person.password, new_password: newPassword },
      });
      assert.equal(res.status, 400, res.text);
      assert.equal(res.body.errors[0].pointer, '/new_password');
    }
    for (const body of [
      { new_password: 'a brand new passphrase' },
      { current_password: person.password },
      { current_password: 7, new_password: 'a brand new passphrase' },
    ]) {
      const res = await request(server, 'POST', '/v1/auth/password', { cookie, body });
      assert.equal(res.status, 400, res.text);
    }
    assert.equal((await request(server, 'POST', '/v1/auth/password', { cookie, rawBody: 'x', contentType: 'text/plain' })).status, 415);
    assert.equal((await storedUser(person.userId)).passwordHash, before);
    assert.equal(await sessionStatus(other), 200);
  });

  test('needs a dashboard session', async () => {
    const res = await request(server, 'POST', '/v1/auth/password', {
      key: server.apiKey,
      body: { current_password: 'whatever it is', new_password: 'a brand new passphrase' },
    });
    assert.equal(res.status, 403);
  });
});
