import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { buildApp } from '../../src/http/app.ts';
import { freePort, request, startTestServer, type TestServer } from '../harness.ts';

let server: TestServer;
before(async () => {
  server = await startTestServer({ env: { BODY_LIMIT_BYTES: '4096' } });
});
after(() => server.close());

const isProblem = (res: { headers: Headers; body: { title?: unknown; status?: unknown; detail?: unknown } }, status: number) => {
  assert.match(res.headers.get('content-type') ?? '', /^application\/problem\+json/);
  assert.equal(res.body.status, status);
  assert.equal(typeof res.body.title, 'string');
  assert.equal(typeof res.body.detail, 'string');
};

test('malformed JSON is a 400 problem', async () => {
  const res = await request(server, 'POST', '/v1/api-keys', { key: server.apiKey, rawBody: '{"name": "x", "permissions": [' });
  assert.equal(res.status, 400);
  isProblem(res, 400);
  assert.match(res.body.detail, /malformed JSON/);
});

test('an empty JSON body is a 400 problem', async () => {
  const res = await request(server, 'POST', '/v1/api-keys', { key: server.apiKey, rawBody: '' });
  assert.equal(res.status, 400);
  isProblem(res, 400);
});

test('wrong types are a 400 listing every field with a JSON pointer', async () => {
  const res = await request(server, 'POST', '/v1/api-keys', { key: server.apiKey, body: { name: 7, permissions: [1, 'messages:read'] } });
  assert.equal(res.status, 400);
  isProblem(res, 400);
  const pointers = res.body.errors.map((e: { pointer: string }) => e.pointer).sort();
  assert.deepEqual(pointers, ['/name', '/permissions/0']);
  assert.ok(res.body.errors.every((e: { location: string; message: string }) => e.location === 'body' && e.message.length > 0));
});

test('a body over the limit is 413', async () => {
  const res = await request(server, 'POST', '/v1/api-keys', {
    key: server.apiKey,
    body: { name: 'x'.repeat(5000), permissions: ['messages:read'] },
  });
  assert.equal(res.status, 413);
  isProblem(res, 413);
});

test('a body that is not JSON is 415', async () => {
  for (const contentType of ['text/plain', 'application/x-www-form-urlencoded', 'application/xml']) {
    const res = await request(server, 'POST', '/v1/api-keys', { key: server.apiKey, rawBody: 'name=x', contentType });
    assert.equal(res.status, 415, contentType);
    isProblem(res, 415);
  }
});

test('an unknown route is 404 and a wrong method is 405 with Allow', async () => {
  const missing = await request(server, 'GET', '/v1/nothing-here');
  assert.equal(missing.status, 404);
  isProblem(missing, 404);
  const wrong = await request(server, 'PUT', '/v1/api-keys', { key: server.apiKey, body: {} });
  assert.equal(wrong.status, 405);
  isProblem(wrong, 405);
  assert.deepEqual(wrong.headers.get('allow')?.split(', ').sort(), ['GET', 'HEAD', 'POST']);
  const wrongWithParam = await request(server, 'GET', '/v1/api-keys/0196a0e2-0000-7000-8000-000000000000');
  assert.equal(wrongWithParam.status, 405);
  assert.equal(wrongWithParam.headers.get('allow'), 'DELETE');
});

test('X-Request-Id is echoed, or made when absent, and appears in problem bodies', async () => {
  const given = await request(server, 'GET', '/v1/nothing', { headers: { 'x-request-id': 'trace-abc.123' } });
  assert.equal(given.headers.get('x-request-id'), 'trace-abc.123');
  assert.equal(given.body.request_id, 'trace-abc.123');
  const made = await request(server, 'GET', '/v1/health');
  assert.match(made.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/);
  const unsafe = await request(server, 'GET', '/v1/health', { headers: { 'x-request-id': 'bad id with spaces' } });
  assert.notEqual(unsafe.headers.get('x-request-id'), 'bad id with spaces');
});

test('an unexpected failure is a 500 problem with the request id and no internals', async () => {
  const port = await freePort();
  const app = await buildApp(server.container);
  app.get('/v1/test-explode', { config: { auth: { public: true } } }, async () => {
    throw new Error('secret internal detail at /srv/parley/db.ts:42');
  });
  await app.listen({ port, host: '127.0.0.1' });
  try {
    const res = await request({ baseUrl: `http://127.0.0.1:${port}` }, 'GET', '/v1/test-explode', { headers: { 'x-request-id': 'boom-1' } });
    assert.equal(res.status, 500);
    isProblem(res, 500);
    assert.equal(res.body.request_id, 'boom-1');
    assert.match(res.body.detail, /boom-1/);
    assert.equal(res.text.includes('secret internal detail'), false);
    assert.equal(res.text.includes('db.ts'), false);
    assert.ok(server.logs.some((l) => l.includes('boom-1') && l.includes('secret internal detail')), 'the fault is logged with its request id');
  } finally {
    await app.close();
  }
});

test('GET /v1/openapi.json and the reference page need no credential', async () => {
  const doc = await request(server, 'GET', '/v1/openapi.json');
  assert.equal(doc.status, 200);
  assert.equal(doc.body.openapi, '3.1.0');
  const page = await fetch(`${server.baseUrl}/v1/docs/`);
  assert.equal(page.status, 200);
  assert.match(await page.text(), /swagger/i);
});
