import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { loginCookie, OWNER_EMAIL, OWNER_PASSWORD, request, startTestServer, type TestServer } from '../harness.ts';

let server: TestServer;
before(async () => {
  server = await startTestServer({ env: { LOG_LEVEL: 'trace' } });
});
after(() => server.close());

test('log lines are JSON with a request id, and never carry keys, passwords, cookies or tokens', async () => {
  const cookie = await loginCookie(server);
  const sessionToken = cookie.split('=')[1]!;
  await request(server, 'POST', '/v1/auth/login', { body: { email: OWNER_EMAIL, password: 'a wrong password that must not be logged' } });
  const created = await request(server, 'POST', '/v1/api-keys', { cookie, body: { name: 'log check', permissions: ['channels:read'] } });
  const secret = created.body.data.secret as string;
  await request(server, 'GET', '/v1/channels', { key: secret, headers: { 'x-request-id': 'log-check-1' } });
  await request(server, 'GET', '/v1/channels', { bearer: 'bearer-token-that-must-not-be-logged' });
  await request(server, 'GET', '/v1/channels?access_token=query-token-that-must-not-be-logged', { key: secret });
  await request(server, 'POST', '/v1/api-keys', { key: secret, rawBody: `{"name": "${OWNER_PASSWORD}", broken` });

  assert.ok(server.logs.length > 10, 'the server logged requests');
  for (const line of server.logs) {
    const entry = JSON.parse(line) as Record<string, unknown>;
    assert.equal(typeof entry.level, 'string');
    assert.equal(typeof entry.time, 'string');
  }
  const requestLines = server.logs.filter((l) => l.includes('"req"'));
  assert.ok(requestLines.length > 0 && requestLines.every((l) => /"request_id":"[^"]+"/.test(l)), 'request lines carry request_id');
  assert.ok(server.logs.some((l) => l.includes('log-check-1')), 'a given X-Request-Id is used in the logs');

  const all = server.logs.join('\n');
  for (const [name, value] of [
    ['bootstrap API key', server.apiKey],
    ['created API key', secret],
    ['session token', sessionToken],
    ['owner password', OWNER_PASSWORD],
    ['wrong password', 'a wrong password that must not be logged'],
    ['bearer token', 'bearer-token-that-must-not-be-logged'],
    ['query token', 'query-token-that-must-not-be-logged'],
  ] as const) {
    assert.equal(all.includes(value), false, `the ${name} appears in the logs`);
  }
});
