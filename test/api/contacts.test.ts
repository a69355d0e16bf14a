import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { eq, sql } from 'drizzle-orm';
import { queryRows } from '../../src/db/client.ts';
import { messages, conversations } from '../../src/db/schema.ts';
import { checkAuthCases } from '../auth-cases.ts';
import { assertCodeError, eventsSince, insertChannel, insertMessage, outboxMark, postContact } from '../contacts-fixtures.ts';
import { createOtherOrganization, movableClock, request, startTestServer, type TestServer } from '../harness.ts';

let server: TestServer;
/** The server's clock, moved forward by hand where a change must come after a cut. */
const clock = movableClock();
before(async () => {
  server = await startTestServer({ clock });
});
after(() => server.close());

const key = () => ({ key: server.apiKey });
const post = (body: unknown) => request(server, 'POST', '/v1/contacts', { ...key(), body });

test('create answers 201 with the record; a POST matching the phone updates it with 200; one that changes nothing records nothing', async () => {
  const mark = await outboxMark(server);
  const created = await post({
    phone_number: '+1 (212) 555-0101',
    name: 'Ana Souza',
    email: 'Ana@Example.com',
    external_source: 'hubspot',
    external_id: 'h-1',
    custom_fields: { plan: 'pro', seats: 3 },
  });
  assert.equal(created.status, 201, created.text);
  const ana = created.body.data;
  assert.match(ana.id, /^[0-9a-f-]{36}$/);
  assert.deepEqual(
    { ...ana, id: undefined, created_at: undefined, updated_at: undefined },
    {
      id: undefined,
      phone_number: '+12125550101',
      name: 'Ana Souza',
      email: 'Ana@Example.com',
      external_source: 'hubspot',
      external_id: 'h-1',
      custom_fields: { plan: 'pro', seats: 3 },
      tags: [],
      created_at: undefined,
      updated_at: undefined,
    },
  );
  assert.deepEqual(await eventsSince(server, mark), [
    {
      type: 'crm.record.created',
      payload: { object_kind: 'contact', record_id: ana.id, display_name: 'Ana Souza', organization_id: server.organizationId },
    },
  ]);

  const mark2 = await outboxMark(server);
  const again = await post({ phone_number: '001-212-555-0101', name: 'Ana M. Souza', custom_fields: { seats: null, tier: 'gold' } });
  assert.equal(again.status, 200, again.text);
  assert.equal(again.body.data.id, ana.id);
  assert.equal(again.body.data.name, 'Ana M. Souza');
  assert.equal(again.body.data.email, 'Ana@Example.com', 'fields left out keep their values');
  assert.deepEqual(again.body.data.custom_fields, { plan: 'pro', tier: 'gold' }, 'custom_fields merge key by key; null removes');
  assert.deepEqual(await eventsSince(server, mark2), [
    { type: 'contact.updated', payload: { contact_id: ana.id, name: 'Ana M. Souza', organization_id: server.organizationId } },
    {
      type: 'crm.record.updated',
      payload: { object_kind: 'contact', record_id: ana.id, display_name: 'Ana M. Souza', organization_id: server.organizationId },
    },
  ]);

  const mark3 = await outboxMark(server);
  const same = await post({ phone_number: '+12125550101', name: 'Ana M. Souza' });
  assert.equal(same.status, 200);
  assert.equal(same.body.data.updated_at, again.body.data.updated_at);
  assert.deepEqual(await eventsSince(server, mark3), []);
});

test('concurrent creates of one phone number make one contact: one 201, the others 200', async () => {
  const results = await Promise.all(
    Array.from({ length: 8 }, (_, i) => post({ phone_number: '+1 646 555 0177', custom_fields: { [`k${i}`]: i } })),
  );
  assert.deepEqual(results.map((r) => r.status).sort(), [200, 200, 200, 200, 200, 200, 200, 201], results.map((r) => r.text).join('\n'));
  assert.equal(new Set(results.map((r) => r.body.data.id)).size, 1);
  const final = await request(server, 'GET', `/v1/contacts/${results[0]!.body.data.id}`, key());
  assert.deepEqual(
    final.body.data.custom_fields,
    Object.fromEntries(Array.from({ length: 8 }, (_, i) => [`k${i}`, i])),
    'no write was lost',
  );
});

