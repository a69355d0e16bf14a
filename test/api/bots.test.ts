/**
 * Bots (/v1/bots, POST /v1/conversations/{id}/handoff, GET /v1/conversations/{id}/owner), through the
 * sandbox and a bot on a loopback receiver: a signed delivery verified with standardwebhooks and an
 * answer through the API; several messages within the debounce as one delivery; a keyword trigger; the
 * stop keyword with keep_open either way; expiry by the moved clock; a member's reply and an assignment
 * taking the conversation from the bot, durably; hand-offs both ways; no away message while a bot owns
 * the conversation; another organization's bots and conversations are 404. Each test has a channel of
 * its own, so one test's bot never takes another's conversations.
 */
// stores: both
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { Webhook } from 'standardwebhooks';
import { queryRows } from '../../src/db/client.ts';
import { expireBotSessions } from '../../src/domain/bots/sessions.ts';
import { eventually } from '../eventually.ts';
import { createOtherOrganization, loginCookie, movableClock, request, startTestServer, type TestServer } from '../harness.ts';
import { customerWrites, eventsOf, officialChannel } from '../messages-helpers.ts';
import { startReceiver, type Receiver } from '../webhook-receiver.ts';

const clock = movableClock();
let server: TestServer;
let receiver: Receiver;
let number = 0;
let otherOrg: Awaited<ReturnType<typeof createOtherOrganization>> | undefined;
/** The second organization, made once (its owner's password hash is slow on a loaded machine). */
const otherOrganization = async () => (otherOrg ??= await createOtherOrganization(server, 'bots'));
/** A new customer's number each time. */
const customer = () => `4915130${String(++number).padStart(6, '0')}`;

before(async () => {
  server = await startTestServer({ worker: true, clock });
  receiver = await startReceiver('/bot');
});
after(async () => {
  await receiver.close();
  await server.close();
});

type Delivery = {
  type: string;
  delivery_id: string;
  bot_id: string;
  session_id: string;
  conversation: { id: string; channel_id: string; peer_phone: string; contact: { id: string; name: string | null; phone: string } | null };
  reply: { channel_id: string; to: string; conversation_id: string; handoff_path: string };
  messages: Array<{ id: string; type: string; content: { body?: string } }>;
};

const deliveries = (botId: string): Delivery[] =>
  receiver.requests.map((r) => JSON.parse(r.body) as Delivery).filter((d) => d.bot_id === botId);
const deliveriesEventually = (botId: string, count: number) =>
  eventually(`${count} deliveries to the bot`, () => {
    const got = deliveries(botId);
    return got.length >= count ? got : undefined;
  });

async function createBot(body: Record<string, unknown>, key = server.apiKey) {
  const res = await request(server, 'POST', '/v1/bots', { key, body: { name: 'Bot', url: receiver.url, ...body } });
  assert.equal(res.status, 201, res.text);
  return res.body.data as { id: string; secret: string };
}
const patchBot = (id: string, body: unknown) => request(server, 'PATCH', `/v1/bots/${id}`, { key: server.apiKey, body });

async function conversationOf(messageId: string): Promise<string> {
  const [row] = await queryRows<{ conversation_id: string }>(
    server.container.database.db,
    sql`select conversation_id from messages where id = ${messageId}`,
  );
  return row!.conversation_id;
}
async function owner(conversationId: string, key = server.apiKey) {
  const res = await request(server, 'GET', `/v1/conversations/${conversationId}/owner`, { key });
  assert.equal(res.status, 200, res.text);
  return res.body.data as { owner: 'bot' | 'human'; bot_id: string | null };
}
/** The deliveries a message went into (decided in the transaction that stored it). */
async function deliveriesOf(messageId: string): Promise<number> {
  const [row] = await queryRows<{ n: number | string }>(
    server.container.database.db,
    sql`select count(*) as n from bot_deliveries where ${messageId}::uuid = any(message_ids)`,
  );
  return Number(row!.n);
}
async function endedSessions(conversationId: string) {
  const rows = await eventsOf(server, 'bot.session_ended');
  return rows.map((r) => r.payload).filter((p) => p.conversation_id === conversationId);
}
const handoff = (conversationId: string, body: unknown, key = server.apiKey) =>
  request(server, 'POST', `/v1/conversations/${conversationId}/handoff`, { key, body });

