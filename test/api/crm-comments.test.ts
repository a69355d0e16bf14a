/**
 * Comments through the API: on any record of the organization (contacts, companies, deals, tasks,
 * conversations; another organization's refused naming the field, like an unknown one), with their
 * author; listed newest first by cursor per record; edited by their author only; deleted; going with
 * their record; crm.comment.created / updated / deleted on GET /v1/events. A contact's comments are its
 * notes, both ways (test/api/contacts-subrecords.test.ts holds the notes routes to what they always did).
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { checkAuthCases } from '../auth-cases.ts';
import { insertChannel, insertMessage, postContact } from '../contacts-fixtures.ts';
import { allPages, assertNames, created, eventTail } from '../crm-helpers.ts';
import { createKeyWith, createOtherOrganization, loginCookie, request, startTestServer, type TestServer } from '../harness.ts';

let server: TestServer;
let other: Awaited<ReturnType<typeof createOtherOrganization>>;
let cookie: string;
let userId: string;

before(async () => {
  server = await startTestServer({ worker: true });
  other = await createOtherOrganization(server, 'comments');
  cookie = await loginCookie(server);
  userId = (await request(server, 'GET', '/v1/auth/session', { cookie })).body.data.user.id;
});
after(() => server.close());

const key = () => ({ key: server.apiKey });
const comment = (kind: string, id: string, body: string, apiKey = server.apiKey) =>
  request(server, 'POST', '/v1/comments', { key: apiKey, body: { record: { kind, id }, body } });
const asUser = (method: string, path: string, body?: unknown) =>
  request(server, method, path, { cookie, headers: { origin: server.baseUrl }, body });
const bodies = (items: Array<Record<string, any>>) => items.map((c) => String(c.body));

test('a comment on each kind of record, with its author and the record named; listed per record newest first; with its events', async () => {
  const contact = await postContact(server, { phone_number: '+4915112600001', name: 'Commented' });
  const company = await created(server, '/v1/companies', { name: 'Commented Co' });
  const deal = await created(server, '/v1/deals', { name: 'Commented Deal' });
  const task = await created(server, '/v1/tasks', { title: 'Commented Task' });
  const channel = await insertChannel(server, server.organizationId);
  const { conversationId } = await insertMessage(server, server.organizationId, contact.id, channel);
  const events = await eventTail(server);
  const keyId = (await request(server, 'GET', '/v1/api-keys?limit=200', key())).body.data.find(
    (k: { name: string }) => k.name === 'Bootstrap key',
  ).id;

  const onDeal = await comment('deal', deal.id.toUpperCase(), '  They want to start in July.  ');
  assert.equal(onDeal.status, 201, onDeal.text);
  assert.deepEqual(
    { ...onDeal.body.data, id: undefined, created_at: undefined },
    {
      id: undefined,
      record: { kind: 'deal', id: deal.id, display_name: 'Commented Deal' },
      body: 'They want to start in July.',
      author: { type: 'api_key', id: keyId, user_id: null },
      created_at: undefined,
      edited_at: null,
    },
  );
  const byUser = await asUser('POST', '/v1/comments', { record: { kind: 'deal', id: deal.id }, body: 'Ünïcødé ✓ second' });
  assert.equal(byUser.status, 201, byUser.text);
  assert.deepEqual(byUser.body.data.author, { type: 'user', id: userId, user_id: userId });
  for (const [kind, id, name] of [
    ['contact', contact.id, 'Commented'],
    ['company', company.id, 'Commented Co'],
    ['task', task.id, 'Commented Task'],
    ['conversation', conversationId, 'Commented'],
  ] as const) {
    const res = await comment(kind, id, `on the ${kind}`);
    assert.equal(res.status, 201, res.text);
    assert.deepEqual(res.body.data.record, { kind, id, display_name: name });
  }
  const logged = await events.take(6);
  assert.deepEqual(logged[0], {
    type: 'crm.comment.created',
    data: { comment_id: onDeal.body.data.id, record_id: deal.id, object_kind: 'deal', organization_id: server.organizationId },
  });
  assert.deepEqual(
    logged.map((e) => e.data.object_kind),
    ['deal', 'deal', 'contact', 'company', 'task', 'conversation'],
  );

  for (let i = 0; i < 3; i++) await comment('deal', deal.id, `deal note ${i}`);
  assert.deepEqual(bodies(await allPages(server, `/v1/comments?record=deal:${deal.id}&limit=2`)), [
    'deal note 2',
    'deal note 1',
    'deal note 0',
    'Ünïcødé ✓ second',
    'They want to start in July.',
  ]);
  assert.deepEqual(bodies(await allPages(server, `/v1/comments?record=task:${task.id}`)), ['on the task']);
  assert.deepEqual(await allPages(server, `/v1/comments?record=company:${deal.id}`), [], 'the kind is part of the record');
  assert.deepEqual(await allPages(server, `/v1/comments?record=deal:${deal.id}`, other.apiKey), []);
  const all = await allPages(server, '/v1/comments?limit=3');
  assert.equal(all.length, 9, 'every comment of the organization, without a record');
  assert.ok(bodies(all).includes('on the conversation'));
  assertNames(await request(server, 'GET', `/v1/comments?record=pipeline:${deal.id}`, key()), 400, '/record', 'query');

  // A contact's comments are its notes, and its notes its comments.
  const note = await request(server, 'POST', `/v1/contacts/${contact.id}/notes`, { ...key(), body: { body: 'a note' } });
  assert.equal(note.status, 201, note.text);
  assert.deepEqual(bodies(await allPages(server, `/v1/comments?record=contact:${contact.id}`)), ['a note', 'on the contact']);
  const notes = await request(server, 'GET', `/v1/contacts/${contact.id}/notes`, key());
  assert.deepEqual(bodies(notes.body.data), ['a note', 'on the contact']);
  assert.deepEqual(notes.body.data[1].author, { type: 'api_key', id: keyId });
  assert.equal((await request(server, 'GET', `/v1/comments/${note.body.data.id}`, key())).body.data.record.kind, 'contact');

  // Comments go with their record, with no events of their own: the record's crm.record.deleted says so.
  await events.take(4);
  assert.equal((await request(server, 'DELETE', `/v1/tasks/${task.id}`, key())).status, 204);
  assert.deepEqual(
    (await events.take(1)).map((e) => e.type),
    ['crm.record.deleted'],
  );
  assert.deepEqual(await allPages(server, `/v1/comments?record=task:${task.id}`), []);
});

test('what a comment is on must be the organization’s; its body is text of a bounded length; what is wrong is named', async () => {
  const theirs = await postContact(server, { phone_number: '+4915112600002', name: 'Theirs' }, other.apiKey);
  const unknown = crypto.randomUUID();
  const refusedTheirs = await comment('contact', theirs.id, 'x');
  assertNames(refusedTheirs, 400, '/record/id');
  const refusedUnknown = await comment('contact', unknown, 'x');
  assertNames(refusedUnknown, 400, '/record/id');
  assert.equal(refusedTheirs.body.errors[0].message, refusedUnknown.body.errors[0].message);
  const company = await created(server, '/v1/companies', { name: 'Bounded' });
  assertNames(await comment('deal', company.id, 'x'), 400, '/record/id');
  assertNames(await comment('pipeline', company.id, 'x'), 400, '/record/kind');
  assertNames(await comment('company', company.id, '   '), 400, '/body');
  assertNames(await comment('company', company.id, 'x'.repeat(10_001)), 400, '/body');
  assertNames(await request(server, 'POST', '/v1/comments', { ...key(), body: { body: 'no record' } }), 400, '/record');
  assert.equal((await comment('company', company.id, 'x'.repeat(10_000))).status, 201);
});

test('only its author edits a comment (crm.comment.updated, edited_at); anyone who may write deletes one (crm.comment.deleted)', async () => {
  const company = await created(server, '/v1/companies', { name: 'Edited Co' });
  const mine = (await asUser('POST', '/v1/comments', { record: { kind: 'company', id: company.id }, body: 'first words' })).body.data;
  const byKey = (await comment('company', company.id, 'from a script')).body.data;
  const events = await eventTail(server);

  const edited = await asUser('PATCH', `/v1/comments/${mine.id}`, { body: 'better words' });
  assert.equal(edited.status, 200, edited.text);
  assert.equal(edited.body.data.body, 'better words');
  assert.ok(edited.body.data.edited_at, 'edited_at is set');
  assert.equal(edited.body.data.created_at, mine.created_at);
  const same = await asUser('PATCH', `/v1/comments/${mine.id}`, { body: ' better words ' });
  assert.equal(same.body.data.edited_at, edited.body.data.edited_at, 'the same body: nothing changed');
  const payload = (id: string) => ({
    comment_id: id,
    record_id: company.id,
    object_kind: 'company',
    organization_id: server.organizationId,
  });
  assert.deepEqual(await events.take(1), [{ type: 'crm.comment.updated', data: payload(mine.id) }]);

  const notAuthor = await request(server, 'PATCH', `/v1/comments/${mine.id}`, { ...key(), body: { body: 'put words in a mouth' } });
  assert.equal(notAuthor.status, 403, notAuthor.text);
  assert.match(notAuthor.body.detail, /author/);
  assert.equal((await asUser('PATCH', `/v1/comments/${byKey.id}`, { body: 'nor this' })).status, 403);
  const otherKey = await createKeyWith(server, ['crm:read', 'crm:write']);
  assert.equal((await request(server, 'PATCH', `/v1/comments/${byKey.id}`, { key: otherKey, body: { body: 'another key' } })).status, 403);
  const byItsKey = await request(server, 'PATCH', `/v1/comments/${byKey.id}`, { ...key(), body: { body: 'from a script, fixed' } });
  assert.equal(byItsKey.status, 200, 'the key that wrote it edits it');
  assertNames(await asUser('PATCH', `/v1/comments/${mine.id}`, { body: '' }), 400, '/body');
  assert.equal((await request(server, 'PATCH', `/v1/comments/${mine.id}`, { key: other.apiKey, body: { body: 'x' } })).status, 404);
  assert.equal((await request(server, 'GET', `/v1/comments/${mine.id}`, { key: other.apiKey })).status, 404);

  // Anyone who may write the CRM deletes a comment, as a contact's notes always were.
  assert.equal((await request(server, 'DELETE', `/v1/comments/${mine.id}`, { key: other.apiKey })).status, 404);
  assert.equal((await request(server, 'DELETE', `/v1/comments/${mine.id}`, key())).status, 204);
  assert.equal((await request(server, 'DELETE', `/v1/comments/${mine.id}`, key())).status, 404);
  assert.equal((await request(server, 'GET', `/v1/comments/${mine.id}`, key())).status, 404);
  const tail = await events.take(2);
  assert.deepEqual(tail, [
    { type: 'crm.comment.updated', data: payload(byKey.id) },
    { type: 'crm.comment.deleted', data: payload(mine.id) },
  ]);
});

test('the comments routes need crm:read or crm:write', async () => {
  const company = await created(server, '/v1/companies', { name: 'Permissions Co' });
  const made = (await comment('company', company.id, 'x')).body.data;
  await checkAuthCases(server, [
    { method: 'POST', path: '/v1/comments', body: { record: { kind: 'company', id: company.id }, body: 'y' }, permission: 'crm:write' },
    { method: 'GET', path: '/v1/comments', permission: 'crm:read' },
    { method: 'GET', path: `/v1/comments/${made.id}`, permission: 'crm:read' },
    { method: 'PATCH', path: `/v1/comments/${made.id}`, body: { body: 'z' }, permission: 'crm:write' },
    { method: 'DELETE', path: `/v1/comments/${made.id}`, permission: 'crm:write' },
  ]);
});
