/**
 * Segments through the API: the filter language over every kind of field (GET /v1/contacts?filter=),
 * its refusals naming the path at fault, another organization's tags, lists and companies matching
 * nothing, and saved segments (CRUD with their record events, the live count, the preview, the
 * contacts by cursor, the crm and contacts permissions).
 */
// stores: both
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { checkAuthCases } from '../auth-cases.ts';
import { allPages, assertNames, created, eventTail, recordEvent } from '../crm-helpers.ts';
import { insertChannel, insertMessage, postContact } from '../contacts-fixtures.ts';
import { createKeyWith, createOtherOrganization, movableClock, request, startTestServer, type TestServer } from '../harness.ts';

let server: TestServer;
let other: Awaited<ReturnType<typeof createOtherOrganization>>;
const clock = movableClock();
const key = () => ({ key: server.apiKey });
const c: Record<string, Record<string, any>> = {};
let channelId: string;
let listId: string;

before(async () => {
  server = await startTestServer({ worker: true, clock });
  other = await createOtherOrganization(server, 'segments');
  channelId = await insertChannel(server, server.organizationId);
  c.ada = await postContact(server, {
    name: 'Ada Lovelace',
    email: 'ada@example.com',
    phone_number: '+4930111111',
    custom_fields: { plan: 'Pro', seats: 40, since: '2024-03-01', beta: true },
  });
  c.bob = await postContact(server, {
    name: 'Bob',
    email: 'bob@corp.example',
    phone_number: '+4930222222',
    custom_fields: { plan: 'free', seats: 3 },
  });
  c.cy = await postContact(server, { name: 'Cy', phone_number: '+33612345678', custom_fields: { seats: '12' } });
  for (const [who, tag] of [
    ['ada', 'VIP'],
    ['bob', 'vip'],
    ['bob', 'wholesale'],
  ] as const) {
    assert.equal((await request(server, 'POST', `/v1/contacts/${c[who]!.id}/tags`, { ...key(), body: { tag } })).status < 300, true);
  }
  await request(server, 'PUT', `/v1/contacts/${c.ada!.id}/consent/chatapp`, { ...key(), body: { state: 'granted' } });
  await request(server, 'PUT', `/v1/contacts/${c.bob!.id}/consent/chatapp`, { ...key(), body: { state: 'revoked' } });
  await request(server, 'POST', `/v1/contacts/${c.cy!.id}/suppressions`, { ...key(), body: { channel: channelId, reason: 'bounced' } });
  // Ada works at Acme (DE); Cy at Globex, linked the other way round (the company is the `from`).
  const acme = await created(server, '/v1/companies', {
    name: 'Acme GmbH',
    domain: 'acme.com',
    address: { country: 'de', city: 'Berlin' },
    custom_fields: { tier: 'gold' },
  });
  const globex = await created(server, '/v1/companies', { name: 'Globex', address: { country: 'fr' } });
  const worksAt = await created(server, '/v1/relationship-labels', {
    name: 'works at',
    inverse_name: 'employs',
    from_kind: 'contact',
    to_kind: 'company',
  });
  const employs = await created(server, '/v1/relationship-labels', { name: 'has staff', from_kind: 'company', to_kind: 'contact' });
  await created(server, '/v1/relationships', { label_id: worksAt.id, from_id: c.ada!.id, to_id: acme.id });
  await created(server, '/v1/relationships', { label_id: employs.id, from_id: globex.id, to_id: c.cy!.id });
  // Bob wrote in (an inbound message now); Ada wrote long ago.
  const { conversationId } = await insertMessage(server, server.organizationId, c.bob!.id, channelId);
  const db = server.container.database.db;
  await db.execute(sql`update conversations set last_inbound_at = ${clock.now()} where id = ${conversationId}`);
  const old = await insertMessage(server, server.organizationId, c.ada!.id, channelId);
  await db.execute(
    sql`update conversations set last_inbound_at = ${new Date(clock.now().getTime() - 90 * 86_400_000)} where id = ${old.conversationId}`,
  );
  // Another organization's contact with the same tag, and its list.
  const theirs = await postContact(server, { name: 'Ada Other', phone_number: '+4930111111' }, other.apiKey);
  await request(server, 'POST', `/v1/contacts/${theirs.id}/tags`, { key: other.apiKey, body: { tag: 'VIP' } });
  listId = (await created(server, '/v1/lists', { name: 'Newsletter', kind: 'contact' })).id;
  const added = await request(server, 'POST', `/v1/lists/${listId}/entries`, { ...key(), body: { record_ids: [c.cy!.id] } });
  assert.equal(added.status, 200, added.text);
});
after(() => server.close());

