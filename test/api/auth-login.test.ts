import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { loginCookie, OWNER_EMAIL, OWNER_PASSWORD, request, startTestServer, type TestServer } from '../harness.ts';

let server: TestServer;
before(async () => {
  server = await startTestServer();
});
after(() => server.close());

describe('POST /v1/auth/login', () => {
  test('returns the user session record and sets an HttpOnly, SameSite=Lax session cookie', async () => {
    const res = await request(server, 'POST', '/v1/auth/login', { body: { email: OWNER_EMAIL, password: OWNER_PASSWORD, telemetry_id: 'device-1' } });
    assert.equal(res.status, 200);
    assert.deepEqual(Object.keys(res.body.data).sort(), ['created_at', 'email', 'email_verified', 'id', 'name', 'timezone', 'week_start']);
    assert.equal(res.body.data.email, OWNER_EMAIL);
    assert.match(res.body.data.id, /^[0-9a-f-]{36}$/);
    assert.equal(typeof res.body.data.email_verified, 'boolean');
    assert.ok(!Number.isNaN(Date.parse(res.body.data.created_at)));
    const cookie = res.headers.get('set-cookie') ?? '';
    assert.match(cookie, /^parley_session=pls_[A-Za-z0-9_-]+;/);
    assert.match(cookie, /HttpOnly/i);
    assert.match(cookie, /SameSite=Lax/i);
    assert.match(cookie, /Path=\//);
    assert.doesNotMatch(cookie, /Secure/i, 'no Secure flag on a plain http BASE_URL');
    assert.equal(res.text.includes('password'), false);
  });

  test('accepts the email in any case', async () => {
    const res = await request(server, 'POST', '/v1/auth/login', { body: { email: OWNER_EMAIL.toUpperCase(), password: OWNER_PASSWORD } });
    assert.equal(res.status, 200);
  });

  test('wrong password and unknown email both answer 401 problem "invalid email or password"', async () => {
    for (const body of [
      { email: OWNER_EMAIL, password: 'wrong password' },
      { email: 'nobody@example.com', password: OWNER_PASSWORD },
    ]) {
      const res = await request(server, 'POST', '/v1/auth/login', { body });
      assert.equal(res.status, 401);
      assert.equal(res.body.detail, 'invalid email or password');
      assert.equal(res.body.status, 401);
      assert.equal(res.body.title, 'Unauthorized');
      assert.match(res.headers.get('content-type') ?? '', /application\/problem\+json/);
      assert.equal(res.headers.get('set-cookie'), null);
    }
  });

  test('an unknown email costs a password verification too (no fast path that reveals which emails exist)', async () => {
    // Argon2 verification dominates a login; skipping it for unknown emails would make them many
    // times faster. Compare medians of interleaved attempts with a wide margin.
    const known: number[] = [];
    const unknown: number[] = [];
    for (let i = 0; i < 7; i++) {
      for (const [list, email] of [
        [known, OWNER_EMAIL],
        [unknown, `ghost${i}@example.com`],
      ] as const) {
        const started = performance.now();
        const res = await request(server, 'POST', '/v1/auth/login', { body: { email, password: 'not the password' } });
        list.push(performance.now() - started);
        assert.equal(res.status, 401);
      }
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    const ratio = median(unknown) / median(known);
    assert.ok(ratio > 0.33 && ratio < 3, `unknown/known login time ratio ${ratio.toFixed(2)} should be near 1`);
  });

  test('missing fields and wrong types are 400 naming each field', async () => {
    const res = await request(server, 'POST', '/v1/auth/login', { body: { email: 42 } });
    assert.equal(res.status, 400);
    const pointers = res.body.errors.map((e: { pointer: string }) => e.pointer).sort();
    assert.deepEqual(pointers, ['/email', '/password']);
    assert.match(res.body.detail, /email/);
  });

  test('is rate limited per address', async () => {
    const limited = await startTestServer({ env: { LOGIN_RATE_LIMIT_PER_MINUTE: '3', RATE_LIMIT_PER_MINUTE: '1000' } });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 5; i++) {
        statuses.push((await request(limited, 'POST', '/v1/auth/login', { body: { email: OWNER_EMAIL, password: 'nope' } })).status);
      }
      assert.deepEqual(statuses.slice(0, 3), [401, 401, 401]);
      const res = await request(limited, 'POST', '/v1/auth/login', { body: { email: OWNER_EMAIL, password: OWNER_PASSWORD } });
      assert.equal(res.status, 429);
      assert.equal(res.body.status, 429);
      assert.ok(Number(res.headers.get('retry-after')) > 0, 'Retry-After is set');
    } finally {
      await limited.close();
    }
  });
});

