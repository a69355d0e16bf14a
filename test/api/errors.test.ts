import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, before, test } from 'node:test';
import { buildApp } from '../../src/http/app.ts';
import { broadcasts, channels } from '../../src/db/schema.ts';
import { uuidv7 } from '../../src/lib/ids.ts';
import { insertChannel, insertMessage, postContact } from '../contacts-fixtures.ts';
import { freePort, loginCookie, request, startTestServer, type TestServer } from '../harness.ts';

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
    const res = await request({ baseUrl: `http://127.0.0.1:${port}` }, 'GET', '/v1/test-explode', {
      headers: { 'x-request-id': 'boom-1' },
    });
    assert.equal(res.status, 500);
    isProblem(res, 500);
    assert.equal(res.body.request_id, 'boom-1');
    assert.match(res.body.detail, /boom-1/);
    assert.equal(res.text.includes('secret internal detail'), false);
    assert.equal(res.text.includes('db.ts'), false);
    assert.ok(
      server.logs.some((l) => l.includes('boom-1') && l.includes('secret internal detail')),
      'the fault is logged with its request id',
    );
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

/** The field errors of a 400, in either error body shape: [location, pointer]. */
const fieldErrorsOf = (res: { body: { errors?: Array<{ location: string; pointer: string }> } }) =>
  (res.body.errors ?? []).map((e) => [e.location, e.pointer]);

test('a NUL character or a lone surrogate in any body, query or path string is a 400 naming the field, on every route', async () => {
  const contact = await postContact(server, { name: 'Nul Target', email: 'nul-target@example.com' });
  const channelId = await insertChannel(server, server.organizationId, 'Nul channel');
  const cases: Array<[string, string, unknown, string, string]> = [
    ['POST', '/v1/contacts', { name: 'Ana\u0000', email: 'ana-nul@example.com' }, 'body', '/name'],
    [
      'POST',
      '/v1/contacts',
      { email: 'cf-nul@example.com', custom_fields: { ['plan\u0000']: 'pro' } },
      'body',
      '/custom_fields/plan\u0000',
    ],
    [
      'POST',
      '/v1/contacts',
      { email: 'cf-deep@example.com', custom_fields: { notes: ['ok', 'lone \uD800 surrogate'] } },
      'body',
      '/custom_fields/notes/1',
    ],
    ['PATCH', `/v1/contacts/${contact.id}`, { name: '\uDC00' }, 'body', '/name'],
    ['POST', `/v1/contacts/${contact.id}/notes`, { body: 'call back\u0000' }, 'body', '/body'],
    ['PUT', `/v1/contacts/${contact.id}/consent/chatapp`, { state: 'granted', source: 'web\u0000form' }, 'body', '/source'],
    ['POST', `/v1/contacts/${contact.id}/suppressions`, { channel: 'all', reason: 'legal\u0000' }, 'body', '/reason'],
    ['POST', '/v1/channels', { platform: 'chatapp_official', name: 'Sales\u0000' }, 'body', '/name'],
    ['PATCH', `/v1/channels/${channelId}`, { name: 'Sales\uD83D' }, 'body', '/name'],
    [
      'POST',
      '/v1/settings/developer/webhooks/endpoints',
      { url: 'https://hooks.example.com/x', description: 'CRM\u0000' },
      'body',
      '/description',
    ],
    [
      'POST',
      '/v1/messages',
      { channel_id: channelId, to: '+4930123456', type: 'text', content: { body: 'hi\u0000' } },
      'body',
      '/content/body',
    ],
    ['GET', '/v1/contacts?search=%00', undefined, 'query', '/search'],
    ['GET', '/v1/messages?to=%2B49%00', undefined, 'query', '/to'],
    ['GET', `/v1/contacts/phone/${encodeURIComponent('+4930\u0000')}`, undefined, 'params', '/phone'],
  ];
  for (const [method, path, body, location, pointer] of cases) {
    const res = await request(server, method, path, { key: server.apiKey, ...(body === undefined ? {} : { body }) });
    assert.equal(res.status, 400, `${method} ${path}: ${res.text}`);
    assert.deepEqual(fieldErrorsOf(res), [[location, pointer]], `${method} ${path}`);
    assert.match(res.text, /NUL character or unpaired UTF-16 surrogates/);
  }
});