async function found(filter: unknown): Promise<string[]> {
  const res = await request(server, 'GET', `/v1/contacts?limit=100&filter=${encodeURIComponent(JSON.stringify(filter))}`, key());
  assert.equal(res.status, 200, `${JSON.stringify(filter)}: ${res.text}`);
  const names = Object.fromEntries(Object.entries(c).map(([n, r]) => [r.id, n]));
  return res.body.data.map((r: { id: string }) => names[r.id] ?? r.id).sort();
}

const one = (field: string, op: string, value?: unknown) => ({ and: [{ field, op, ...(value === undefined ? {} : { value }) }] });

test('the filter language reads every kind of field', async () => {
  const cases: Array<[unknown, string[]]> = [
    [one('tags', 'has', 'vip'), ['ada', 'bob']],
    [one('tags', 'has_not', 'VIP'), ['cy']],
    [one('name', 'eq', 'ada lovelace'), ['ada']],
    [one('name', 'neq', 'bob'), ['ada', 'cy']],
    [one('email', 'exists', false), ['cy']],
    [one('email', 'contains', 'CORP'), ['bob']],
    [one('phone_number', 'starts_with', '+49'), ['ada', 'bob']],
    [one('name', 'in', ['bob', 'cy']), ['bob', 'cy']],
    [one('name', 'not_in', ['bob']), ['ada', 'cy']],
    [one('custom_fields.plan', 'eq', 'pro'), ['ada']],
    [one('custom_fields.seats', 'gt', 10), ['ada'] /* the text "12" is not a number */],
    [one('custom_fields.seats', 'lte', 3), ['bob']],
    [one('custom_fields.seats', 'eq', '12'), ['cy']],
    [one('custom_fields.since', 'lt', '2025-01-01'), ['ada']],
    [one('custom_fields.beta', 'eq', true), ['ada']],
    [one('custom_fields.plan', 'exists', false), ['cy']],
    [one('custom_fields.plan', 'in', ['FREE', 'enterprise']), ['bob']],
    [one('consents.chatapp', 'eq', 'granted'), ['ada']],
    [one('consents.chatapp', 'neq', 'granted'), ['bob', 'cy']],
    [one(`suppressions.${channelId}`, 'exists', true), ['cy']],
    [one('suppressions.any', 'exists', false), ['ada', 'bob']],
    [one('last_inbound_at', 'within', 'P7D'), ['bob']],
    [one('last_inbound_at', 'before', new Date(clock.now().getTime() - 86_400_000).toISOString()), ['ada']],
    [one('last_inbound_at', 'exists', false), ['cy']],
    [one('created_at', 'after', '2000-01-01T00:00:00Z'), ['ada', 'bob', 'cy']],
    [one('company', 'exists', true), ['ada', 'cy']],
    [one('company.address.country', 'eq', 'DE'), ['ada']],
    [one('company.name', 'starts_with', 'glob'), ['cy']],
    [one('company.custom_fields.tier', 'eq', 'gold'), ['ada']],
    [one('lists', 'in', listId), ['cy']],
    [one('lists', 'not_in', [listId]), ['ada', 'bob']],
    [
      {
        or: [
          one('tags', 'has', 'wholesale'),
          {
            and: [
              { field: 'company', op: 'exists', value: true },
              { field: 'email', op: 'exists', value: false },
            ],
          },
        ],
      },
      ['bob', 'cy'],
    ],
  ];
  for (const [filter, expected] of cases) assert.deepEqual(await found(filter), expected, JSON.stringify(filter));
});

test('a filter combines with the other list parameters and pages by cursor', async () => {
  const filter = encodeURIComponent(JSON.stringify(one('phone_number', 'starts_with', '+')));
  const items = await allPages(server, `/v1/contacts?limit=1&filter=${filter}&tag=vip`);
  assert.deepEqual(items.map((r) => r.name).sort(), ['Ada Lovelace', 'Bob']);
});

