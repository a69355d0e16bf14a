/**
 * Lists through the API: the record (CRUD, its record events, a name unique, the kind kept), entries
 * added many at once and idempotently with crm.list.entry_added for the new ones only, refused whole
 * when one is not a record of the list's kind of the organization, removed with crm.list.entry_removed,
 * paged; a record deleted leaves its lists; merged contacts' entries pass to the survivor; permissions.
 */
// stores: both
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { checkAuthCases } from '../auth-cases.ts';
import { allPages, assertNames, created, eventTail, recordEvent } from '../crm-helpers.ts';
import { eventsSince, outboxMark, postContact } from '../contacts-fixtures.ts';
import { createOtherOrganization, request, startTestServer, type TestServer } from '../harness.ts';
import { resolveInboundContact } from '../../src/domain/contacts/inbound.ts';

let server: TestServer;
let other: Awaited<ReturnType<typeof createOtherOrganization>>;
const key = () => ({ key: server.apiKey });

before(async () => {
  server = await startTestServer({ worker: true });
  other = await createOtherOrganization(server, 'lists');
});
after(() => server.close());

const entry = (type: string, list: Record<string, any>, recordId: string, kind = 'contact') => ({
  type,
  data: { list: list.name, list_id: list.id, record_id: recordId, object_kind: kind, organization_id: server.organizationId },
});

test('a list is created, read, renamed and deleted, with its record events; entries come and go with theirs', async () => {
  const events = await eventTail(server);
  const a = await postContact(server, { name: 'Ann', phone_number: '+4930100001' });
  const b = await postContact(server, { name: 'Ben', phone_number: '+4930100002' });
  await events.take(2);
  const list = await created(server, '/v1/lists', { name: 'Newsletter', kind: 'contact', description: 'monthly' });
  assert.deepEqual(
    { ...list, id: undefined, created_at: undefined, updated_at: undefined },
    {
      id: undefined,
      name: 'Newsletter',
      kind: 'contact',
      description: 'monthly',
      entry_count: 0,
      created_at: undefined,
      updated_at: undefined,
    },
  );

  const add = (ids: string[]) => request(server, 'POST', `/v1/lists/${list.id}/entries`, { ...key(), body: { record_ids: ids } });
  const first = await add([a.id, b.id.toUpperCase(), a.id]);
  assert.equal(first.status, 200, first.text);
  assert.deepEqual(first.body.data, { added: [a.id, b.id], existing: [] });
  const again = await add([b.id]);
  assert.deepEqual(again.body.data, { added: [], existing: [b.id] }, 'idempotent');
  assert.equal((await request(server, 'GET', `/v1/lists/${list.id}`, key())).body.data.entry_count, 2);

  const entries = await allPages(server, `/v1/lists/${list.id}/entries?limit=1`);
  assert.deepEqual(
    entries.map((e) => e.record).sort((x, y) => x.display_name.localeCompare(y.display_name)),
    [
      { kind: 'contact', id: a.id, display_name: 'Ann' },
      { kind: 'contact', id: b.id, display_name: 'Ben' },
    ],
  );

  assert.equal((await request(server, 'DELETE', `/v1/lists/${list.id}/entries/${a.id}`, key())).status, 204);
  assert.equal((await request(server, 'DELETE', `/v1/lists/${list.id}/entries/${a.id}`, key())).status, 404, 'not in it any more');

  const renamed = await request(server, 'PATCH', `/v1/lists/${list.id}`, { ...key(), body: { name: 'Letter' } });
  assert.equal(renamed.status, 200, renamed.text);
  assert.deepEqual([renamed.body.data.name, renamed.body.data.kind, renamed.body.data.entry_count], ['Letter', 'contact', 1]);
  assert.equal((await request(server, 'DELETE', `/v1/lists/${list.id}`, key())).status, 204);
  assert.equal((await request(server, 'GET', `/v1/lists/${list.id}/entries`, key())).status, 404);

  const org = server.organizationId;
  assert.deepEqual(await events.take(6), [
    recordEvent('created', 'list', list.id, 'Newsletter', org),
    entry('crm.list.entry_added', list, a.id),
    entry('crm.list.entry_added', list, b.id),
    entry('crm.list.entry_removed', list, a.id),
    recordEvent('updated', 'list', list.id, 'Letter', org),
    recordEvent('deleted', 'list', list.id, 'Letter', org),
  ]);
});

