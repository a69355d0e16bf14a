/**
 * Timelines of contacts, companies and deals: every kind of item with its summary, newest first; the
 * kind filter; cursor pages that neither repeat nor skip items of one instant, however the page cuts
 * them; another organization's record answered as an unknown one; forged cursors and unknown kinds
 * refused naming the parameter.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { uuidv7 } from '../../src/lib/ids.ts';
import { checkAuthCases } from '../auth-cases.ts';
import { assertCodeError, insertChannel, postContact } from '../contacts-fixtures.ts';
import { assertNames, created } from '../crm-helpers.ts';
import { createOtherOrganization, request, startTestServer, type TestServer } from '../harness.ts';

let server: TestServer;
let other: Awaited<ReturnType<typeof createOtherOrganization>>;

before(async () => {
  server = await startTestServer();
  other = await createOtherOrganization(server, 'timeline');
});
after(() => server.close());

const call = (method: string, path: string, body?: unknown, key = server.apiKey) => request(server, method, path, { key, body });
const ok = async (method: string, path: string, body?: unknown) => {
  const res = await call(method, path, body);
  assert.ok(res.status < 300, `${method} ${path}: ${res.status} ${res.text}`);
  return res.body;
};
type Item = Record<string, any>;

/** Every page of a timeline at the given page size. */
async function allItems(path: string, limit: number): Promise<Item[]> {
  const items: Item[] = [];
  let cursor: string | null = null;
  for (let pages = 0; pages < 100; pages++) {
    const sep = path.includes('?') ? '&' : '?';
    const res = await call('GET', `${path}${sep}limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`);
    assert.equal(res.status, 200, res.text);
    assert.ok(res.body.data.length <= limit);
    items.push(...res.body.data);
    cursor = res.body.meta.next_cursor;
    if (!cursor) return items;
  }
  throw new Error('too many pages');
}

const label = (i: Item) => `${i.kind}:${i.action}`;
const newestFirst = (items: Item[]) => {
  for (let i = 1; i < items.length; i++)
    assert.ok(items[i - 1]!.at >= items[i]!.at, `newest first at ${i}: ${items[i - 1]!.at} ${items[i]!.at}`);
};

/** Messages of the contact on one conversation, at the given times (as the messages module stores them). */
async function insertMessages(contactId: string, times: string[], text = 'hello'): Promise<{ conversationId: string; ids: string[] }> {
  const db = server.container.database.db;
  const channelId = await insertChannel(server, server.organizationId, 'Timeline');
  const conversationId = uuidv7();
  await db.execute(sql`insert into conversations (id, organization_id, channel_id, peer_phone, contact_id)
    values (${conversationId}, ${server.organizationId}, ${channelId}, ${`49${Date.now() % 1e9}`}, ${contactId})`);
  const ids: string[] = [];
  for (const [i, at] of times.entries()) {
    const id = uuidv7();
    ids.push(id);
    await db.execute(sql`insert into messages (id, organization_id, channel_id, conversation_id, contact_id, direction, to_phone, type, content, status, created_at)
      values (${id}, ${server.organizationId}, ${channelId}, ${conversationId}, ${contactId}, ${i % 2 ? 'outbound' : 'inbound'}, '4930999999',
              'text', ${JSON.stringify({ body: `${text} ${i}` })}::jsonb, ${i % 2 ? 'sent' : 'received'}, ${at}::timestamptz)`);
  }
  return { conversationId, ids };
}

