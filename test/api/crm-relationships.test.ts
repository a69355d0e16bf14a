/**
 * Relationships through the API: labels per organization (kinds, an optional inverse, names unique
 * between the same kinds), links between two records of the label's kinds (once per pair and label;
 * linking again answers the link there is), a record's links in both directions with the label read
 * from its side, unlinking, and what goes with a record or a label (crm.relationship.linked /
 * unlinked on GET /v1/events).
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { checkAuthCases } from '../auth-cases.ts';
import { postContact } from '../contacts-fixtures.ts';
import { allPages, assertNames, created, eventTail, recordEvent } from '../crm-helpers.ts';
import { createOtherOrganization, request, startTestServer, type TestServer } from '../harness.ts';

let server: TestServer;
let other: Awaited<ReturnType<typeof createOtherOrganization>>;

before(async () => {
  server = await startTestServer({ worker: true });
  other = await createOtherOrganization(server, 'relationships');
});
after(() => server.close());

const key = () => ({ key: server.apiKey });
const link = (body: unknown, apiKey = server.apiKey) => request(server, 'POST', '/v1/relationships', { key: apiKey, body });
const seen = (items: Array<Record<string, any>>) => items.map((r) => `${r.label} ${r.related.display_name} (${r.direction})`);

test('labels: kinds and an optional inverse; a name once between the same kinds; renamed; refused naming the field', async () => {
  const worksAt = await created(server, '/v1/relationship-labels', {
    name: ' works at ',
    inverse_name: 'employs',
    from_kind: 'contact',
    to_kind: 'company',
  });
  assert.deepEqual(
    { ...worksAt, id: undefined, created_at: undefined, updated_at: undefined },
    {
      id: undefined,
      name: 'works at',
      inverse_name: 'employs',
      from_kind: 'contact',
      to_kind: 'company',
      created_at: undefined,
      updated_at: undefined,
    },
  );
  const post = (body: unknown) => request(server, 'POST', '/v1/relationship-labels', { ...key(), body });
  assertNames(await post({ name: 'WORKS AT', from_kind: 'contact', to_kind: 'company' }), 409, '/name');
  assert.equal((await post({ name: 'works at', from_kind: 'contact', to_kind: 'deal' })).status, 201, 'other kinds, other label');
  assert.equal(
    (
      await request(server, 'POST', '/v1/relationship-labels', {
        key: other.apiKey,
        body: { name: 'works at', from_kind: 'contact', to_kind: 'company' },
      })
    ).status,
    201,
    'another organization has its own labels',
  );
  assertNames(await post({ name: 'x', from_kind: 'task', to_kind: 'company' }), 400, '/from_kind');
  assertNames(await post({ name: '', from_kind: 'contact', to_kind: 'company' }), 400, '/name');
  assertNames(await post({ name: 'x'.repeat(101), from_kind: 'contact', to_kind: 'company' }), 400, '/name');
  assertNames(await post({ name: 'x', from_kind: 'contact' }), 400, '/to_kind');

  const patch = (body: unknown) => request(server, 'PATCH', `/v1/relationship-labels/${worksAt.id}`, { ...key(), body });
  const renamed = await patch({ inverse_name: 'employer of' });
  assert.equal(renamed.status, 200, renamed.text);
  assert.deepEqual([renamed.body.data.name, renamed.body.data.inverse_name], ['works at', 'employer of']);
  assertNames(await patch({ from_kind: 'deal' }), 400, '/');
  const twin = await created(server, '/v1/relationship-labels', { name: 'consults for', from_kind: 'contact', to_kind: 'company' });
  assertNames(await request(server, 'PATCH', `/v1/relationship-labels/${twin.id}`, { ...key(), body: { name: 'Works At' } }), 409, '/name');
  assert.equal((await request(server, 'GET', `/v1/relationship-labels/${worksAt.id}`, { key: other.apiKey })).status, 404);
  const listed = await allPages(server, '/v1/relationship-labels?from_kind=contact&to_kind=company&limit=1');
  assert.deepEqual(
    listed.map((l) => l.name),
    ['works at', 'consults for'],
    'oldest first, filtered by kinds',
  );
});

test('links: once per pair and label, the records of the label’s kinds and the organization’s; a record’s links in both directions, each read from its side', async () => {
  const worksAt = await created(server, '/v1/relationship-labels', {
    name: 'is employed by',
    inverse_name: 'has on staff',
    from_kind: 'contact',
    to_kind: 'company',
  });
  const parent = await created(server, '/v1/relationship-labels', {
    name: 'parent of',
    inverse_name: 'child of',
    from_kind: 'company',
    to_kind: 'company',
  });
  const colleague = await created(server, '/v1/relationship-labels', { name: 'colleague', from_kind: 'contact', to_kind: 'contact' });
  const ada = await postContact(server, { phone_number: '+4915112500001', name: 'Ada' });
  const bob = await postContact(server, { phone_number: '+4915112500002', name: 'Bob' });
  const acme = await created(server, '/v1/companies', { name: 'Acme' });
  const holding = await created(server, '/v1/companies', { name: 'Acme Holding' });
  const events = await eventTail(server);

  const made = await link({ label_id: worksAt.id, from_id: ada.id.toUpperCase(), to_id: acme.id });
  assert.equal(made.status, 201, made.text);
  assert.deepEqual(
    { ...made.body.data, id: undefined, created_at: undefined, created_by: undefined },
    {
      id: undefined,
      label_id: worksAt.id,
      label: 'is employed by',
      direction: 'outgoing',
      related: { kind: 'company', id: acme.id, display_name: 'Acme' },
      from: { kind: 'contact', id: ada.id, display_name: 'Ada' },
      to: { kind: 'company', id: acme.id, display_name: 'Acme' },
      created_at: undefined,
      created_by: undefined,
    },
  );
  assert.equal(made.body.data.created_by.type, 'api_key');
  const body = (id: string, label: Record<string, any>, from: [string, string], to: [string, string]) => ({
    relationship_id: id,
    label_id: label.id,
    label: label.name,
    inverse_label: label.inverse_name ?? null,
    from_object_kind: from[0],
    from_record_id: from[1],
    to_object_kind: to[0],
    to_record_id: to[1],
    organization_id: server.organizationId,
  });
  assert.deepEqual(await events.take(1), [
    { type: 'crm.relationship.linked', data: body(made.body.data.id, worksAt, ['contact', ada.id], ['company', acme.id]) },
  ]);

  const again = await link({ label_id: worksAt.id, from_id: ada.id, to_id: acme.id });
  assert.equal(again.status, 200, 'linked already: the link there is');
  assert.equal(again.body.data.id, made.body.data.id);
  const bobAtAcme = (await link({ label_id: worksAt.id, from_id: bob.id, to_id: acme.id })).body.data;
  const group = (await link({ label_id: parent.id, from_id: holding.id, to_id: acme.id })).body.data;
  const pair = await link({ label_id: colleague.id, from_id: bob.id, to_id: ada.id });
  assert.equal(pair.status, 201);
  const reversed = await link({ label_id: colleague.id, from_id: ada.id, to_id: bob.id });
  assert.equal(reversed.status, 200, 'a label that reads the same both ways links a pair once, whichever way round');
  assert.equal(reversed.body.data.id, pair.body.data.id);

  // Refusals name the field; another organization's record or label is answered as an unknown one.
  const theirs = await postContact(server, { phone_number: '+4915112500003', name: 'Theirs' }, other.apiKey);
  assertNames(await link({ label_id: worksAt.id, from_id: theirs.id, to_id: acme.id }), 400, '/from_id');
  assertNames(await link({ label_id: worksAt.id, from_id: ada.id, to_id: bob.id }), 400, '/to_id');
  assertNames(await link({ label_id: worksAt.id, from_id: acme.id, to_id: acme.id }), 400, '/to_id');
  assertNames(await link({ label_id: colleague.id, from_id: ada.id, to_id: ada.id }), 400, '/to_id');
  assertNames(await link({ label_id: crypto.randomUUID(), from_id: ada.id, to_id: acme.id }), 400, '/label_id');
  assertNames(await link({ label_id: worksAt.id, from_id: theirs.id, to_id: acme.id }, other.apiKey), 400, '/label_id');
  assertNames(await link({ label_id: worksAt.id, from_id: ada.id }), 400, '/to_id');

  // Seen from the company: who works there (inverse label), and its parent.
  const ofAcme = await allPages(server, `/v1/relationships?record=company:${acme.id}&limit=1`);
  assert.deepEqual(seen(ofAcme), ['child of Acme Holding (incoming)', 'has on staff Bob (incoming)', 'has on staff Ada (incoming)']);
  assert.deepEqual(seen(await allPages(server, `/v1/relationships?record=company:${holding.id}`)), ['parent of Acme (outgoing)']);
  // Seen from Ada: where she works, and her colleague (the same label both ways).
  assert.deepEqual(seen(await allPages(server, `/v1/relationships?record=contact:${ada.id}`)), [
    'colleague Bob (incoming)',
    'is employed by Acme (outgoing)',
  ]);
  assert.deepEqual(seen(await allPages(server, `/v1/relationships?record=contact:${bob.id}`)), [
    'colleague Ada (outgoing)',
    'is employed by Acme (outgoing)',
  ]);
  assert.deepEqual(
    (await allPages(server, `/v1/relationships?label_id=${worksAt.id}`)).map((r) => r.from.display_name),
    ['Bob', 'Ada'],
  );
  assert.deepEqual(await allPages(server, `/v1/relationships?record=deal:${acme.id}`), [], 'the kind is part of the record');
  assert.deepEqual(await allPages(server, `/v1/relationships?record=company:${acme.id}`, other.apiKey), []);
  assertNames(await request(server, 'GET', `/v1/relationships?record=task:${acme.id}`, key()), 400, '/record', 'query');
  const one = await request(server, 'GET', `/v1/relationships/${group.id}`, key());
  assert.deepEqual([one.body.data.label, one.body.data.direction, one.body.data.related.id], ['parent of', 'outgoing', acme.id]);
  assert.equal((await request(server, 'GET', `/v1/relationships/${group.id}`, { key: other.apiKey })).status, 404);

  // Unlinked: crm.relationship.unlinked.
  assert.deepEqual(
    (await events.take(3)).map((e) => e.type),
    Array(3).fill('crm.relationship.linked'),
    'one event for each link made, none for a link there was',
  );
  assert.equal((await request(server, 'DELETE', `/v1/relationships/${bobAtAcme.id}`, key())).status, 204);
  assert.equal((await request(server, 'DELETE', `/v1/relationships/${bobAtAcme.id}`, key())).status, 404);
  assert.deepEqual(await events.take(1), [
    { type: 'crm.relationship.unlinked', data: body(bobAtAcme.id, worksAt, ['contact', bob.id], ['company', acme.id]) },
  ]);

  // A deleted record takes its links with it, with its crm.record.deleted and no unlinked events.
  assert.equal((await request(server, 'DELETE', `/v1/companies/${holding.id}`, key())).status, 204);
  assert.deepEqual(await events.take(1), [recordEvent('deleted', 'company', holding.id, 'Acme Holding', server.organizationId)]);
  assert.equal((await request(server, 'GET', `/v1/relationships/${group.id}`, key())).status, 404);
  assert.deepEqual(seen(await allPages(server, `/v1/relationships?record=company:${acme.id}`)), ['has on staff Ada (incoming)']);

  // A deleted label takes its links with it, each with crm.relationship.unlinked.
  assert.equal((await request(server, 'DELETE', `/v1/relationship-labels/${colleague.id}`, key())).status, 204);
  assert.deepEqual(await events.take(1), [
    { type: 'crm.relationship.unlinked', data: body(pair.body.data.id, colleague, ['contact', bob.id], ['contact', ada.id]) },
  ]);
  assert.equal((await request(server, 'GET', `/v1/relationship-labels/${colleague.id}`, key())).status, 404);
  assert.deepEqual(seen(await allPages(server, `/v1/relationships?record=contact:${ada.id}`)), ['is employed by Acme (outgoing)']);
});

test('the relationships routes need crm:read or crm:write', async () => {
  const label = await created(server, '/v1/relationship-labels', { name: 'advises', from_kind: 'contact', to_kind: 'deal' });
  const contact = await postContact(server, { phone_number: '+4915112500009', name: 'Advisor' });
  const deal = await created(server, '/v1/deals', { name: 'Advised' });
  const relationship = (await link({ label_id: label.id, from_id: contact.id, to_id: deal.id })).body.data;
  await checkAuthCases(server, [
    { method: 'POST', path: '/v1/relationship-labels', body: { name: 'x', from_kind: 'deal', to_kind: 'deal' }, permission: 'crm:write' },
    { method: 'GET', path: '/v1/relationship-labels', permission: 'crm:read' },
    { method: 'GET', path: `/v1/relationship-labels/${label.id}`, permission: 'crm:read' },
    { method: 'PATCH', path: `/v1/relationship-labels/${label.id}`, body: { name: 'y' }, permission: 'crm:write' },
    { method: 'DELETE', path: `/v1/relationship-labels/${label.id}`, permission: 'crm:write' },
    {
      method: 'POST',
      path: '/v1/relationships',
      body: { label_id: label.id, from_id: contact.id, to_id: deal.id },
      permission: 'crm:write',
    },
    { method: 'GET', path: '/v1/relationships', permission: 'crm:read' },
    { method: 'GET', path: `/v1/relationships/${relationship.id}`, permission: 'crm:read' },
    { method: 'DELETE', path: `/v1/relationships/${relationship.id}`, permission: 'crm:write' },
  ]);
});