test('create, list, get, change; the secret shown once; validation names the field', async () => {
  const channel = await officialChannel(server, 'Bots CRUD');
  const other = await otherOrganization();
  const theirChannel = (
    await request(server, 'POST', '/v1/channels', { key: other.apiKey, body: { platform: 'chatapp_official', name: 'X' } })
  ).body.data.id as string;
  const cases: Array<[Record<string, unknown>, string]> = [
    [{ trigger: { type: 'keyword', operator: 'regex', keywords: ['(a+)+$'] } }, '/trigger/keywords/0'],
    [{ trigger: { type: 'keyword', operator: 'regex', keywords: ['ok', '(unclosed'] } }, '/trigger/keywords/1'],
    [{ trigger: { type: 'keyword', operator: 'contains', keywords: [] } }, '/trigger/keywords'],
    [{ trigger: { type: 'all', keywords: ['x'] } }, '/trigger/keywords'],
    [{ trigger: { type: 'all' }, channel_ids: [channel.id, theirChannel] }, '/channel_ids/1'],
    [{ trigger: { type: 'all' }, url: 'ftp://bot.example.com/' }, '/url'],
    [{ trigger: { type: 'sometimes' } }, '/trigger/type'],
    [{ trigger: { type: 'all' }, debounce_ms: -1 }, '/debounce_ms'],
  ];
  for (const [body, pointer] of cases) {
    const res = await request(server, 'POST', '/v1/bots', { key: server.apiKey, body: { name: 'Bad', url: receiver.url, ...body } });
    assert.equal(res.status, 400, `${JSON.stringify(body)}: ${res.text}`);
    assert.ok(res.text.includes(`"${pointer}"`), `${JSON.stringify(body)} names ${pointer}: ${res.text}`);
  }
  const created = await createBot({
    name: 'Orders',
    channel_ids: [channel.id],
    trigger: { type: 'keyword', operator: 'starts_with', keywords: [' Order ', 'order'] },
    expire_minutes: 15,
  });
  assert.match(created.secret, /^whsec_/);
  const got = await request(server, 'GET', `/v1/bots/${created.id}`, { key: server.apiKey });
  assert.equal(got.status, 200, got.text);
  assert.equal(got.body.data.secret, undefined, 'the secret is shown once');
  assert.deepEqual(got.body.data.trigger, { type: 'keyword', operator: 'starts_with', keywords: ['Order', 'order'] });
  assert.equal(got.body.data.stop_keyword, '#stop');
  assert.equal(got.body.data.keep_open, true);
  const listed = await request(server, 'GET', '/v1/bots', { key: server.apiKey });
  assert.ok(!listed.text.includes(created.secret), 'never listed');
  assert.ok(listed.body.data.some((b: { id: string }) => b.id === created.id));
  const changed = await patchBot(created.id, { stop_keyword: null, enabled: false });
  assert.equal(changed.status, 200, changed.text);
  assert.equal(changed.body.data.stop_keyword, null);
  assert.equal(changed.body.data.enabled, false);
  const deleted = await request(server, 'DELETE', `/v1/bots/${created.id}`, { key: server.apiKey });
  assert.equal(deleted.status, 204, deleted.text);
  assert.equal((await request(server, 'GET', `/v1/bots/${created.id}`, { key: server.apiKey })).status, 404);
  // Another organization lists none of them.
  assert.equal((await request(server, 'GET', '/v1/bots', { key: other.apiKey })).body.data.length, 0);
});

