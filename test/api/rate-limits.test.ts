/**
 * Request limits counted where every process sees them (docs/rate-limits.md): the same suite runs
 * with the counters in the database and in Redis (TEST_REDIS_URL, the machine's by default, checked
 * once: without it the file fails at once; under a key prefix of this run's own, deleted after). Two servers over one database (or one Redis) share the
 * counts; windows end when the injected clock moves; a store that cannot count lets requests through.
 */
// stores: both
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { Redis } from 'ioredis';
import { buildContainer, type Container } from '../../src/container.ts';
import { openDatabase } from '../../src/db/client.ts';
import { createDatabaseCounterStore } from '../../src/db/counters.ts';
import { buildApp, type App } from '../../src/http/app.ts';
import { API_KEY_PREFIX } from '../../src/domain/api-keys/api-keys.ts';
import { randomToken } from '../../src/lib/crypto.ts';
import { createLogger } from '../../src/lib/logger.ts';
import { createRedisCounterStore } from '../../src/lib/redis-counters.ts';
import type { CounterStore } from '../../src/lib/counters.ts';
import {
  createKeyWith,
  createTestDatabaseUrl,
  freePort,
  loginCookie,
  movableClock,
  request,
  startTestServer,
  usingPostgres,
  type ApiResponse,
  type TestServer,
} from '../harness.ts';
import { startTcpProxy, throughProxy } from '../process/tcp-proxy.ts';
import { loadConfig } from '../../src/config.ts';
import { createGrant, createOAuthClient } from '../oauth-client-fixture.ts';
import { eventually } from '../eventually.ts';
import { requireRedis, TEST_REDIS_URL } from '../services.ts';

const REDIS_URL = TEST_REDIS_URL;
const runPrefix = `parley-test:${randomToken(9).replace(/[^A-Za-z0-9]/g, 'x')}:`;

// Once, before anything: no Redis fails every test here at once, with what to do.
before(requireRedis);

after(async () => {
  // Every key this run made in the machine's Redis goes.
  if (
    !(await requireRedis().then(
      () => true,
      () => false,
    ))
  )
    return;
  const redis = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1 });
  await redis.connect();
  try {
    const keys = await redis.keys(`${runPrefix}*`);
    if (keys.length > 0) await redis.del(...keys);
  } finally {
    redis.disconnect();
  }
});

type Server = { baseUrl: string; close(): Promise<void> };

/**
 * A second server on the first one's database, as another process would be: its own container
 * (its own pool on PostgreSQL; PGlite serves one process, so there it shares the first's database
 * object) and its own memory, nothing shared with the first but the database and the store.
 */
async function secondServer(first: TestServer, clock: ReturnType<typeof movableClock>): Promise<Server> {
  const port = await freePort();
  const database = first.databaseUrl
    ? await openDatabase({ kind: 'postgres', url: first.databaseUrl, poolSize: 3 })
    : first.container.database;
  const config = { ...first.config, port, baseUrl: `http://127.0.0.1:${port}` };
  let container: Container | undefined;
  let app: App | undefined;
  try {
    container = await buildContainer(config, { database, logger: createLogger({ level: 'warn' }), clock });
    app = await buildApp(container);
    await app.listen({ port, host: '127.0.0.1' });
  } catch (err) {
    if (first.databaseUrl) await database.close();
    throw err;
  }
  return {
    baseUrl: config.baseUrl,
    async close() {
      await app!.close();
      await container!.queue.stop({ graceful: true, timeoutMs: 5000 });
      await container!.counters.close();
      if (first.databaseUrl) await database.close();
    },
  };
}

const headersOf = (res: ApiResponse) => ({
  limit: res.headers.get('ratelimit-limit'),
  remaining: res.headers.get('ratelimit-remaining'),
  reset: res.headers.get('ratelimit-reset'),
  policy: res.headers.get('ratelimit-policy'),
});