test('a contact’s timeline: each kind with its summary, newest first, filtered by kind', async () => {
  const contact = await postContact(server, { phone_number: '+4915112800001', name: 'Tim Line' });
  const { conversationId } = await insertMessages(contact.id, ['2020-01-01T10:00:00.000Z', '2020-01-01T10:01:00.000Z']);
  await ok('POST', '/v1/comments', { record: { kind: 'contact', id: contact.id }, body: 'x'.repeat(300) });
  const task = await created(server, '/v1/tasks', { title: 'Call Tim', targets: [{ kind: 'contact', id: contact.id }] });
  await ok('POST', `/v1/tasks/${task.id}/complete`);
  const deal = await created(server, '/v1/deals', { name: 'Tim’s deal', contact_ids: [contact.id] });
  const pipeline = (await ok('GET', `/v1/pipelines/${deal.pipeline_id}`)).data;
  await ok('PATCH', `/v1/deals/${deal.id}`, { stage_id: pipeline.stages[1].id });
  await ok('PUT', `/v1/contacts/${contact.id}/consent/all`, { state: 'revoked', at: '2020-01-02T00:00:00Z' });
  await ok('POST', `/v1/contacts/${contact.id}/suppressions`, { channel: 'all', reason: 'asked to stop' });

  const items = await allItems(`/v1/contacts/${contact.id}/timeline`, 50);
  newestFirst(items);
  assert.deepEqual(items.map(label).sort(), [
    'comment:created',
    'consent:revoked',
    'deal_stage:changed',
    'deal_stage:created',
    'message:received',
    'message:sent',
    'suppression:added',
    'task:completed',
    'task:created',
  ]);
  const byLabel = Object.fromEntries(items.map((i) => [label(i), i]));
  assert.deepEqual(byLabel['message:sent']!.message, {
    conversation_id: conversationId,
    channel_id: byLabel['message:sent']!.message.channel_id,
    direction: 'outbound',
    type: 'text',
    status: 'sent',
    preview: 'hello 1',
    deleted: false,
  });
  assert.equal(byLabel['message:sent']!.at, '2020-01-01T10:01:00.000Z');
  const comment = byLabel['comment:created']!.comment;
  assert.equal(comment.body.length, 280);
  assert.equal(comment.truncated, true);
  assert.deepEqual(comment.record, { kind: 'contact', id: contact.id });
  assert.equal(comment.author.type, 'api_key');
  assert.equal(byLabel['task:created']!.id, task.id);
  assert.equal(byLabel['task:completed']!.task.status, 'completed');
  assert.equal(byLabel['task:completed']!.task.completed_by.type, 'api_key');
  assert.deepEqual(byLabel['deal_stage:created']!.deal_stage.from_stage, null);
  assert.deepEqual(byLabel['deal_stage:changed']!.deal_stage, {
    deal_id: deal.id,
    deal_name: 'Tim’s deal',
    pipeline_id: deal.pipeline_id,
    from_stage: { id: pipeline.stages[0].id, name: pipeline.stages[0].name },
    to_stage: { id: pipeline.stages[1].id, name: pipeline.stages[1].name },
    changed_by: byLabel['deal_stage:changed']!.deal_stage.changed_by,
  });
  assert.deepEqual(byLabel['consent:revoked']!.consent, { channel: 'all', source: null });
  assert.equal(byLabel['consent:revoked']!.at, '2020-01-02T00:00:00.000Z');
  assert.deepEqual(byLabel['suppression:added']!.suppression, { channel: 'all', reason: 'asked to stop', expires_at: null });

  const filtered = await allItems(`/v1/contacts/${contact.id}/timeline?kind=message,consent`, 50);
  assert.deepEqual(filtered.map(label), ['consent:revoked', 'message:sent', 'message:received']);
  assert.deepEqual((await allItems(`/v1/contacts/${contact.id}/timeline?kind=task`, 1)).map(label).sort(), [
    'task:completed',
    'task:created',
  ]);
});

test('cursor pages neither repeat nor skip items of one instant, whatever the page size; later items come first', async () => {
  const contact = await postContact(server, { phone_number: '+4915112800002', name: 'Same Instant' });
  const same = '2021-03-01T12:00:00.123456Z';
  const times = [same, same, same, '2021-03-01T12:00:00.123457Z', '2021-03-01T12:00:00.123Z', same, '2021-03-01T11:00:00Z'];
  const { ids } = await insertMessages(contact.id, times);
  await server.container.database.db.execute(sql`
    insert into contact_consents (id, organization_id, contact_id, channel, state, recorded_at)
    values (${uuidv7()}, ${server.organizationId}, ${contact.id}, 'chatapp', 'granted', ${same}::timestamptz)`);
  const whole = await allItems(`/v1/contacts/${contact.id}/timeline`, 200);
  assert.equal(whole.length, ids.length + 1);
  for (const limit of [1, 2, 3, 5]) {
    const paged = await allItems(`/v1/contacts/${contact.id}/timeline`, limit);
    assert.deepEqual(
      paged.map((i) => `${i.kind}:${i.id}`),
      whole.map((i) => `${i.kind}:${i.id}`),
      `pages of ${limit}`,
    );
  }
  // A message that arrives after a cursor was handed out is before it: the rest of the pages stay the same.
  const first = await call('GET', `/v1/contacts/${contact.id}/timeline?limit=3`);
  await insertMessages(contact.id, ['2030-01-01T00:00:00Z']);
  const rest = await allItems(`/v1/contacts/${contact.id}/timeline?cursor=${first.body.meta.next_cursor}`, 200);
  assert.deepEqual(
    [...first.body.data, ...rest].map((i: Item) => i.id),
    whole.map((i) => i.id),
  );
});