test('upsert rule: the phone matches first, then external_source + external_id, then the email (case-insensitive)', async () => {
  const a = await postContact(server, { phone_number: '+44 20 7946 0001', name: 'A' });
  const b = await postContact(server, { external_source: 'crm', external_id: '42', name: 'B' });
  const c = await postContact(server, { email: 'cee@example.com', name: 'C' });

  // Phone beats external id: A is the match, and B's external id cannot move to it.
  const clash = await post({ phone_number: '+442079460001', external_source: 'crm', external_id: '42' });
  assertCodeError(clash, 409, 'conflict', /external_id/);
  assert.deepEqual(
    clash.body.errors.map((e: { pointer: string }) => e.pointer),
    ['/external_id'],
  );

  // External id beats email: B is the match, and C's email cannot move to it.
  const clash2 = await post({ external_source: 'crm', external_id: '42', email: 'CEE@example.com' });
  assertCodeError(clash2, 409, 'conflict', /email/);

  const byExternal = await post({ external_source: 'crm', external_id: '42', name: 'B2' });
  assert.equal(byExternal.status, 200);
  assert.equal(byExternal.body.data.id, b.id);

  const byEmail = await post({ email: 'Cee@EXAMPLE.com', name: 'C2' });
  assert.equal(byEmail.status, 200);
  assert.equal(byEmail.body.data.id, c.id);
  assert.equal(byEmail.body.data.email, 'Cee@EXAMPLE.com', 'kept as written');

  // An unknown phone with a known email updates the email's contact and gives it the phone.
  const phoneForC = await post({ phone_number: '+44 20 7946 0003', email: 'cee@example.com' });
  assert.equal(phoneForC.status, 200);
  assert.equal(phoneForC.body.data.id, c.id);
  assert.equal(phoneForC.body.data.phone_number, '+442079460003');
  assert.equal((await request(server, 'GET', `/v1/contacts/phone/${encodeURIComponent('+442079460003')}`, key())).body.data.id, c.id);

  // Giving C a new phone number releases the old one.
  const moved = await request(server, 'PATCH', `/v1/contacts/${c.id}`, { ...key(), body: { phone_number: '+44 20 7946 0004' } });
  assert.equal(moved.status, 200, moved.text);
  assertCodeError(
    await request(server, 'GET', `/v1/contacts/phone/${encodeURIComponent('+442079460003')}`, key()),
    404,
    'not_found',
    'contact not found',
  );
  const reuse = await post({ phone_number: '+44 20 7946 0003', name: 'D' });
  assert.equal(reuse.status, 201, 'a released phone number makes a new contact');

  assert.equal((await post({ phone_number: '(+44) 20.7946.0001', name: 'A2' })).body.data.id, a.id);

  const nothing = await post({ name: 'Nobody' });
  assertCodeError(nothing, 400, 'invalid');
  assert.deepEqual(
    nothing.body.errors.map((e: { pointer: string }) => e.pointer),
    ['/phone_number'],
  );
  const half = await post({ external_source: 'crm', name: 'half' });
  assertCodeError(half, 400, 'invalid');
  assert.deepEqual(
    half.body.errors.map((e: { pointer: string }) => e.pointer),
    ['/external_id'],
  );
});

