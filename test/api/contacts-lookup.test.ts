import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { resolveInboundContact } from '../../src/domain/contacts/inbound.ts';
import { assertCodeError, postContact } from '../contacts-fixtures.ts';
import { createOtherOrganization, request, startTestServer, type TestServer } from '../harness.ts';

let server: TestServer;
let ana: Record<string, any>;
let bo: Record<string, any>;
before(async () => {
  server = await startTestServer();
  ana = await postContact(server, {
    phone_number: '+49 151 2345 6789',
    name: 'Ana',
    email: 'Ana@Example.com',
    external_source: 'hubspot',
    external_id: 'H-77',
  });
  bo = await postContact(server, { phone_number: '+49 151 9876 5432', name: 'Bo', external_source: 'shop', external_id: 'H-77' });
  // Identities that only channels report: a chat-app id, a linked id, a business-scoped user id, a username.
  await server.container.database.db.transaction((tx) =>
    resolveInboundContact(tx, server.organizationId, {
      phone: '+4915123456789',
      identities: [
        { type: 'chatapp_id', value: '4915123456789' },
        { type: 'linked_id', value: '98765432101234@lid' },
        { type: 'business_scoped_user_id', value: 'BSU.ana.1' },
        { type: 'username', value: '@AnaS' },
      ],
      at: new Date(),
    }),
  );
});
after(() => server.close());

const lookup = (identifiers: unknown, key = server.apiKey) =>
  request(server, 'POST', '/v1/contacts/lookup', { key, body: { identifiers } });

async function found(identifiers: unknown): Promise<string> {
  const res = await lookup(identifiers);
  assert.equal(res.status, 200, `${JSON.stringify(identifiers)}: ${res.text}`);
  assert.deepEqual(Object.keys(res.body), ['data']);
  return res.body.data.id;
}

test('200 with the contact for each identifier type', async () => {
  const cases: Array<[unknown, string]> = [
    [[{ type: 'contact_id', value: ana.id }], ana.id],
    [[{ type: 'contact_id', value: ana.id.toUpperCase() }], ana.id],
    [[{ type: 'phone', value: '+4915123456789' }], ana.id],
    [[{ type: 'phone', value: '0049 151 2345 6789' }], ana.id],
    [[{ type: 'phone', value: '(+49) 151-2345-6789' }], ana.id],
    [[{ type: 'chatapp', value: '4915123456789' }], ana.id],
    [[{ type: 'chatapp', value: '+49 151 9876 5432' }], bo.id],
    [[{ type: 'chatapp', value: '4915123456789@s.whatsapp.net' }], ana.id],
    [[{ type: 'chatapp', value: '4915198765432@c.us' }], bo.id],
    [[{ type: 'chatapp', value: '98765432101234@lid' }], ana.id],
    [[{ type: 'chatapp_id', value: '4915123456789' }], ana.id],
    [[{ type: 'chatapp_id', value: '+4915123456789' }], ana.id],
    [[{ type: 'chatapp_id', value: '98765432101234' }], ana.id],
    [[{ type: 'chatapp_id', value: 'BSU.ana.1' }], ana.id],
    [[{ type: 'email', value: 'ana@example.com' }], ana.id],
    [[{ type: 'email', value: '  ANA@EXAMPLE.COM ' }], ana.id],
    [[{ type: 'external_id', value: 'H-77', source: 'hubspot' }], ana.id],
    [[{ type: 'external_id', value: 'H-77', source: 'shop' }], bo.id],
  ];
  for (const [identifiers, id] of cases) assert.equal(await found(identifiers), id, JSON.stringify(identifiers));
  const res = await lookup([{ type: 'phone', value: '+4915123456789' }]);
  assert.equal(res.body.data.phone_number, '+4915123456789');
  assert.equal(res.body.data.name, 'Ana');
  assert.equal(res.body.data.email, 'Ana@Example.com');
  assert.equal(res.body.data.external_source, 'hubspot');
  assert.equal(res.body.data.external_id, 'H-77');
});

test('several identifiers of one contact resolve to it; ones that match nothing do not stop the others', async () => {
  assert.equal(
    await found([
      { type: 'phone', value: '+4915123456789' },
      { type: 'email', value: 'ana@example.com' },
      { type: 'contact_id', value: ana.id },
    ]),
    ana.id,
  );
  assert.equal(
    await found([
      { type: 'email', value: 'nobody@example.com' },
      { type: 'external_id', value: 'H-77', source: 'shop' },
    ]),
    bo.id,
  );
});

