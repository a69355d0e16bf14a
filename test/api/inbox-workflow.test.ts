/**
 * The team inbox's workflow: statuses (open, pending, snoozed, resolved; `closed` still accepted) with
 * priority, snoozing until a time (woken by the job when the injected clock passes it, once) or until
 * the customer writes, conversation labels (CRUD, on and off, filter), private notes with @mentions,
 * bulk actions with per-id results; each change its event; another organization's conversation, label
 * or member refused; refusals name the field.
 */
// stores: both
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { queryRows } from '../../src/db/client.ts';
import {
  createKeyWith,
  createOtherOrganization,
  loginCookie,
  movableClock,
  request,
  startTestServer,
  type TestServer,
} from '../harness.ts';
import { customerWrites, eventsOf, officialChannel } from '../messages-helpers.ts';
import { inviteNewMember } from '../org-helpers.ts';

let server: TestServer;
const clock = movableClock();
let channel: { id: string };
let ownerCookie: string;
let ownerId: string;
let member: { userId: string; cookie: string };
let other: Awaited<ReturnType<typeof createOtherOrganization>>;
const HOUR = 3_600_000;

before(async () => {
  server = await startTestServer({ worker: true, clock, env: { SANDBOX_STATUS_DELAY_MS: '50' } });
  channel = await officialChannel(server, 'Workflow line');
  ownerCookie = await loginCookie(server);
  ownerId = (await request(server, 'GET', '/v1/auth/session', { cookie: ownerCookie })).body.data.user.id;
  member = await inviteNewMember(server, { key: server.apiKey }, server.organizationId, 'member', 'workflow');
  other = await createOtherOrganization(server, 'workflow-other');
});
after(() => server.close());

const key = () => ({ key: server.apiKey });
const call = (method: string, path: string, body?: unknown, as: { key?: string; cookie?: string } = key()) =>
  request(server, method, path, { ...as, body });
const pointers = (res: { body: { errors?: Array<{ pointer: string }> } }) => (res.body.errors ?? []).map((e) => e.pointer);
let phone = 4915112350000;

/** A new conversation: a customer writes in on the channel. */
async function conversation(): Promise<string> {
  const messageId = await customerWrites(server, channel.id, String(++phone));
  const [row] = await queryRows<{ conversation_id: string }>(
    server.container.database.db,
    sql`select conversation_id from messages where id = ${messageId}`,
  );
  return row!.conversation_id;
}
const get = async (id: string) => (await call('GET', `/v1/conversations/${id}`)).body.data;
const eventsFor = async (type: string, id: string) =>
  (await eventsOf(server, type)).filter((e) => e.payload.conversation_id === id).map((e) => e.payload);
const wake = () => server.container.jobHandlers()['conversations.wake']({}, {} as never);

