import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { throttles } from '../../src/db/schema.ts';
import { buildApp } from '../../src/http/app.ts';
import { purgeSessionsHandler } from '../../src/jobs/handlers/purge-sessions.ts';
import { loginCookie, movableClock, OWNER_EMAIL, OWNER_PASSWORD, request, startTestServer, withCsrf, type TestServer } from '../harness.ts';

let server: TestServer;
/** This file's server clock, moved forward by hand (the login throttle's delays run on it). */
const clock = movableClock();
before(async () => {
  server = await startTestServer({ clock });
});
after(() => server.close());

describe('POST /v1/auth/login', () => {
  test('returns the user session record and sets an HttpOnly, SameSite=Lax session cookie', async () => {
    const res = await request(server, 'POST', '/v1/auth/login', {
      body: { email: OWNER_EMAIL, password: OWNER_PASSWORD, telemetry_id: 'device-1' },
    });
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
        // Past any throttle delay (and forgiving the attempt): this test times password checks.
        clock.advance(20 * 60_000);
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

describe('login throttle', () => {
  let now = Date.now();
  let throttled: TestServer;
  before(async () => {
    // The API rate limit is off (RATE_LIMIT_PER_MINUTE=0): the throttle does not depend on it.
    throttled = await startTestServer({
      env: { TRUST_PROXY: 'true', LOGIN_THROTTLE_MAX_DELAY: '8s', LOGIN_THROTTLE_ADDRESS_FREE_ATTEMPTS: '10' },
      clock: { now: () => new Date(now) },
    });
  });
  after(() => throttled.close());

  const attempt = (email: string, password: string, address: string) =>
    request(throttled, 'POST', '/v1/auth/login', { body: { email, password }, headers: { 'x-forwarded-for': address } });
  /** Ten addresses of their own for each test, so one test's per-address counts never reach another's. */
  const block = (b: number) => Array.from({ length: 10 }, (_, i) => `10.${b}.0.${i + 1}`);
  const addresses = block(0);

  test('many wrong passwords for one account from several addresses throttle the account; the right one waits too, then works', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 50; i++) {
      const res = await attempt(OWNER_EMAIL, `wrong ${i}`, addresses[i % addresses.length]!);
      statuses.push(res.status);
      if (res.status === 429) {
        assert.equal(res.headers.get('retry-after'), '1');
        assert.match(res.body.detail, /too many failed logins for this account; try again in 1 s \(at \d{4}-\d\d-\d\dT/);
        assert.match(res.headers.get('content-type') ?? '', /application\/problem\+json/);
      }
    }
    // Five free attempts, a sixth that starts the delay, then nothing gets through.
    assert.deepEqual(statuses, [...Array(6).fill(401), ...Array(44).fill(429)]);

    const refused = await attempt(OWNER_EMAIL, OWNER_PASSWORD, '10.9.9.9');
    assert.equal(refused.status, 429, 'the right password is refused while the account waits');
    assert.equal(refused.headers.get('set-cookie'), null);

    // The delays grow: after each one passes, one more wrong attempt doubles the next wait, up to the cap.
    const waits: number[] = [];
    let wait = 1;
    for (let i = 0; i < 6; i++) {
      now += wait * 1000;
      assert.equal((await attempt(OWNER_EMAIL, 'still wrong', addresses[i]!)).status, 401);
      const next = await attempt(OWNER_EMAIL, OWNER_PASSWORD, addresses[i]!);
      assert.equal(next.status, 429);
      wait = Number(next.headers.get('retry-after'));
      waits.push(wait);
    }
    assert.deepEqual(waits, [2, 4, 8, 8, 8, 8], 'doubling, capped at LOGIN_THROTTLE_MAX_DELAY');

    now += wait * 1000 - 1;
    assert.equal((await attempt(OWNER_EMAIL, OWNER_PASSWORD, '10.9.9.9')).status, 429, 'not a moment early');
    now += 1;
    assert.equal((await attempt(OWNER_EMAIL, OWNER_PASSWORD, '10.9.9.9')).status, 200, 'after the capped wait the right password works');

    // A success forgets the account's failures: the free attempts are back.
    for (let i = 0; i < 5; i++) assert.equal((await attempt(OWNER_EMAIL, 'typo', '10.9.9.9')).status, 401);
    assert.equal((await attempt(OWNER_EMAIL, OWNER_PASSWORD, '10.9.9.9')).status, 200);
  });

  test('parallel guesses cannot slip in before the failures are counted', async () => {
    const email = 'parallel@example.com';
    const from = block(1);
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => attempt(email, `guess ${i}`, from[i % from.length]!)));
    assert.equal(results.filter((r) => r.status === 401).length, 6);
    assert.equal(results.filter((r) => r.status === 429).length, 14);
  });

  test('an unknown email is throttled exactly like a known one', async () => {
    for (const email of ['ghost@example.com']) {
      const statuses: number[] = [];
      for (let i = 0; i < 7; i++) statuses.push((await attempt(email, 'x', block(2)[i]!)).status);
      assert.deepEqual(statuses, [401, 401, 401, 401, 401, 401, 429]);
    }
  });

  test('quiet time forgives failures: fifteen quiet minutes take one back', async () => {
    const email = 'forgiven@example.com';
    const from = block(3);
    for (let i = 0; i < 6; i++) assert.equal((await attempt(email, 'x', from[i]!)).status, 401);
    const waiting = await attempt(email, 'x', from[6]!);
    assert.equal(waiting.headers.get('retry-after'), '1');
    assert.match(waiting.body.detail, /this account/);
    now += 15 * 60_000;
    assert.equal((await attempt(email, 'x', from[7]!)).status, 401);
    // Without forgiveness this would be the 7th failure (a 2 s wait); it counts as the 6th.
    const again = await attempt(email, 'x', from[8]!);
    assert.equal(again.headers.get('retry-after'), '1');
    assert.match(again.body.detail, /this account/);
  });

  test('one address spraying many accounts is throttled by address; other addresses are not', async () => {
    now += 3_600_000;
    const sprayer = '192.0.2.77';
    const statuses: number[] = [];
    for (let i = 0; i < 13; i++) statuses.push((await attempt(`spray${i}@example.com`, 'Summer2026!', sprayer)).status);
    assert.deepEqual(statuses, [...Array(11).fill(401), 429, 429]);
    const res = await attempt(OWNER_EMAIL, OWNER_PASSWORD, sprayer);
    assert.equal(res.status, 429);
    assert.match(res.body.detail, /this address/);
    assert.equal((await attempt(OWNER_EMAIL, OWNER_PASSWORD, '192.0.2.78')).status, 200);
  });

  test("with the API rate limit on too, Retry-After is the throttle's wait", async () => {
    let at = Date.now();
    const both = await startTestServer({
      env: {
        RATE_LIMIT_PER_MINUTE: '1000',
        LOGIN_RATE_LIMIT_PER_MINUTE: '1000',
        LOGIN_THROTTLE_ACCOUNT_FREE_ATTEMPTS: '1',
        LOGIN_THROTTLE_MAX_DELAY: '30s',
      },
      clock: { now: () => new Date(at) },
    });
    try {
      const waits: Array<string | null> = [];
      // One free attempt; the second starts the waits.
      assert.equal((await request(both, 'POST', '/v1/auth/login', { body: { email: OWNER_EMAIL, password: 'wrong' } })).status, 401);
      for (let i = 0; i < 3; i++) {
        assert.equal((await request(both, 'POST', '/v1/auth/login', { body: { email: OWNER_EMAIL, password: 'wrong' } })).status, 401);
        const res = await request(both, 'POST', '/v1/auth/login', { body: { email: OWNER_EMAIL, password: OWNER_PASSWORD } });
        assert.equal(res.status, 429);
        waits.push(res.headers.get('retry-after'));
        at += Number(res.headers.get('retry-after')) * 1000;
      }
      assert.deepEqual(waits, ['1', '2', '4']);
    } finally {
      await both.close();
    }
  });

  test('rows quiet for a day are purged by the maintenance job', async () => {
    const db = throttled.container.database.db;
    now += 3_600_000;
    assert.equal((await attempt('purge-me@example.com', 'x', block(5)[0]!)).status, 401);
    const keys = async () => (await db.select({ key: throttles.key }).from(throttles)).map((r) => r.key);
    assert.ok((await keys()).includes('login:account:purge-me@example.com'));
    now += 23 * 3_600_000;
    await purgeSessionsHandler({
      database: throttled.container.database,
      clock: throttled.container.clock,
      logger: throttled.container.logger,
    })();
    assert.ok((await keys()).includes('login:account:purge-me@example.com'), 'kept within the day');
    now += 2 * 3_600_000;
    await purgeSessionsHandler({
      database: throttled.container.database,
      clock: throttled.container.clock,
      logger: throttled.container.logger,
    })();
    assert.deepEqual(await keys(), []);
  });

  test('the count is kept in the database: another server over it throttles too', async () => {
    now += 3_600_000;
    const email = 'shared@example.com';
    for (let i = 0; i < 6; i++) assert.equal((await attempt(email, 'x', block(4)[i]!)).status, 401);
    const second = await buildApp(throttled.container);
    try {
      await second.listen({ port: 0, host: '127.0.0.1' });
      const { port } = second.server.address() as { port: number };
      const res = await request({ baseUrl: `http://127.0.0.1:${port}` }, 'POST', '/v1/auth/login', {
        body: { email, password: 'x' },
        headers: { 'x-forwarded-for': '10.1.1.1' },
      });
      assert.equal(res.status, 429);
    } finally {
      await second.close();
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
    assert.deepEqual(
      res.body.data.organizations.map((o: { organization_id: string }) => o.organization_id),
      [server.organizationId],
    );
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

  test('a write with the session cookie needs the CSRF token of that session; reads, API keys and other sessions do not mix', async () => {
    const login = await request(server, 'POST', '/v1/auth/login', { body: { email: OWNER_EMAIL, password: OWNER_PASSWORD } });
    const setCookies = login.headers.getSetCookie();
    const session = setCookies.find((c) => c.startsWith('parley_session='))!;
    const csrf = setCookies.find((c) => c.startsWith('parley_csrf='));
    assert.ok(csrf, 'login sets the readable CSRF cookie');
    assert.doesNotMatch(csrf, /HttpOnly/i, 'the dashboard script reads it');
    assert.match(csrf, /SameSite=Lax/i);
    const cookie = session.split(';')[0]!;
    const token = decodeURIComponent(csrf.split(';')[0]!.slice('parley_csrf='.length));
    const body = { name: 'csrf', permissions: ['messages:read'] };

    const without = await request(server, 'POST', '/v1/api-keys', { cookie, body, csrf: false });
    assert.equal(without.status, 403);
    assert.match(without.body.detail, /x-csrf-token/);
    const wrong = await request(server, 'POST', '/v1/api-keys', { cookie, body, headers: { 'x-csrf-token': token.slice(1) + 'A' } });
    assert.equal(wrong.status, 403);
    // Another session's token does not fit this one.
    const other = await loginCookie(server);
    const otherToken = withCsrf({ cookie: other }, 'POST')['x-csrf-token']!;
    assert.notEqual(otherToken, token);
    assert.equal((await request(server, 'POST', '/v1/api-keys', { cookie, body, headers: { 'x-csrf-token': otherToken } })).status, 403);
    // Reads need no token; the right one lets the write through; an API key never needs one.
    assert.equal((await request(server, 'GET', '/v1/api-keys', { cookie, csrf: false })).status, 200);
    const right = await request(server, 'POST', '/v1/api-keys', { cookie, body, headers: { 'x-csrf-token': token } });
    assert.equal(right.status, 201);
    const byKey = await request(server, 'POST', '/v1/messages', { key: right.body.data.secret, body: {} });
    assert.match(byKey.body.detail, /missing permission messages:send/, 'a key is never asked for a token');

    // Logging out clears both cookies.
    const out = await request(server, 'POST', '/v1/auth/logout', { cookie, headers: { 'x-csrf-token': token } });
    assert.equal(out.status, 204);
    const cleared = out.headers.getSetCookie();
    assert.ok(
      cleared.some((c) => c.startsWith('parley_csrf=;') || /^parley_csrf=.*Expires=Thu, 01 Jan 1970/i.test(c)),
      cleared.join(' | '),
    );
  });
});
