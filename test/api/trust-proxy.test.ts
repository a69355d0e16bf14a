/**
 * TRUST_PROXY decides the client address every per-address rule reads (METRICS_ALLOW, the bad-credential
 * limit, the request limit without a credential, the login throttle), and a client's own
 * X-Forwarded-For never moves it: off, the headers are ignored; on (one hop), the address is the one the
 * trusted proxy appended (the last entry), whatever the client wrote before it. A hop count and a list of
 * proxy addresses pick the address as Fastify's trustProxy does.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { API_KEY_PREFIX } from '../../src/domain/api-keys/api-keys.ts';
import { randomToken } from '../../src/lib/crypto.ts';
import { eventually } from '../eventually.ts';
import { request, startTestServer, type TestServer } from '../harness.ts';

/** Low limits, each with its own 429 detail; the request limits count only requests without a credential. */
const LIMITS = {
  METRICS_ALLOW: '10.0.0.0/8',
  AUTH_FAILURE_LIMIT_PER_MINUTE: '3',
  RATE_LIMIT_PER_MINUTE: '0',
  RATE_LIMIT_ADDRESS_PER_MINUTE: '8',
  LOGIN_RATE_LIMIT_PER_MINUTE: '1000',
  LOGIN_THROTTLE_ADDRESS_FREE_ATTEMPTS: '3',
};

const badKey = () => `${API_KEY_PREFIX}${randomToken(30)}`;
/** A first X-Forwarded-For entry of the client's choosing, new every time (the rotation that defeated the limits). */
let spoofs = 0;
const spoofed = () => `10.${Math.floor(spoofs / 250) % 250}.${spoofs % 250}.${(spoofs++ % 200) + 1}`;

/** The statuses of `count` calls of `send` (in turn, as a client would). */
async function statuses(count: number, send: () => Promise<{ status: number }>): Promise<number[]> {
  const seen: number[] = [];
  for (let i = 0; i < count; i++) seen.push((await send()).status);
  return seen;
}

/**
 * A server with the low limits (and `env`) on a clock the tests move, and the four per-address rules
 * against it. Every request's X-Forwarded-For is a spoofed first entry, then an address of the test's
 * own (a lane per rule): what a proxy in front appends, the address it saw.
 */
function limitTests(env: Record<string, string>): () => TestServer {
  let server: TestServer;
  let now = Date.now();
  before(async () => {
    server = await startTestServer({ env: { ...LIMITS, ...env }, clock: { now: () => new Date(now) } });
  });
  after(() => server.close());
  const advance = (ms: number) => void (now += ms);
  const forwarded = (spoof: string, lane: string) => `${spoof}, ${lane}`;
  const get = (path: string, headers: Record<string, string>, key?: string) => request(server, 'GET', path, { key, headers });

  test('METRICS_ALLOW: an address of the allowed range written by the client does not open the metrics', async () => {
    for (const header of [forwarded('10.1.2.3', '203.0.113.1'), '10.1.2.3, 127.0.0.1']) {
      const res = await get('/metrics', { 'x-forwarded-for': header });
      assert.equal(res.status, 403, `X-Forwarded-For: ${header}: ${res.text}`);
      assert.match(res.body.detail, /METRICS_ALLOW/);
    }
  });

  test('AUTH_FAILURE_LIMIT_PER_MINUTE: bad credentials under ever new spoofed addresses are counted as one address', async () => {
    advance(3_600_000);
    const seen = await statuses(5, () => get('/v1/channels', { 'x-forwarded-for': forwarded(spoofed(), '203.0.113.2') }, badKey()));
    assert.deepEqual(seen, [401, 401, 401, 429, 429]);
    const refused = await get('/v1/channels', { 'x-forwarded-for': forwarded(spoofed(), '203.0.113.2') }, server.apiKey);
    assert.match(refused.body.detail, /missing or invalid credential from this address/);
  });

  test('RATE_LIMIT_ADDRESS_PER_MINUTE: requests without a credential under ever new spoofed addresses are counted as one address', async () => {
    advance(3_600_000);
    const seen = await statuses(9, () =>
      get('/.well-known/oauth-authorization-server', { 'x-forwarded-for': forwarded(spoofed(), '203.0.113.3') }),
    );
    assert.deepEqual(seen, [...Array(8).fill(200), 429]);
    const refused = await get('/.well-known/oauth-authorization-server', { 'x-forwarded-for': forwarded(spoofed(), '203.0.113.3') });
    assert.match(refused.body.detail, /without a credential from this address/);
  });

  test('the login throttle by address: wrong passwords under ever new spoofed addresses are counted as one address', async () => {
    advance(3_600_000);
    let n = 0;
    const login = () =>
      request(server, 'POST', '/v1/auth/login', {
        body: { email: `spray${n++}-${randomUUID()}@example.com`, password: 'Summer2026!' },
        headers: { 'x-forwarded-for': forwarded(spoofed(), '203.0.113.4') },
      });
    assert.deepEqual(await statuses(6, login), [401, 401, 401, 401, 429, 429]);
    const refused = await login();
    assert.match(refused.body.detail, /this address/);
  });
  return () => server;
}