test('statuses and priority: set, filtered, closed accepted as resolved, each change an event; refusals name the field', async () => {
  const id = await conversation();
  assert.equal((await get(id)).status, 'open');
  assert.equal((await get(id)).priority, 'none');

  const pending = await call('PATCH', `/v1/conversations/${id}`, { status: 'pending', priority: 'high' });
  assert.equal(pending.status, 200, pending.text);
  assert.equal(pending.body.data.status, 'pending');
  assert.equal(pending.body.data.priority, 'high');
  const closed = await call('PATCH', `/v1/conversations/${id}`, { status: 'closed' });
  assert.equal(closed.body.data.status, 'resolved', 'closed is the old name of resolved');
  const changes = await eventsFor('conversation.status_changed', id);
  assert.deepEqual(
    changes.map((e) => [e.previous_status, e.status, e.previous_priority, e.priority]),
    [
      ['open', 'pending', 'none', 'high'],
      ['pending', 'resolved', 'high', 'high'],
    ],
  );
  assert.equal((await eventsFor('conversation.updated', id)).at(-1)!.status, 'resolved', 'conversation.updated comes beside it');
  // Same again: nothing changes, nothing recorded.
  await call('PATCH', `/v1/conversations/${id}`, { status: 'resolved' });
  assert.equal((await eventsFor('conversation.status_changed', id)).length, 2);

  const ids = async (query: string) =>
    ((await call('GET', `/v1/conversations?${query}`)).body.data as Array<{ id: string }>).map((c) => c.id);
  assert.ok((await ids('status=resolved')).includes(id));
  assert.ok((await ids('status=closed')).includes(id), 'the filter takes closed too');
  assert.ok(!(await ids('status=open')).includes(id));
  assert.ok((await ids('priority=high')).includes(id));
  assert.ok(!(await ids('priority=low')).includes(id));

  for (const [body, pointer] of [
    [{ status: 'done' }, '/status'],
    [{ priority: 'critical' }, '/priority'],
    [{ snoozed_until: 'tomorrow' }, '/snoozed_until'],
    [{ status: 'open', snoozed_until: new Date(clock.now().getTime() + HOUR).toISOString() }, '/snoozed_until'],
    [{ status: 'snoozed', snoozed_until: new Date(clock.now().getTime() - HOUR).toISOString() }, '/snoozed_until'],
    [{ assignee_user_id: other.userId }, '/assignee_user_id'],
  ] as const) {
    const res = await call('PATCH', `/v1/conversations/${id}`, body);
    assert.equal(res.status, 400, `${JSON.stringify(body)}: ${res.text}`);
    assert.deepEqual(pointers(res), [pointer], JSON.stringify(body));
  }
  const badFilter = await call('GET', '/v1/conversations?priority=critical');
  assert.equal(badFilter.status, 400);
  assert.deepEqual(pointers(badFilter), ['/priority']);

  const assigned = await call('PATCH', `/v1/conversations/${id}`, { assignee_user_id: member.userId });
  assert.equal(assigned.status, 200, assigned.text);
  assert.deepEqual(await eventsFor('conversation.assigned', id), [
    {
      conversation_id: id,
      assignee_user_id: member.userId,
      previous_assignee_user_id: null,
      team_id: null,
      previous_team_id: null,
      organization_id: server.organizationId,
    },
  ]);

  // Another organization's conversation is unknown.
  const foreign = await request(server, 'PATCH', `/v1/conversations/${id}`, { key: other.apiKey, body: { status: 'open' } });
  assert.equal(foreign.status, 404);
});

test('snoozed until a time: the job wakes it once the injected clock passes the time, recording the change once', async () => {
  const id = await conversation();
  const until = new Date(clock.now().getTime() + HOUR).toISOString();
  const snoozed = await call('PATCH', `/v1/conversations/${id}`, { status: 'snoozed', snoozed_until: until });
  assert.equal(snoozed.status, 200, snoozed.text);
  assert.equal(snoozed.body.data.status, 'snoozed');
  assert.equal(snoozed.body.data.snoozed_until, until);

  await wake();
  assert.equal((await get(id)).status, 'snoozed', 'not before its time');
  clock.advance(HOUR + 1000);
  await wake();
  const woken = await get(id);
  assert.equal(woken.status, 'open');
  assert.equal(woken.snoozed_until, null);
  await wake();
  const changes = await eventsFor('conversation.status_changed', id);
  assert.deepEqual(
    changes.map((e) => [e.previous_status, e.status]),
    [
      ['open', 'snoozed'],
      ['snoozed', 'open'],
    ],
    'the wake-up recorded once',
  );
});

test('snoozed until the customer writes: an inbound message opens it; so it does a resolved one', async () => {
  const id = await conversation();
  const snoozed = await call('PATCH', `/v1/conversations/${id}`, { status: 'snoozed' });
  assert.equal(snoozed.body.data.snoozed_until, null);
  clock.advance(24 * HOUR);
  await wake();
  assert.equal((await get(id)).status, 'snoozed', 'no time: the job leaves it');
  const peer = (await get(id)).peer_phone as string;
  await customerWrites(server, channel.id, peer);
  assert.equal((await get(id)).status, 'open');
  await call('PATCH', `/v1/conversations/${id}`, { status: 'resolved' });
  await customerWrites(server, channel.id, peer);
  assert.equal((await get(id)).status, 'open');
  assert.deepEqual(
    (await eventsFor('conversation.status_changed', id)).map((e) => [e.previous_status, e.status]),
    [
      ['open', 'snoozed'],
      ['snoozed', 'open'],
      ['open', 'resolved'],
      ['resolved', 'open'],
    ],
  );
});

