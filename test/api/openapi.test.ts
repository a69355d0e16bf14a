import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { request, startTestServer, type TestServer } from '../harness.ts';

let server: TestServer;
before(async () => {
  server = await startTestServer();
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
    body: { url: 'https://hooks.example.com/parley' },
  });
  assert.equal(endpoint.status, 201, endpoint.text);
  const sent = await request(server, 'POST', `/v1/settings/developer/webhooks/endpoints/${endpoint.body.data.id}/test`, { key: server.apiKey });
  assert.notEqual(sent.status, 400, sent.text);
});