test('a bot gets a signed delivery and answers through the API; its own reply keeps it', async () => {
  const channel = await officialChannel(server, 'Bots signed');
  const bot = await createBot({ trigger: { type: 'all' }, channel_ids: [channel.id] });
  const from = customer();
  const first = await customerWrites(server, channel.id, from, 'text', { body: 'hi there' });
  const conversationId = await conversationOf(first);
  const [delivery] = await deliveriesEventually(bot.id, 1);
  const request0 = receiver.requests.find((r) => (JSON.parse(r.body) as Delivery).bot_id === bot.id)!;
  // Verified as a bot would: Standard Webhooks over the raw body, with the secret shown at creation.
  const verified = new Webhook(bot.secret).verify(request0.body, {
    'webhook-id': String(request0.headers['webhook-id']),
    'webhook-timestamp': String(request0.headers['webhook-timestamp']),
    'webhook-signature': String(request0.headers['webhook-signature']),
  }) as Delivery;
  assert.equal(verified.delivery_id, request0.headers['webhook-id'], 'the delivery id is the webhook-id the bot dedupes by');
  assert.equal(request0.headers['webhook-event-type'], 'bot.messages');
  assert.equal(delivery!.conversation.id, conversationId);
  assert.equal(delivery!.conversation.channel_id, channel.id);
  assert.equal(delivery!.conversation.contact?.phone, `+${from}`);
  assert.deepEqual(
    delivery!.messages.map((m) => [m.id, m.content.body]),
    [[first, 'hi there']],
  );
  // The bot answers with an ordinary API call (an API key: automated, so the bot keeps the conversation).
  const answer = await request(server, 'POST', '/v1/messages', {
    key: server.apiKey,
    body: { ...delivery!.reply, handoff_path: undefined, type: 'text', content: { body: 'Hello! How can I help?' } },
  });
  assert.equal(answer.status, 201, answer.text);
  assert.equal(answer.body.data.conversation_id, conversationId);
  const owned = await owner(conversationId);
  assert.equal(owned.owner, 'bot');
  assert.equal(owned.bot_id, bot.id);
  const started = (await eventsOf(server, 'bot.session_started')).map((e) => e.payload).filter((p) => p.conversation_id === conversationId);
  assert.equal(started.length, 1);
  assert.equal(started[0]!.started_by, 'trigger');
  const conversation = await request(server, 'GET', `/v1/conversations/${conversationId}`, { key: server.apiKey });
  assert.equal(conversation.body.data.bot_id, bot.id);
  assert.equal((await patchBot(bot.id, { enabled: false })).status, 200);
  assert.deepEqual(
    (await endedSessions(conversationId)).map((p) => p.reason),
    ['bot_disabled'],
  );
});

test('several messages within the debounce go as one delivery', async () => {
  const channel = await officialChannel(server, 'Bots debounce');
  const bot = await createBot({ trigger: { type: 'all' }, channel_ids: [channel.id], debounce_ms: 3000 });
  const from = customer();
  const ids = [];
  for (const body of ['I ordered', 'a blue lamp', 'where is it?'])
    ids.push(await customerWrites(server, channel.id, from, 'text', { body }));
  const [delivery] = await deliveriesEventually(bot.id, 1);
  assert.deepEqual(
    delivery!.messages.map((m) => m.id),
    ids,
  );
  // The next message after it went is a delivery of its own.
  const later = await customerWrites(server, channel.id, from, 'text', { body: 'hello?' });
  const all = await deliveriesEventually(bot.id, 2);
  assert.deepEqual(
    all[1]!.messages.map((m) => m.id),
    [later],
  );
  assert.notEqual(all[0]!.delivery_id, all[1]!.delivery_id);
  assert.equal((await patchBot(bot.id, { enabled: false })).status, 200);
});