test('a bad filter is a 400 naming the path at fault', async () => {
  const bad = async (filter: string, pointer: string, message?: RegExp) => {
    const res = await request(server, 'GET', `/v1/contacts?filter=${encodeURIComponent(filter)}`, key());
    assert.equal(res.status, 400, `${filter}: ${res.text}`);
    assert.equal(res.body.code, 'invalid', res.text);
    const error = res.body.errors?.find((e: { pointer: string }) => e.pointer === pointer);
    assert.ok(error, `${filter} names ${pointer}: ${res.text}`);
    assert.equal(error.location, 'query');
    if (message) assert.match(error.message, message);
  };
  await bad(
    '{"and": [{"field": "tags", "op": "has", "value": "x"}, {"field": "tags", "op": "gt", "value": 1}]}',
    '/filter/and/1/op',
    /^filter\.and\[1\]\.op: tags takes has, has_not/,
  );
  await bad('{"and": [{"field": "nope", "op": "eq", "value": 1}]}', '/filter/and/0/field', /unknown field/);
  await bad('{"or": [{"field": "custom_fields.seats", "op": "gt", "value": true}]}', '/filter/or/0/value');
  await bad('{"or": [{"field": "name", "op": "in", "value": ["a", 5]}]}', '/filter/or/0/value/1');
  await bad('{"and": [{"field": "last_inbound_at", "op": "within", "value": "7 days"}]}', '/filter/and/0/value', /duration/);
  await bad('{"and": [{"field": "lists", "op": "in", "value": "not-a-uuid"}]}', '/filter/and/0/value');
  await bad('{"and": [{"field": "consents.chatapp", "op": "eq", "value": "maybe"}]}', '/filter/and/0/value');
  await bad('{"and": [{"field": "name", "op": "eq"}]}', '/filter/and/0/value', /required/);
  await bad('{"and": [{"field": "name", "op": "eq", "value": "x", "extra": 1}]}', '/filter/and/0/extra');
  await bad('{"and": []}', '/filter/and');
  await bad('{"and": [], "or": []}', '/filter');
  await bad('[1]', '/filter');
  await bad('{not json', '/filter', /must be JSON/);
  let deep: unknown = one('name', 'eq', 'x');
  for (let i = 0; i < 5; i += 1) deep = { and: [deep] };
  await bad(JSON.stringify(deep), '/filter/and/0/and/0/and/0/and/0/and/0/and');
  const many = { or: Array.from({ length: 51 }, () => ({ field: 'name', op: 'eq', value: 'x' })) };
  await bad(JSON.stringify(many), '/filter/or/50', /at most 50 conditions/);
});

test('another organization’s tags, lists and companies match nothing', async () => {
  assert.deepEqual(await found(one('tags', 'has', 'vip')), ['ada', 'bob'], 'their VIP is not ours');
  const theirs = await request(server, 'GET', `/v1/contacts?filter=${encodeURIComponent(JSON.stringify(one('lists', 'in', listId)))}`, {
    key: other.apiKey,
  });
  assert.equal(theirs.status, 200, theirs.text);
  assert.deepEqual(theirs.body.data, [], 'our list finds none of theirs');
  const vip = await request(server, 'GET', `/v1/contacts?filter=${encodeURIComponent(JSON.stringify(one('tags', 'has', 'vip')))}`, {
    key: other.apiKey,
  });
  assert.deepEqual(
    vip.body.data.map((r: { name: string }) => r.name),
    ['Ada Other'],
  );
});

test('a segment is saved, counted, previewed, paged, changed and deleted, with its record events', async () => {
  const events = await eventTail(server);
  const filter = one('tags', 'has', 'vip');
  const segment = await created(server, '/v1/segments', { name: 'VIPs', description: 'the best', filter });
  assert.deepEqual(
    { ...segment, id: undefined, created_at: undefined, updated_at: undefined },
    {
      id: undefined,
      name: 'VIPs',
      description: 'the best',
      filter,
      created_at: undefined,
      updated_at: undefined,
    },
  );
  assert.deepEqual((await request(server, 'GET', `/v1/segments/${segment.id}`, key())).body.data, segment);
  const count = await request(server, 'GET', `/v1/segments/${segment.id}/count`, key());
  assert.equal(count.body.data.count, 2);
  assert.ok(Math.abs(Date.parse(count.body.data.counted_at) - clock.now().getTime()) < 60_000, 'counted now, by the server’s clock');
  const preview = await request(server, 'GET', `/v1/segments/${segment.id}/preview`, key());
  assert.equal(preview.body.data.count, 2);
  assert.deepEqual(
    preview.body.data.contacts.map((r: { name: string }) => r.name),
    ['Bob', 'Ada Lovelace'],
    'newest first',
  );
  assert.deepEqual(
    (await allPages(server, `/v1/segments/${segment.id}/contacts?limit=1`)).map((r) => r.name),
    ['Bob', 'Ada Lovelace'],
  );

  // Live: a contact tagged now is counted now.
  await request(server, 'POST', `/v1/contacts/${c.cy!.id}/tags`, { ...key(), body: { tag: 'vip' } });
  assert.equal((await request(server, 'GET', `/v1/segments/${segment.id}/count`, key())).body.data.count, 3);
  await request(server, 'DELETE', `/v1/contacts/${c.cy!.id}/tags/vip`, key());

  const unsaved = await request(server, 'POST', '/v1/segments/preview', {
    ...key(),
    body: { filter: one('consents.chatapp', 'eq', 'revoked') },
  });
  assert.equal(unsaved.status, 200, unsaved.text);
  assert.deepEqual([unsaved.body.data.count, unsaved.body.data.contacts.map((r: { name: string }) => r.name)], [1, ['Bob']]);

  const changed = await request(server, 'PATCH', `/v1/segments/${segment.id}`, {
    ...key(),
    body: { filter: one('tags', 'has', 'wholesale') },
  });
  assert.equal(changed.status, 200, changed.text);
  assert.equal((await request(server, 'GET', `/v1/segments/${segment.id}/count`, key())).body.data.count, 1);
  const same = await request(server, 'PATCH', `/v1/segments/${segment.id}`, { ...key(), body: { name: 'VIPs' } });
  assert.equal(same.body.data.updated_at, changed.body.data.updated_at, 'nothing changed, no event');
  assert.equal((await request(server, 'DELETE', `/v1/segments/${segment.id}`, key())).status, 204);
  assert.equal((await request(server, 'GET', `/v1/segments/${segment.id}`, key())).status, 404);

  const org = server.organizationId;
  // The segment's own events, and the tag's (a segment records no entry events: its members are what its filter finds).
  const tagged = (type: string) => ({
    type,
    data: { list: 'VIP', list_id: null, record_id: c.cy!.id, object_kind: 'contact', organization_id: org },
  });
  assert.deepEqual(await events.take(5), [
    recordEvent('created', 'segment', segment.id, 'VIPs', org),
    tagged('crm.list.entry_added'),
    tagged('crm.list.entry_removed'),
    recordEvent('updated', 'segment', segment.id, 'VIPs', org),
    recordEvent('deleted', 'segment', segment.id, 'VIPs', org),
  ]);
});

