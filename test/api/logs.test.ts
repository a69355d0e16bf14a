import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { eq } from 'drizzle-orm';
import { contacts } from '../../src/db/schema.ts';
import { buildApp } from '../../src/http/app.ts';
import { freePort, loginCookie, OWNER_EMAIL, OWNER_PASSWORD, request, startTestServer, type TestServer } from '../harness.ts';

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
  const requestLines = server.logs.filter((l) => l.includes('"msg":"request completed"'));
  assert.ok(requestLines.length > 0 && requestLines.every((l) => /"request_id":"[^"]+"/.test(l)), 'request lines carry request_id');
  assert.ok(
    server.logs.some((l) => l.includes('log-check-1')),
    'a given X-Request-Id is used in the logs',
  );

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

test('a failed statement is logged with its SQL but never with the values bound to it', async () => {
  const port = await freePort();
  const app = await buildApp(server.container);
  const personal = { name: 'Wilhelmina Logsworth', email: 'wilhelmina.logsworth@example.com', phoneNumber: '+4930555123987' };
  // A statement that fails on its first value: the personal ones ride along as parameters.
  app.get('/v1/test-sql-fault', { config: { auth: { public: true } } }, async () => {
    await server.container.database.db.insert(contacts).values({ id: 'not-a-uuid', organizationId: server.organizationId, ...personal });
    return {};
  });
  app.get('/v1/test-sql-fault-quoted', { config: { auth: { public: true } } }, async () => {
    await server.container.database.db.select().from(contacts).where(eq(contacts.id, personal.email));
    return {};
  });
  await app.listen({ port, host: '127.0.0.1' });
  try {
    for (const path of ['/v1/test-sql-fault', '/v1/test-sql-fault-quoted']) {
      const id = `sql-fault-${path.length}`;
      const res = await request({ baseUrl: `http://127.0.0.1:${port}` }, 'GET', path, { headers: { 'x-request-id': id } });
      assert.equal(res.status, 500);
      const lines = server.logs.filter((l) => l.includes(id) && l.includes('"err"'));
      assert.equal(lines.length, 1, `the fault of ${path} is logged once`);
      assert.match(lines[0]!, /contacts/, 'the statement is named');
      for (const value of Object.values(personal))
        assert.ok(!lines[0]!.includes(value), `${path}: ${value} is in the log line: ${lines[0]}`);
    }
  } finally {
    await app.close();
  }
});