test('entries are records of the list’s kind and of the organization, refused whole and named otherwise', async () => {
  const list = await created(server, '/v1/lists', { name: 'Key accounts', kind: 'company' });
  const acme = await created(server, '/v1/companies', { name: 'Acme' });
  const contact = await postContact(server, { name: 'Not a company', phone_number: '+4930100003' });
  const theirs = await created(server, '/v1/companies', { name: 'Theirs' }, other.apiKey);
  const res = await request(server, 'POST', `/v1/lists/${list.id}/entries`, {
    ...key(),
    body: { record_ids: [acme.id, contact.id, theirs.id, 'nope'] },
  });
  assertNames(res, 400, '/record_ids/1');
  assertNames(res, 400, '/record_ids/2');
  assertNames(res, 400, '/record_ids/3');
  assert.equal((await request(server, 'GET', `/v1/lists/${list.id}`, key())).body.data.entry_count, 0, 'none was added');
  assertNames(await request(server, 'POST', `/v1/lists/${list.id}/entries`, { ...key(), body: { record_ids: [] } }), 400, '/record_ids');

  const ok = await request(server, 'POST', `/v1/lists/${list.id}/entries`, { ...key(), body: { record_ids: [acme.id] } });
  assert.deepEqual(ok.body.data.added, [acme.id]);
  const mark = await outboxMark(server);
  assert.equal((await request(server, 'DELETE', `/v1/companies/${acme.id}`, key())).status, 204);
  assert.equal((await request(server, 'GET', `/v1/lists/${list.id}`, key())).body.data.entry_count, 0, 'a record deleted leaves its lists');
  assert.deepEqual(
    (await eventsSince(server, mark)).map((e) => e.type),
    ['crm.record.deleted'],
    'without entry events',
  );

  // Another organization's list is not found, for its entries too.
  for (const [method, path, body] of [
    ['GET', `/v1/lists/${list.id}`, undefined],
    ['GET', `/v1/lists/${list.id}/entries`, undefined],
    ['POST', `/v1/lists/${list.id}/entries`, { record_ids: [theirs.id] }],
    ['DELETE', `/v1/lists/${list.id}/entries/${theirs.id}`, undefined],
  ] as const) {
    assert.equal((await request(server, method, path, { key: other.apiKey, body })).status, 404, `${method} ${path}`);
  }
});

test('names are unique; the list of lists filters, sorts and pages', async () => {
  await created(server, '/v1/lists', { name: 'Beta deals', kind: 'deal' });
  await created(server, '/v1/lists', { name: 'alpha deals', kind: 'deal' });
  assertNames(await request(server, 'POST', '/v1/lists', { ...key(), body: { name: 'BETA DEALS', kind: 'deal' } }), 409, '/name');
  assertNames(await request(server, 'POST', '/v1/lists', { ...key(), body: { name: 'x', kind: 'task' } }), 400, '/kind');
  assert.deepEqual(
    (await allPages(server, '/v1/lists?kind=deal&sort=name&limit=1')).map((l) => l.name),
    ['alpha deals', 'Beta deals'],
  );
  assert.deepEqual(
    (await allPages(server, '/v1/lists?name_prefix=ALP')).map((l) => l.name),
    ['alpha deals'],
  );
  assert.deepEqual((await request(server, 'GET', '/v1/lists', { key: other.apiKey })).body.data, []);
  // A cursor pages the sort that made it, and nothing else.
  const cursor = (await request(server, 'GET', '/v1/lists?sort=name&limit=1', key())).body.meta.next_cursor as string;
  assertNames(await request(server, 'GET', `/v1/lists?sort=-created_at&cursor=${cursor}`, key()), 400, '/cursor', 'query');
  assertNames(await request(server, 'GET', '/v1/lists?cursor=bm9wZQ', key()), 400, '/cursor', 'query');
  const list = (await request(server, 'GET', '/v1/lists?limit=1', key())).body.data[0];
  assertNames(await request(server, 'GET', `/v1/lists/${list.id}/entries?cursor=bm9wZQ`, key()), 400, '/cursor', 'query');
});

