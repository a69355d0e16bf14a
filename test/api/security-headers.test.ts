/**
 * Every answer carries the same security headers (computed once at start from the helmet options),
 * whatever produced it: a route, a refusal, a validation failure, an unknown route, a framework error, a probe.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startTestServer, type TestServer } from '../harness.ts';

let server: TestServer;
before(async () => {
  server = await startTestServer();
});
after(() => server.close());

const EXPECTED: Record<string, string> = {
  'content-security-policy':
    "default-src 'self';base-uri 'self';font-src 'self' https: data:;form-action 'self';frame-ancestors 'none';img-src 'self' data:;object-src 'none';script-src 'self';script-src-attr 'none';style-src 'self' 'unsafe-inline'",
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
  'origin-agent-cluster': '?1',
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
  'x-dns-prefetch-control': 'off',
  'x-download-options': 'noopen',
  'x-frame-options': 'DENY',
  'x-permitted-cross-domain-policies': 'none',
  'x-xss-protection': '0',
};

test('the security headers are on every kind of answer', async () => {
  const key = { 'x-api-key': server.apiKey };
  const cases: Array<[string, RequestInit, number]> = [
    ['/v1/channels', { headers: key }, 200],
    ['/v1/channels', {}, 401],
    ['/v1/channels', { method: 'POST', headers: { ...key, 'content-type': 'application/json' }, body: '{"broken' }, 400],
    ['/v1/channels/%zz', { headers: key }, 400],
    ['/v1/no-such-route', {}, 404],
    ['/v1/health', { method: 'DELETE' }, 405],
    ['/livez', {}, 200],
  ];
  for (const [path, init, status] of cases) {
    const res = await fetch(server.baseUrl + path, init);
    await res.arrayBuffer();
    assert.equal(res.status, status, `${init.method ?? 'GET'} ${path}`);
    const got = Object.fromEntries(Object.keys(EXPECTED).map((h) => [h, res.headers.get(h)]));
    assert.deepEqual(got, EXPECTED, `${init.method ?? 'GET'} ${path}`);
    // Plain http: no Strict-Transport-Security (only an https deployment sends it).
    assert.equal(res.headers.get('strict-transport-security'), null, path);
  }
});