test('a keyword trigger; the stop keyword ends the session, and keep_open says whether the trigger may start it again', async () => {
  const channel = await officialChannel(server, 'Bots keyword');
  const bot = await createBot({
    trigger: { type: 'keyword', operator: 'contains', keywords: ['order'] },
    channel_ids: [channel.id],
    stop_keyword: '#stop',
  });
  const from = customer();
  const hello = await customerWrites(server, channel.id, from, 'text', { body: 'hello' });
  const conversationId = await conversationOf(hello);
  assert.equal(await deliveriesOf(hello), 0, 'no keyword: no bot');
  assert.equal((await owner(conversationId)).owner, 'human');
  const asks = await customerWrites(server, channel.id, from, 'text', { body: 'Where is my ORDER?' });
  assert.equal((await owner(conversationId)).bot_id, bot.id);
  const [delivery] = await deliveriesEventually(bot.id, 1);
  assert.deepEqual(
    delivery!.messages.map((m) => m.id),
    [asks],
  );
  const stop = await customerWrites(server, channel.id, from, 'text', { body: ' #STOP ' });
  assert.equal(await deliveriesOf(stop), 0, 'the stop keyword is not delivered');
  assert.equal((await owner(conversationId)).owner, 'human');
  assert.deepEqual(
    (await endedSessions(conversationId)).map((p) => p.reason),
    ['stop_keyword'],
  );
  // keep_open (the default): the conversation stays with people.
  const again = await customerWrites(server, channel.id, from, 'text', { body: 'order again' });
  assert.equal(await deliveriesOf(again), 0);
  assert.equal((await owner(conversationId)).owner, 'human');
  // keep_open false: the next matching message starts a new session.
  assert.equal((await patchBot(bot.id, { keep_open: false })).status, 200);
  const other = customer();
  const starts = await customerWrites(server, channel.id, other, 'text', { body: 'my order' });
  const otherConversation = await conversationOf(starts);
  await customerWrites(server, channel.id, other, 'text', { body: '#stop' });
  assert.equal((await owner(otherConversation)).owner, 'human');
  const restarts = await customerWrites(server, channel.id, other, 'text', { body: 'order, please' });
  assert.equal(await deliveriesOf(restarts), 1);
  assert.equal((await owner(otherConversation)).bot_id, bot.id);
  assert.equal((await patchBot(bot.id, { enabled: false })).status, 200);
});

test('a member’s reply takes the conversation from the bot, durably; the away message is not sent while a bot owns it', async () => {
  const channel = await officialChannel(server, 'Bots human');
  const bot = await createBot({ trigger: { type: 'all' }, channel_ids: [channel.id] });
  // Always closed (no weekday open), with an away message.
  const hours = await request(server, 'PATCH', '/v1/settings/business-hours', {
    key: server.apiKey,
    body: { weekly_hours: {}, away_message: 'We are closed.' },
  });
  assert.equal(hours.status, 200, hours.text);
  const from = customer();
  const first = await customerWrites(server, channel.id, from, 'text', { body: 'anyone?' });
  const conversationId = await conversationOf(first);
  assert.equal((await owner(conversationId)).bot_id, bot.id);
  const autoReplies = async (messageId: string) =>
    Number(
      (
        await queryRows<{ n: number | string }>(
          server.container.database.db,
          sql`select count(*) as n from pgboss.job where name = 'conversation.auto-reply' and data->>'message_id' = ${messageId}`,
        )
      )[0]!.n,
    );
  assert.equal(await autoReplies(first), 0, 'no away message while the bot owns it');
  await deliveriesEventually(bot.id, 1);
  // A member replies from the dashboard (a session: a person, not an automated key).
  const cookie = await loginCookie(server);
  const reply = await request(server, 'POST', '/v1/messages', {
    cookie,
    body: { channel_id: channel.id, to: `+${from}`, type: 'text', content: { body: 'Hi, Ana here.' } },
  });
  assert.equal(reply.status, 201, reply.text);
  assert.equal((await owner(conversationId)).owner, 'human');
  assert.deepEqual(
    (await endedSessions(conversationId)).map((p) => p.reason),
    ['human_took_over'],
  );
  // The customer writes on: the bot does not come back, and the away message goes now that people own it.
  const next = await customerWrites(server, channel.id, from, 'text', { body: 'thanks' });
  assert.equal(await deliveriesOf(next), 0);
  assert.equal((await owner(conversationId)).owner, 'human');
  assert.equal(await autoReplies(next), 1);
  const third = await customerWrites(server, channel.id, from, 'text', { body: 'one more' });
  assert.equal(await deliveriesOf(third), 0, 'durably');
  assert.equal(
    (
      await request(server, 'PATCH', '/v1/settings/business-hours', {
        key: server.apiKey,
        body: { weekly_hours: null, away_message: null },
      })
    ).status,
    200,
  );
  assert.equal((await patchBot(bot.id, { enabled: false })).status, 200);
});

