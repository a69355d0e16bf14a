/**
 * Automation rules (/v1/automations, docs/automations.md) on one server through the sandbox: every
 * trigger (message received, conversation created, status changed, label added, no reply, broadcast
 * reply), condition kind and action kind; the refusals naming their place; the loop guard (3 automated
 * messages per conversation per hour, and no rule triggered by an automation's own change); a retried
 * job acting once; the dry run doing nothing; another organization seeing none of it. Each test's rules
 * name a channel of their own, so rules of other tests never fit its messages.
 */
// stores: both
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { queryRows } from '../../src/db/client.ts';
import { verifyWebhook } from '../../packages/sdk/src/webhooks.ts';
import { eventually } from '../eventually.ts';
import { createKeyWith, createOtherOrganization, movableClock, request, startTestServer, type TestServer } from '../harness.ts';
import { approvedTemplate, customerWrites, officialChannel } from '../messages-helpers.ts';
import { startReceiver, type Receiver } from '../webhook-receiver.ts';

const clock = movableClock();
let server: TestServer;
let receiver: Receiver;
let ownerId: string;
let number = 0;
const customer = () => `4915130${String(++number).padStart(6, '0')}`;

before(async () => {
  server = await startTestServer({ worker: true, clock, env: { ALLOW_PRIVATE_NETWORK_TARGETS: 'true', SANDBOX_STATUS_DELAY_MS: '0' } });
  receiver = await startReceiver();
  const [owner] = await queryRows<{ user_id: string }>(
    server.container.database.db,
    sql`select user_id from memberships where organization_id = ${server.organizationId} limit 1`,
  );
  ownerId = owner!.user_id;
});
after(async () => {
  await receiver.close();
  await server.close();
});

const db = () => server.container.database.db;
const api = (method: string, path: string, body?: unknown, key = server.apiKey) => request(server, method, path, { key, body });

async function created(path: string, body: unknown, key = server.apiKey) {
  const res = await api('POST', path, body, key);
  assert.equal(res.status, 201, res.text);
  return res.body.data as Record<string, any>;
}
const rule = (body: Record<string, unknown>) => created('/v1/automations', { name: `rule ${++number}`, ...body });
const label = (name: string) => created('/v1/conversation-labels', { name: `${name} ${++number}`, color: '#3366ff' });
const onChannel = (id: string) => ({ kind: 'channel', channel_ids: [id] });

async function conversationOf(messageId: string) {
  const [row] = await queryRows<{ conversation_id: string; contact_id: string }>(
    db(),
    sql`select m.conversation_id, c.contact_id from messages m join conversations c on c.id = m.conversation_id where m.id = ${messageId}`,
  );
  return row!;
}
async function runsOf(ruleId: string, count = 1) {
  return eventually(`${count} finished runs of the rule`, async () => {
    const res = await api('GET', `/v1/automations/${ruleId}/runs`);
    assert.equal(res.status, 200, res.text);
    const runs = res.body.data as Array<Record<string, any>>;
    return runs.length >= count && runs.every((r) => r.status === 'done') ? runs : undefined;
  });
}
async function outbound(conversationId: string) {
  const rows = await queryRows<{ body: string | null; type: string }>(
    db(),
    sql`select content->>'body' as body, type from messages where conversation_id = ${conversationId} and direction = 'outbound' order by created_at, id`,
  );
  return rows.map((r) => r.body ?? `[${r.type}]`);
}
/** The job handlers, called as the worker would (a retry, or the minute's sweep). */
const handlers = () => server.container.jobHandlers();
const eventOf = async (type: string, field: string, value: string) => {
  const [row] = await queryRows<{ id: string }>(
    db(),
    sql`select id from events where type = ${type} and payload->>${field} = ${value} order by seq desc limit 1`,
  );
  return row!.id;
};

