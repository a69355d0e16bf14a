/**
 * Bad credentials are cheap to refuse: an address sending too many is stopped before any lookup
 * (429 with Retry-After, whatever RATE_LIMIT_PER_MINUTE says), and an unknown API key is looked up
 * once per negative-cache period, not once per request.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { eventually } from '../eventually.ts';
import { createApiKey, createApiKeyAuthenticator, API_KEY_PREFIX } from '../../src/domain/api-keys/api-keys.ts';
import { PERMISSIONS } from '../../src/domain/permissions.ts';
import type { Executor } from '../../src/db/client.ts';
import { randomToken } from '../../src/lib/crypto.ts';
import { createOtherOrganization, request, startTestServer, type TestServer } from '../harness.ts';

let server: TestServer;
let now = Date.now();
before(async () => {
  // RATE_LIMIT_PER_MINUTE stays 0 (the harness's default): this limit does not depend on it.
  server = await startTestServer({
    env: { AUTH_FAILURE_LIMIT_PER_MINUTE: '20', TRUST_PROXY: 'true' },
    clock: { now: () => new Date(now) },
  });
});
after(() => server.close());

const randomKey = () => `${API_KEY_PREFIX}${randomToken(30)}`;
const from = (address: string, key?: string) => request(server, 'GET', '/v1/channels', { key, headers: { 'x-forwarded-for': address } });

/** Counts the calls that reach the server's API-key authenticator (each a database lookup for an unknown key). */
function countLookups(): { readonly calls: number; restore(): void } {
  const authenticator = server.container.apiKeys;
  const original = authenticator.authenticate;
  let calls = 0;
  authenticator.authenticate = (secret) => {
    calls++;
    return original.call(authenticator, secret);
  };
  return {
    get calls() {
      return calls;
    },
    restore: () => void (authenticator.authenticate = original),
  };
}

test('many invalid keys from one address end in 429 with Retry-After, answered before any lookup', async () => {
  const lookups = countLookups();
  try {
    const statuses: number[] = [];
    for (let i = 0; i < 30; i++) statuses.push((await from('10.0.0.1', randomKey())).status);
    assert.deepEqual(statuses, [...Array(20).fill(401), ...Array(10).fill(429)]);
    assert.equal(lookups.calls, 20, 'the refused requests never reached the key lookup');

    const limited = await from('10.0.0.1', randomKey());
    assert.equal(limited.status, 429);
    const wait = Number(limited.headers.get('retry-after'));
    assert.ok(wait >= 1 && wait <= 60, `Retry-After ${wait}`);
    assert.match(limited.body.detail, /missing or invalid credential from this address; try again in \d+ s/);
    assert.match(limited.headers.get('content-type') ?? '', /application\/problem\+json/);
    // No credential at all counts and is refused the same way.
    assert.equal((await from('10.0.0.1')).status, 429);
    // Even a good key waits out the minute from that address (the limit comes before the lookup).
    assert.equal((await from('10.0.0.1', server.apiKey)).status, 429);

    // Other addresses are untouched.
    assert.equal((await from('10.0.0.2', server.apiKey)).status, 200);
    assert.equal((await from('10.0.0.2', randomKey())).status, 401);
    // Public routes are not behind it.
    assert.notEqual((await request(server, 'GET', '/v1/health', { headers: { 'x-forwarded-for': '10.0.0.1' } })).status, 429);

    now += wait * 1000;
    assert.equal((await from('10.0.0.1', server.apiKey)).status, 200, 'the next minute starts over');
    assert.equal((await from('10.0.0.1', randomKey())).status, 401);
  } finally {
    lookups.restore();
  }
});

test('missing credentials count too', async () => {
  now += 120_000;
  const statuses: number[] = [];
  for (let i = 0; i < 22; i++) statuses.push((await from('10.0.0.3')).status);
  assert.deepEqual(statuses, [...Array(20).fill(401), 429, 429]);
});

