import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createKeyWith, freePort, request, startTestServer, type TestServer } from '../harness.ts';
import { validatorFor } from '../fuzz/contract.ts';

let server: TestServer;
let closedPort: number;
before(async () => {
  closedPort = await freePort();
  // The webhook test below must not leave the machine: its endpoint is a closed loopback port.
  server = await startTestServer({ env: { ALLOW_PRIVATE_NETWORK_TARGETS: 'true' } });
});
after(() => server.close());

test('every /v1 route is in the OpenAPI document, with its security and error responses', async () => {
  const res = await request(server, 'GET', '/v1/openapi.json');
  assert.equal(res.status, 200);
  const doc = res.body;
  assert.equal(doc.openapi, '3.1.0');
  const documented = new Set<string>();
  for (const [path, ops] of Object.entries(doc.paths as Record<string, Record<string, unknown>>)) {
    for (const method of Object.keys(ops)) documented.add(`${method.toUpperCase()} ${path}`);
  }
  const routes = server.app.routeSummaries.filter(
    (r) => r.url.startsWith('/v1/') && !r.hidden && r.method !== 'HEAD' && !r.url.startsWith('/v1/docs'),
  );
  assert.ok(routes.length >= 8, `found ${routes.length} routes`);
  for (const route of routes) {
    const openApiPath = route.url.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
    assert.ok(documented.has(`${route.method} ${openApiPath}`), `${route.method} ${openApiPath} is documented`);
    const op = doc.paths[openApiPath][route.method.toLowerCase()];
    assert.ok(op.summary, `${route.method} ${openApiPath} has a summary`);
    if (!route.public) {
      assert.ok(op.responses['401'], `${route.method} ${openApiPath} documents 401`);
    }
  }
  assert.ok(doc.components.securitySchemes.apiKey);
  assert.equal(doc.components.securitySchemes.apiKey.name, 'X-Api-Key');
});

test('the documented request schema is the one that validates requests', async () => {
  const doc = (await request(server, 'GET', '/v1/openapi.json')).body;
  const body = doc.paths['/v1/api-keys'].post.requestBody.content['application/json'].schema;
  const resolved = body.$ref ? doc.components.schemas[body.$ref.split('/').pop()] : body;
  assert.deepEqual([...resolved.required].sort(), ['name', 'permissions']);
  assert.equal(resolved.properties.name.maxLength, 100);
  // The server enforces exactly what the document states.
  const tooLong = await request(server, 'POST', '/v1/api-keys', { key: server.apiKey, body: { name: 'x'.repeat(resolved.properties.name.maxLength + 1), permissions: ['messages:read'] } });
  assert.equal(tooLong.status, 400);
  const fits = await request(server, 'POST', '/v1/api-keys', { key: server.apiKey, body: { name: 'x'.repeat(resolved.properties.name.maxLength), permissions: ['messages:read'] } });
  assert.equal(fits.status, 201);
});

test('a body the route does without is optional in the document, and the route indeed does without it', async () => {
  const doc = (await request(server, 'GET', '/v1/openapi.json')).body;
  const testRoute = doc.paths['/v1/settings/developer/webhooks/endpoints/{endpointID}/test'].post;
  assert.equal(testRoute.requestBody.required, false);
  assert.equal(doc.paths['/v1/settings/developer/webhooks/deliveries/{messageID}/retry'].post.requestBody.required, false);
  assert.equal(doc.paths['/v1/api-keys'].post.requestBody.required, true, 'a body a route needs stays required');
  const endpoint = await request(server, 'POST', '/v1/settings/developer/webhooks/endpoints', {
    key: server.apiKey,
    body: { url: `http://127.0.0.1:${closedPort}/parley` },
  });
  assert.equal(endpoint.status, 201, endpoint.text);
  const sent = await request(server, 'POST', `/v1/settings/developer/webhooks/endpoints/${endpoint.body.data.id}/test`, { key: server.apiKey });
  assert.notEqual(sent.status, 400, sent.text);
});