const REQUIRED_QUERY_VALUES: Record<string, string> = { q: 'cursor' };

test('a forged cursor is a 400 on every list route that takes one', async () => {
  const contact = await postContact(server, { name: 'Cursor', email: 'cursor@example.com' });
  const channelId = await insertChannel(server, server.organizationId, 'Cursor channel');
  const { conversationId } = await insertMessage(server, server.organizationId, contact.id, channelId);
  // Every organization has a default pipeline with its stages.
  const pipeline = (await request(server, 'GET', '/v1/pipelines', { key: server.apiKey })).body.data[0];
  const ids: Record<string, string> = {
    contactID: contact.id,
    conversationID: conversationId,
    channelID: channelId,
    organizationID: server.organizationId,
    pipelineID: pipeline.id,
    stageID: pipeline.stages[0].id,
    companyID: (await request(server, 'POST', '/v1/companies', { key: server.apiKey, body: { name: 'Cursor company' } })).body.data.id,
    dealID: (
      await request(server, 'POST', '/v1/deals', {
        key: server.apiKey,
        body: { name: 'Cursor deal', pipeline_id: pipeline.id, stage_id: pipeline.stages[0].id },
      })
    ).body.data.id,
    listID: (await request(server, 'POST', '/v1/lists', { key: server.apiKey, body: { name: 'Cursor list', kind: 'contact' } })).body.data
      .id,
    // A draft broadcast, written as it is stored (making one through the API wants an approved template).
    broadcastID: await (async () => {
      const id = uuidv7();
      await server.container.database.db.insert(broadcasts).values({
        id,
        organizationId: server.organizationId,
        name: 'Cursor broadcast',
        channelId,
        templateName: 'cursor',
        templateLanguage: 'en',
        audience: { phones: ['+4930123456'] },
        status: 'draft',
      });
      return id;
    })(),
    segmentID: (
      await request(server, 'POST', '/v1/segments', {
        key: server.apiKey,
        body: { name: 'Cursor segment', filter: { and: [{ field: 'name', op: 'contains', value: 'a' }] } },
      })
    ).body.data.id,
    automationID: (
      await request(server, 'POST', '/v1/automations', {
        key: server.apiKey,
        body: {
          name: 'Cursor rule',
          enabled: false,
          trigger: { type: 'message_received' },
          actions: [{ type: 'set_status', status: 'pending' }],
        },
      })
    ).body.data.id,
  };
  const unofficialId = uuidv7();
  await server.container.database.db.insert(channels).values({
    id: unofficialId,
    organizationId: server.organizationId,
    platform: 'chatapp_unofficial',
    name: 'Cursor phone',
    status: 'connected',
  });
  const forged = [
    Buffer.from(JSON.stringify({ t: '2020-01-01', id: 'x' })).toString('base64url'),
    Buffer.from(JSON.stringify({ t: '2020-01-01T00:00:00.000Z', id: "x' or 1=1 --" })).toString('base64url'),
    Buffer.from(JSON.stringify({ t: '-001000-01-01T00:00:00.000Z', id: '0196a0e2-0000-7000-8000-000000000000' })).toString('base64url'),
    Buffer.from(JSON.stringify({ t: 'Tue, 01 Jan 2020 00:00:00 GMT', id: '0196a0e2-0000-7000-8000-000000000000' })).toString('base64url'),
  ];
  const doc = (await request(server, 'GET', '/v1/openapi.json')).body as {
    paths: Record<
      string,
      Record<
        string,
        {
          parameters?: Array<{ name: string; in: string; required?: boolean }>;
          security?: Array<Record<string, unknown>>;
          responses?: Record<string, { content?: Record<string, unknown> }>;
        }
      >
    >;
  };
  const cookie = await loginCookie(server);
  const routes = Object.entries(doc.paths)
    .filter(([, ops]) => ops.get?.parameters?.some((p) => p.in === 'query' && p.name === 'cursor'))
    .map(([path, ops]) => ({
      // A linked phone's chats are an unofficial channel's (an official one answers 422 before any cursor is read).
      path: path.replace(/\{(\w+)\}/g, (_m, name: string) =>
        name === 'channelID' && path.endsWith('/chats') ? unofficialId : (ids[name] ?? `{unknown path parameter ${name}}`),
      ),
      // A required query parameter (the search's words) is given a value of its kind.
      query: (ops.get?.parameters ?? [])
        .filter((p) => p.in === 'query' && p.required)
        .map((p) => `${p.name}=${REQUIRED_QUERY_VALUES[p.name] ?? `{unknown query parameter ${p.name}}`}&`)
        .join(''),
      // Routes open to dashboard sessions only are asked with one; the rest with the API key.
      as: ops.get?.security?.every((s) => 'session' in s) ? { cookie } : { key: server.apiKey },
      // A stream (server-sent events) answers a good cursor by staying open: only the refusals are asked.
      streams: 'text/event-stream' in (ops.get?.responses?.['200']?.content ?? {}),
    }));
  assert.ok(routes.length >= 10, `list routes with a cursor: ${routes.map((r) => r.path).join(', ')}`);
  assert.ok(
    routes.some((r) => r.streams),
    'the event stream is among them',
  );
  const organization = `/v1/organizations/${server.organizationId}`;
  for (const path of ['/v1/organizations', `${organization}/members`, `${organization}/invitations`, '/v1/auth/sessions']) {
    assert.ok(
      routes.some((r) => r.path === path),
      `${path} takes a cursor`,
    );
  }
  for (const { path, query, as, streams } of routes) {
    assert.doesNotMatch(path + query, /unknown (path|query) parameter/, 'give the test a value for this route');
    if (!streams) {
      const valid = await request(server, 'GET', `${path}?${query}`, as);
      assert.equal(valid.status, 200, `${path}: ${valid.text}`);
    }
    for (const cursor of forged) {
      const res = await request(server, 'GET', `${path}?${query}cursor=${cursor}`, as);
      assert.equal(res.status, 400, `${path} with ${Buffer.from(cursor, 'base64url').toString()}: ${res.text}`);
      assert.deepEqual(fieldErrorsOf(res), [['query', '/cursor']], path);
    }
  }
});