test('with the API rate limit on as well, the answer is the same 429 with Retry-After', async () => {
  const both = await startTestServer({ env: { AUTH_FAILURE_LIMIT_PER_MINUTE: '3', RATE_LIMIT_PER_MINUTE: '1000' } });
  try {
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await request(both, 'GET', '/v1/channels', { key: randomKey() })).status);
    assert.deepEqual(statuses, [401, 401, 401, 429]);
    const res = await request(both, 'GET', '/v1/channels', { key: both.apiKey });
    assert.equal(res.status, 429);
    assert.ok(Number(res.headers.get('retry-after')) >= 1);
  } finally {
    await both.close();
  }
});

/** The server's database with every SELECT counted. */
function countingDb(): { db: Executor; selects(): number } {
  const db = server.container.database.db;
  let selects = 0;
  const wrapped = new Proxy(db, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (property === 'select' && typeof value === 'function') {
        return (...args: unknown[]) => {
          selects++;
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      }
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return { db: wrapped as Executor, selects: () => selects };
}

test('an unknown key is looked up once per negative-cache period; a known one once per cache period', async () => {
  const counted = countingDb();
  let at = Date.now();
  const authenticator = createApiKeyAuthenticator(
    { db: counted.db, clock: { now: () => new Date(at) } },
    { ttlMs: 60_000, negativeTtlMs: 10_000 },
  );
  const unknown = randomKey();
  for (let i = 0; i < 50; i++) assert.equal(await authenticator.authenticate(unknown), undefined);
  assert.equal(counted.selects(), 1, '50 tries of one unknown key, one query');

  at += 9_999;
  assert.equal(await authenticator.authenticate(unknown), undefined);
  assert.equal(counted.selects(), 1, 'still within the negative TTL');
  at += 1;
  assert.equal(await authenticator.authenticate(unknown), undefined);
  assert.equal(counted.selects(), 2, 'looked up again once the negative TTL is over');

  // forget() (a key was created somewhere) drops the negative entries.
  authenticator.forget();
  assert.equal(await authenticator.authenticate(unknown), undefined);
  assert.equal(counted.selects(), 3);

  const known = server.apiKey;
  for (let i = 0; i < 10; i++) assert.ok(await authenticator.authenticate(known));
  assert.equal(counted.selects(), 4, 'a known key is cached after its first lookup');
});

test('a key created after its secret was refused (and remembered as unknown) works at once, here and in other processes', async () => {
  now += 120_000;
  const secret = randomKey();
  assert.equal((await from('10.0.0.4', secret)).status, 401);
  assert.equal((await from('10.0.0.4', secret)).status, 401);
  // Created as another process would: straight in the database, this process not told directly.
  await createApiKey(
    { db: server.container.database.db, clock: server.container.clock },
    { kind: 'system', organizationId: server.organizationId, permissions: new Set(PERMISSIONS) },
    { name: 'made elsewhere', permissions: ['channels:read'], secret },
  );
  let poll = 0;
  const status = await eventually(
    'the new key to be accepted (the negative cache forgotten)',
    async () => {
      // From ever new addresses, so the failure limit stays out of it.
      const { status } = await from(`10.4.${Math.floor(poll / 250)}.${poll++ % 250}`, secret);
      return status === 401 ? undefined : status;
    },
    { timeoutMs: 5000, everyMs: 20 },
  );
  assert.equal(status, 200);
});

test('a valid key naming an organization it does not reach is refused as that organization (400), not counted as a bad credential', async () => {
  now += 120_000;
  const other = await createOtherOrganization(server, 'failure-limit');
  const foreign = { 'x-forwarded-for': '10.0.0.5', 'x-organization-id': other.organizationId };
  for (let i = 0; i < 25; i++) {
    const res = await request(server, 'GET', '/v1/channels', { key: server.apiKey, headers: foreign });
    assert.equal(res.status, 400, `request ${i + 1}: ${res.text}`);
    assert.equal(res.body.errors[0].pointer, '/x-organization-id');
    assert.match(res.body.detail, /does not reach organization/);
  }
  // The address was never counted: a bad credential from it is still the first of its minute.
  assert.equal((await from('10.0.0.5', randomKey())).status, 401);
  assert.equal((await from('10.0.0.5', server.apiKey)).status, 200);
});