test('a segment’s fields are named when wrong; names are unique; lists sort and page', async () => {
  assertNames(
    await request(server, 'POST', '/v1/segments', {
      ...key(),
      body: { name: 'x', filter: { and: [{ field: 'tags', op: 'eq', value: 'a' }] } },
    }),
    400,
    '/filter/and/0/op',
  );
  assertNames(await request(server, 'POST', '/v1/segments', { ...key(), body: { name: 'x' } }), 400, '/filter');
  await created(server, '/v1/segments', { name: 'Beta', filter: one('name', 'exists', true) });
  await created(server, '/v1/segments', { name: 'alpha', filter: one('name', 'exists', true) });
  assertNames(
    await request(server, 'POST', '/v1/segments', { ...key(), body: { name: 'BETA', filter: one('name', 'exists', true) } }),
    409,
    '/name',
  );
  assert.deepEqual(
    (await allPages(server, '/v1/segments?sort=name&limit=1')).map((s) => s.name),
    ['alpha', 'Beta'],
  );
  assert.deepEqual(
    (await allPages(server, '/v1/segments?name_prefix=AL')).map((s) => s.name),
    ['alpha'],
  );
  assert.deepEqual((await request(server, 'GET', '/v1/segments', { key: other.apiKey })).body.data, [], 'none of theirs');
  // A cursor pages the sort that made it, and nothing else.
  const cursor = (await request(server, 'GET', '/v1/segments?sort=name&limit=1', key())).body.meta.next_cursor as string;
  assertNames(await request(server, 'GET', `/v1/segments?sort=-created_at&cursor=${cursor}`, key()), 400, '/cursor', 'query');
  assertNames(await request(server, 'GET', '/v1/segments?cursor=bm9wZQ', key()), 400, '/cursor', 'query');
  const segment = (await request(server, 'GET', '/v1/segments?limit=1', key())).body.data[0];
  assertNames(await request(server, 'GET', `/v1/segments/${segment.id}/contacts?cursor=bm9wZQ`, key()), 400, '/cursor', 'query');
});

test('segments need crm permissions, and contacts:read where they answer contacts', async () => {
  const segment = await created(server, '/v1/segments', { name: 'Auth', filter: one('name', 'exists', true) });
  await checkAuthCases(server, [
    { method: 'POST', path: '/v1/segments', body: { name: 'X', filter: one('name', 'exists', true) }, permission: 'crm:write' },
    { method: 'GET', path: '/v1/segments', permission: 'crm:read' },
    { method: 'GET', path: `/v1/segments/${segment.id}`, permission: 'crm:read' },
    { method: 'PATCH', path: `/v1/segments/${segment.id}`, body: { name: 'Y' }, permission: 'crm:write' },
    { method: 'GET', path: `/v1/segments/${segment.id}/count`, permission: 'crm:read' },
    { method: 'GET', path: `/v1/segments/${segment.id}/preview`, permission: 'contacts:read' },
    { method: 'GET', path: `/v1/segments/${segment.id}/contacts`, permission: 'contacts:read' },
    { method: 'POST', path: '/v1/segments/preview', body: { filter: one('name', 'exists', true) }, permission: 'contacts:read' },
    { method: 'DELETE', path: `/v1/segments/${segment.id}`, permission: 'crm:write' },
  ]);
  const crmOnly = await createKeyWith(server, ['crm:read']);
  assert.equal((await request(server, 'GET', `/v1/segments/${segment.id}/preview`, { key: crmOnly })).status, 403);
});
