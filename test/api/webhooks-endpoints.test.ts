/**
 * Endpoint management: the settings list with the catalogue, create / update / delete, validation,
 * the secret (format, reveal by owners and admins only), test sends, auth cases for every route, and
 * isolation between organizations.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { addMember } from '../../src/domain/organizations/organizations.ts';
import { EVENT_TYPES } from '../../src/domain/events/outbox.ts';
import { checkAuthCases } from '../auth-cases.ts';
import { createOtherOrganization, loginCookie, OWNER_PASSWORD, request, startTestServer, type TestServer } from '../harness.ts';
import { startReceiver, verifyWith, type Receiver } from '../webhook-receiver.ts';

const BASE = '/v1/settings/developer/webhooks';
let server: TestServer;
let receiver: Receiver;
before(async () => {
  server = await startTestServer({ env: { WEBHOOK_TIMEOUT_MS: '500' } });
  receiver = await startReceiver();
});
after(async () => {
  await server.close();
  await receiver.close();
});

const key = () => server.apiKey;

async function create(body: Record<string, unknown>, credential: { key?: string; cookie?: string } = { key: key() }) {
  return request(server, 'POST', `${BASE}/endpoints`, { ...credential, body });
}

describe('endpoints', () => {
  test('the settings list the endpoints, the event type catalogue and the delivery policy', async () => {
    const created = await create({ url: receiver.url, description: 'Orders', event_types: ['message.new', 'message.status_update'] });
    assert.equal(created.status, 201, created.text);
    const settings = await request(server, 'GET', BASE, { key: key() });
    assert.equal(settings.status, 200);
    const { endpoints, event_types, delivery } = settings.body.data;
    const listed = endpoints.find((e: { id: string }) => e.id === created.body.data.id);
    assert.equal(listed.url, receiver.url);
    assert.equal(listed.description, 'Orders');
    assert.deepEqual(listed.event_types, ['message.new', 'message.status_update']);
    assert.equal(listed.enabled, true);
    assert.equal(listed.secret, undefined, 'the secret is not listed');
    assert.equal(JSON.stringify(settings.body).includes('whsec_'), false);
    assert.deepEqual(
      event_types.map((t: { type: string }) => t.type),
      [...EVENT_TYPES],
    );
    for (const t of event_types) assert.ok(t.description.length > 10 && typeof t.example === 'object', t.type);
    // A type nothing emits yet says so (the catalogue's flag; test/code/event-sources.unit.test.ts holds it to the code).
    assert.deepEqual(
      event_types.filter((t: { reserved: boolean }) => t.reserved).map((t: { type: string }) => t.type),
      [],
    );
    for (const t of event_types) assert.equal(typeof t.reserved, 'boolean', t.type);
    assert.equal(delivery.timeout_ms, 500);
    assert.deepEqual(delivery.retry_delays_ms, [0, 5000, 300000, 1800000, 7200000, 18000000, 36000000, 36000000]);
    assert.equal(delivery.secret_rotation_overlap_ms, 24 * 3600 * 1000);
  });

  test('create answers the secret once; PATCH changes fields; DELETE removes', async () => {
    const created = await create({ url: receiver.url });
    assert.equal(created.status, 201);
    const endpoint = created.body.data;
    assert.match(endpoint.secret, /^whsec_[A-Za-z0-9+/]{32}$/);
    assert.deepEqual(endpoint.event_types, [], 'no filter: every type');
    assert.equal(endpoint.description, '');
    assert.deepEqual(endpoint.health, { consecutive_failures: 0, failing_since: null, last_success_at: null, last_failure_at: null });

    const patched = await request(server, 'PATCH', `${BASE}/endpoints/${endpoint.id}`, {
      key: key(),
      body: { description: 'renamed', event_types: ['contact.updated', 'contact.updated'] },
    });
    assert.equal(patched.status, 200, patched.text);
    assert.equal(patched.body.data.description, 'renamed');
    assert.deepEqual(patched.body.data.event_types, ['contact.updated'], 'duplicates are dropped');
    assert.equal(patched.body.data.url, receiver.url);

    const disabled = await request(server, 'PATCH', `${BASE}/endpoints/${endpoint.id}`, { key: key(), body: { enabled: false } });
    assert.equal(disabled.body.data.enabled, false);
    assert.equal(disabled.body.data.disabled_reason, 'disabled by a user');
    assert.ok(disabled.body.data.disabled_at);
    const enabled = await request(server, 'PATCH', `${BASE}/endpoints/${endpoint.id}`, { key: key(), body: { enabled: true } });
    assert.equal(enabled.body.data.enabled, true);
    assert.equal(enabled.body.data.disabled_reason, null);

    assert.equal((await request(server, 'DELETE', `${BASE}/endpoints/${endpoint.id}`, { key: key() })).status, 204);
    assert.equal((await request(server, 'DELETE', `${BASE}/endpoints/${endpoint.id}`, { key: key() })).status, 404);
    assert.equal(
      (await request(server, 'PATCH', `${BASE}/endpoints/${endpoint.id}`, { key: key(), body: { description: 'x' } })).status,
      404,
    );
    assert.equal((await request(server, 'GET', `${BASE}/endpoints/not-a-uuid/secret`, { key: key() })).status, 404);
    const settings = await request(server, 'GET', BASE, { key: key() });
    assert.equal(
      settings.body.data.endpoints.some((e: { id: string }) => e.id === endpoint.id),
      false,
    );
  });

  test('bad bodies name the field', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{}, '/url'],
      [{ url: 'not a url' }, '/url'],
      [{ url: 'ftp://example.com/hook' }, '/url'],
      [{ url: receiver.url, event_types: ['message.new', 'message.exploded'] }, '/event_types/1'],
      [{ url: receiver.url, event_types: 'message.new' }, '/event_types'],
      [{ url: receiver.url, description: 'x'.repeat(501) }, '/description'],
      [{ url: receiver.url, secret: 'whsec_mine' }, '/'],
    ];
    for (const [body, pointer] of cases) {
      const res = await create(body);
      assert.equal(res.status, 400, `${JSON.stringify(body)}: ${res.text}`);
      assert.ok(
        res.body.errors?.some((e: { pointer: string }) => e.pointer === pointer || e.pointer.startsWith(pointer)),
        `${JSON.stringify(body)} names ${pointer}: ${res.text}`,
      );
    }
  });

  test('an organization has at most 50 endpoints', async () => {
    const other = await createOtherOrganization(server, 'many');
    for (let i = 0; i < 50; i++) assert.equal((await create({ url: `${receiver.url}?n=${i}` }, { key: other.apiKey })).status, 201);
    const refused = await create({ url: receiver.url }, { key: other.apiKey });
    assert.equal(refused.status, 409);
    assert.match(refused.body.detail, /at most 50/);
  });
});

describe('secrets', () => {
  test('the reveal route is for owners and admins (webhooks:write), not members', async () => {
    const created = (await create({ url: receiver.url })).body.data;
    const owner = await loginCookie(server);
    const asOwner = await request(server, 'GET', `${BASE}/endpoints/${created.id}/secret`, { cookie: owner });
    assert.equal(asOwner.status, 200);
    assert.equal(asOwner.body.data.secret, created.secret);

    const db = server.container.database.db;
    await addMember(
      { db, clock: server.container.clock },
      { organizationId: server.organizationId, email: 'admin2@example.com', name: 'Admin', password: OWNER_PASSWORD, role: 'admin' },
    );
    await addMember(
      { db, clock: server.container.clock },
      { organizationId: server.organizationId, email: 'member@example.com', name: 'Member', password: OWNER_PASSWORD, role: 'member' },
    );
    const admin = await loginCookie(server, 'admin2@example.com', OWNER_PASSWORD);
    assert.equal((await request(server, 'GET', `${BASE}/endpoints/${created.id}/secret`, { cookie: admin })).status, 200);
    const member = await loginCookie(server, 'member@example.com', OWNER_PASSWORD);
    const refused = await request(server, 'GET', `${BASE}/endpoints/${created.id}/secret`, { cookie: member });
    assert.equal(refused.status, 403);
    assert.match(refused.body.detail, /webhooks:write/);
    // A member still reads the settings.
    assert.equal((await request(server, 'GET', BASE, { cookie: member })).status, 200);
  });
});

describe('test sends', () => {
  test('a test send is signed, carries the example body, and answers the outcome', async () => {
    const created = (await create({ url: `${receiver.url}?t=1`, event_types: ['template.status_update'] })).body.data;
    receiver.answer(() => ({ status: 202, body: 'accepted by the test receiver' }));
    const res = await request(server, 'POST', `${BASE}/endpoints/${created.id}/test`, { key: key() });
    assert.equal(res.status, 200, res.text);
    const result = res.body.data;
    assert.equal(result.event_type, 'template.status_update', "the endpoint's first type by default");
    assert.equal(result.succeeded, true);
    assert.equal(result.attempt.status_code, 202);
    assert.equal(result.attempt.response_body, 'accepted by the test receiver');
    assert.equal(result.attempt.trigger, 'test');
    assert.equal(result.attempt.error, null);
    const got = receiver.requests.find((r) => r.headers['webhook-id'] === result.message_id)!;
    assert.ok(got, 'the receiver got it');
    assert.equal(got.headers['x-parley-webhook-test'], 'true');
    assert.equal(got.headers['webhook-event-type'], 'template.status_update');
    assert.deepEqual(verifyWith(created.secret, got), { template_id: '0190a5b5-4c90-7c11-9d2f-5b6c7d8e9f03', status: 'approved' });

    receiver.answer(() => ({ status: 500, body: 'x'.repeat(10_000) }));
    const failed = await request(server, 'POST', `${BASE}/endpoints/${created.id}/test`, {
      key: key(),
      body: { event_type: 'commerce.order.updated' },
    });
    assert.equal(failed.status, 200);
    assert.equal(failed.body.data.succeeded, false);
    assert.equal(failed.body.data.attempt.status_code, 500);
    assert.equal(failed.body.data.attempt.error, 'HTTP 500');
    assert.equal(failed.body.data.attempt.response_body, null, 'the answer of a failure is not kept');

    receiver.answer(() => 'hang');
    const hung = await request(server, 'POST', `${BASE}/endpoints/${created.id}/test`, { key: key(), body: { event_type: 'message.new' } });
    assert.equal(hung.body.data.succeeded, false);
    assert.equal(hung.body.data.attempt.error, 'timed out after 500 ms');
    assert.ok(
      hung.body.data.attempt.duration_ms >= 450 && hung.body.data.attempt.duration_ms < 3000,
      String(hung.body.data.attempt.duration_ms),
    );
    receiver.answer(() => ({ status: 200 }));

    const bad = await request(server, 'POST', `${BASE}/endpoints/${created.id}/test`, { key: key(), body: { event_type: 'nope' } });
    assert.equal(bad.status, 400);

    // Test sends are in the delivery log, marked as such, and do not count toward disabling.
    const log = await request(server, 'GET', `${BASE}/deliveries?endpoint_id=${created.id}`, { key: key() });
    assert.equal(log.status, 200);
    assert.equal(log.body.data.length, 3);
    assert.ok(log.body.data.every((d: { test: boolean }) => d.test));
    assert.deepEqual(
      log.body.data.map((d: { status: string }) => d.status),
      ['failed', 'failed', 'succeeded'],
    );
    const settings = await request(server, 'GET', BASE, { key: key() });
    assert.equal(settings.body.data.endpoints.find((e: { id: string }) => e.id === created.id).health.consecutive_failures, 0);
  });

  test('only the first 4 KB of a 2xx text or JSON answer is kept', async () => {
    const created = (await create({ url: receiver.url })).body.data;
    const cases: Array<[{ status: number; body: string; contentType: string }, string | null]> = [
      [{ status: 200, body: 'y'.repeat(10_000), contentType: 'text/plain; charset=utf-8' }, 'y'.repeat(4096)],
      [{ status: 201, body: '{"ok":true}', contentType: 'application/json' }, '{"ok":true}'],
      [{ status: 200, body: '{"ok":true}', contentType: 'application/vnd.api+json' }, '{"ok":true}'],
      [{ status: 200, body: 'binary-ish', contentType: 'application/octet-stream' }, null],
      [{ status: 200, body: '<svg/>', contentType: 'image/svg+xml' }, null],
      [{ status: 404, body: 'no such page', contentType: 'text/plain' }, null],
      [{ status: 500, body: '{"secret":"internal"}', contentType: 'application/json' }, null],
      [{ status: 302, body: 'moved', contentType: 'text/html' }, null],
    ];
    for (const [answer, kept] of cases) {
      receiver.answer(() => answer);
      const res = await request(server, 'POST', `${BASE}/endpoints/${created.id}/test`, { key: key(), body: {} });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.data.attempt.status_code, answer.status);
      assert.equal(res.body.data.attempt.response_body, kept, `${answer.status} ${answer.contentType}`);
    }
    receiver.answer(() => ({ status: 200 }));
    const log = await request(server, 'GET', `${BASE}/deliveries?endpoint_id=${created.id}`, { key: key() });
    assert.equal(JSON.stringify(log.body).includes('internal'), false, 'the delivery log keeps no failed answer');
  });
});

describe('auth and isolation', () => {
  test('every webhook and event route refuses bad credentials and missing permissions', async () => {
    const id = (await create({ url: receiver.url })).body.data.id;
    const message = '0196b1f2-1c9e-7a01-b2c3-d4e5f6a7b8c9';
    await checkAuthCases(server, [
      { method: 'GET', path: BASE, permission: 'webhooks:read' },
      { method: 'POST', path: `${BASE}/endpoints`, body: { url: receiver.url }, permission: 'webhooks:write' },
      { method: 'PATCH', path: `${BASE}/endpoints/${id}`, body: { description: 'x' }, permission: 'webhooks:write' },
      { method: 'DELETE', path: `${BASE}/endpoints/${id}`, permission: 'webhooks:write' },
      { method: 'POST', path: `${BASE}/endpoints/${id}/rotate-secret`, permission: 'webhooks:write' },
      { method: 'GET', path: `${BASE}/endpoints/${id}/secret`, permission: 'webhooks:write' },
      { method: 'POST', path: `${BASE}/endpoints/${id}/test`, body: {}, permission: 'webhooks:write' },
      { method: 'GET', path: `${BASE}/deliveries`, permission: 'webhooks:read' },
      { method: 'POST', path: `${BASE}/deliveries/${message}/retry`, body: {}, permission: 'webhooks:write' },
      { method: 'GET', path: '/v1/events', permission: 'webhooks:read' },
    ]);
  });

  test("another organization's endpoints are not found, listed, changed, tested or revealed", async () => {
    const mine = (await create({ url: receiver.url, description: 'mine' })).body.data;
    const other = await createOtherOrganization(server, 'isolation');
    const theirs = await create({ url: receiver.url, description: 'theirs' }, { key: other.apiKey });
    assert.equal(theirs.status, 201);
    const theirSettings = await request(server, 'GET', BASE, { key: other.apiKey });
    assert.deepEqual(
      theirSettings.body.data.endpoints.map((e: { description: string }) => e.description),
      ['theirs'],
    );
    for (const [method, path, body] of [
      ['PATCH', `${BASE}/endpoints/${mine.id}`, { description: 'stolen' }],
      ['DELETE', `${BASE}/endpoints/${mine.id}`, undefined],
      ['POST', `${BASE}/endpoints/${mine.id}/rotate-secret`, undefined],
      ['GET', `${BASE}/endpoints/${mine.id}/secret`, undefined],
      ['POST', `${BASE}/endpoints/${mine.id}/test`, {}],
    ] as const) {
      const res = await request(server, method, path, { key: other.apiKey, body });
      assert.equal(res.status, 404, `${method} ${path}: ${res.text}`);
    }
    const deliveries = await request(server, 'GET', `${BASE}/deliveries?endpoint_id=${mine.id}`, { key: other.apiKey });
    assert.deepEqual(deliveries.body.data, []);
    const still = await request(server, 'GET', BASE, { key: key() });
    assert.equal(still.body.data.endpoints.find((e: { id: string }) => e.id === mine.id).description, 'mine');
  });
});