describe('TRUST_PROXY unset: the socket address, whatever the headers say', () => {
  const server = limitTests({});

  test('a lone forwarded address in the allowed range does not open the metrics either', async () => {
    const res = await request(server(), 'GET', '/metrics', { headers: { 'x-forwarded-for': '10.1.2.3' } });
    assert.equal(res.status, 403, res.text);
  });
});

describe('TRUST_PROXY=true: one proxy in front, the address it appended', () => {
  // The test client plays the proxy: the last entry is the address it "saw".
  const server = limitTests({ TRUST_PROXY: 'true' });

  test('the address the proxy appended is the client: the metrics open to one in the range, the limits are per such address', async () => {
    const res = await request(server(), 'GET', '/metrics', { headers: { 'x-forwarded-for': '203.0.113.9, 10.1.2.3' } });
    assert.equal(res.status, 200, res.text);
    // Another address behind the same proxy is not held by the one refused above.
    assert.equal(
      (await request(server(), 'GET', '/v1/channels', { key: badKey(), headers: { 'x-forwarded-for': '203.0.113.20' } })).status,
      401,
    );
  });
});

describe('TRUST_PROXY as a hop count or a list of proxies', () => {
  /** The client address the server logged for one request. */
  async function addressSeen(server: TestServer, forwardedFor: string): Promise<string> {
    const id = `trust-${randomUUID()}`;
    const res = await request(server, 'GET', '/.well-known/oauth-authorization-server', {
      headers: { 'x-forwarded-for': forwardedFor, 'x-request-id': id },
    });
    assert.equal(res.status, 200);
    const line = await eventually(`the log line of ${id}`, () =>
      server.logs.find((l) => l.includes(`"request_id":"${id}"`) && l.includes('"remote_address"')),
    );
    return JSON.parse(line).remote_address as string;
  }

  test('a hop count: that many proxies are trusted, counted from the socket', async () => {
    const server = await startTestServer({ env: { TRUST_PROXY: '2' } });
    try {
      assert.equal(await addressSeen(server, '10.1.2.3, 198.51.100.7, 192.0.2.1'), '198.51.100.7');
      assert.equal(await addressSeen(server, '198.51.100.8'), '198.51.100.8', 'fewer entries than hops: the first');
    } finally {
      await server.close();
    }
  });

  test('a list: the rightmost address that is not a listed proxy; a socket that is not one makes the headers count for nothing', async () => {
    const listed = await startTestServer({ env: { TRUST_PROXY: '127.0.0.1, 192.0.2.0/24' } });
    try {
      assert.equal(await addressSeen(listed, '10.1.2.3, 198.51.100.7, 192.0.2.1, 192.0.2.2'), '198.51.100.7');
    } finally {
      await listed.close();
    }
    const elsewhere = await startTestServer({ env: { TRUST_PROXY: '192.0.2.0/24' } });
    try {
      assert.equal(await addressSeen(elsewhere, '198.51.100.7'), '127.0.0.1');
    } finally {
      await elsewhere.close();
    }
  });
});