test('assigning a conversation to an empty user id is a 400 naming the field', async () => {
  const contact = await postContact(server, { name: 'Assignee', email: 'assignee@example.com' });
  const channelId = await insertChannel(server, server.organizationId, 'Assignee channel');
  const { conversationId } = await insertMessage(server, server.organizationId, contact.id, channelId);
  for (const assignee of ['', 'not-a-uuid']) {
    const res = await request(server, 'PATCH', `/v1/conversations/${conversationId}`, {
      key: server.apiKey,
      body: { assignee_user_id: assignee },
    });
    assert.equal(res.status, 400, res.text);
    isProblem(res, 400);
    assert.deepEqual(fieldErrorsOf(res), [['body', '/assignee_user_id']]);
  }
  const unassign = await request(server, 'PATCH', `/v1/conversations/${conversationId}`, {
    key: server.apiKey,
    body: { assignee_user_id: null },
  });
  assert.equal(unassign.status, 200, unassign.text);
});

test('a malformed percent-encoded path gets the one error writer: problem body, request id, security headers', async () => {
  // On the contacts routes the same writer answers in their {error, code} shape.
  const contacts = await request(server, 'GET', '/v1/contacts/%ZZ', { key: server.apiKey, headers: { 'x-request-id': 'bad-url-0' } });
  assert.equal(contacts.status, 400);
  assert.match(contacts.headers.get('content-type') ?? '', /^application\/json/);
  assert.equal(contacts.body.code, 'invalid');
  assert.equal(typeof contacts.body.error, 'string');
  assert.equal(contacts.headers.get('x-request-id'), 'bad-url-0');
  assert.equal(contacts.headers.get('x-content-type-options'), 'nosniff');
  for (const path of ['/v1/channels/%E0%A4%A', '/%C0']) {
    const res = await request(server, 'GET', path, { key: server.apiKey, headers: { 'x-request-id': 'bad-url-1' } });
    assert.equal(res.status, 400, path);
    isProblem(res, 400);
    assert.equal(res.body.code, 'invalid');
    assert.equal(res.body.request_id, 'bad-url-1');
    assert.equal(res.headers.get('x-request-id'), 'bad-url-1');
    assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
    assert.match(res.headers.get('content-security-policy') ?? '', /default-src 'self'/);
    assert.doesNotMatch(res.text, /FST_ERR/);
  }
  const made = await request(server, 'GET', '/v1/channels/%E0%A4%A');
  assert.match(made.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/);
  const long = await request(server, 'GET', `/v1/channels/${'a'.repeat(300)}`, {
    key: server.apiKey,
    headers: { 'x-request-id': 'long-param-1' },
  });
  assert.equal(long.status, 414);
  isProblem(long, 414);
  assert.equal(long.headers.get('x-request-id'), 'long-param-1');
  assert.equal(long.headers.get('x-content-type-options'), 'nosniff');
});

