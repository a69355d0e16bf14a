import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createKeyWith, freePort, loginCookie, request, startTestServer, type TestServer } from '../harness.ts';
import { validatorFor } from '../fuzz/contract.ts';
import { OPENAPI_TAGS } from '../../src/http/app/openapi-document.ts';
import { OPERATION_IDS } from '../../src/http/operation-ids.ts';

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
  const tooLong = await request(server, 'POST', '/v1/api-keys', {
    key: server.apiKey,
    body: { name: 'x'.repeat(resolved.properties.name.maxLength + 1), permissions: ['messages:read'] },
  });
  assert.equal(tooLong.status, 400);
  const fits = await request(server, 'POST', '/v1/api-keys', {
    key: server.apiKey,
    body: { name: 'x'.repeat(resolved.properties.name.maxLength), permissions: ['messages:read'] },
  });
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
  const sent = await request(server, 'POST', `/v1/settings/developer/webhooks/endpoints/${endpoint.body.data.id}/test`, {
    key: server.apiKey,
  });
  assert.notEqual(sent.status, 400, sent.text);
});

/** The OAuth endpoints clients call answer RFC 6749 error bodies `{error, error_description}` as application/json. */
const OAUTH_ENDPOINTS = new Set(['POST /v1/oauth/device', 'POST /v1/oauth/token', 'POST /v1/oauth/introspect', 'POST /v1/oauth/revoke']);
/** Errors a browser is shown as a page. */
const HTML_ERRORS = new Set(['GET /v1/oauth/authorize 400']);

/** The media type an operation's error of this status is sent in. */
function errorMediaOf(operation: string, status: string): string {
  if (HTML_ERRORS.has(`${operation} ${status}`)) return 'text/html';
  // The server refuses an oversized header block before any route is known: a problem everywhere.
  if (status === '431') return 'application/problem+json';
  if (OAUTH_ENDPOINTS.has(operation)) return 'application/json';
  const contacts = operation.split(' ')[1]!.startsWith('/v1/contacts');
  return contacts && status !== '401' && status !== '403' ? 'application/json' : 'application/problem+json';
}

test('every operation documents the errors any route can answer, in the media type the route sends', async () => {
  const doc = (await request(server, 'GET', '/v1/openapi.json')).body;
  const media = (response: { content?: Record<string, unknown> } | undefined) => Object.keys(response?.content ?? {});
  for (const [path, ops] of Object.entries(doc.paths as Record<string, Record<string, any>>)) {
    for (const [method, op] of Object.entries(ops)) {
      const where = `${method.toUpperCase()} ${path}`;
      const isPublic = Array.isArray(op.security) && op.security.length === 0;
      const expected = ['414', '429', '431', '500', '503'];
      if (!isPublic) expected.push('400', '401', '403');
      if (method !== 'get') expected.push('400', '413', '415');
      for (const status of expected) assert.ok(op.responses[status], `${where} documents ${status}`);
      for (const [status, response] of Object.entries(op.responses as Record<string, { content?: Record<string, unknown> }>)) {
        if (Number(status) < 400 || (path === '/v1/health' && status === '503')) continue;
        const want = errorMediaOf(where, status);
        assert.deepEqual(media(response), [want], `${where} ${status} is ${want}`);
      }
    }
  }
  assert.ok(doc.paths['/v1/messages'].post.responses['429'].headers['retry-after'], '429 tells about Retry-After');
  for (const field of ['ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset', 'ratelimit-policy']) {
    assert.ok(doc.paths['/v1/messages'].post.responses['429'].headers[field]?.schema, `429 tells about ${field}`);
  }
  // Every documented response header is an OpenAPI Header Object: a description and the value's schema,
  // never a schema nested in the schema (448 such errors under Redocly's recommended rules before).
  for (const [path, ops] of Object.entries(doc.paths as Record<string, Record<string, any>>)) {
    for (const [method, op] of Object.entries(ops)) {
      for (const [status, response] of Object.entries(op.responses as Record<string, { headers?: Record<string, any> }>)) {
        for (const [name, header] of Object.entries(response.headers ?? {})) {
          const where = `${method.toUpperCase()} ${path} ${status} ${name}`;
          assert.equal(typeof header.schema?.type, 'string', `${where} has a schema with a type`);
          assert.equal(header.schema.schema, undefined, `${where}: a schema nested in its schema`);
          assert.equal(header.schema.description, undefined, `${where}: the description belongs to the header`);
          assert.ok(header.description, `${where} is described`);
        }
      }
    }
  }
});