test('merged contacts’ list entries pass to the survivor', async () => {
  const db = server.container.database.db;
  const org = server.organizationId;
  const older = await postContact(server, { name: 'Olu', phone_number: '+447700900010' });
  const younger = await postContact(server, { name: 'Olu 2', phone_number: '+447700900011' });
  const both = await created(server, '/v1/lists', { name: 'Both', kind: 'contact' });
  const youngerOnly = await created(server, '/v1/lists', { name: 'Younger only', kind: 'contact' });
  await request(server, 'POST', `/v1/lists/${both.id}/entries`, { ...key(), body: { record_ids: [older.id, younger.id] } });
  await request(server, 'POST', `/v1/lists/${youngerOnly.id}/entries`, { ...key(), body: { record_ids: [younger.id] } });
  // The provider reports the older contact's number with an id the younger one holds: they are one person.
  await db.transaction((tx) =>
    resolveInboundContact(tx, org, {
      phone: '+447700900011',
      identities: [{ type: 'business_scoped_user_id', value: 'GB.olu' }],
      at: new Date(),
    }),
  );
  const mark = await outboxMark(server);
  const merged = await db.transaction((tx) =>
    resolveInboundContact(tx, org, {
      phone: '+447700900010',
      identities: [{ type: 'business_scoped_user_id', value: 'GB.olu' }],
      at: new Date(),
    }),
  );
  assert.equal(merged.contactId, older.id, 'merged into the older');
  for (const list of [both, youngerOnly]) {
    const entries = await allPages(server, `/v1/lists/${list.id}/entries`);
    assert.deepEqual(
      entries.map((e) => e.record.id),
      [older.id],
      `${list.name}: the survivor, once`,
    );
  }
  const added = (await eventsSince(server, mark, 'crm.list')).map((e) => e.payload);
  assert.deepEqual(added, [
    { list: 'Younger only', list_id: youngerOnly.id, record_id: older.id, object_kind: 'contact', organization_id: org },
  ]);
});

test('lists need crm permissions', async () => {
  const list = await created(server, '/v1/lists', { name: 'Auth', kind: 'contact' });
  const c = await postContact(server, { name: 'Auth', phone_number: '+4930100009' });
  await request(server, 'POST', `/v1/lists/${list.id}/entries`, { ...key(), body: { record_ids: [c.id] } });
  await checkAuthCases(server, [
    { method: 'POST', path: '/v1/lists', body: { name: 'X', kind: 'contact' }, permission: 'crm:write' },
    { method: 'GET', path: '/v1/lists', permission: 'crm:read' },
    { method: 'GET', path: `/v1/lists/${list.id}`, permission: 'crm:read' },
    { method: 'PATCH', path: `/v1/lists/${list.id}`, body: { name: 'Y' }, permission: 'crm:write' },
    { method: 'POST', path: `/v1/lists/${list.id}/entries`, body: { record_ids: [c.id] }, permission: 'crm:write' },
    { method: 'GET', path: `/v1/lists/${list.id}/entries`, permission: 'crm:read' },
    { method: 'DELETE', path: `/v1/lists/${list.id}/entries/${c.id}`, permission: 'crm:write' },
    { method: 'DELETE', path: `/v1/lists/${list.id}`, permission: 'crm:write' },
  ]);
});