test('the reference page: no upgrade to https on an http deployment, no third-party validator image', async () => {
  const page = await fetch(`${server.baseUrl}/v1/docs/`);
  assert.equal(page.status, 200);
  await page.text();
  const csp = page.headers.get('content-security-policy') ?? '';
  assert.doesNotMatch(csp, /upgrade-insecure-requests/);
  assert.doesNotMatch(csp, /validator\.swagger\.io/);
  const imgSrc = csp
    .split(';')
    .map((d) => d.trim())
    .find((d) => d.startsWith('img-src'));
  assert.equal(imgSrc, "img-src 'self' data:");
  assert.match(csp, /script-src 'self'/, 'the rest of the policy is kept');
  const initializer = await fetch(`${server.baseUrl}/v1/docs/static/swagger-initializer.js`);
  const script = await initializer.text();
  assert.match(script, /validatorUrl: null/);
  assert.doesNotMatch(script, /validator\.swagger\.io/);
});

test('authenticated answers carry Cache-Control: no-store, errors included', async () => {
  const list = await request(server, 'GET', '/v1/channels', { key: server.apiKey });
  assert.equal(list.status, 200);
  assert.equal(list.headers.get('cache-control'), 'no-store');
  const denied = await request(server, 'GET', '/v1/channels');
  assert.equal(denied.status, 401);
  assert.equal(denied.headers.get('cache-control'), 'no-store');
  const invalid = await request(server, 'GET', '/v1/contacts?limit=0', { key: server.apiKey });
  assert.equal(invalid.status, 400);
  assert.equal(invalid.headers.get('cache-control'), 'no-store');
});

test('an oversized header block is a 431 problem, like every other error, with the security headers', async () => {
  // Node answers it before any request exists (the server's clientError): no route, no request id of the client's.
  for (const path of ['/v1/channels', '/v1/contacts', '/v1/oauth/token']) {
    const res = await request(server, 'GET', path, { key: server.apiKey, headers: { 'x-filler': 'a'.repeat(20_000) } });
    assert.equal(res.status, 431, path);
    isProblem(res, 431);
    assert.equal(res.body.code, 'header_fields_too_large');
    assert.match(res.body.detail, /header/);
    assert.match(res.body.request_id, /^[0-9a-f-]{36}$/);
    assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
    assert.equal(res.headers.get('connection'), 'close');
  }
  // The server still answers the next request.
  assert.equal((await request(server, 'GET', '/v1/channels', { key: server.apiKey })).status, 200);
});

test('bytes that are not HTTP get a 400 problem, then the connection closes', async () => {
  const answer = await new Promise<string>((resolve) => {
    let text = '';
    const socket = connect(Number(new URL(server.baseUrl).port), '127.0.0.1', () => socket.write('NOT HTTP AT ALL\r\n\r\n'));
    socket.on('data', (chunk) => (text += String(chunk)));
    // A reset after the answer is the server closing: what arrived before it is the answer.
    socket.on('error', () => undefined);
    socket.on('close', () => resolve(text));
  });
  const [head, body] = answer.split('\r\n\r\n');
  assert.match(head ?? '', /^HTTP\/1\.1 400 Bad Request\r\n/);
  assert.match(head ?? '', /\r\ncontent-type: application\/problem\+json/i);
  assert.match(head ?? '', /\r\nx-content-type-options: nosniff/i);
  const problem = JSON.parse(body ?? '');
  assert.equal(problem.status, 400);
  assert.equal(problem.code, 'invalid');
  assert.match(problem.detail, /not valid HTTP/);
});
