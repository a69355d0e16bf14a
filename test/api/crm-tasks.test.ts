/**
 * Tasks through the API: the record with its targets (any record of the organization, named as it is
 * now; another organization's refused naming the field, like an unknown one), changes and their
 * events, completing and reopening (crm.task.completed, who completed it), and "my tasks": the list's
 * filters (assignee, status, due window, overdue by the server's clock, a record's tasks) and sorts,
 * each paged with its own cursors. The due reminder is test/jobs/crm-tasks-due.test.ts's.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { checkAuthCases } from '../auth-cases.ts';
import { insertChannel, insertMessage, postContact } from '../contacts-fixtures.ts';
import { allPages, assertNames, created, eventTail, recordEvent } from '../crm-helpers.ts';
import {
  createKeyWith,
  createOtherOrganization,
  loginCookie,
  movableClock,
  request,
  startTestServer,
  type TestServer,
} from '../harness.ts';

let server: TestServer;
let other: Awaited<ReturnType<typeof createOtherOrganization>>;
let userId: string;
let cookie: string;
const clock = movableClock();

before(async () => {
  server = await startTestServer({ worker: true, clock });
  other = await createOtherOrganization(server, 'tasks');
  cookie = await loginCookie(server);
  userId = (await request(server, 'GET', '/v1/auth/session', { cookie })).body.data.user.id;
});
after(() => server.close());

const key = () => ({ key: server.apiKey });
const post = (body: unknown) => request(server, 'POST', '/v1/tasks', { ...key(), body });
const userCall = (method: string, path: string, body?: unknown) =>
  request(server, method, path, { cookie, headers: { origin: server.baseUrl }, body });

test('a task is created with its targets, named as their records are now; changed, its targets replaced; deleted; with its events', async () => {
  const contact = await postContact(server, { phone_number: '+4915112400001', name: 'Task Contact' });
  const company = await created(server, '/v1/companies', { name: 'Task Company' });
  const deal = await created(server, '/v1/deals', { name: 'Task Deal' });
  const channel = await insertChannel(server, server.organizationId);
  const { conversationId } = await insertMessage(server, server.organizationId, contact.id, channel);
  const events = await eventTail(server);
  const task = await created(server, '/v1/tasks', {
    title: '  Send the offer ',
    notes: 'With the discount.',
    due_at: '2031-06-05T11:00:00+02:00',
    assignee_user_id: userId.toUpperCase(),
    priority: 'high',
    targets: [
      { kind: 'deal', id: deal.id },
      { kind: 'contact', id: contact.id.toUpperCase() },
      { kind: 'company', id: company.id },
      { kind: 'conversation', id: conversationId },
      { kind: 'deal', id: deal.id },
    ],
  });
  const keyId = (await request(server, 'GET', '/v1/api-keys?limit=200', key())).body.data.find(
    (k: { name: string }) => k.name === 'Bootstrap key',
  ).id;
  assert.deepEqual(
    { ...task, id: undefined, created_at: undefined, updated_at: undefined },
    {
      id: undefined,
      title: 'Send the offer',
      notes: 'With the discount.',
      due_at: '2031-06-05T09:00:00.000Z',
      assignee_user_id: userId,
      priority: 'high',
      status: 'open',
      completed_at: null,
      completed_by: null,
      targets: [
        { kind: 'company', id: company.id, display_name: 'Task Company' },
        { kind: 'contact', id: contact.id, display_name: 'Task Contact' },
        { kind: 'conversation', id: conversationId, display_name: 'Task Contact' },
        { kind: 'deal', id: deal.id, display_name: 'Task Deal' },
      ],
      created_by: { type: 'api_key', id: keyId, user_id: null },
      created_at: undefined,
      updated_at: undefined,
    },
  );
  assert.deepEqual((await request(server, 'GET', `/v1/tasks/${task.id}`, key())).body.data, task);
  assert.deepEqual(await events.take(1), [recordEvent('created', 'task', task.id, 'Send the offer', server.organizationId)]);

  // A target is named as its record is now.
  await request(server, 'PATCH', `/v1/companies/${company.id}`, { ...key(), body: { name: 'Renamed Company' } });
  const renamed = (await request(server, 'GET', `/v1/tasks/${task.id}`, key())).body.data;
  assert.equal(renamed.targets.find((t: { kind: string }) => t.kind === 'company').display_name, 'Renamed Company');
  await events.take(1);

  const patch = (body: unknown) => request(server, 'PATCH', `/v1/tasks/${task.id}`, { ...key(), body });
  const changed = await patch({ title: 'Send the revised offer', notes: '', priority: null, targets: [{ kind: 'deal', id: deal.id }] });
  assert.equal(changed.status, 200, changed.text);
  assert.deepEqual(
    [changed.body.data.title, changed.body.data.notes, changed.body.data.priority, changed.body.data.targets],
    ['Send the revised offer', null, null, [{ kind: 'deal', id: deal.id, display_name: 'Task Deal' }]],
  );
  assert.ok(changed.body.data.updated_at > task.updated_at);
  assert.deepEqual(await events.take(1), [recordEvent('updated', 'task', task.id, 'Send the revised offer', server.organizationId)]);
  const same = await patch({ title: 'Send the revised offer', targets: [{ kind: 'deal', id: deal.id }], due_at: task.due_at });
  assert.equal(same.body.data.updated_at, changed.body.data.updated_at, 'nothing changed: no write');

  // A deleted record leaves the task's targets; the task stays.
  await patch({
    targets: [
      { kind: 'deal', id: deal.id },
      { kind: 'contact', id: contact.id },
    ],
  });
  assert.equal((await request(server, 'DELETE', `/v1/deals/${deal.id}`, key())).status, 204);
  const left = (await request(server, 'GET', `/v1/tasks/${task.id}`, key())).body.data;
  assert.deepEqual(left.targets, [{ kind: 'contact', id: contact.id, display_name: 'Task Contact' }]);

  assert.equal((await request(server, 'DELETE', `/v1/tasks/${task.id}`, key())).status, 204);
  assert.equal((await request(server, 'GET', `/v1/tasks/${task.id}`, key())).status, 404);
  assert.equal((await request(server, 'DELETE', `/v1/tasks/${task.id}`, key())).status, 404);
  const tail = await events.take(3);
  assert.deepEqual(tail.at(-1), recordEvent('deleted', 'task', task.id, 'Send the revised offer', server.organizationId));
});

test('what a task refers to must be the organization’s, and its fields make sense; what is wrong is named', async () => {
  const theirContact = await postContact(server, { phone_number: '+4915112400002', name: 'Theirs' }, other.apiKey);
  const mine = await postContact(server, { phone_number: '+4915112400003', name: 'Mine' });
  const theirChannel = await insertChannel(server, other.organizationId);
  const { conversationId: theirConversation } = await insertMessage(server, other.organizationId, theirContact.id, theirChannel);
  const unknown = crypto.randomUUID();
  assertNames(
    await post({
      title: 'T',
      targets: [
        { kind: 'contact', id: mine.id },
        { kind: 'contact', id: theirContact.id },
      ],
    }),
    400,
    '/targets/1/id',
  );
  assertNames(await post({ title: 'T', targets: [{ kind: 'contact', id: unknown }] }), 400, '/targets/0/id');
  assertNames(await post({ title: 'T', targets: [{ kind: 'conversation', id: theirConversation }] }), 400, '/targets/0/id');
  assertNames(await post({ title: 'T', targets: [{ kind: 'deal', id: mine.id }] }), 400, '/targets/0/id');
  const theirs = await post({ title: 'T', targets: [{ kind: 'contact', id: theirContact.id }] });
  const never = await post({ title: 'T', targets: [{ kind: 'contact', id: unknown }] });
  assert.equal(theirs.body.errors[0].message, never.body.errors[0].message, 'another organization’s record is answered as an unknown one');
  assertNames(await post({ title: 'T', targets: [{ kind: 'task', id: unknown }] }), 400, '/targets/0/kind');
  assertNames(await post({ title: 'T', assignee_user_id: other.userId }), 400, '/assignee_user_id');
  assertNames(await post({ title: 'T', assignee_user_id: unknown }), 400, '/assignee_user_id');
  assertNames(await post({ notes: 'no title' }), 400, '/title');
  assertNames(await post({ title: '   ' }), 400, '/title');
  assertNames(await post({ title: 'x'.repeat(501) }), 400, '/title');
  assertNames(await post({ title: 'T', notes: 'x'.repeat(10_001) }), 400, '/notes');
  assertNames(await post({ title: 'T', priority: 'urgent' }), 400, '/priority');
  assertNames(await post({ title: 'T', due_at: '2031-06-05' }), 400, '/due_at');
  assertNames(await post({ title: 'T', due_at: '2031-06-05T09:00:00' }), 400, '/due_at');
  assertNames(await post({ title: 'T', status: 'completed' }), 400, '/'); // an unknown key: complete a task with its own route
  assertNames(await post({ title: 'T', targets: Array.from({ length: 101 }, () => ({ kind: 'contact', id: mine.id })) }), 400, '/targets');
  const task = await created(server, '/v1/tasks', { title: 'Valid' });
  const patch = (body: unknown) => request(server, 'PATCH', `/v1/tasks/${task.id}`, { ...key(), body });
  assertNames(await patch({ title: null }), 400, '/title');
  assertNames(await patch({ targets: [{ kind: 'contact', id: theirContact.id }] }), 400, '/targets/0/id');
  assert.equal((await request(server, 'GET', `/v1/tasks/${task.id}`, { key: other.apiKey })).status, 404);
  assert.equal((await request(server, 'GET', '/v1/tasks/not-an-id', key())).status, 404);
});

test('completing keeps who and when and records crm.task.completed once; reopening clears it', async () => {
  const task = await created(server, '/v1/tasks', { title: 'Call back', due_at: '2031-01-01T10:00:00Z', assignee_user_id: userId });
  const events = await eventTail(server);
  const done = await userCall('POST', `/v1/tasks/${task.id}/complete`);
  assert.equal(done.status, 200, done.text);
  assert.equal(done.body.data.status, 'completed');
  assert.deepEqual(done.body.data.completed_by, { type: 'user', id: userId, user_id: userId });
  assert.ok(Math.abs(Date.parse(done.body.data.completed_at) - clock.now().getTime()) < 60_000);
  assert.deepEqual(await events.take(2), [
    recordEvent('updated', 'task', task.id, 'Call back', server.organizationId),
    {
      type: 'crm.task.completed',
      data: {
        task_id: task.id,
        title: 'Call back',
        assignee_user_id: userId,
        due_at: '2031-01-01T10:00:00.000Z',
        completed_at: done.body.data.completed_at,
        completed_by: { type: 'user', id: userId, user_id: userId },
        organization_id: server.organizationId,
      },
    },
  ]);
  const again = await request(server, 'POST', `/v1/tasks/${task.id}/complete`, key());
  assert.deepEqual(again.body.data, done.body.data, 'a completed task is answered as it is');

  const reopened = await request(server, 'POST', `/v1/tasks/${task.id}/reopen`, key());
  assert.equal(reopened.status, 200, reopened.text);
  assert.deepEqual([reopened.body.data.status, reopened.body.data.completed_at, reopened.body.data.completed_by], ['open', null, null]);
  assert.deepEqual((await request(server, 'POST', `/v1/tasks/${task.id}/reopen`, key())).body.data, reopened.body.data);
  const byKey = await request(server, 'POST', `/v1/tasks/${task.id}/complete`, key());
  assert.equal(byKey.body.data.completed_by.type, 'api_key');
  // The events after the first completion: no second one for the repeat, one for the reopening, one more for the completion by key.
  const tail = await events.take(3);
  assert.deepEqual(
    tail.map((e) => e.type),
    ['crm.record.updated', 'crm.record.updated', 'crm.task.completed'],
  );
  assert.equal((await request(server, 'POST', `/v1/tasks/${crypto.randomUUID()}/complete`, key())).status, 404);
});

test('my tasks: the list filters by assignee, status, due window, overdue (by the server’s clock) and linked record, sorts by due time or creation, and pages each sort', async () => {
  const deal = await created(server, '/v1/deals', { name: 'Listed Deal' });
  const contact = await postContact(server, { phone_number: '+4915112400004', name: 'Listed' });
  const now = clock.now().getTime();
  const at = (hours: number) => new Date(now + hours * 3_600_000).toISOString();
  const make = (title: string, fields: Record<string, unknown>) => created(server, '/v1/tasks', { title: `ZL ${title}`, ...fields });
  const late = await make('late', { due_at: at(-2), assignee_user_id: userId, targets: [{ kind: 'deal', id: deal.id }] });
  await make('soon', { due_at: at(2), assignee_user_id: userId });
  await make('later', {
    due_at: at(30),
    targets: [
      { kind: 'deal', id: deal.id },
      { kind: 'contact', id: contact.id },
    ],
  });
  await make('undated', {});
  const finished = await make('finished', { due_at: at(-5), assignee_user_id: userId });
  assert.equal((await request(server, 'POST', `/v1/tasks/${finished.id}/complete`, key())).status, 200);
  const titles = (items: Array<Record<string, any>>) => items.map((t) => String(t.title).slice(3)).filter((t) => t !== '');
  const list = async (query: string) =>
    titles((await allPages(server, `/v1/tasks?limit=2&${query}`)).filter((t) => t.title.startsWith('ZL ')));

  assert.deepEqual(await list(''), ['finished', 'late', 'soon', 'later', 'undated'], 'soonest due first, undated last');
  assert.deepEqual(await list('sort=-due_at'), ['undated', 'later', 'soon', 'late', 'finished']);
  assert.deepEqual(await list('sort=created_at'), ['late', 'soon', 'later', 'undated', 'finished']);
  assert.deepEqual(await list('sort=-created_at'), ['finished', 'undated', 'later', 'soon', 'late']);
  assert.deepEqual(await list(`assignee=${userId}&status=open`), ['late', 'soon']);
  assert.deepEqual(await list('assignee=none'), ['later', 'undated']);
  assert.deepEqual(await list('status=completed'), ['finished']);
  assert.deepEqual(await list(`due_after=${encodeURIComponent(at(-3))}&due_before=${encodeURIComponent(at(3))}`), ['late', 'soon']);
  assert.deepEqual(await list(`due_before=${encodeURIComponent(late.due_at)}`), ['finished'], 'due_before is exclusive');
  assert.deepEqual(await list(`due_after=${encodeURIComponent(late.due_at)}`), ['late', 'soon', 'later'], 'due_after is inclusive');
  assert.deepEqual(await list('overdue=true'), ['late']);
  assert.deepEqual(await list('overdue=false'), ['finished', 'soon', 'later', 'undated']);
  assert.deepEqual(await list(`record=deal:${deal.id}`), ['late', 'later']);
  assert.deepEqual(await list(`record=contact:${contact.id.toUpperCase()}`), ['later']);
  assert.deepEqual(await list(`record=company:${deal.id}`), [], 'the kind is part of the record');

  // The server's clock decides what is overdue: three hours on, "soon" is.
  clock.advance(3 * 3_600_000);
  assert.deepEqual(await list('overdue=true'), ['late', 'soon']);

  const mine = await request(server, 'GET', '/v1/tasks?assignee=me&status=open&limit=100', { cookie });
  assert.deepEqual(titles(mine.body.data), ['late', 'soon'], 'assignee=me is the signed-in user');
  assertNames(await request(server, 'GET', '/v1/tasks?assignee=me', key()), 400, '/assignee', 'query');
  assertNames(await request(server, 'GET', '/v1/tasks?record=deal', key()), 400, '/record', 'query');
  assertNames(await request(server, 'GET', `/v1/tasks?record=task:${late.id}`, key()), 400, '/record', 'query');
  assertNames(await request(server, 'GET', '/v1/tasks?overdue=yes', key()), 400, '/overdue', 'query');
  assertNames(await request(server, 'GET', '/v1/tasks?due_before=tomorrow', key()), 400, '/due_before', 'query');
  assertNames(await request(server, 'GET', '/v1/tasks?sort=title', key()), 400, '/sort', 'query');
  const page = await request(server, 'GET', '/v1/tasks?sort=-due_at&limit=1', key());
  assertNames(await request(server, 'GET', `/v1/tasks?sort=due_at&cursor=${page.body.meta.next_cursor}`, key()), 400, '/cursor', 'query');
  assert.deepEqual(titles(await allPages(server, '/v1/tasks', other.apiKey)), [], 'another organization sees none of them');
  assert.deepEqual(titles(await allPages(server, `/v1/tasks?record=deal:${deal.id}`, other.apiKey)), []);
});

test('the tasks routes need crm:read or crm:write', async () => {
  const task = await created(server, '/v1/tasks', { title: 'Permissions' });
  await checkAuthCases(server, [
    { method: 'POST', path: '/v1/tasks', body: { title: 'X' }, permission: 'crm:write' },
    { method: 'GET', path: '/v1/tasks', permission: 'crm:read' },
    { method: 'GET', path: `/v1/tasks/${task.id}`, permission: 'crm:read' },
    { method: 'PATCH', path: `/v1/tasks/${task.id}`, body: { title: 'Y' }, permission: 'crm:write' },
    { method: 'POST', path: `/v1/tasks/${task.id}/complete`, permission: 'crm:write' },
    { method: 'POST', path: `/v1/tasks/${task.id}/reopen`, permission: 'crm:write' },
    { method: 'DELETE', path: `/v1/tasks/${task.id}`, permission: 'crm:write' },
  ]);
  const reader = await createKeyWith(server, ['crm:read']);
  assert.equal((await request(server, 'GET', `/v1/tasks/${task.id}`, { key: reader })).status, 200);
  assert.equal((await request(server, 'POST', `/v1/tasks/${task.id}/complete`, { key: reader })).status, 403);
});