describe('sessions', () => {
  test('GET /v1/auth/session shows the user and their organizations', async () => {
    const cookie = await loginCookie(server);
    const res = await request(server, 'GET', '/v1/auth/session', { cookie });
    assert.equal(res.status, 200);
    assert.equal(res.body.data.user.email, OWNER_EMAIL);
    assert.equal(res.body.data.organization_id, server.organizationId);
    assert.equal(res.body.data.role, 'owner');
    assert.deepEqual(res.body.data.organizations.map((o: { organization_id: string }) => o.organization_id), [server.organizationId]);
    assert.ok(res.body.data.permissions.includes('api_keys:write'));
  });

  test('a missing, garbled or revoked cookie is 401', async () => {
    assert.equal((await request(server, 'GET', '/v1/auth/session')).status, 401);
    assert.equal((await request(server, 'GET', '/v1/auth/session', { cookie: 'parley_session=pls_garbage' })).status, 401);
    const cookie = await loginCookie(server);
    const out = await request(server, 'POST', '/v1/auth/logout', { cookie });
    assert.equal(out.status, 204);
    assert.match(out.headers.get('set-cookie') ?? '', /parley_session=;/);
    assert.equal((await request(server, 'GET', '/v1/auth/session', { cookie })).status, 401);
    assert.equal((await request(server, 'GET', '/v1/channels', { cookie })).status, 401);
  });

  test('one session can revoke another, and the revoked one stops working on its next request', async () => {
    const laptop = await loginCookie(server);
    const phone = await loginCookie(server);
    const list = await request(server, 'GET', '/v1/auth/sessions', { cookie: laptop });
    assert.equal(list.status, 200);
    const current = list.body.data.filter((s: { current: boolean }) => s.current);
    assert.equal(current.length, 1);
    const phoneSession = (await request(server, 'GET', '/v1/auth/session', { cookie: phone })).body.data.session.id;
    assert.ok(list.body.data.some((s: { id: string }) => s.id === phoneSession));
    assert.equal((await request(server, 'DELETE', `/v1/auth/sessions/${phoneSession}`, { cookie: laptop })).status, 204);
    assert.equal((await request(server, 'GET', '/v1/channels', { cookie: phone })).status, 401);
    assert.equal((await request(server, 'GET', '/v1/channels', { cookie: laptop })).status, 200);
    assert.equal((await request(server, 'DELETE', `/v1/auth/sessions/${phoneSession}`, { cookie: laptop })).status, 404);
    assert.equal((await request(server, 'DELETE', '/v1/auth/sessions/not-an-id', { cookie: laptop })).status, 404);
  });

  test('session routes refuse API keys', async () => {
    const res = await request(server, 'GET', '/v1/auth/session', { key: server.apiKey });
    assert.equal(res.status, 403);
    assert.match(res.body.detail, /dashboard session/);
  });

  test('sessions expire after the configured lifetime', async () => {
    let now = Date.now();
    const clock = { now: () => new Date(now) };
    const short = await startTestServer({ env: { SESSION_TTL_HOURS: '1' }, clock });
    try {
      const cookie = await loginCookie(short);
      assert.equal((await request(short, 'GET', '/v1/auth/session', { cookie })).status, 200);
      now += 59 * 60_000;
      assert.equal((await request(short, 'GET', '/v1/auth/session', { cookie })).status, 200);
      now += 2 * 60_000;
      assert.equal((await request(short, 'GET', '/v1/auth/session', { cookie })).status, 401);
    } finally {
      await short.close();
    }
  });

  test('a cookie-authenticated change from a foreign origin is refused', async () => {
    const cookie = await loginCookie(server);
    const res = await request(server, 'POST', '/v1/api-keys', {
      cookie,
      headers: { origin: 'https://evil.example' },
      body: { name: 'csrf', permissions: ['messages:read'] },
    });
    assert.equal(res.status, 403);
    assert.match(res.body.detail, /origin/);
    const same = await request(server, 'POST', '/v1/api-keys', {
      cookie,
      headers: { origin: server.baseUrl },
      body: { name: 'same origin', permissions: ['messages:read'] },
    });
    assert.equal(same.status, 201);
  });
});