test('phone numbers in many formats are one E.164 number; impossible ones are a 400 naming phone_number', async () => {
  const formats = [
    '+49 30 9012 3456',
    '+49-30-9012-3456',
    '+49 (0)30 9012 3456',
    '0049 30 90123456',
    '011 49 30 90123456',
    '49 30 90123456',
    '+49.30.9012.3456',
    '+49/30/90123456',
    'tel:+49-30-9012-3456',
    '+49 30 9012 3456 ext. 12',
    '+49 30 9012 3456 x12',
    ' +49\u00a030\u00a090123456 ',
    '+４９ ３０ ９０１２ ３４５６',
    '+٤٩ ٣٠ ٩٠١٢ ٣٤٥٦',
  ];
  const first = await post({ phone_number: formats[0], name: 'Formats' });
  assert.equal(first.status, 201);
  assert.equal(first.body.data.phone_number, '+493090123456');
  for (const format of formats) {
    const res = await post({ phone_number: format });
    assert.equal(res.status, 200, `${JSON.stringify(format)}: ${res.text}`);
    assert.equal(res.body.data.id, first.body.data.id, JSON.stringify(format));
    const byPath = await request(server, 'GET', `/v1/contacts/phone/${encodeURIComponent(format.trim())}`, key());
    assert.equal(byPath.status, 200, `GET by ${JSON.stringify(format)}: ${byPath.text}`);
    assert.equal(byPath.body.data.id, first.body.data.id);
  }
  for (const [format, e164] of [
    ['+1 415 555 0132', '+14155550132'],
    ['+55 11 91234-5678', '+5511912345678'],
    ['+91 98765 43210', '+919876543210'],
    ['+86 138 0013 8000', '+8613800138000'],
    ['+33 6 12 34 56 78', '+33612345678'],
    ['+971 50 123 4567', '+971501234567'],
  ] as const) {
    const res = await post({ phone_number: format });
    assert.equal(res.status, 201, format);
    assert.equal(res.body.data.phone_number, e164);
  }
  for (const bad of ['12', 'abc', '+49 30 1234567 89012345', '+0 30 1234567', 'call me', '+1 415 555 0132 +1']) {
    const res = await post({ phone_number: bad, name: 'bad' });
    assertCodeError(res, 400, 'invalid', /phone_number/);
    assert.deepEqual(
      res.body.errors,
      [{ pointer: '/phone_number', location: 'body', message: 'not a possible phone number (write it with its country code)' }],
      bad,
    );
  }
});

test('PATCH changes the fields given, clears with null, and refuses an identifier another contact holds', async () => {
  const one = await postContact(server, {
    phone_number: '+1 303 555 0100',
    name: 'One',
    email: 'one@example.com',
    custom_fields: { a: 1 },
  });
  const two = await postContact(server, { phone_number: '+1 303 555 0200', name: 'Two', email: 'two@example.com' });
  const mark = await outboxMark(server);
  const res = await request(server, 'PATCH', `/v1/contacts/${one.id}`, {
    ...key(),
    body: { name: 'One Again', email: null, custom_fields: { b: [1, 2] } },
  });
  assert.equal(res.status, 200, res.text);
  assert.equal(res.body.data.name, 'One Again');
  assert.equal(res.body.data.email, null);
  assert.equal(res.body.data.phone_number, '+13035550100');
  assert.deepEqual(res.body.data.custom_fields, { a: 1, b: [1, 2] });
  assert.deepEqual(
    (await eventsSince(server, mark)).map((e) => e.type),
    ['contact.updated', 'crm.record.updated'],
  );
  // The cleared email no longer finds it, and is free for another contact.
  assertCodeError(
    await request(server, 'POST', '/v1/contacts/lookup', {
      ...key(),
      body: { identifiers: [{ type: 'email', value: 'one@example.com' }] },
    }),
    404,
    'not_found',
  );

  assertCodeError(
    await request(server, 'PATCH', `/v1/contacts/${one.id}`, { ...key(), body: { email: 'TWO@example.com' } }),
    409,
    'conflict',
    /email/,
  );
  assertCodeError(
    await request(server, 'PATCH', `/v1/contacts/${one.id}`, { ...key(), body: { phone_number: '+1 303 555 0200' } }),
    409,
    'conflict',
    /phone_number/,
  );
  const stripped = await request(server, 'PATCH', `/v1/contacts/${two.id}`, { ...key(), body: { phone_number: null, email: '' } });
  assertCodeError(stripped, 400, 'invalid', /phone_number, an email or an external/);

  const big = await request(server, 'PATCH', `/v1/contacts/${one.id}`, {
    ...key(),
    body: { custom_fields: { blob: 'x'.repeat(17 * 1024) } },
  });
  assertCodeError(big, 400, 'invalid');
  assert.equal(big.body.errors[0].pointer, '/custom_fields');
  const many = await request(server, 'PATCH', `/v1/contacts/${one.id}`, {
    ...key(),
    body: { custom_fields: Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`k${i}`, i])) },
  });
  assertCodeError(many, 400, 'invalid');
  assert.equal(many.body.errors[0].pointer, '/custom_fields');
  const typo = await request(server, 'PATCH', `/v1/contacts/${one.id}`, { ...key(), body: { phone: '+1 303 555 0300' } });
  assertCodeError(typo, 400, 'invalid', /phone/);
  const badEmail = await request(server, 'PATCH', `/v1/contacts/${one.id}`, { ...key(), body: { email: 'not-an-email' } });
  assertCodeError(badEmail, 400, 'invalid');
  assert.equal(badEmail.body.errors[0].pointer, '/email');

  const mark2 = await outboxMark(server);
  const same = await request(server, 'PATCH', `/v1/contacts/${one.id}`, { ...key(), body: { name: 'One Again' } });
  assert.equal(same.status, 200);
  assert.deepEqual(await eventsSince(server, mark2), [], 'a PATCH that changes nothing records nothing');
  assert.equal((await request(server, 'GET', `/v1/contacts/${one.id}`, key())).body.data.name, 'One Again');
});