test('a rule is refused naming the place: trigger, filter, pattern, records of the organization, URL', async () => {
  const other = await createOtherOrganization(server, 'refused');
  const theirLabel = await created('/v1/conversation-labels', { name: 'theirs', color: '#112233' }, other.apiKey);
  const cases: Array<[Record<string, unknown>, string]> = [
    [{ trigger: { type: 'no_reply' }, actions: [{ type: 'start_bot' }] }, '/trigger/minutes'],
    [{ trigger: { type: 'message_received', minutes: 5 }, actions: [{ type: 'start_bot' }] }, '/trigger/minutes'],
    [
      {
        trigger: { type: 'message_received' },
        conditions: [{ kind: 'message', op: 'regex', value: '(a)\\1' }],
        actions: [{ type: 'start_bot' }],
      },
      '/conditions/0/value',
    ],
    [
      {
        trigger: { type: 'status_changed' },
        conditions: [{ kind: 'message', op: 'contains', value: 'x' }],
        actions: [{ type: 'start_bot' }],
      },
      '/conditions/0',
    ],
    [
      {
        trigger: { type: 'message_received' },
        conditions: [{ kind: 'contact', filter: { and: [{ field: 'shoe_size', op: 'eq', value: 1 }] } }],
        actions: [{ type: 'start_bot' }],
      },
      '/conditions/0/filter/and/0/field',
    ],
    [{ trigger: { type: 'message_received' }, actions: [{ type: 'add_label', label_id: theirLabel.id }] }, '/actions/0/label_id'],
    [{ trigger: { type: 'message_received' }, actions: [{ type: 'call_webhook', url: 'ftp://example.com/x' }] }, '/actions/0/url'],
    [
      { trigger: { type: 'message_received' }, actions: [{ type: 'send_template', template: { name: 'Bad Name' } }] },
      '/actions/0/template/name',
    ],
    [{ trigger: { type: 'message_received' }, actions: [] }, '/actions'],
  ];
  for (const [body, pointer] of cases) {
    const res = await api('POST', '/v1/automations', { name: 'bad', ...body });
    assert.equal(res.status, 400, `${pointer}: ${res.text}`);
    assert.ok(
      (res.body.errors as Array<{ pointer: string }>).some((e) => e.pointer === pointer),
      `${pointer} named: ${JSON.stringify(res.body.errors)}`,
    );
  }
  const readOnly = await createKeyWith(server, ['automations:read']);
  assert.equal(
    (await api('POST', '/v1/automations', { name: 'x', trigger: { type: 'message_received' }, actions: [{ type: 'start_bot' }] }, readOnly))
      .status,
    403,
  );
  assert.equal((await api('GET', '/v1/automations', undefined, readOnly)).status, 200);
});

