/**
 * Satisfaction surveys (GET/PATCH /v1/settings/csat, GET /v1/conversations/{id}/csat-surveys,
 * GET /v1/csat-responses), through the sandbox: off by default; resolving sends the ratings as a list
 * (official) or numbered text (a linked device); a chosen row or a number (with words) rates the
 * conversation, which stays resolved, with csat.submitted and the thanks; anything else opens it; an
 * open survey is not asked again; an expired one takes no answer; nothing is sent outside the window;
 * a bulk resolve asks too; another organization sees and changes nothing.
 */
// stores: both
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { queryRows } from '../../src/db/client.ts';
import { eventually } from '../eventually.ts';
import { createOtherOrganization, movableClock, request, startTestServer, type TestServer } from '../harness.ts';
import { customerWrites, eventsOf, officialChannel, pairedGatewayChannel } from '../messages-helpers.ts';

const clock = movableClock();
let server: TestServer;
let official: { id: string };
let gateway: { id: string };
let number = 0;
/** A new customer's number each time, ending in 55 (the sandbox's scripted endings, 0001 and the like, are left alone). */
const customer = () => `4915130${String(++number).padStart(4, '0')}55`;

before(async () => {
  server = await startTestServer({ worker: true, clock });
  official = await officialChannel(server, 'CSAT official');
  gateway = await pairedGatewayChannel(server, 'CSAT gateway');
});
after(() => server.close());

const settings = (body: unknown, key = server.apiKey) => request(server, 'PATCH', '/v1/settings/csat', { key, body });
const conversationOf = async (messageId: string) =>
  (
    await queryRows<{ conversation_id: string }>(
      server.container.database.db,
      sql`select conversation_id from messages where id = ${messageId}`,
    )
  )[0]!.conversation_id;
const getConversation = async (id: string) => (await request(server, 'GET', `/v1/conversations/${id}`, { key: server.apiKey })).body.data;
const resolve = async (id: string) => {
  const res = await request(server, 'PATCH', `/v1/conversations/${id}`, { key: server.apiKey, body: { status: 'resolved' } });
  assert.equal(res.status, 200, res.text);
};
const surveys = async (conversationId: string) => {
  const res = await request(server, 'GET', `/v1/conversations/${conversationId}/csat-surveys`, { key: server.apiKey });
  assert.equal(res.status, 200, res.text);
  return res.body.data as Array<Record<string, unknown> & { status: string; request_message_id: string | null }>;
};
const surveySettled = (conversationId: string, count = 1) =>
  eventually(`${count} survey(s) sent or refused`, async () => {
    const list = await surveys(conversationId);
    return list.length === count && list.every((s) => s.status !== 'pending') ? list : undefined;
  });
const outbound = async (conversationId: string) =>
  queryRows<{ type: string; content: Record<string, unknown> }>(
    server.container.database.db,
    sql`select type, content from messages where conversation_id = ${conversationId} and direction = 'outbound' order by created_at, id`,
  );

test('settings: off by default, validation names the field and stores nothing', async () => {
  const got = await request(server, 'GET', '/v1/settings/csat', { key: server.apiKey });
  assert.equal(got.status, 200, got.text);
  assert.equal(got.body.data.enabled, false);
  assert.equal(got.body.data.rating_labels.length, 5);
  for (const [body, pointer] of [
    [{ rating_labels: ['a', 'b', 'c'] }, '/rating_labels'],
    [{ expire_hours: 0 }, '/expire_hours'],
    [{ question: '' }, '/question'],
    [{ button_text: 'x'.repeat(21) }, '/button_text'],
    [{ channel_ids: ['not-a-uuid'] }, '/channel_ids/0'],
    [{ enabled: true, surprise: 1 }, ''],
  ] as const) {
    const res = await settings(body);
    assert.equal(res.status, 400, `${JSON.stringify(body)}: ${res.text}`);
    if (pointer) assert.ok(res.text.includes(`"${pointer}"`), `${JSON.stringify(body)} names ${pointer}: ${res.text}`);
  }
  assert.equal((await request(server, 'GET', '/v1/settings/csat', { key: server.apiKey })).body.data.enabled, false);

  // Off: resolving asks nothing.
  const conversation = await conversationOf(await customerWrites(server, official.id, customer()));
  await resolve(conversation);
  assert.deepEqual(await surveys(conversation), []);
});