test('a company’s and a deal’s timelines', async () => {
  const company = await created(server, '/v1/companies', { name: 'Timeline Co' });
  const contact = await postContact(server, { phone_number: '+4915112800003', name: 'Deal Person' });
  const { conversationId } = await insertMessages(contact.id, ['2022-05-01T08:00:00Z'], 'offer please');
  const deal = await created(server, '/v1/deals', { name: 'Co deal', company_id: company.id, conversation_id: conversationId });
  const pipeline = (await ok('GET', `/v1/pipelines/${deal.pipeline_id}`)).data;
  await ok('PATCH', `/v1/deals/${deal.id}`, { stage_id: pipeline.stages[2].id });
  await ok('POST', '/v1/comments', { record: { kind: 'company', id: company.id }, body: 'on the company' });
  await ok('POST', '/v1/comments', { record: { kind: 'deal', id: deal.id }, body: 'on the deal' });
  await created(server, '/v1/tasks', { title: 'Company task', targets: [{ kind: 'company', id: company.id }] });
  await created(server, '/v1/tasks', { title: 'Deal task', targets: [{ kind: 'deal', id: deal.id }] });

  const companyItems = await allItems(`/v1/companies/${company.id}/timeline`, 2);
  newestFirst(companyItems);
  assert.deepEqual(companyItems.map(label).sort(), ['comment:created', 'deal_stage:changed', 'deal_stage:created', 'task:created']);
  assert.equal(companyItems.find((i) => i.kind === 'comment')!.comment.body, 'on the company');
  assert.equal(companyItems.find((i) => i.kind === 'task')!.task.title, 'Company task');

  const dealItems = await allItems(`/v1/deals/${deal.id}/timeline`, 2);
  newestFirst(dealItems);
  assert.deepEqual(dealItems.map(label).sort(), [
    'comment:created',
    'deal_stage:changed',
    'deal_stage:created',
    'message:received',
    'task:created',
  ]);
  assert.equal(dealItems.find((i) => i.kind === 'message')!.message.preview, 'offer please 0');
  assert.equal(dealItems.find((i) => i.kind === 'comment')!.comment.body, 'on the deal');
  assert.equal(dealItems.find((i) => i.kind === 'task')!.task.title, 'Deal task');
});

test('another organization’s record is unknown; forged cursors and unknown kinds are refused naming the parameter', async () => {
  const contact = await postContact(server, { phone_number: '+4915112800004' }, other.apiKey);
  const company = await created(server, '/v1/companies', { name: 'Theirs' }, other.apiKey);
  const deal = await created(server, '/v1/deals', { name: 'Theirs' }, other.apiKey);
  assertCodeError(await call('GET', `/v1/contacts/${contact.id}/timeline`), 404, 'not_found');
  assertCodeError(await call('GET', `/v1/contacts/${uuidv7()}/timeline`), 404, 'not_found');
  assertCodeError(await call('GET', '/v1/contacts/not-an-id/timeline'), 404, 'not_found');
  for (const path of [`/v1/companies/${company.id}/timeline`, `/v1/deals/${deal.id}/timeline`, `/v1/deals/${uuidv7()}/timeline`]) {
    const res = await call('GET', path);
    assert.equal(res.status, 404, `${path}: ${res.text}`);
  }
  assert.equal((await call('GET', `/v1/contacts/${contact.id}/timeline`, undefined, other.apiKey)).status, 200);

  const mine = await postContact(server, { phone_number: '+4915112800005' });
  const forged = [
    'nope',
    Buffer.from(JSON.stringify({ t: '2020-01-01T00:00:00.000Z', id: uuidv7() })).toString('base64url'),
    Buffer.from(JSON.stringify({ t: '2020-01-01T00:00:00.000000Z', r: 9, id: uuidv7() })).toString('base64url'),
    Buffer.from(JSON.stringify({ t: "2020-01-01T00:00:00.000000Z' or 1=1", r: 1, id: uuidv7() })).toString('base64url'),
    Buffer.from(JSON.stringify({ t: '2020-01-01T00:00:00.000000Z', r: 1, id: 'x' })).toString('base64url'),
  ];
  for (const cursor of forged) {
    const res = await call('GET', `/v1/contacts/${mine.id}/timeline?cursor=${cursor}`);
    assertCodeError(res, 400, 'invalid');
    assert.deepEqual(
      res.body.errors.map((e: { pointer: string }) => e.pointer),
      ['/cursor'],
    );
  }
  const company2 = await created(server, '/v1/companies', { name: 'Mine' });
  assertNames(await call('GET', `/v1/companies/${company2.id}/timeline?kind=messages`), 400, '/kind', 'query');
  assertNames(await call('GET', `/v1/companies/${company2.id}/timeline?cursor=${forged[2]}`), 400, '/cursor', 'query');
});

test('the timelines need crm:read', async () => {
  const contact = await postContact(server, { phone_number: '+4915112800006' });
  const company = await created(server, '/v1/companies', { name: 'Auth Co' });
  const deal = await created(server, '/v1/deals', { name: 'Auth deal' });
  await checkAuthCases(server, [
    { method: 'GET', path: `/v1/contacts/${contact.id}/timeline`, permission: 'crm:read' },
    { method: 'GET', path: `/v1/companies/${company.id}/timeline`, permission: 'crm:read' },
    { method: 'GET', path: `/v1/deals/${deal.id}/timeline`, permission: 'crm:read' },
  ]);
});