test('an assignment to a member takes the conversation from the bot', async () => {
  const channel = await officialChannel(server, 'Bots assign');
  const bot = await createBot({ trigger: { type: 'all' }, channel_ids: [channel.id] });
  const first = await customerWrites(server, channel.id, customer(), 'text', { body: 'help' });
  const conversationId = await conversationOf(first);
  assert.equal((await owner(conversationId)).bot_id, bot.id);
  const me = await request(server, 'GET', '/v1/auth/session', { cookie: await loginCookie(server) });
  assert.equal(me.status, 200, me.text);
  const userId = me.body.data.user.id as string;
  const assigned = await request(server, 'PATCH', `/v1/conversations/${conversationId}`, {
    key: server.apiKey,
    body: { assignee_user_id: userId },
  });
  assert.equal(assigned.status, 200, assigned.text);
  assert.equal(assigned.body.data.bot_id, null);
  assert.deepEqual(
    (await endedSessions(conversationId)).map((p) => p.reason),
    ['human_took_over'],
  );
  assert.equal((await patchBot(bot.id, { enabled: false })).status, 200);
});

test('hand-offs both ways: to a bot, and the bot handing back to people', async () => {
  const channel = await officialChannel(server, 'Bots handoff');
  const bot = await createBot({ trigger: { type: 'keyword', operator: 'equals', keywords: ['bot please'] }, channel_ids: [channel.id] });
  const from = customer();
  const first = await customerWrites(server, channel.id, from, 'text', { body: 'hello' });
  const conversationId = await conversationOf(first);
  assert.equal((await owner(conversationId)).owner, 'human');
  const missing = await handoff(conversationId, { to: 'bot' });
  assert.equal(missing.status, 400, missing.text);
  assert.ok(missing.text.includes('"/bot_id"'), missing.text);
  const toBot = await handoff(conversationId, { to: 'bot', bot_id: bot.id });
  assert.equal(toBot.status, 200, toBot.text);
  assert.equal(toBot.body.data.owner, 'bot');
  assert.equal(toBot.body.data.bot_id, bot.id);
  const asks = await customerWrites(server, channel.id, from, 'text', { body: 'do you ship abroad?' });
  assert.equal(await deliveriesOf(asks), 1, 'the bot now gets the customer’s messages');
  // The bot hands off with its key (an API key).
  const back = await handoff(conversationId, { to: 'human' });
  assert.equal(back.status, 200, back.text);
  assert.deepEqual(back.body.data, { conversation_id: conversationId, owner: 'human', bot_id: null, session: null });
  const reasons = (await endedSessions(conversationId)).map((p) => p.reason);
  assert.deepEqual(reasons, ['handoff']);
  const handoffs = (await eventsOf(server, 'conversation.handoff'))
    .map((e) => e.payload)
    .filter((p) => p.conversation_id === conversationId);
  assert.deepEqual(
    handoffs.map((p) => [p.to, p.bot_id, p.previous_bot_id]),
    [
      ['bot', bot.id, null],
      ['human', null, bot.id],
    ],
  );
  const after = await customerWrites(server, channel.id, from, 'text', { body: 'bot please' });
  assert.equal(await deliveriesOf(after), 0, 'keep_open: the trigger does not take it back');
  // A disabled bot takes nothing.
  assert.equal((await patchBot(bot.id, { enabled: false })).status, 200);
  assert.equal((await handoff(conversationId, { to: 'bot', bot_id: bot.id })).status, 409);
});