test('message received: every condition kind holds, every conversation action is done through its domain function; its own label does not trigger a label rule', async () => {
  const channel = await officialChannel(server, 'Refunds');
  const vip = await label('vip');
  const billing = await label('billing');
  const list = await created('/v1/lists', { name: `Refunders ${++number}`, kind: 'contact' });
  const main = await rule({
    trigger: { type: 'message_received' },
    conditions: [
      onChannel(channel.id),
      { kind: 'message', op: 'contains', value: 'REFUND' },
      { kind: 'message', op: 'regex', value: '^i want a\\s+refund' },
      { kind: 'message', op: 'starts_with', value: 'I want' },
      { kind: 'contact', filter: { and: [{ field: 'phone_number', op: 'exists', value: true }] } },
      { kind: 'business_hours', value: 'open' },
      { kind: 'labels', op: 'has_none', label_ids: [vip.id] },
    ],
    actions: [
      { type: 'add_label', label_id: billing.id },
      { type: 'assign', user_id: ownerId },
      { type: 'set_contact_field', field: 'custom_fields.topic', value: 'refund' },
      { type: 'add_to_list', list_id: list.id },
      { type: 'create_task', title: 'Check the refund', due_in_minutes: 60, assignee_user_id: ownerId },
      { type: 'call_webhook', url: receiver.url },
      { type: 'send_text', text: 'Our billing team will answer.' },
      { type: 'start_bot', bot_id: 'triage' },
    ],
  });
  assert.match(main.webhook_secret, /^whsec_/);
  const labelRule = await rule({
    trigger: { type: 'label_added' },
    conditions: [onChannel(channel.id)],
    actions: [{ type: 'set_status', status: 'pending' }],
  });

  const messageId = await customerWrites(server, channel.id, customer(), 'text', { body: 'I want a refund please' });
  const { conversation_id: conversationId, contact_id: contactId } = await conversationOf(messageId);
  const [run] = await runsOf(main.id);
  assert.equal(run!.matched, true, JSON.stringify(run));
  assert.equal(run!.conversation_id, conversationId);
  assert.deepEqual(
    run!.conditions.map((c: { matched: boolean }) => c.matched),
    [true, true, true, true, true, true, true],
  );
  assert.deepEqual(
    run!.actions.map((a: { type: string; status: string }) => `${a.type}:${a.status}`),
    [
      'add_label:done',
      'assign:done',
      'set_contact_field:done',
      'add_to_list:done',
      'create_task:done',
      'call_webhook:done',
      'send_text:done',
      // Not a bot of the organization's: refused, named in the run log.
      'start_bot:failed',
    ],
  );
  const conversation = (await api('GET', `/v1/conversations/${conversationId}`)).body.data;
  assert.deepEqual(
    conversation.labels.map((l: { id: string }) => l.id),
    [billing.id],
  );
  assert.equal(conversation.assignee_user_id, ownerId);
  assert.equal(conversation.status, 'open', 'the label the rule added triggered no label rule');
  const contact = (await api('GET', `/v1/contacts/${contactId}`)).body.data;
  assert.equal(contact.custom_fields.topic, 'refund');
  const entries = (await api('GET', `/v1/lists/${list.id}/entries`)).body.data;
  assert.equal(entries.length, 1);
  assert.deepEqual(await outbound(conversationId), ['Our billing team will answer.']);
  // The webhook call: signed with the rule's secret, as webhooks are.
  const call = receiver.requests.at(-1)!;
  const payload = verifyWebhook(call.body, call.headers as Record<string, string>, main.webhook_secret) as Record<string, unknown>;
  assert.equal(payload.rule_id, main.id);
  assert.equal(payload.conversation_id, conversationId);
  // Every action's own event, marked as the rule's; and automation.run.
  const marked = await queryRows<{ type: string }>(
    db(),
    sql`select distinct type from events where automation_rule_id = ${main.id} order by type`,
  );
  for (const type of ['conversation.labels_changed', 'conversation.assigned', 'crm.list.entry_added', 'crm.record.created'])
    assert.ok(
      marked.some((m) => m.type === type),
      `${type} among ${JSON.stringify(marked)}`,
    );
  assert.ok(await eventOf('automation.run', 'rule_id', main.id));
  const labelRuns = (await api('GET', `/v1/automations/${labelRule.id}/runs`)).body.data;
  assert.equal(labelRuns.length, 0, 'no rule triggers on an automation’s change');

  // A message that misses one condition: a run not matched, nothing done.
  const other = await customerWrites(server, channel.id, customer(), 'text', { body: 'Where is my refund?' });
  const runs = await runsOf(main.id, 2);
  const missed = runs.find((r) => r.message_id === other)!;
  assert.equal(missed.matched, false);
  assert.deepEqual(missed.actions, []);
  assert.deepEqual(
    missed.conditions.filter((c: { matched: boolean }) => !c.matched).map((c: { index: number }) => c.index),
    [2, 3],
  );

  // A retried job acts once: the finished run is left as it is; a run cut off after its first action
  // resumes at the second, and its message (behind the run's idempotency key) is not sent again.
  const eventId = await eventOf('message.new', 'message_id', messageId);
  await handlers()['automations.event']({ event_id: eventId }, {} as never);
  await queryRows(
    db(),
    sql`update automation_runs set status = 'running', finished_at = null, actions = actions - 7 - 6 where rule_id = ${main.id} and event_id = ${eventId}`,
  );
  await handlers()['automations.event']({ event_id: eventId }, {} as never);
  assert.deepEqual(await outbound(conversationId), ['Our billing team will answer.']);
  const [again] = (await api('GET', `/v1/automations/${main.id}/runs`)).body.data.filter(
    (r: { event_id: string }) => r.event_id === eventId,
  );
  assert.equal(again.actions.length, 8);
  assert.equal(again.status, 'done');
});