test('conversation labels: CRUD (names unique per organization), on and off a conversation, filter, events; another organization’s refused', async () => {
  const made = await call('POST', '/v1/conversation-labels', { name: 'Billing', color: '#1F6FEB' });
  assert.equal(made.status, 201, made.text);
  assert.equal(made.body.data.color, '#1f6feb');
  const billing = made.body.data.id as string;
  const vip = (await call('POST', '/v1/conversation-labels', { name: 'VIP', color: '#d29922' })).body.data.id as string;
  const taken = await call('POST', '/v1/conversation-labels', { name: 'billing', color: '#000000' });
  assert.equal(taken.status, 409, taken.text);
  assert.deepEqual(pointers(taken), ['/name']);
  for (const [body, pointer] of [
    [{ name: 'x', color: 'red' }, '/color'],
    [{ name: '', color: '#000000' }, '/name'],
  ] as const) {
    const res = await call('POST', '/v1/conversation-labels', body);
    assert.equal(res.status, 400, res.text);
    assert.deepEqual(pointers(res), [pointer]);
  }
  // Another organization may use the same name; A's label is unknown to it.
  const theirs = await request(server, 'POST', '/v1/conversation-labels', {
    key: other.apiKey,
    body: { name: 'Billing', color: '#000000' },
  });
  assert.equal(theirs.status, 201, theirs.text);
  assert.equal((await request(server, 'GET', `/v1/conversation-labels/${billing}`, { key: other.apiKey })).status, 404);

  const renamed = await call('PATCH', `/v1/conversation-labels/${billing}`, { name: 'Invoices' });
  assert.equal(renamed.body.data.name, 'Invoices');

  const id = await conversation();
  const labelled = await call('POST', `/v1/conversations/${id}/labels`, { label_ids: [billing, vip] });
  assert.equal(labelled.status, 200, labelled.text);
  assert.deepEqual(
    labelled.body.data.labels.map((l: { name: string }) => l.name),
    ['Invoices', 'VIP'],
  );
  const foreignLabel = await call('POST', `/v1/conversations/${id}/labels`, { label_ids: [vip, theirs.body.data.id] });
  assert.equal(foreignLabel.status, 400, foreignLabel.text);
  assert.deepEqual(pointers(foreignLabel), ['/label_ids/1']);
  const foreignConversation = await request(server, 'POST', `/v1/conversations/${id}/labels`, {
    key: other.apiKey,
    body: { label_ids: [theirs.body.data.id] },
  });
  assert.equal(foreignConversation.status, 404);

  const listed = ((await call('GET', `/v1/conversations?label=${vip}`)).body.data as Array<{ id: string }>).map((c) => c.id);
  assert.deepEqual(listed, [id]);
  const off = await call('DELETE', `/v1/conversations/${id}/labels/${vip}`);
  assert.equal(off.status, 200, off.text);
  assert.deepEqual(
    off.body.data.labels.map((l: { id: string }) => l.id),
    [billing],
  );
  assert.deepEqual((await call('GET', `/v1/conversations?label=${vip}`)).body.data, []);
  const changes = await eventsFor('conversation.labels_changed', id);
  assert.deepEqual(
    changes.map((e) => [e.added, e.removed, e.label_ids]),
    [
      [[billing, vip].sort(), [], [billing, vip].sort()],
      [[], [vip], [billing]],
    ],
  );

  assert.equal((await call('DELETE', `/v1/conversation-labels/${billing}`)).status, 204);
  assert.deepEqual((await get(id)).labels, [], 'a deleted label is off every conversation');
  const labelEvents = (await eventsOf(server, 'conversation_label.created'))
    .concat(await eventsOf(server, 'conversation_label.updated'), await eventsOf(server, 'conversation_label.deleted'))
    .filter((e) => e.payload.label_id === billing);
  assert.equal(labelEvents.length, 3);
});