test('the list pages newest first and filters by tag, search, external_source and updated_after', async () => {
  const other = await createOtherOrganization(server, 'listing');
  const made: Array<Record<string, any>> = [];
  for (const [i, body] of [
    { phone_number: '+61 2 9374 4000', name: 'Zelda Quinn', email: 'zq@list.example' },
    { phone_number: '+61 2 9374 4001', name: 'zeb Quartz', email: 'zeb@list.example', external_source: 'salesforce', external_id: 's1' },
    { phone_number: '+61 3 9374 4002', name: 'Yara', email: 'zz_top@list.example', external_source: 'salesforce', external_id: 's2' },
    { phone_number: '+61 3 9374 4003', name: '100% Real_Name', email: 'pct@list.example' },
  ].entries()) {
    made.push(await postContact(server, body));
    if (i === 1) await request(server, 'POST', `/v1/contacts/${made[1]!.id}/tags`, { ...key(), body: { tag: 'VIP' } });
  }
  await request(server, 'POST', `/v1/contacts/${made[3]!.id}/tags`, { ...key(), body: { tag: 'vip' } });
  await postContact(server, { phone_number: '+61 2 9374 4009', name: 'Zelda Elsewhere' }, other.apiKey);

  const names = async (query: string) => {
    const res = await request(server, 'GET', `/v1/contacts?limit=200&${query}`, key());
    assert.equal(res.status, 200, res.text);
    return res.body.data.map((c: { name: string }) => c.name);
  };
  assert.deepEqual(await names('search=ze'), ['zeb Quartz', 'Zelda Quinn'], 'name prefix, case-insensitive, newest first');
  assert.deepEqual(await names('search=zz_'), ['Yara'], 'email prefix');
  assert.deepEqual(await names('search=z_'), [], 'LIKE wildcards are literal');
  assert.deepEqual(await names('search=100%25'), ['100% Real_Name']);
  assert.deepEqual(await names(`search=${encodeURIComponent('+61 2 9374')}`), ['zeb Quartz', 'Zelda Quinn'], 'phone prefix');
  assert.deepEqual(await names(`search=${encodeURIComponent('0061 3')}`), ['100% Real_Name', 'Yara']);
  assert.deepEqual(await names('search=6139374400'), ['100% Real_Name', 'Yara']);
  assert.deepEqual(await names('tag=vip'), ['100% Real_Name', 'zeb Quartz'], 'tag, case-insensitive');
  assert.deepEqual(await names('tag=nope'), []);
  assert.deepEqual(await names('external_source=salesforce'), ['Yara', 'zeb Quartz']);
  assert.deepEqual(await names('tag=VIP&external_source=salesforce&search=zeb'), ['zeb Quartz']);
  const tagged = await request(server, 'GET', '/v1/contacts?tag=vip', key());
  assert.deepEqual(tagged.body.data.find((c: { id: string }) => c.id === made[1]!.id).tags, ['VIP'], 'records carry their tag names');

  const cut = clock.now().toISOString();
  clock.advance(5);
  await request(server, 'PATCH', `/v1/contacts/${made[0]!.id}`, { ...key(), body: { name: 'Zelda Q.' } });
  assert.deepEqual(await names(`updated_after=${encodeURIComponent(cut)}`), ['Zelda Q.']);

  const seen: string[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const res: { status: number; body: any } = await request(
      server,
      'GET',
      `/v1/contacts?limit=3${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      key(),
    );
    assert.equal(res.status, 200);
    assert.ok(res.body.data.length <= 3);
    seen.push(...res.body.data.map((c: { id: string }) => c.id));
    cursor = res.body.meta.next_cursor;
    pages++;
  } while (cursor && pages < 100);
  const all = await request(server, 'GET', '/v1/contacts?limit=200', key());
  assert.deepEqual(
    seen,
    all.body.data.map((c: { id: string }) => c.id),
  );
  assert.ok(pages > 2);
  assert.equal(new Set(seen).size, seen.length);
  assert.equal(
    all.body.data.some((c: { name: string }) => c.name === 'Zelda Elsewhere'),
    false,
    "another organization's contacts are not listed",
  );
  const sorted = [...all.body.data].sort((x: any, y: any) =>
    x.created_at === y.created_at ? (x.id < y.id ? 1 : -1) : x.created_at < y.created_at ? 1 : -1,
  );
  assert.deepEqual(
    all.body.data.map((c: { id: string }) => c.id),
    sorted.map((c: { id: string }) => c.id),
  );

  assertCodeError(await request(server, 'GET', '/v1/contacts?cursor=garbage', key()), 400, 'invalid');
  const badLimit = await request(server, 'GET', '/v1/contacts?limit=500', key());
  assertCodeError(badLimit, 400, 'invalid');
  assert.equal(badLimit.body.errors[0].location, 'query');
  assertCodeError(await request(server, 'GET', '/v1/contacts?updated_after=yesterday', key()), 400, 'invalid');
});

test('search reads a number written without its country code as a national number, in any country', async () => {
  const other = await createOtherOrganization(server, 'national');
  await postContact(server, { phone_number: '+1 555 300 1234', name: 'Nat Nanp' });
  await postContact(server, { phone_number: '+44 20 7946 0958', name: 'Nat London' });
  await postContact(server, { phone_number: '+39 06 6982 1234', name: 'Nat Rome' });
  await postContact(server, { phone_number: '+1 555 300 1239', name: 'Nat Elsewhere' }, other.apiKey);
  const names = async (search: string) => {
    const res = await request(server, 'GET', `/v1/contacts?limit=200&search=${encodeURIComponent(search)}`, key());
    assert.equal(res.status, 200, res.text);
    return res.body.data.map((c: { name: string }) => c.name).filter((n: string) => n.startsWith('Nat '));
  };
  assert.deepEqual(await names('+15553001234'), ['Nat Nanp'], 'the international form, as before');
  assert.deepEqual(await names('5553001234'), ['Nat Nanp'], 'the national digits');
  assert.deepEqual(await names('(555) 300-1234'), ['Nat Nanp'], 'the national format');
  assert.deepEqual(await names('020 7946 0958'), ['Nat London'], 'a trunk 0 is dropped');
  assert.deepEqual(await names('06 6982 1234'), ['Nat Rome'], 'a leading 0 that belongs to the number is kept');
  assert.deepEqual(await names('+5553001234'), [], 'with + the digits are international');
  assert.deepEqual(await names('5553001239'), [], "another organization's contact is not found");
});

test('DELETE removes the contact and its sub-records, keeps its messages without the link, and its identifiers then find nothing', async () => {
  const channelId = await insertChannel(server, server.organizationId);
  const c = await postContact(server, {
    phone_number: '+34 612 345 678',
    email: 'gone@example.com',
    external_source: 'erp',
    external_id: 'e-9',
    name: 'Gone',
  });
  const base = `/v1/contacts/${c.id}`;
  assert.equal((await request(server, 'POST', `${base}/notes`, { ...key(), body: { body: 'note' } })).status, 201);
  assert.equal((await request(server, 'POST', `${base}/tags`, { ...key(), body: { tag: 'doomed' } })).status, 201);
  assert.equal((await request(server, 'PUT', `${base}/consent/all`, { ...key(), body: { state: 'granted' } })).status, 201);
  assert.equal(
    (await request(server, 'POST', `${base}/suppressions`, { ...key(), body: { channel: 'chatapp', reason: 'test' } })).status,
    201,
  );
  const { messageId, conversationId } = await insertMessage(server, server.organizationId, c.id, channelId);

  const mark = await outboxMark(server);
  const res = await request(server, 'DELETE', base, key());
  assert.equal(res.status, 204, res.text);
  assert.deepEqual(await eventsSince(server, mark), [
    {
      type: 'crm.record.deleted',
      payload: { object_kind: 'contact', record_id: c.id, display_name: 'Gone', organization_id: server.organizationId },
    },
  ]);

  assertCodeError(await request(server, 'GET', base, key()), 404, 'not_found', 'contact not found');
  assertCodeError(await request(server, 'DELETE', base, key()), 404, 'not_found');
  for (const identifier of [
    { type: 'phone', value: '+34612345678' },
    { type: 'email', value: 'gone@example.com' },
    { type: 'external_id', value: 'e-9', source: 'erp' },
    { type: 'contact_id', value: c.id },
  ]) {
    assertCodeError(
      await request(server, 'POST', '/v1/contacts/lookup', { ...key(), body: { identifiers: [identifier] } }),
      404,
      'not_found',
      'contact not found',
    );
  }
  const db = server.container.database.db;
  for (const table of ['contact_identities', 'comments', 'contact_tags', 'contact_consents', 'contact_suppressions']) {
    const [row] = await queryRows<{ n: number }>(
      db,
      sql`select count(*)::int as n from ${sql.identifier(table)} where contact_id = ${c.id}`,
    );
    assert.equal(row!.n, 0, `${table} rows are gone`);
  }
  const [message] = await db.select().from(messages).where(eq(messages.id, messageId));
  assert.ok(message, 'the message stays');
  assert.equal(message.contactId, null);
  const [conversation] = await db.select().from(conversations).where(eq(conversations.id, conversationId));
  assert.equal(conversation!.contactId, null);
  assert.equal((await post({ phone_number: '+34 612 345 678' })).status, 201, 'the number is free again');
});

test('contacts errors use the code shape: {error, code}, with the field list on 400', async () => {
  const missing = await request(server, 'GET', '/v1/contacts/0196a0e2-7c1e-7a59-9a4c-2f5d3f3b8a10', key());
  assert.equal(missing.status, 404);
  assert.deepEqual(missing.body, { error: 'contact not found', code: 'not_found' });
  assertCodeError(await request(server, 'GET', '/v1/contacts/not-a-uuid', key()), 404, 'not_found');
  const bad = await post({ phone_number: 12345, email: 'x' });
  assertCodeError(bad, 400, 'invalid');
  assert.deepEqual(bad.body.errors.map((e: { pointer: string }) => e.pointer).sort(), ['/email', '/phone_number']);
  assert.ok(bad.body.errors.every((e: { location: string }) => e.location === 'body'));
  assertCodeError(
    await request(server, 'POST', '/v1/contacts', { ...key(), rawBody: '{"name":', contentType: 'application/json' }),
    400,
    'invalid',
  );
  const existing = await postContact(server, { email: 'shape@example.com' });
  await postContact(server, { phone_number: '+1 720 555 0188' });
  const conflict = await request(server, 'PATCH', `/v1/contacts/${existing.id}`, { ...key(), body: { phone_number: '+1 720 555 0188' } });
  assertCodeError(conflict, 409, 'conflict');
  assert.deepEqual(Object.keys(conflict.body).sort(), ['code', 'error', 'errors']);
  // Credential failures stay problems, as on every route.
  const unauthenticated = await request(server, 'GET', '/v1/contacts', {});
  assert.equal(unauthenticated.status, 401);
  assert.equal(unauthenticated.body.detail, 'invalid or missing API key');
});

test("another organization's contact is not_found on every route, and its numbers do not collide with ours", async () => {
  const other = await createOtherOrganization(server, 'isolation');
  const theirs = await postContact(server, { phone_number: '+81 3 1234 5678', email: 'theirs@example.com', name: 'Theirs' }, other.apiKey);
  const theirChannel = await insertChannel(server, other.organizationId);
  const id = theirs.id;
  const routes: Array<[string, string, unknown?]> = [
    ['GET', `/v1/contacts/${id}`],
    ['PATCH', `/v1/contacts/${id}`, { name: 'mine now' }],
    ['DELETE', `/v1/contacts/${id}`],
    ['GET', `/v1/contacts/${id}/identities`],
    ['GET', `/v1/contacts/${id}/notes`],
    ['POST', `/v1/contacts/${id}/notes`, { body: 'x' }],
    ['DELETE', `/v1/contacts/${id}/notes/0196a0e2-7c1e-7a59-9a4c-2f5d3f3b8a10`],
    ['GET', `/v1/contacts/${id}/tags`],
    ['POST', `/v1/contacts/${id}/tags`, { tag: 'x' }],
    ['DELETE', `/v1/contacts/${id}/tags/x`],
    ['PUT', `/v1/contacts/${id}/consent/all`, { state: 'revoked' }],
    ['GET', `/v1/contacts/${id}/consents`],
    ['GET', `/v1/contacts/${id}/suppressions`],
    ['POST', `/v1/contacts/${id}/suppressions`, { channel: 'all', reason: 'x' }],
    ['DELETE', `/v1/contacts/${id}/suppressions/all`],
    ['GET', `/v1/contacts/phone/${encodeURIComponent('+81 3 1234 5678')}`],
    ['POST', '/v1/contacts/lookup', { identifiers: [{ type: 'contact_id', value: id }] }],
    ['POST', '/v1/contacts/lookup', { identifiers: [{ type: 'email', value: 'theirs@example.com' }] }],
  ];
  for (const [method, path, body] of routes) {
    const res = await request(server, method, path, { ...key(), body });
    assertCodeError(res, 404, 'not_found', 'contact not found');
  }
  // Their channel is not one of ours either.
  const mine = await postContact(server, { phone_number: '+81 3 1234 5678', name: 'Mine' });
  assert.notEqual(mine.id, id, 'the same number in two organizations is two contacts');
  assertCodeError(
    await request(server, 'PUT', `/v1/contacts/${mine.id}/consent/${theirChannel}`, { ...key(), body: { state: 'granted' } }),
    404,
    'not_found',
    'channel not found',
  );
  const suppress = await request(server, 'POST', `/v1/contacts/${mine.id}/suppressions`, {
    ...key(),
    body: { channel: theirChannel, reason: 'x' },
  });
  assertCodeError(suppress, 400, 'invalid');
  assert.equal(suppress.body.errors[0].pointer, '/channel');
  const still = await request(server, 'GET', `/v1/contacts/${id}`, { key: other.apiKey });
  assert.equal(still.status, 200);
  assert.equal(still.body.data.name, 'Theirs', 'nothing we sent changed it');
  assert.deepEqual((await request(server, 'GET', `/v1/contacts/${id}/notes`, { key: other.apiKey })).body.data, []);
});

test('auth cases for the contacts routes', async () => {
  const c = await postContact(server, { phone_number: '+1 917 555 0123', name: 'Auth' });
  const id = c.id;
  await checkAuthCases(server, [
    { method: 'POST', path: '/v1/contacts', permission: 'contacts:write', body: { phone_number: '+1 917 555 0124' } },
    { method: 'GET', path: '/v1/contacts', permission: 'contacts:read' },
    { method: 'GET', path: `/v1/contacts/${id}`, permission: 'contacts:read' },
    { method: 'PATCH', path: `/v1/contacts/${id}`, permission: 'contacts:write', body: { name: 'x' } },
    { method: 'DELETE', path: `/v1/contacts/${id}`, permission: 'contacts:write' },
    { method: 'GET', path: '/v1/contacts/phone/19175550123', permission: 'contacts:read' },
    {
      method: 'POST',
      path: '/v1/contacts/lookup',
      permission: 'contacts:read',
      body: { identifiers: [{ type: 'contact_id', value: id }] },
    },
    { method: 'POST', path: '/v1/contacts/import', permission: 'contacts:write', body: { phone_number: '+1 917 555 0125' } },
    { method: 'GET', path: `/v1/contacts/${id}/identities`, permission: 'contacts:read' },
    { method: 'GET', path: `/v1/contacts/${id}/notes`, permission: 'contacts:read' },
    { method: 'POST', path: `/v1/contacts/${id}/notes`, permission: 'contacts:write', body: { body: 'x' } },
    { method: 'DELETE', path: `/v1/contacts/${id}/notes/${id}`, permission: 'contacts:write' },
    { method: 'GET', path: `/v1/contacts/${id}/tags`, permission: 'contacts:read' },
    { method: 'POST', path: `/v1/contacts/${id}/tags`, permission: 'contacts:write', body: { tag: 'x' } },
    { method: 'DELETE', path: `/v1/contacts/${id}/tags/x`, permission: 'contacts:write' },
    { method: 'PUT', path: `/v1/contacts/${id}/consent/all`, permission: 'contacts:write', body: { state: 'granted' } },
    { method: 'GET', path: `/v1/contacts/${id}/consents`, permission: 'contacts:read' },
    { method: 'GET', path: `/v1/contacts/${id}/suppressions`, permission: 'contacts:read' },
    { method: 'POST', path: `/v1/contacts/${id}/suppressions`, permission: 'contacts:write', body: { channel: 'all', reason: 'x' } },
    { method: 'DELETE', path: `/v1/contacts/${id}/suppressions/all`, permission: 'contacts:write' },
  ]);
  // A read-only key reads but cannot write.
  const reader = (await request(server, 'POST', '/v1/api-keys', { ...key(), body: { name: 'reader', permissions: ['contacts:read'] } }))
    .body.data.secret;
  assert.equal((await request(server, 'GET', `/v1/contacts/${id}`, { key: reader })).status, 200);
  const denied = await request(server, 'PATCH', `/v1/contacts/${id}`, { key: reader, body: { name: 'nope' } });
  assert.equal(denied.status, 403);
  assert.match(denied.body.detail, /contacts:write/);
});

test('custom_fields nested 10,000 deep is a 400 naming where, not a crash', async () => {
  const raw = `{"email": "deep@example.com", "custom_fields": {"x": ${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}}}`;
  const contacts = await request(server, 'POST', '/v1/contacts', { key: server.apiKey, rawBody: raw });
  assert.equal(contacts.status, 400, contacts.text.slice(0, 300));
  assert.equal(contacts.body.errors[0].location, 'body');
  assert.match(contacts.body.errors[0].pointer, /^\/custom_fields\/x(\/a)+$/);
  assert.match(contacts.body.errors[0].message, /nests deeper than \d+ levels/);
});