test('404 {error: "contact not found", code: "not_found"} when nothing matches', async () => {
  for (const identifiers of [
    [{ type: 'phone', value: '+1 212 555 0199' }],
    [{ type: 'email', value: 'nobody@example.com' }],
    [{ type: 'external_id', value: 'H-77', source: 'salesforce' }],
    [{ type: 'external_id', value: 'h-77', source: 'hubspot' }],
    [{ type: 'contact_id', value: '0196a0e2-7c1e-7a59-9a4c-2f5d3f3b8a10' }],
    [{ type: 'contact_id', value: 'not-a-uuid' }],
    [{ type: 'chatapp_id', value: 'unknown' }],
    [{ type: 'chatapp', value: '12125550199@s.whatsapp.net' }],
    [
      { type: 'email', value: 'nobody@example.com' },
      { type: 'phone', value: '+1 212 555 0199' },
    ],
  ]) {
    const res = await lookup(identifiers);
    assert.equal(res.status, 404, JSON.stringify(identifiers));
    assert.deepEqual(res.body, { error: 'contact not found', code: 'not_found' });
  }
});

test('409 code conflict when the identifiers match different contacts', async () => {
  for (const identifiers of [
    [
      { type: 'phone', value: '+4915123456789' },
      { type: 'phone', value: '+4915198765432' },
    ],
    [
      { type: 'email', value: 'ana@example.com' },
      { type: 'external_id', value: 'H-77', source: 'shop' },
    ],
    [
      { type: 'contact_id', value: bo.id },
      { type: 'chatapp_id', value: 'BSU.ana.1' },
    ],
  ]) {
    const res = await lookup(identifiers);
    assertCodeError(res, 409, 'conflict', /different contacts/);
  }
});

test('400 when external_id has no source, or an identifier is malformed', async () => {
  for (const [identifiers, pointer] of [
    [[{ type: 'external_id', value: 'H-77' }], '/identifiers/0/source'],
    [
      [
        { type: 'phone', value: '+4915123456789' },
        { type: 'external_id', value: 'H-77', source: '  ' },
      ],
      '/identifiers/1/source',
    ],
    [[{ type: 'external_id', value: 'H-77', source: null }], '/identifiers/0/source'],
    [[{ type: 'phone', value: 'not a phone' }], '/identifiers/0/value'],
    [[{ type: 'email', value: 'no-at-sign' }], '/identifiers/0/value'],
    [[{ type: 'chatapp', value: 'abc@s.whatsapp.net' }], '/identifiers/0/value'],
    [[{ type: 'fax', value: '123' }], '/identifiers/0/type'],
    [[{ value: '123' }], '/identifiers/0/type'],
    [[{ type: 'phone' }], '/identifiers/0/value'],
  ] as const) {
    const res = await lookup(identifiers);
    assertCodeError(res, 400, 'invalid');
    assert.ok(
      res.body.errors.some((e: { pointer: string }) => e.pointer === pointer),
      `${JSON.stringify(identifiers)} names ${pointer}: ${res.text}`,
    );
  }
  assertCodeError(await lookup([]), 400, 'invalid');
  assertCodeError(await request(server, 'POST', '/v1/contacts/lookup', { key: server.apiKey, body: {} }), 400, 'invalid');
});

test("another organization's identifiers and ids find nothing here, and ours nothing there", async () => {
  const other = await createOtherOrganization(server, 'lookup');
  const theirs = await postContact(server, { phone_number: '+49 151 5555 0000', email: 'theirs@example.com' }, other.apiKey);
  assertCodeError(await lookup([{ type: 'phone', value: '+4915155550000' }]), 404, 'not_found');
  assertCodeError(await lookup([{ type: 'contact_id', value: theirs.id }]), 404, 'not_found');
  assertCodeError(await lookup([{ type: 'phone', value: '+4915123456789' }], other.apiKey), 404, 'not_found');
  assertCodeError(await lookup([{ type: 'chatapp_id', value: 'BSU.ana.1' }], other.apiKey), 404, 'not_found');
  assert.equal((await lookup([{ type: 'contact_id', value: theirs.id }], other.apiKey)).status, 200);
});

test('GET /v1/contacts/phone/{phone} takes any common format; 404 unknown, 400 impossible', async () => {
  for (const phone of [
    '+4915123456789',
    '4915123456789',
    '+49 151 2345 6789',
    '0049-151-2345-6789',
    '+49 (151) 2345.6789',
    'tel:+49-151-23456789',
  ]) {
    const res = await request(server, 'GET', `/v1/contacts/phone/${encodeURIComponent(phone)}`, { key: server.apiKey });
    assert.equal(res.status, 200, `${phone}: ${res.text}`);
    assert.equal(res.body.data.id, ana.id);
  }
  assertCodeError(
    await request(server, 'GET', `/v1/contacts/phone/${encodeURIComponent('+1 212 555 0199')}`, { key: server.apiKey }),
    404,
    'not_found',
    'contact not found',
  );
  const bad = await request(server, 'GET', '/v1/contacts/phone/12', { key: server.apiKey });
  assertCodeError(bad, 400, 'invalid');
  assert.deepEqual(
    bad.body.errors.map((e: { pointer: string; location: string }) => [e.pointer, e.location]),
    [['/phone', 'params']],
  );
});
