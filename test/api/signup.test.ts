/**
 * Open sign-up: SIGNUP=closed (the default) refuses POST /v1/auth/signup; SIGNUP=open makes a user,
 * their own organization and a session. Password rules and the login throttle apply; a taken email
 * is 409; bad input stores nothing.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { queryRows } from '../../src/db/client.ts';
import { movableClock, OWNER_EMAIL, request, startTestServer, type TestServer } from '../harness.ts';

const body = (email: string, extra: Record<string, unknown> = {}) => ({
  name: 'Nora Newcomer',
  email,
  password: 'a sign-up passphrase',
  organization_name: 'Newcomer GmbH',
  ...extra,
});

async function counts(server: TestServer): Promise<{ users: number; organizations: number; sessions: number }> {
  const [row] = await queryRows<{ users: number; organizations: number; sessions: number }>(
    server.container.database.db,
    sql`select (select count(*)::int from users) as users, (select count(*)::int from organizations) as organizations, (select count(*)::int from sessions) as sessions`,
  );
  return row!;
}

describe('SIGNUP=closed (the default)', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  test('GET /v1/auth/signup says closed; POST answers 403 saying sign-up is closed and creates nothing', async () => {
    const state = await request(server, 'GET', '/v1/auth/signup');
    assert.equal(state.status, 200);
    assert.deepEqual(state.body, { data: { open: false } });
    const before = await counts(server);
    const res = await request(server, 'POST', '/v1/auth/signup', { body: body('closed@example.com') });
    assert.equal(res.status, 403, res.text);
    assert.match(res.body.detail, /^sign-up is closed/);
    assert.equal(res.headers.get('set-cookie'), null);
    assert.deepEqual(await counts(server), before);
  });
});

describe('SIGNUP=open', () => {
  let server: TestServer;
  const clock = movableClock();
  before(async () => {
    server = await startTestServer({
      clock,
      env: { SIGNUP: 'open', LOGIN_THROTTLE_ACCOUNT_FREE_ATTEMPTS: '3', LOGIN_THROTTLE_ADDRESS_FREE_ATTEMPTS: '1000' },
    });
  });
  after(() => server.close());

  test('GET /v1/auth/signup says open', async () => {
    assert.deepEqual((await request(server, 'GET', '/v1/auth/signup')).body, { data: { open: true } });
  });

  test('creates the user, their own organization (owner) and a session with the login cookie', async () => {
    const res = await request(server, 'POST', '/v1/auth/signup', { body: body(' Nora@Example.com ') });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.data.user.email, 'Nora@Example.com');
    assert.equal(res.body.data.user.name, 'Nora Newcomer');
    assert.equal(res.body.data.user.email_verified, false);
    assert.notEqual(res.body.data.organization_id, server.organizationId);
    const setCookie = res.headers.get('set-cookie') ?? '';
    assert.match(setCookie, /^parley_session=pls_[A-Za-z0-9_-]+;/);
    assert.match(setCookie, /HttpOnly/i);
    assert.match(setCookie, /SameSite=Lax/i);
    const cookie = `parley_session=${/parley_session=([^;]+)/.exec(setCookie)![1]}`;
    const session = await request(server, 'GET', '/v1/auth/session', { cookie });
    assert.equal(session.status, 200, session.text);
    assert.equal(session.body.data.organization_id, res.body.data.organization_id);
    assert.equal(session.body.data.role, 'owner');
    assert.deepEqual(session.body.data.organizations, [
      { organization_id: res.body.data.organization_id, organization_name: 'Newcomer GmbH', role: 'owner' },
    ]);
    // The new organization is empty and the bootstrapped one is out of reach.
    assert.deepEqual((await request(server, 'GET', '/v1/channels', { cookie })).body.data, []);
    assert.equal(
      (await request(server, 'GET', '/v1/channels', { cookie, headers: { 'x-organization-id': server.organizationId } })).status,
      403,
    );
    assert.equal(
      (await request(server, 'POST', '/v1/auth/login', { body: { email: 'nora@example.com', password: 'a sign-up passphrase' } })).status,
      200,
    );
    assert.equal(res.text.includes('a sign-up passphrase'), false);
  });

  test('an email already registered (in any case) is 409 naming /email and creates nothing', async () => {
    const before = await counts(server);
    const res = await request(server, 'POST', '/v1/auth/signup', { body: body(OWNER_EMAIL.toUpperCase()) });
    assert.equal(res.status, 409, res.text);
    assert.deepEqual(res.body.errors, [{ pointer: '/email', location: 'body', message: 'already used by another account' }]);
    assert.deepEqual(await counts(server), before);
  });

  test('the password rules apply: too short, too long or the email is 400 naming /password', async () => {
    const before = await counts(server);
    for (const password of ['short', 'x'.repeat(1025), 'rules@example.com']) {
      const res = await request(server, 'POST', '/v1/auth/signup', { body: body('rules@example.com', { password }) });
      assert.equal(res.status, 400, res.text);
      assert.equal(res.body.errors[0].pointer, '/password');
    }
    assert.deepEqual(await counts(server), before);
  });

  test('the login throttle applies per email: repeated attempts on a taken email end in 429 with Retry-After', async () => {
    const statuses = [];
    for (let i = 0; i < 5; i++)
      statuses.push((await request(server, 'POST', '/v1/auth/signup', { body: body('nora@example.com') })).status);
    assert.deepEqual(statuses, [409, 409, 409, 409, 429]);
    const held = await request(server, 'POST', '/v1/auth/signup', { body: body('nora@example.com') });
    assert.ok(Number(held.headers.get('retry-after')) >= 1);
    // It is the login throttle: the account's login waits too.
    assert.equal(
      (await request(server, 'POST', '/v1/auth/login', { body: { email: 'nora@example.com', password: 'a sign-up passphrase' } })).status,
      429,
    );
    clock.advance(60 * 60_000);
  });

  test('missing, malformed, oversized and non-JSON bodies are refused and store nothing', async () => {
    const before = await counts(server);
    const cases: Array<[unknown, string]> = [
      [{ ...body('x@example.com'), name: undefined }, '/name'],
      [{ ...body('x@example.com'), organization_name: '' }, '/organization_name'],
      [{ ...body('x@example.com'), organization_name: '   ' }, '/organization_name'],
      [body('not-an-email'), '/email'],
      [body(`${'y'.repeat(320)}@example.com`), '/email'],
      [{ ...body('x@example.com'), name: 'n'.repeat(201) }, '/name'],
      [{ ...body('x@example.com'), password: 12345678901 }, '/password'],
    ];
    for (const [sent, pointer] of cases) {
      const res = await request(server, 'POST', '/v1/auth/signup', { body: sent });
      assert.equal(res.status, 400, `${pointer}: ${res.text}`);
      assert.ok(
        res.body.errors.some((e: { pointer: string }) => e.pointer === pointer),
        `${pointer} in ${res.text}`,
      );
    }
    assert.equal((await request(server, 'POST', '/v1/auth/signup', { rawBody: '{"name":"x",' })).status, 400);
    assert.equal(
      (await request(server, 'POST', '/v1/auth/signup', { rawBody: 'name=x', contentType: 'application/x-www-form-urlencoded' })).status,
      415,
    );
    assert.deepEqual(await counts(server), before);
  });
});