test('every operation documents the errors any route can answer, in the media type the route sends', async () => {
  const doc = (await request(server, 'GET', '/v1/openapi.json')).body;
  const media = (response: { content?: Record<string, unknown> } | undefined) => Object.keys(response?.content ?? {});
  for (const [path, ops] of Object.entries(doc.paths as Record<string, Record<string, any>>)) {
    for (const [method, op] of Object.entries(ops)) {
      const where = `${method.toUpperCase()} ${path}`;
      const isPublic = Array.isArray(op.security) && op.security.length === 0;
      const contacts = path.startsWith('/v1/contacts');
      const expected = ['414', '429', '431', '500', '503'];
      if (!isPublic) expected.push('400', '401', '403');
      if (method !== 'get') expected.push('400', '413', '415');
      for (const status of expected) assert.ok(op.responses[status], `${where} documents ${status}`);
      for (const [status, response] of Object.entries(op.responses as Record<string, { content?: Record<string, unknown> }>)) {
        if (Number(status) < 400 || status === '431' || (path === '/v1/health' && status === '503')) continue;
        const want = contacts && status !== '401' && status !== '403' ? 'application/json' : 'application/problem+json';
        assert.deepEqual(media(response), [want], `${where} ${status} is ${want}`);
      }
    }
  }
  assert.ok(doc.paths['/v1/messages'].post.responses['429'].headers['retry-after'], '429 tells about Retry-After');
});

test('the error answers are what the document says, checked by an OpenAPI response validator', async () => {
  const doc = (await request(server, 'GET', '/v1/openapi.json')).body;
  const validator = validatorFor(doc);
  const check = (operation: string, res: { status: number; headers: Headers; body: unknown; text: string }) => {
    const documented = doc.paths[operation.split(' ')[1]!][operation.split(' ')[0]!.toLowerCase()].responses[String(res.status)];
    assert.ok(documented, `${operation} documents ${res.status}`);
    assert.equal(res.headers.get('content-type')?.split(';')[0], Object.keys(documented.content)[0], `${operation} ${res.status} media type`);
    const result = validator.validateResponse(res.body, operation, res.status);
    assert.ok(result.valid, `${operation} ${res.status}: ${JSON.stringify(result.errors)} in ${res.text}`);
  };
  const badOrg = { 'x-organization-id': 'not-a-uuid' };
  const channels = await request(server, 'GET', '/v1/channels', { key: server.apiKey, headers: badOrg });
  assert.equal(channels.status, 400);
  check('GET /v1/channels', channels);
  const contacts = await request(server, 'GET', '/v1/contacts', { key: server.apiKey, headers: badOrg });
  assert.equal(contacts.status, 400);
  assert.equal(contacts.body.code, 'invalid');
  check('GET /v1/contacts', contacts);
  // A problem with an extension member (the permission the key lacks).
  const limited = await createKeyWith(server, ['messages:read']);
  const forbidden = await request(server, 'GET', '/v1/channels', { key: limited });
  assert.equal(forbidden.status, 403);
  assert.equal(forbidden.body.permission, 'channels:read');
  check('GET /v1/channels', forbidden);
  const contactsForbidden = await request(server, 'GET', '/v1/contacts', { key: limited });
  assert.equal(contactsForbidden.status, 403);
  check('GET /v1/contacts', contactsForbidden);
  const tooLarge = await request(server, 'POST', '/v1/api-keys', { key: server.apiKey, rawBody: `{"name":"${'x'.repeat(server.config.bodyLimitBytes)}"}` });
  assert.equal(tooLarge.status, 413);
  check('POST /v1/api-keys', tooLarge);
  const contactTooLarge = await request(server, 'POST', '/v1/contacts', { key: server.apiKey, rawBody: `{"name":"${'x'.repeat(server.config.bodyLimitBytes)}"}` });
  assert.equal(contactTooLarge.status, 413);
  check('POST /v1/contacts', contactTooLarge);
  const wrongType = await request(server, 'POST', '/v1/messages', { key: server.apiKey, rawBody: 'hello', contentType: 'text/plain' });
  assert.equal(wrongType.status, 415);
  check('POST /v1/messages', wrongType);
  const invalid = await request(server, 'POST', '/v1/api-keys', { key: server.apiKey, body: { name: '', permissions: ['nope'] } });
  assert.equal(invalid.status, 400);
  assert.ok(invalid.body.errors.length > 0);
  check('POST /v1/api-keys', invalid);
  const unsigned = await request(server, 'POST', '/v1/providers/chatapp_official/webhook', { rawBody: '{}' });
  assert.equal(unsigned.status, 401);
  check('POST /v1/providers/chatapp_official/webhook', unsigned);
});