for (const store of ['database', 'redis'] as const) {
  describe(`rate limits counted in ${store === 'database' ? 'the database' : 'Redis'}`, () => {
    const clock = movableClock();
    let server: TestServer;
    let second: Server;
    const storeEnv: Record<string, string> = store === 'redis' ? { REDIS_URL, REDIS_KEY_PREFIX: `${runPrefix}${store}:` } : {};
    before(async () => {
      server = await startTestServer({
        clock,
        env: {
          ...storeEnv,
          RATE_LIMIT_PER_MINUTE: '5',
          RATE_LIMIT_ADDRESS_PER_MINUTE: '3',
          RATE_LIMIT_USER_PER_MINUTE: '4',
          RATE_LIMIT_OAUTH_CLIENT_PER_MINUTE: '2',
          LOGIN_RATE_LIMIT_PER_MINUTE: '100',
          AUTH_FAILURE_LIMIT_PER_MINUTE: '4',
          TRUST_PROXY: 'true',
        },
      });
      second = await secondServer(server, clock);
    });
    after(async () => {
      await second?.close();
      await server?.close();
    });
    /** Moves past every window open now. */
    const nextMinute = () => clock.advance(61_000);

    test('every counted response carries the RateLimit headers, counting down; over the limit, 429 with Retry-After and a problem naming the limit', async () => {
      nextMinute();
      const key = await createKeyWith(server, ['channels:read']);
      const seen = [];
      for (let i = 0; i < 4; i++) {
        const res = await request(server, 'GET', '/v1/channels', { key });
        assert.equal(res.status, 200, res.text);
        seen.push(headersOf(res));
      }
      // An error answer is counted and carries them too.
      const invalid = await request(server, 'GET', '/v1/channels?limit=0', { key });
      assert.equal(invalid.status, 400, invalid.text);
      seen.push(headersOf(invalid));
      assert.deepEqual(
        seen.map((h) => h.remaining),
        ['4', '3', '2', '1', '0'],
      );
      for (const h of seen) {
        assert.equal(h.limit, '5');
        assert.equal(h.policy, '5;w=60');
        assert.ok(Number(h.reset) >= 1 && Number(h.reset) <= 60, `RateLimit-Reset ${h.reset}`);
      }
      const refused = await request(server, 'GET', '/v1/channels', { key });
      assert.equal(refused.status, 429, 'the sixth request is over the limit');
      assert.match(refused.headers.get('content-type') ?? '', /^application\/problem\+json/);
      assert.equal(refused.body.type, 'about:blank');
      assert.equal(refused.body.title, 'Too Many Requests');
      assert.equal(refused.body.status, 429);
      assert.equal(refused.body.code, 'rate_limited');
      assert.match(refused.body.detail, /^too many requests with this API key: the limit is 5 a minute; retry in \d+ s$/);
      const retryAfter = Number(refused.headers.get('retry-after'));
      assert.ok(retryAfter >= 1 && retryAfter <= 60, `Retry-After ${retryAfter}`);
      assert.equal(refused.headers.get('ratelimit-reset'), String(retryAfter));
      assert.equal(refused.headers.get('ratelimit-remaining'), '0');
      // Refused before the body is read: a write is refused the same way, and nothing happens.
      const write = await request(server, 'POST', '/v1/contacts', { key, body: { name: 'Never stored' } });
      assert.equal(write.status, 429);

      // The window ends when the clock passes it: no sleeping.
      clock.advance(retryAfter * 1000);
      const again = await request(server, 'GET', '/v1/channels', { key });
      assert.equal(again.status, 200, again.text);
      assert.equal(headersOf(again).remaining, '4');
    });

    test('a limit holds across two servers sharing the store', async () => {
      nextMinute();
      const key = await createKeyWith(server, ['channels:read']);
      const statuses: number[] = [];
      const remaining: Array<string | null> = [];
      for (let i = 0; i < 8; i++) {
        const res = await request(i % 2 === 0 ? server : second, 'GET', '/v1/channels', { key });
        statuses.push(res.status);
        remaining.push(res.headers.get('ratelimit-remaining'));
      }
      assert.deepEqual(statuses, [200, 200, 200, 200, 200, 429, 429, 429]);
      assert.deepEqual(remaining.slice(0, 5), ['4', '3', '2', '1', '0'], 'each server counts on from the other');
      // Both refuse until the window ends, then both serve again.
      nextMinute();
      assert.equal((await request(second, 'GET', '/v1/channels', { key })).status, 200);
      assert.equal((await request(server, 'GET', '/v1/channels', { key })).status, 200);
    });

    test('API keys, OAuth clients, users and addresses count in separate buckets', async () => {
      nextMinute();
      const first = await createKeyWith(server, ['channels:read']);
      const other = await createKeyWith(server, ['channels:read']);
      for (let i = 0; i < 5; i++) assert.equal((await request(server, 'GET', '/v1/channels', { key: first })).status, 200);
      assert.equal((await request(server, 'GET', '/v1/channels', { key: first })).status, 429);
      // Another key of the same organization, from the same address, has its own bucket.
      const otherRes = await request(server, 'GET', '/v1/channels', { key: other });
      assert.equal(otherRes.status, 200);
      assert.equal(headersOf(otherRes).remaining, '4');

      // A dashboard user: per user, across the user's sessions.
      const cookies = [await loginCookie(server), await loginCookie(server)];
      const session = await request(server, 'GET', '/v1/auth/session', { cookie: cookies[0] });
      assert.equal(headersOf(session).remaining, '3');
      const userId = session.body.data.user.id as string;
      const userStatuses: number[] = [];
      for (let i = 0; i < 4; i++) userStatuses.push((await request(server, 'GET', '/v1/channels', { cookie: cookies[i % 2] })).status);
      assert.deepEqual(userStatuses, [200, 200, 200, 429]);
      const userRefusal = await request(server, 'GET', '/v1/channels', { cookie: cookies[0] });
      assert.match(userRefusal.body.detail, /this user's sessions: the limit is 4 a minute/);

      // An OAuth client: per client, across its tokens (two grants of one client share it).
      const client = await createOAuthClient(server, { scopes: ['channels:read'] });
      const grants = [
        await createGrant(server, { client, userId, organizationIds: [server.organizationId] }),
        await createGrant(server, { client, userId, organizationIds: [server.organizationId] }),
      ];
      const orgHeader = { 'x-organization-id': server.organizationId };
      const clientStatuses: number[] = [];
      for (let i = 0; i < 3; i++)
        clientStatuses.push(
          (await request(server, 'GET', '/v1/channels', { bearer: grants[i % 2]!.accessToken, headers: orgHeader })).status,
        );
      assert.deepEqual(clientStatuses, [200, 200, 429]);
      const clientRefusal = await request(server, 'GET', '/v1/channels', { bearer: grants[0]!.accessToken, headers: orgHeader });
      assert.match(clientRefusal.body.detail, /this OAuth client: the limit is 2 a minute/);
      const otherClient = await createOAuthClient(server, { scopes: ['channels:read'] });
      const otherGrant = await createGrant(server, { client: otherClient, userId, organizationIds: [server.organizationId] });
      assert.equal(
        (await request(server, 'GET', '/v1/channels', { bearer: otherGrant.accessToken, headers: orgHeader })).status,
        200,
        'another client has its own bucket',
      );

      // Without a credential, per address (IPv6 by /64); a credential from that address is not affected.
      const discovery = (address: string) =>
        request(server, 'GET', '/.well-known/oauth-authorization-server', { headers: { 'x-forwarded-for': address } });
      const anonymous: number[] = [];
      for (const address of ['2001:db8:1:2::1', '2001:db8:1:2::2', '2001:db8:1:2:ffff::9', '2001:db8:1:2::3'])
        anonymous.push((await discovery(address)).status);
      assert.deepEqual(anonymous, [200, 200, 200, 429], 'one /64 is one address');
      const addressRefusal = await discovery('2001:db8:1:2::1');
      assert.match(addressRefusal.body.detail, /without a credential from this address: the limit is 3 a minute/);
      assert.equal((await discovery('2001:db8:1:3::1')).status, 200, 'the next /64 is another address');
      assert.equal(
        (await request(server, 'GET', '/v1/channels', { key: other, headers: { 'x-forwarded-for': '2001:db8:1:2::1' } })).status,
        200,
      );
    });

    test('health checks and provider webhooks are not counted', async () => {
      nextMinute();
      const from = { 'x-forwarded-for': '192.0.2.77' };
      for (let i = 0; i < 3; i++)
        assert.equal((await request(server, 'GET', '/.well-known/oauth-authorization-server', { headers: from })).status, 200);
      for (let i = 0; i < 5; i++) {
        const health = await request(server, 'GET', '/v1/health', { headers: from });
        assert.equal(health.status, 200);
        assert.equal(health.headers.get('ratelimit-limit'), null);
      }
      const webhook = await request(server, 'POST', '/v1/providers/chatapp_official/webhook', {
        headers: from,
        body: { object: 'whatsapp_business_account', entry: [] },
      });
      assert.notEqual(webhook.status, 429);
      assert.equal(webhook.headers.get('ratelimit-limit'), null);
    });

    test('bad credentials are counted across servers: each refuses the address before any lookup once it sees it over', async () => {
      nextMinute();
      const from = { 'x-forwarded-for': '198.51.100.5' };
      const badKey = () => `${API_KEY_PREFIX}${randomToken(30)}`;
      const statuses: number[] = [];
      for (let i = 0; i < 4; i++)
        statuses.push((await request(i % 2 === 0 ? server : second, 'GET', '/v1/channels', { key: badKey(), headers: from })).status);
      assert.deepEqual(statuses, [401, 401, 401, 401]);
      // The fourth failure (on the second server) reached the limit there; the first learns of it from its next failure.
      const refused = await request(second, 'GET', '/v1/channels', { key: badKey(), headers: from });
      assert.equal(refused.status, 429);
      assert.match(refused.body.detail, /missing or invalid credential from this address/);
      assert.equal(
        (await request(server, 'GET', '/v1/channels', { key: badKey(), headers: from })).status,
        401,
        'one more failure on the first server...',
      );
      assert.equal((await request(server, 'GET', '/v1/channels', { key: badKey(), headers: from })).status, 429, '...and it refuses too');
      nextMinute();
      assert.equal((await request(server, 'GET', '/v1/channels', { key: server.apiKey, headers: from })).status, 200);
    });

    test('the login route keeps its own per-address limit, shared too', async () => {
      nextMinute();
      const limited = await startTestServer({
        clock,
        env: { ...storeEnv, LOGIN_RATE_LIMIT_PER_MINUTE: '2', RATE_LIMIT_ADDRESS_PER_MINUTE: '100', TRUST_PROXY: 'true' },
      });
      const other = await secondServer(limited, clock);
      try {
        const login = (target: Server) =>
          request(target, 'POST', '/v1/auth/login', {
            body: { email: 'nobody@example.com', password: 'wrong password' },
            headers: { 'x-forwarded-for': '203.0.113.9' },
          });
        assert.equal((await login(limited)).status, 401);
        assert.equal((await login(other)).status, 401);
        const refused = await login(limited);
        assert.equal(refused.status, 429);
        assert.match(refused.body.detail, /too many login requests from this address: the limit is 2 a minute/);
        assert.ok(Number(refused.headers.get('retry-after')) >= 1);
      } finally {
        await other.close();
        await limited.close();
      }
    });
  });
}

describe('a store that cannot count', () => {
  test('an unreachable Redis lets every request through, without RateLimit headers, and says so once in the log', async () => {
    const closed = await freePort();
    const server = await startTestServer({
      env: { REDIS_URL: `redis://127.0.0.1:${closed}`, REDIS_KEY_PREFIX: `${runPrefix}down:`, RATE_LIMIT_PER_MINUTE: '2' },
    });
    try {
      for (let i = 0; i < 5; i++) {
        const res = await request(server, 'GET', '/v1/channels', { key: server.apiKey });
        assert.equal(res.status, 200, res.text);
        assert.equal(res.headers.get('ratelimit-limit'), null);
      }
      const warnings = server.logs.filter((l) => l.includes('rate-limit counters cannot be reached'));
      assert.equal(warnings.length, 1, 'one line for the outage, not one per request');
      assert.ok(!server.logs.some((l) => l.includes(String(closed)) && l.includes('"level":50')), 'no error lines');
    } finally {
      await server.close();
    }
  });

  test('a database store that fails lets requests through, then counts again when it works', async () => {
    const server = await startTestServer({ env: { RATE_LIMIT_PER_MINUTE: '3' } });
    try {
      const db = server.container.database.db;
      await db.execute(sql`alter table rate_limit_counters rename to rate_limit_counters_away`);
      for (let i = 0; i < 5; i++) assert.equal((await request(server, 'GET', '/v1/channels', { key: server.apiKey })).status, 200);
      assert.equal(server.logs.filter((l) => l.includes('rate-limit counters cannot be reached')).length, 1);
      await db.execute(sql`alter table rate_limit_counters_away rename to rate_limit_counters`);
      const statuses: number[] = [];
      for (let i = 0; i < 4; i++) statuses.push((await request(server, 'GET', '/v1/channels', { key: server.apiKey })).status);
      assert.deepEqual(statuses, [200, 200, 200, 429]);
      assert.ok(server.logs.some((l) => l.includes('rate-limit counters work again')));
    } finally {
      await server.close();
    }
  });
});

test('an unreachable database: the limits let requests through, so a route needing no database still answers and the others answer 503, never 500', {
  skip: !usingPostgres && 'PostgreSQL only',
}, async () => {
  const fresh = await createTestDatabaseUrl();
  const target = new URL(fresh.url);
  const proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
  const logs: string[] = [];
  const destination = new Writable({
    write(chunk, _encoding, callback) {
      logs.push(...String(chunk).split('\n').filter(Boolean));
      callback();
    },
  });
  const port = await freePort();
  const apiKey = `prl_test_${randomToken(24)}`;
  const config = loadConfig({
    PORT: String(port),
    BASE_URL: `http://127.0.0.1:${port}`,
    DATABASE_URL: throughProxy(fresh.url, proxy),
    DATABASE_TIMEOUT_MS: '1000',
    DATA_DIR: mkdtempSync(path.join(tmpdir(), 'parley-test-')),
    BOOTSTRAP_API_KEY: apiKey,
    RATE_LIMIT_PER_MINUTE: '100',
    LOG_LEVEL: 'info',
  });
  const container = await buildContainer(config, { logger: createLogger({ level: 'info', destination }) });
  const app = await buildApp(container);
  await app.listen({ port, host: '127.0.0.1' });
  const server = { baseUrl: config.baseUrl };
  try {
    const before = await request(server, 'GET', '/v1/channels', { key: apiKey });
    assert.equal(before.status, 200, before.text);
    assert.equal(before.headers.get('ratelimit-remaining'), '99');
    proxy.cut();
    const discovery = await request(server, 'GET', '/.well-known/oauth-authorization-server');
    assert.equal(discovery.status, 200, 'a public route that needs no database still answers');
    assert.equal(discovery.headers.get('ratelimit-limit'), null, 'uncounted');
    // The key is cached in the process: the request gets past authentication, then needs the database.
    const during = await request(server, 'GET', '/v1/channels', { key: apiKey });
    assert.equal(during.status, 503, during.text);
    assert.ok(Number(during.headers.get('retry-after')) >= 1);
    assert.ok(logs.some((l) => l.includes('rate-limit counters cannot be reached')));
    proxy.restore();
    await eventually(
      'the limits counting again',
      async () => {
        const res = await request(server, 'GET', '/v1/channels', { key: apiKey });
        return res.status === 200 && res.headers.get('ratelimit-limit') === '100' ? true : undefined;
      },
      { timeoutMs: 15_000, everyMs: 100 },
    );
  } finally {
    await app.close();
    await container.close();
    await proxy.close();
    await fresh.drop();
    rmSync(config.dataDir, { recursive: true, force: true });
  }
});

describe('the counter stores', () => {
  let server: TestServer;
  const stores: Array<[string, () => Promise<CounterStore>]> = [];
  before(async () => {
    server = await startTestServer();
    stores.push([
      'database',
      async () => createDatabaseCounterStore(server.container.database, { onPurgeError: (err) => assert.fail(String(err)) }),
    ]);
    stores.push([
      'redis',
      () => createRedisCounterStore({ url: REDIS_URL, keyPrefix: `${runPrefix}stores:`, logger: createLogger({ level: 'silent' }) }),
    ]);
  });
  after(() => server.close());

  test('count each hit once under concurrency, and start a window at the first hit after the last one ended', async () => {
    for (const [name, make] of stores) {
      const store = await make();
      try {
        const bucket = `concurrent:${randomToken(6)}`;
        const t0 = 1_800_000_000_000;
        const hits = await Promise.all(Array.from({ length: 40 }, () => store.hit(bucket, t0, 60_000)));
        assert.deepEqual(
          hits.map((h) => h.count).sort((a, b) => a - b),
          Array.from({ length: 40 }, (_, i) => i + 1),
          `${name}: 1..40, each once`,
        );
        assert.ok(
          hits.every((h) => h.windowStart === t0),
          `${name}: one window`,
        );
        assert.deepEqual(await store.hit(bucket, t0 + 59_999, 60_000), { count: 41, windowStart: t0 }, `${name}: still in the window`);
        assert.deepEqual(await store.hit(bucket, t0 + 60_000, 60_000), { count: 1, windowStart: t0 + 60_000 }, `${name}: the next window`);
        assert.deepEqual(
          await store.hit(`${bucket}:other`, t0 + 60_000, 60_000),
          { count: 1, windowStart: t0 + 60_000 },
          `${name}: another bucket`,
        );
      } finally {
        await store.close();
      }
    }
  });

  test('the database store deletes rows of long-ended windows as it counts', async () => {
    const store = createDatabaseCounterStore(server.container.database, { onPurgeError: (err) => assert.fail(String(err)) });
    const old = 1_700_000_000_000;
    await store.hit('purge:old', old, 60_000);
    // The first hit of a store purges (its last purge is long ago): rows whose window started over an hour before go.
    await store.hit('purge:new', old + 2 * 3_600_000, 60_000);
    const rows = async () =>
      (await server.container.database.db.execute(
        sql`select bucket from rate_limit_counters where bucket like 'purge:%' order by bucket`,
      )) as unknown as { rows: Array<{ bucket: string }> };
    await eventually(
      'the old row to be purged',
      async () => ((await rows()).rows.some((r) => r.bucket === 'purge:old') ? undefined : true),
      { timeoutMs: 5000, everyMs: 20 },
    );
    assert.deepEqual(
      (await rows()).rows.map((r) => r.bucket),
      ['purge:new'],
    );
  });
});