test('conversation created, status changed and label added (by a person) trigger their rules; canned response and set status', async () => {
  const channel = await officialChannel(server, 'Welcome');
  const canned = await created('/v1/canned-responses', {
    name: 'Bye',
    shortcut: `bye${++number}`,
    body: 'Goodbye {{contact.first_name|there}}!',
  });
  const urgent = await label('urgent');
  const welcome = await rule({
    trigger: { type: 'conversation_created' },
    conditions: [onChannel(channel.id), { kind: 'message', op: 'equals', value: 'hello' }],
    actions: [{ type: 'send_text', text: 'Welcome!' }],
  });
  const resolved = await rule({
    trigger: { type: 'status_changed', status: 'resolved' },
    conditions: [onChannel(channel.id)],
    actions: [{ type: 'send_canned_response', canned_response_id: canned.id }],
  });
  const labelled = await rule({
    trigger: { type: 'label_added' },
    conditions: [onChannel(channel.id), { kind: 'labels', op: 'has_all', label_ids: [urgent.id] }],
    actions: [{ type: 'set_status', status: 'pending' }],
  });
  const from = customer();
  const first = await customerWrites(server, channel.id, from, 'text', { body: 'Hello' }, { name: 'Ana Lima' });
  const { conversation_id: conversationId } = await conversationOf(first);
  await runsOf(welcome.id);
  await customerWrites(server, channel.id, from, 'text', { body: 'hello' });
  assert.equal(
    (await api('GET', `/v1/automations/${welcome.id}/runs`)).body.data.length,
    1,
    'only the first message creates the conversation',
  );

  assert.equal((await api('PATCH', `/v1/conversations/${conversationId}`, { status: 'pending' })).status, 200);
  assert.equal((await api('PATCH', `/v1/conversations/${conversationId}`, { status: 'resolved' })).status, 200);
  await runsOf(resolved.id);
  await eventually('the canned response, filled', async () =>
    (await outbound(conversationId)).some((b) => /^Goodbye (Ana|there)!$/.test(b)),
  );
  assert.equal((await api('GET', `/v1/automations/${resolved.id}/runs`)).body.data.length, 1, 'only the change to resolved');

  assert.equal((await api('POST', `/v1/conversations/${conversationId}/labels`, { label_ids: [urgent.id] })).status < 300, true);
  const [run] = await runsOf(labelled.id);
  assert.deepEqual(
    run!.actions.map((a: { status: string }) => a.status),
    ['done'],
  );
  assert.equal((await api('GET', `/v1/conversations/${conversationId}`)).body.data.status, 'pending');
  // The rule's own status change (to pending) started no status rule: only the person's did.
  assert.equal((await api('GET', `/v1/automations/${resolved.id}/runs`)).body.data.length, 1);
});

test('no reply for N minutes: the sweep runs once per customer message when the wait has passed (moved clock)', async () => {
  const channel = await officialChannel(server, 'Waiting');
  const waiting = await label('waiting');
  const noReply = await rule({
    trigger: { type: 'no_reply', minutes: 30 },
    conditions: [onChannel(channel.id), { kind: 'business_hours', value: 'open' }],
    actions: [{ type: 'add_label', label_id: waiting.id }],
  });
  const messageId = await customerWrites(server, channel.id, customer(), 'text', { body: 'anyone?' });
  const { conversation_id: conversationId } = await conversationOf(messageId);
  await handlers()['automations.no-reply']({}, {} as never);
  const runsHere = async () =>
    (await api('GET', `/v1/automations/${noReply.id}/runs`)).body.data.filter(
      (r: { conversation_id: string }) => r.conversation_id === conversationId,
    );
  assert.equal((await runsHere()).length, 0, 'not before 30 minutes');
  clock.advance(31 * 60_000);
  await handlers()['automations.no-reply']({}, {} as never);
  await handlers()['automations.no-reply']({}, {} as never);
  const runs = await runsHere();
  assert.equal(runs.length, 1, 'once per customer message');
  assert.equal(runs[0].matched, true);
  assert.equal(runs[0].trigger, 'no_reply');
  assert.equal(runs[0].event_id, null);
  const conversation = (await api('GET', `/v1/conversations/${conversationId}`)).body.data;
  assert.deepEqual(
    conversation.labels.map((l: { id: string }) => l.id),
    [waiting.id],
  );
});