test('private notes: written with @mentions of members (another organization’s user refused), listed, deleted; never sent', async () => {
  const id = await conversation();
  const messagesBefore = (await call('GET', `/v1/conversations/${id}/messages`)).body.data.length;
  const note = await call(
    'POST',
    `/v1/conversations/${id}/notes`,
    { body: '@agent please check', mentions: [member.userId] },
    { cookie: ownerCookie },
  );
  assert.equal(note.status, 201, note.text);
  assert.equal(note.body.data.author_user_id, ownerId);
  assert.deepEqual(note.body.data.mentions, [member.userId]);
  assert.deepEqual(await eventsFor('conversation.note_created', id), [
    {
      conversation_id: id,
      note_id: note.body.data.id,
      author_user_id: ownerId,
      mentions: [member.userId],
      organization_id: server.organizationId,
    },
  ]);
  for (const [body, pointer] of [
    [{ body: 'x', mentions: [other.userId] }, '/mentions/0'],
    [{ body: 'x', mentions: [member.userId, 'nobody'] }, '/mentions/1'],
    [{ body: '' }, '/body'],
  ] as const) {
    const res = await call('POST', `/v1/conversations/${id}/notes`, body);
    assert.equal(res.status, 400, res.text);
    assert.deepEqual(pointers(res), [pointer], JSON.stringify(body));
  }
  const list = await call('GET', `/v1/conversations/${id}/notes`);
  assert.deepEqual(
    list.body.data.map((n: { id: string }) => n.id),
    [note.body.data.id],
  );
  assert.equal((await call('GET', `/v1/conversations/${id}/messages`)).body.data.length, messagesBefore, 'a note is no message');
  assert.equal((await request(server, 'GET', `/v1/conversations/${id}/notes`, { key: other.apiKey })).status, 404);
  assert.equal((await request(server, 'DELETE', `/v1/conversations/${id}/notes/${note.body.data.id}`, { key: other.apiKey })).status, 404);
  assert.equal((await call('DELETE', `/v1/conversations/${id}/notes/${note.body.data.id}`)).status, 204);
  assert.deepEqual((await call('GET', `/v1/conversations/${id}/notes`)).body.data, []);
  assert.equal((await eventsFor('conversation.note_deleted', id)).length, 1);
});

test('permissions: messages:read reads labels and notes, every change needs messages:send', async () => {
  const id = await conversation();
  const reader = await createKeyWith(server, ['messages:read']);
  const as = { key: reader };
  assert.equal((await call('GET', '/v1/conversation-labels', undefined, as)).status, 200);
  assert.equal((await call('GET', `/v1/conversations/${id}/notes`, undefined, as)).status, 200);
  for (const [method, path, body] of [
    ['POST', '/v1/conversation-labels', { name: 'Nope', color: '#000000' }],
    ['POST', `/v1/conversations/${id}/notes`, { body: 'nope' }],
    ['POST', '/v1/conversations/bulk', { ids: [id], action: 'resolve' }],
    ['PATCH', `/v1/conversations/${id}`, { priority: 'low' }],
  ] as const) {
    const res = await call(method, path, body, as);
    assert.equal(res.status, 403, `${method} ${path}: ${res.text}`);
  }
  assert.equal((await get(id)).priority, 'none');
});