test('a session expires after expire_minutes without a customer message (the moved clock)', async () => {
  const channel = await officialChannel(server, 'Bots expiry');
  const bot = await createBot({ trigger: { type: 'all' }, channel_ids: [channel.id], expire_minutes: 10 });
  const from = customer();
  const first = await customerWrites(server, channel.id, from, 'text', { body: 'hi' });
  const conversationId = await conversationOf(first);
  assert.equal((await owner(conversationId)).bot_id, bot.id);
  clock.advance(9 * 60_000);
  assert.equal(await expireBotSessions({ db: server.container.database.db, clock }), 0, 'not yet');
  // A customer message moves the expiry on.
  await customerWrites(server, channel.id, from, 'text', { body: 'still here' });
  clock.advance(9 * 60_000);
  assert.equal(await expireBotSessions({ db: server.container.database.db, clock }), 0);
  clock.advance(2 * 60_000);
  assert.equal(await expireBotSessions({ db: server.container.database.db, clock }), 1);
  assert.equal((await owner(conversationId)).owner, 'human');
  assert.deepEqual(
    (await endedSessions(conversationId)).map((p) => p.reason),
    ['expired'],
  );
  // Expired is not people's: the trigger starts a new session.
  const back = await customerWrites(server, channel.id, from, 'text', { body: 'hello again' });
  assert.equal(await deliveriesOf(back), 1);
  assert.equal((await owner(conversationId)).bot_id, bot.id);
  // Without the job: a message after the expiry ends the old session and starts another.
  clock.advance(11 * 60_000);
  const late = await customerWrites(server, channel.id, from, 'text', { body: 'late' });
  assert.equal(await deliveriesOf(late), 1);
  assert.deepEqual(
    (await endedSessions(conversationId)).map((p) => p.reason),
    ['expired', 'expired'],
  );
  assert.equal((await patchBot(bot.id, { enabled: false })).status, 200);
});

test("another organization's bots and conversations are 404", async () => {
  const channel = await officialChannel(server, 'Bots isolation');
  const bot = await createBot({ trigger: { type: 'all' }, channel_ids: [channel.id], enabled: false });
  const conversationId = await conversationOf(await customerWrites(server, channel.id, customer(), 'text', { body: 'hi' }));
  const other = await otherOrganization();
  for (const [method, path, body] of [
    ['GET', `/v1/bots/${bot.id}`, undefined],
    ['PATCH', `/v1/bots/${bot.id}`, { enabled: true }],
    ['DELETE', `/v1/bots/${bot.id}`, undefined],
    ['GET', `/v1/conversations/${conversationId}/owner`, undefined],
    ['POST', `/v1/conversations/${conversationId}/handoff`, { to: 'human' }],
  ] as const) {
    const res = await request(server, method, path, { key: other.apiKey, ...(body ? { body } : {}) });
    assert.equal(res.status, 404, `${method} ${path}: ${res.text}`);
  }
  assert.equal((await request(server, 'GET', `/v1/bots/${bot.id}`, { key: server.apiKey })).body.data.enabled, false, 'unchanged');
  // Their bot is no bot of ours to hand to.
  const theirs = await request(server, 'POST', '/v1/bots', {
    key: other.apiKey,
    body: { name: 'Theirs', url: receiver.url, trigger: { type: 'all' } },
  });
  assert.equal(theirs.status, 201, theirs.text);
  const res = await handoff(conversationId, { to: 'bot', bot_id: theirs.body.data.id });
  assert.equal(res.status, 400, res.text);
  assert.ok(res.text.includes('"/bot_id"'), res.text);
  assert.equal((await owner(conversationId)).owner, 'human');
});