test('broadcast reply and move deal: a customer answering a broadcast’s message moves their deal', async () => {
  const channel = await officialChannel(server, 'Promo');
  const from = customer();
  const firstId = await customerWrites(server, channel.id, from, 'text', { body: 'hi' });
  const { conversation_id: conversationId, contact_id: contactId } = await conversationOf(firstId);
  const pipeline = (await api('GET', '/v1/pipelines')).body.data[0];
  const stages = pipeline.stages as Array<{ id: string }>;
  const deal = await created('/v1/deals', {
    name: 'Promo deal',
    contact_ids: [contactId],
    pipeline_id: pipeline.id,
    stage_id: stages[0]!.id,
  });
  const replied = await rule({
    trigger: { type: 'broadcast_reply' },
    conditions: [onChannel(channel.id)],
    actions: [{ type: 'move_deal', stage_id: stages[1]!.id }],
  });
  // The business's broadcast message in the conversation (the broadcast runner's own test sends them;
  // here the message the API sends is marked as a broadcast's).
  const sent = await api('POST', '/v1/messages', { channel_id: channel.id, to: `+${from}`, type: 'text', content: { body: 'Sale!' } });
  assert.equal(sent.status, 201, sent.text);
  await queryRows(db(), sql`update messages set broadcast_id = ${deal.id} where id = ${sent.body.data.id}`);
  await customerWrites(server, channel.id, from, 'text', { body: 'I am interested' });
  const [run] = await runsOf(replied.id);
  assert.equal(run!.conversation_id, conversationId);
  assert.equal(run!.actions[0].status, 'done', JSON.stringify(run));
  assert.equal((await api('GET', `/v1/deals/${deal.id}`)).body.data.stage_id, stages[1]!.id);
});

test('loop guard: at most 3 automated messages per conversation per hour; a template is sent through the messages path', async () => {
  const channel = await officialChannel(server, 'Chatty');
  const template = await approvedTemplate(server, channel.id, `auto_thanks_${++number}`, 'en_US', [
    { type: 'BODY', text: 'We got your message' },
  ]);
  const chatty = await rule({
    trigger: { type: 'message_received' },
    conditions: [onChannel(channel.id)],
    actions: [
      { type: 'send_template', template },
      { type: 'send_text', text: 'two' },
      { type: 'send_text', text: 'three' },
      { type: 'send_text', text: 'four' },
    ],
  });
  const from = customer();
  const messageId = await customerWrites(server, channel.id, from, 'text', { body: 'hi' });
  const { conversation_id: conversationId } = await conversationOf(messageId);
  const [run] = await runsOf(chatty.id);
  assert.deepEqual(
    run!.actions.map((a: { status: string }) => a.status),
    ['done', 'done', 'done', 'skipped'],
    JSON.stringify(run!.actions),
  );
  assert.match(run!.actions[3].detail, /loop guard/);
  assert.equal(run!.automated_messages, 3);
  // The next message within the hour: nothing more is sent; an hour on, the guard lets messages through again.
  await customerWrites(server, channel.id, from, 'text', { body: 'again' });
  const runs = await runsOf(chatty.id, 2);
  assert.ok(runs[0]!.actions.every((a: { status: string }) => a.status === 'skipped'));
  clock.advance(61 * 60_000);
  await customerWrites(server, channel.id, from, 'text', { body: 'later' });
  const later = await runsOf(chatty.id, 3);
  assert.equal(later[0]!.automated_messages, 3);
  assert.ok((await outbound(conversationId)).filter((b) => b === 'two').length === 2);
});