test('the error answers are what the document says, checked by an OpenAPI response validator', async () => {
  const doc = (await request(server, 'GET', '/v1/openapi.json')).body;
  const validator = validatorFor(doc);
  const check = (operation: string, res: { status: number; headers: Headers; body: unknown; text: string }) => {
    const documented = doc.paths[operation.split(' ')[1]!][operation.split(' ')[0]!.toLowerCase()].responses[String(res.status)];
    assert.ok(documented, `${operation} documents ${res.status}`);
    assert.equal(
      res.headers.get('content-type')?.split(';')[0],
      Object.keys(documented.content)[0],
      `${operation} ${res.status} media type`,
    );
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
  const tooLarge = await request(server, 'POST', '/v1/api-keys', {
    key: server.apiKey,
    rawBody: `{"name":"${'x'.repeat(server.config.bodyLimitBytes)}"}`,
  });
  assert.equal(tooLarge.status, 413);
  check('POST /v1/api-keys', tooLarge);
  const contactTooLarge = await request(server, 'POST', '/v1/contacts', {
    key: server.apiKey,
    rawBody: `{"name":"${'x'.repeat(server.config.bodyLimitBytes)}"}`,
  });
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

type Doc = { paths: any; components: { schemas: Record<string, any>; examples?: Record<string, { value: unknown }> } };

function refsUnder(value: unknown, into: string[] = []): string[] {
  if (Array.isArray(value)) for (const v of value) refsUnder(v, into);
  else if (value && typeof value === 'object') {
    for (const [key, v] of Object.entries(value)) {
      if (key === '$ref' && typeof v === 'string') into.push(v);
      else refsUnder(v, into);
    }
  }
  return into;
}

let documented: { doc: Doc; validator: ReturnType<typeof validatorFor> } | undefined;
/** The document and its response validator, made once for the example tests (compiling the validators is the slow part). */
async function documentAndValidator() {
  if (!documented) {
    const doc: Doc = (await request(server, 'GET', '/v1/openapi.json')).body;
    documented = { doc, validator: validatorFor(doc) };
  }
  return documented;
}

/** Every response of every operation, with its media types' examples. */
function* responsesOf(doc: Doc) {
  for (const [path, ops] of Object.entries(doc.paths as Record<string, Record<string, any>>)) {
    for (const [method, op] of Object.entries(ops)) {
      for (const [status, response] of Object.entries(
        op.responses as Record<string, { content?: Record<string, any>; headers?: Record<string, any> }>,
      )) {
        yield { operation: `${method.toUpperCase()} ${path}`, path, method, op, status: Number(status), response };
      }
    }
  }
}

/** The example values of a media type; an example may be a reference to a shared one. */
const examplesIn = (doc: Doc, media: { example?: unknown; examples?: Record<string, { value?: unknown; $ref?: string }> }) => [
  ...(media.example !== undefined ? [media.example] : []),
  ...Object.values(media.examples ?? {}).map((e) => {
    if (!e.$ref) return e.value;
    const shared = doc.components.examples?.[e.$ref.replace('#/components/examples/', '')];
    assert.ok(shared, `${e.$ref} resolves`);
    return shared.value;
  }),
];

test('one component schema per shape: no input twin unless it differs, nothing unused, every $ref resolves', async () => {
  const doc: Doc = (await request(server, 'GET', '/v1/openapi.json')).body;
  const schemas = doc.components.schemas;
  for (const ref of refsUnder(doc)) {
    const [, section, name] = /^#\/components\/(schemas|examples)\/([^/]+)$/.exec(ref) ?? [];
    assert.ok(section && (doc.components as Record<string, Record<string, unknown> | undefined>)[section]?.[name!], `${ref} resolves`);
  }
  for (const name of Object.keys(schemas)) {
    if (!name.endsWith('Input')) continue;
    const base = name.slice(0, -'Input'.length);
    assert.ok(schemas[base], `${name} is named after its shape (${base} is not in the document)`);
    assert.notDeepEqual(schemas[name], schemas[base], `${name} is the same shape as ${base}`);
  }
  const reached = new Set<string>();
  const pending = refsUnder(doc.paths);
  while (pending.length > 0) {
    const name = pending.pop()!.split('/').pop()!;
    if (reached.has(name)) continue;
    reached.add(name);
    pending.push(...refsUnder(schemas[name]));
  }
  assert.deepEqual(
    Object.keys(schemas).filter((n) => !reached.has(n)),
    [],
    'every component schema is used by an operation',
  );
  // The request body of POST /v1/messages and the message it answers are each one named shape.
  assert.equal(
    doc.paths['/v1/messages'].post.requestBody.content['application/json'].schema.$ref,
    '#/components/schemas/SendMessageRequest',
  );
  assert.equal(
    doc.paths['/v1/messages'].post.responses['201'].content['application/json'].schema.properties.data.$ref,
    '#/components/schemas/Message',
  );
});

test('every operation has a success example that validates against its response schema, and so has every component example', async () => {
  const { doc, validator } = await documentAndValidator();
  let checked = 0;
  const withBody = new Set<string>();
  const exemplified = new Set<string>();
  for (const { operation, status, response } of responsesOf(doc)) {
    if (status >= 400 && !(operation === 'GET /v1/health' && status === 503)) continue;
    for (const [media, content] of Object.entries(response.content ?? {})) {
      withBody.add(operation);
      const values = examplesIn(doc, content);
      assert.ok(values.length > 0, `${operation} ${status} ${media} has an example`);
      // The validator knows a response's first media type; another (a CSV beside the JSON) is text.
      if (media !== Object.keys(response.content ?? {})[0]) {
        for (const value of values) assert.equal(typeof value, 'string', `${operation} ${status} ${media} example is text`);
        continue;
      }
      for (const value of values) {
        const result = validator.validateResponse(value, operation, status);
        assert.ok(result.valid, `${operation} ${status} example: ${JSON.stringify(result.errors)} in ${JSON.stringify(value)}`);
        assert.doesNotMatch(JSON.stringify(value), /additionalProp\d/, `${operation} ${status} example is a made-up record`);
        checked++;
      }
      exemplified.add(operation);
    }
  }
  assert.deepEqual(
    [...withBody].filter((o) => !exemplified.has(o)),
    [],
  );
  assert.ok(checked >= 60, `${checked} success examples checked`);
  // The send answer is what POST /v1/messages really answers: an outbound message, queued.
  const sent = examplesIn(doc, doc.paths['/v1/messages'].post.responses['201'].content['application/json'])[0] as {
    data: Record<string, unknown>;
  };
  assert.equal(sent.data.direction, 'outbound');
  assert.equal(sent.data.status, 'queued');
  assert.equal(sent.data.type, 'text');
  // Component examples (shown with the schemas) hold to their schemas too.
  const ajv = validator.getAjv('response' as never);
  for (const [name, schema] of Object.entries(doc.components.schemas)) {
    for (const example of (schema.examples ?? []) as unknown[]) {
      const validate = ajv.compile({ ...schema, components: doc.components });
      assert.ok(validate(example), `${name} example: ${JSON.stringify(validate.errors)}`);
    }
  }
});

const CODES_BY_STATUS: Record<number, string[]> = {
  400: ['invalid'],
  401: ['unauthenticated', 'invalid_credentials'],
  403: ['forbidden'],
  404: ['not_found'],
  409: ['conflict'],
  410: ['gone'],
  413: ['payload_too_large'],
  414: ['uri_too_long'],
  415: ['unsupported_media_type'],
  416: ['range_not_satisfiable'],
  422: ['unsupported', 'window_closed', 'send_refused'],
  429: ['rate_limited'],
  431: ['header_fields_too_large'],
  500: ['internal'],
  503: ['unavailable'],
};

/** RFC 6749 (and RFC 8628) error codes an OAuth endpoint may answer, by status. */
const OAUTH_CODES_BY_STATUS: Record<number, string[]> = {
  400: [
    'invalid_request',
    'invalid_scope',
    'unauthorized_client',
    'invalid_grant',
    'unsupported_grant_type',
    'authorization_pending',
    'slow_down',
    'expired_token',
    'access_denied',
  ],
  401: ['invalid_client'],
  403: ['insufficient_scope'],
  413: ['invalid_request'],
  414: ['invalid_request'],
  415: ['invalid_request'],
  429: ['slow_down'],
  500: ['server_error'],
  503: ['temporarily_unavailable'],
};

test('every error status of every operation has examples of its own status, in the route group body shape', async () => {
  const { doc, validator } = await documentAndValidator();
  for (const { operation, path, status, response } of responsesOf(doc)) {
    if (status < 400 || !response.content || (operation === 'GET /v1/health' && status === 503)) continue;
    for (const [media, content] of Object.entries(response.content)) {
      const values = examplesIn(doc, content) as Array<Record<string, any>>;
      assert.ok(values.length > 0, `${operation} ${status} has an example`);
      for (const value of values) {
        const where = `${operation} ${status} example ${JSON.stringify(value)}`;
        const result = validator.validateResponse(value, operation, status);
        assert.ok(result.valid, `${where}: ${JSON.stringify(result.errors)}`);
        assert.equal(media, errorMediaOf(operation, String(status)), where);
        if (media === 'text/html') {
          assert.match(String(value), /^<!doctype html>/, where);
          continue;
        }
        if (OAUTH_ENDPOINTS.has(operation) && media === 'application/json') {
          assert.ok(OAUTH_CODES_BY_STATUS[status]?.includes(value.error), `${where}: the OAuth error fits the status`);
          assert.deepEqual(Object.keys(value), ['error', 'error_description'], where);
          assert.ok(value.error_description, where);
          continue;
        }
        assert.ok(CODES_BY_STATUS[status]?.includes(value.code), `${where}: code fits the status`);
        if (media === 'application/problem+json') {
          assert.equal(value.status, status, `${where}: status member`);
          assert.ok(value.detail && value.title && value.request_id, where);
        } else {
          assert.ok(path.startsWith('/v1/contacts'), `${where}: only the contacts routes answer {error, code}`);
          assert.deepEqual(
            Object.keys(value).filter((k) => k !== 'errors'),
            ['error', 'code'],
            where,
          );
        }
        if (status === 400) assert.ok(value.errors?.[0]?.pointer || /JSON/.test(value.detail), `${where}: names the field`);
      }
      if (status === 429 || status === 503)
        assert.match(
          String(response.headers?.['retry-after']?.example ?? response.headers?.['retry-after']?.schema?.example),
          /^\d+$/,
          `${operation} ${status} Retry-After example`,
        );
    }
  }
  const send = doc.paths['/v1/messages'].post.responses;
  const forbidden = examplesIn(doc, send['403'].content['application/problem+json'])[0] as Record<string, unknown>;
  assert.equal(forbidden.permission, 'messages:send', 'the 403 names the permission the route needs');
  const bad = examplesIn(doc, send['400'].content['application/problem+json'])[0] as {
    errors: Array<{ pointer: string; location: string }>;
  };
  assert.deepEqual(
    bad.errors.map((e) => [e.location, e.pointer]),
    [['body', '/channel_id']],
    'the 400 names a field of the body',
  );
  const refusals = examplesIn(doc, send['422'].content['application/problem+json']) as Array<{ code: string }>;
  assert.deepEqual(refusals.map((r) => r.code).sort(), ['send_refused', 'send_refused', 'unsupported', 'window_closed']);
});

test('the declared error media type and example shape are what a real request answers, for each body shape', async () => {
  const doc: Doc = (await request(server, 'GET', '/v1/openapi.json')).body;
  const missing = '0196a0e2-7c1e-7a59-9a4c-2f5d3f3b8a10';
  const limited = await createKeyWith(server, ['messages:read']);
  const cases: Array<
    [operation: string, status: number, send: () => Promise<{ status: number; headers: Headers; body: any; text: string }>]
  > = [
    ['POST /v1/messages', 400, () => request(server, 'POST', '/v1/messages', { key: server.apiKey, body: {} })],
    ['POST /v1/messages', 401, () => request(server, 'POST', '/v1/messages', { body: {} })],
    ['POST /v1/messages', 403, () => request(server, 'POST', '/v1/messages', { key: limited, body: {} })],
    ['GET /v1/messages/{messageID}', 404, () => request(server, 'GET', `/v1/messages/${missing}`, { key: server.apiKey })],
    [
      'POST /v1/messages',
      415,
      () => request(server, 'POST', '/v1/messages', { key: server.apiKey, rawBody: 'hi', contentType: 'text/plain' }),
    ],
    ['POST /v1/contacts', 400, () => request(server, 'POST', '/v1/contacts', { key: server.apiKey, body: { email: 'nope' } })],
    ['GET /v1/contacts/{contactID}', 401, () => request(server, 'GET', `/v1/contacts/${missing}`)],
    ['GET /v1/contacts/{contactID}', 403, () => request(server, 'GET', `/v1/contacts/${missing}`, { key: limited })],
    ['GET /v1/contacts/{contactID}', 404, () => request(server, 'GET', `/v1/contacts/${missing}`, { key: server.apiKey })],
    [
      'POST /v1/contacts',
      415,
      () => request(server, 'POST', '/v1/contacts', { key: server.apiKey, rawBody: 'hi', contentType: 'text/plain' }),
    ],
    [
      'POST /v1/providers/chatapp_official/webhook',
      401,
      () => request(server, 'POST', '/v1/providers/chatapp_official/webhook', { rawBody: '{}' }),
    ],
    [
      'POST /v1/oauth/device',
      400,
      () =>
        request(server, 'POST', '/v1/oauth/device', { rawBody: 'scope=channels%3Aread', contentType: 'application/x-www-form-urlencoded' }),
    ],
    ['POST /v1/oauth/device', 401, () => request(server, 'POST', '/v1/oauth/device', { body: { client_id: 'pcl_nobody' } })],
    ['POST /v1/oauth/device', 415, () => request(server, 'POST', '/v1/oauth/device', { rawBody: 'hi', contentType: 'text/plain' })],
    [
      'GET /v1/oauth/authorization-requests/{requestID}',
      404,
      async () => request(server, 'GET', `/v1/oauth/authorization-requests/${missing}`, { cookie: await loginCookie(server) }),
    ],
  ];
  const page = await request(server, 'GET', '/v1/oauth/authorize?client_id=pcl_nobody');
  assert.equal(page.status, 400);
  assert.deepEqual(
    Object.keys(doc.paths['/v1/oauth/authorize'].get.responses['400'].content),
    [page.headers.get('content-type')!.split(';')[0]],
    'the error page is the documented media type',
  );
  for (const [operation, status, send] of cases) {
    const res = await send();
    assert.equal(res.status, status, `${operation}: ${res.text}`);
    const [method, path] = operation.split(' ') as [string, string];
    const declared = doc.paths[path][method.toLowerCase()].responses[String(status)];
    const media = Object.keys(declared.content);
    assert.deepEqual(media, [res.headers.get('content-type')!.split(';')[0]], `${operation} ${status} declares the media type it sends`);
    const example = examplesIn(doc, declared.content[media[0]!])[0] as Record<string, unknown>;
    assert.deepEqual(
      Object.keys(example).sort(),
      Object.keys(res.body).sort(),
      `${operation} ${status}: the example has the members of the real answer`,
    );
    assert.equal(example.code, res.body.code, `${operation} ${status} code`);
  }
});

test('every operation has a stable, unique camelCase operationId from one table, and the table names no other', async () => {
  const doc = (await request(server, 'GET', '/v1/openapi.json')).body;
  const seen = new Map<string, string>();
  for (const [path, ops] of Object.entries(doc.paths as Record<string, Record<string, any>>)) {
    for (const [method, op] of Object.entries(ops)) {
      const where = `${method.toUpperCase()} ${path}`;
      assert.equal(op.operationId, OPERATION_IDS[where], `${where} has its operationId`);
      assert.match(op.operationId, /^[a-z][A-Za-z]+$/, `${where}: ${op.operationId} is camelCase`);
      assert.equal(seen.get(op.operationId), undefined, `${op.operationId} names ${where} and ${seen.get(op.operationId)}`);
      seen.set(op.operationId, where);
    }
  }
  assert.deepEqual(
    Object.keys(OPERATION_IDS).filter((where) => !seen.has(OPERATION_IDS[where]!)),
    [],
    'table entries for no operation',
  );
});

test('every operation has one tag, each tag is declared with a description, and every declared tag groups operations', async () => {
  const doc = (await request(server, 'GET', '/v1/openapi.json')).body;
  const declared = (doc.tags as Array<{ name: string; description?: string }>).map((tag) => tag.name);
  assert.deepEqual(
    declared,
    OPENAPI_TAGS.map((tag) => tag.name),
  );
  const used = new Set<string>();
  for (const [path, ops] of Object.entries(doc.paths as Record<string, Record<string, any>>)) {
    for (const [method, op] of Object.entries(ops)) {
      assert.equal(op.tags?.length, 1, `${method.toUpperCase()} ${path} has one tag`);
      assert.ok(declared.includes(op.tags[0]), `${method.toUpperCase()} ${path}: its tag ${op.tags[0]} is declared`);
      used.add(op.tags[0]);
    }
  }
  assert.deepEqual(
    declared.filter((name) => !used.has(name)),
    [],
    'declared tags that group no operation',
  );
});