test('bulk: one action on a selection, answered per id, each change its events; a bad argument refuses all', async () => {
  const a = await conversation();
  const b = await conversation();
  const foreignId =
    (await request(server, 'GET', '/v1/conversations', { key: other.apiKey })).body.data[0]?.id ?? '0196b1f2-0a00-7000-8000-0000000000ff';
  const label = (await call('POST', '/v1/conversation-labels', { name: 'Bulk', color: '#00aa00' })).body.data.id as string;

  const assign = await call('POST', '/v1/conversations/bulk', {
    ids: [a, b, foreignId, 'nope'],
    action: 'assign',
    assignee_user_id: member.userId,
  });
  assert.equal(assign.status, 200, assign.text);
  assert.deepEqual(assign.body.data, [
    { id: a, status: 'updated' },
    { id: b, status: 'updated' },
    { id: foreignId, status: 'not_found' },
    { id: 'nope', status: 'not_found' },
  ]);
  assert.equal((await eventsFor('conversation.assigned', a)).length, 1);
  assert.equal((await eventsFor('conversation.assigned', b)).length, 1);

  const labelled = await call('POST', '/v1/conversations/bulk', { ids: [a, b], action: 'label', label_ids: [label] });
  assert.deepEqual(
    labelled.body.data.map((r: { status: string }) => r.status),
    ['updated', 'updated'],
  );
  assert.equal((await eventsFor('conversation.labels_changed', b)).length, 1);
  const resolved = await call('POST', '/v1/conversations/bulk', { ids: [a], action: 'resolve' });
  assert.deepEqual(resolved.body.data, [{ id: a, status: 'updated' }]);
  assert.equal((await get(a)).status, 'resolved');
  const again = await call('POST', '/v1/conversations/bulk', { ids: [a], action: 'resolve' });
  assert.deepEqual(again.body.data, [{ id: a, status: 'unchanged' }]);
  await call('POST', '/v1/conversations/bulk', { ids: [a, b], action: 'set_priority', priority: 'urgent' });
  assert.equal((await get(b)).priority, 'urgent');
  await call('POST', '/v1/conversations/bulk', { ids: [a], action: 'reopen' });
  assert.equal((await get(a)).status, 'open');
  await call('POST', '/v1/conversations/bulk', { ids: [a, b], action: 'unlabel', label_ids: [label] });
  assert.deepEqual((await get(a)).labels, []);

  for (const [body, pointer] of [
    [{ ids: [a], action: 'assign', assignee_user_id: other.userId }, '/assignee_user_id'],
    [{ ids: [a], action: 'assign' }, '/assignee_user_id'],
    [{ ids: [a], action: 'label' }, '/label_ids'],
    [{ ids: [a], action: 'set_priority' }, '/priority'],
    [{ ids: [a], action: 'explode' }, '/action'],
    [{ ids: [], action: 'resolve' }, '/ids'],
    [{ ids: Array.from({ length: 101 }, () => a), action: 'resolve' }, '/ids'],
  ] as const) {
    const res = await call('POST', '/v1/conversations/bulk', body);
    assert.equal(res.status, 400, `${JSON.stringify(body).slice(0, 80)}: ${res.text}`);
    assert.deepEqual(pointers(res), [pointer], JSON.stringify(body).slice(0, 80));
  }
  const theirLabel = await request(server, 'POST', '/v1/conversation-labels', {
    key: other.apiKey,
    body: { name: 'Theirs', color: '#000000' },
  });
  const foreignLabel = await call('POST', '/v1/conversations/bulk', { ids: [a], action: 'label', label_ids: [theirLabel.body.data.id] });
  assert.equal(foreignLabel.status, 400);
  assert.deepEqual(pointers(foreignLabel), ['/label_ids/0']);
  assert.equal((await get(a)).assignee_user_id, member.userId, 'nothing changed by the refusals');
  // Another organization naming A's conversations: not_found, as unknown ones, and nothing changes.
  const intruder = await request(server, 'POST', '/v1/conversations/bulk', { key: other.apiKey, body: { ids: [a, b], action: 'resolve' } });
  assert.equal(intruder.status, 200, intruder.text);
  assert.deepEqual(intruder.body.data, [
    { id: a, status: 'not_found' },
    { id: b, status: 'not_found' },
  ]);
  assert.equal((await get(a)).status, 'open');
});