test('dry run: which conditions hold and what would be done, with nothing done', async () => {
  const channel = await officialChannel(server, 'Dry');
  const tag = await label('dry');
  const dry = await rule({
    enabled: false,
    trigger: { type: 'message_received' },
    conditions: [onChannel(channel.id), { kind: 'message', op: 'contains', value: 'price' }],
    actions: [
      { type: 'add_label', label_id: tag.id },
      { type: 'send_text', text: 'Our prices: …' },
    ],
  });
  const messageId = await customerWrites(server, channel.id, customer(), 'text', { body: 'What is the price?' });
  const { conversation_id: conversationId } = await conversationOf(messageId);
  const sample = await api('POST', `/v1/automations/${dry.id}/dry-run`, { message: { text: 'no match here' } });
  assert.equal(sample.status, 200, sample.text);
  assert.equal(sample.body.data.matched, false);
  assert.deepEqual(
    sample.body.data.conditions.map((c: { matched: boolean }) => c.matched),
    [false, false],
  );
  const real = await api('POST', `/v1/automations/${dry.id}/dry-run`, { conversation_id: conversationId });
  assert.equal(real.status, 200, real.text);
  assert.equal(real.body.data.matched, true, real.text);
  assert.deepEqual(
    real.body.data.actions.map((a: { type: string; would?: string }) => [a.type, Boolean(a.would)]),
    [
      ['add_label', true],
      ['send_text', true],
    ],
  );
  assert.equal((await api('GET', `/v1/automations/${dry.id}/runs`)).body.data.length, 0, 'a disabled rule does not run');
  assert.deepEqual(await outbound(conversationId), []);
  assert.deepEqual((await api('GET', `/v1/conversations/${conversationId}`)).body.data.labels, []);
  const none = await api('POST', `/v1/automations/${dry.id}/dry-run`, {});
  assert.equal(none.status, 400);
});

test('another organization sees none of it: rules, runs, dry runs, and conversations', async () => {
  const other = await createOtherOrganization(server, 'auto-iso');
  const mine = await rule({ trigger: { type: 'message_received' }, actions: [{ type: 'start_bot' }] });
  const theirs = await created(
    '/v1/automations',
    { name: 'theirs', trigger: { type: 'label_added' }, actions: [{ type: 'start_bot' }] },
    other.apiKey,
  );
  for (const [method, path, body] of [
    ['GET', `/v1/automations/${mine.id}`],
    ['PATCH', `/v1/automations/${mine.id}`, { enabled: false }],
    ['GET', `/v1/automations/${mine.id}/runs`],
    ['POST', `/v1/automations/${mine.id}/dry-run`, { message: { text: 'x' } }],
    ['DELETE', `/v1/automations/${mine.id}`],
  ] as Array<[string, string, unknown?]>) {
    assert.equal((await api(method, path, body, other.apiKey)).status, 404, `${method} ${path}`);
  }
  const listed = (await api('GET', '/v1/automations', undefined, other.apiKey)).body.data.map((r: { id: string }) => r.id);
  assert.deepEqual(listed, [theirs.id]);
  const channel = await officialChannel(server, 'Iso');
  const messageId = await customerWrites(server, channel.id, customer());
  const { conversation_id: conversationId } = await conversationOf(messageId);
  const res = await api('POST', `/v1/automations/${theirs.id}/dry-run`, { conversation_id: conversationId }, other.apiKey);
  assert.equal(res.status, 400);
  assert.equal(res.body.errors[0].pointer, '/conversation_id');
  const got = await api('GET', `/v1/automations/${mine.id}`);
  assert.equal(got.status, 200);
  assert.equal(got.body.data.webhook_secret, undefined, 'the secret is shown on create only');
  assert.equal((await api('DELETE', `/v1/automations/${mine.id}`)).status, 204);
  assert.equal((await api('GET', `/v1/automations/${mine.id}`)).status, 404);
});

test('start_bot hands the conversation to a bot of the organization, as a hand-off would', async () => {
  const channel = await officialChannel(server, 'Bot desk');
  // A keyword no customer writes: only the rule starts it.
  const bot = await created('/v1/bots', {
    name: `Triage ${++number}`,
    url: receiver.url,
    trigger: { type: 'keyword', operator: 'equals', keywords: ['never-typed'] },
  });
  const started = await rule({
    trigger: { type: 'message_received' },
    conditions: [onChannel(channel.id)],
    actions: [{ type: 'start_bot', bot_id: bot.id }],
  });
  const messageId = await customerWrites(server, channel.id, customer(), 'text', { body: 'hello there' });
  const { conversation_id: conversationId } = await conversationOf(messageId);
  const [run] = await runsOf(started.id);
  assert.deepEqual(
    run!.actions.map((a: { type: string; status: string }) => `${a.type}:${a.status}`),
    ['start_bot:done'],
  );
  const owner = await api('GET', `/v1/conversations/${conversationId}/owner`);
  assert.equal(owner.status, 200, owner.text);
  assert.equal(owner.body.data.owner, 'bot');
  assert.equal(owner.body.data.bot_id, bot.id);
});