test('official: a chosen row rates the conversation, which stays resolved, with csat.submitted and the thanks', async () => {
  const on = await settings({ enabled: true, thanks_message: 'Thanks, noted!' });
  assert.equal(on.status, 200, on.text);
  const from = customer();
  const conversation = await conversationOf(await customerWrites(server, official.id, from));
  await resolve(conversation);
  const [survey] = await surveySettled(conversation);
  assert.equal(survey!.status, 'sent', JSON.stringify(survey));
  const [request_] = await outbound(conversation);
  assert.equal(request_!.type, 'list');
  const rows = (request_!.content.sections as Array<{ rows: Array<{ id: string; title: string }> }>)[0]!.rows;
  assert.deepEqual(
    rows.map((r) => r.id),
    ['csat:1', 'csat:2', 'csat:3', 'csat:4', 'csat:5'],
  );
  const unreadBefore = (await getConversation(conversation)).unread_count;
  // The customer can only choose once the list reached them.
  await eventually('the request at the provider', async () => {
    const res = await request(server, 'GET', `/v1/messages/${survey!.request_message_id}/status`, { key: server.apiKey });
    return ['sent', 'delivered', 'read'].includes(res.body.data.status) ? true : undefined;
  });

  const answer = await customerWrites(server, official.id, from, 'interactive', { type: 'list_reply', id: 'csat:4', title: 'Good' });
  const view = await getConversation(conversation);
  assert.equal(view.status, 'resolved', 'an answer leaves the conversation resolved');
  assert.equal(view.unread_count, unreadBefore, 'and is nothing to read');
  assert.equal(view.csat.rating, 4);
  const [answered] = await surveys(conversation);
  assert.equal(answered!.status, 'answered');
  assert.equal(answered!.rating, 4);
  assert.equal(answered!.answer_message_id, answer);
  const submitted = (await eventsOf(server, 'csat.submitted')).map((e) => e.payload).filter((p) => p.conversation_id === conversation);
  assert.equal(submitted.length, 1);
  assert.equal(submitted[0]!.rating, 4);
  assert.equal(submitted[0]!.message_id, answer);
  await eventually('the thanks', async () => {
    const sent = await outbound(conversation);
    return sent.some((m) => m.type === 'text' && m.content.body === 'Thanks, noted!') ? true : undefined;
  });

  // A second choice is no answer any more (the survey is answered): it opens the conversation like any message.
  await customerWrites(server, official.id, from, 'interactive', { type: 'list_reply', id: 'csat:1', title: 'Very poor' });
  assert.equal((await getConversation(conversation)).status, 'open');
  assert.equal((await surveys(conversation))[0]!.rating, 4);
  // Resolved again: a new survey (the last was answered).
  await resolve(conversation);
  assert.equal((await surveySettled(conversation, 2)).length, 2);
});

test('linked device: numbered text; a number with words rates with a comment; other words open it; an open survey is not asked twice', async () => {
  const from = customer();
  const conversation = await conversationOf(await customerWrites(server, gateway.id, from));
  await resolve(conversation);
  const [survey] = await surveySettled(conversation);
  assert.equal(survey!.status, 'sent', JSON.stringify(survey));

  // Not an answer: the conversation opens, the survey still waits; resolving again asks nothing new.
  await customerWrites(server, gateway.id, from, 'text', { body: 'one more question' });
  assert.equal((await getConversation(conversation)).status, 'open');
  await resolve(conversation);
  const after = await surveys(conversation);
  assert.equal(after.length, 1, 'the open survey is not asked again');
  assert.equal((await outbound(conversation)).filter((m) => m.type === 'list').length, 1);

  await customerWrites(server, gateway.id, from, 'text', { body: ' 5 - great service ' });
  const [answered] = await surveys(conversation);
  assert.equal(answered!.status, 'answered');
  assert.equal(answered!.rating, 5);
  assert.equal(answered!.comment, 'great service');
  assert.equal((await getConversation(conversation)).status, 'resolved');

  const filtered = await request(server, 'GET', `/v1/csat-responses?rating=5&channel_id=${gateway.id}`, { key: server.apiKey });
  assert.equal(filtered.status, 200, filtered.text);
  assert.deepEqual(
    filtered.body.data.map((s: { id: string }) => s.id),
    [answered!.id],
  );
  const none = await request(server, 'GET', `/v1/csat-responses?rating=1&rating=2&channel_id=${gateway.id}`, { key: server.apiKey });
  assert.deepEqual(none.body.data, []);
});

test('an expired survey takes no answer; outside the window nothing is sent; a bulk resolve asks too', async () => {
  await settings({ expire_hours: 1 });
  const from = customer();
  const conversation = await conversationOf(await customerWrites(server, official.id, from));
  await resolve(conversation);
  await surveySettled(conversation);
  clock.advance(2 * 3_600_000);
  assert.equal((await surveys(conversation))[0]!.status, 'expired');
  await customerWrites(server, official.id, from, 'text', { body: '3' });
  assert.equal((await getConversation(conversation)).status, 'open', 'a late "3" is an ordinary message');
  assert.equal((await surveys(conversation))[0]!.rating, null);

  // The customer last wrote 25 hours ago: the list would be refused, so nothing is sent.
  const quiet = await conversationOf(await customerWrites(server, official.id, customer()));
  clock.advance(25 * 3_600_000);
  await resolve(quiet);
  const [refused] = await surveySettled(quiet);
  assert.equal(refused!.status, 'not_sent');
  assert.equal(refused!.reason, 'window_closed');
  assert.equal((await outbound(quiet)).length, 0);

  const bulk = await conversationOf(await customerWrites(server, official.id, customer()));
  const res = await request(server, 'POST', '/v1/conversations/bulk', {
    key: server.apiKey,
    body: { action: 'resolve', ids: [bulk] },
  });
  assert.equal(res.status, 200, res.text);
  assert.equal((await surveySettled(bulk))[0]!.status, 'sent');
});

test('another organization sees no survey and its settings stay', async () => {
  const other = await createOtherOrganization(server, 'csat');
  const mine = await request(server, 'GET', '/v1/csat-responses', { key: server.apiKey });
  assert.ok(mine.body.data.length >= 2);
  const theirs = await request(server, 'GET', '/v1/csat-responses', { key: other.apiKey });
  assert.equal(theirs.status, 200, theirs.text);
  assert.deepEqual(theirs.body.data, []);
  const changed = await settings({ enabled: false }, other.apiKey);
  assert.equal(changed.status, 200, changed.text);
  assert.equal((await request(server, 'GET', '/v1/settings/csat', { key: server.apiKey })).body.data.enabled, true);
  const survey = mine.body.data[0] as { conversation_id: string };
  const hidden = await request(server, 'GET', `/v1/conversations/${survey.conversation_id}/csat-surveys`, { key: other.apiKey });
  assert.equal(hidden.status, 404, hidden.text);
});
