/**
 * What a linked-device session reports beyond messages and statuses, end to end over HTTP through the
 * gateway protocol (the sandbox gateway's /sandbox/echo, /edit and /delete, and callbacks signed as a
 * gateway would): the business's own messages from its phone (echoes), edits and deletions. Each is
 * stored once by the provider's id, whatever the number of deliveries.
 */
import assert from 'node:assert/strict';
import { createHash, randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import { eq, sql } from 'drizzle-orm';
import { queryRows } from '../../src/db/client.ts';
import { channels } from '../../src/db/schema.ts';
import { signBody } from '../../src/providers/signature.ts';
import { eventually } from '../eventually.ts';
import { request, startTestServer, type TestServer } from '../harness.ts';
import { customerWrites, eventsOf, pairedGatewayChannel, send, waitForStatus } from '../messages-helpers.ts';

let server: TestServer;
let channelId: string;
/** Posts a gateway callback for the channel, signed with its callback secret, as its gateway would; each post is a new delivery. */
let report: (event: string, payload: Record<string, unknown>, at?: Date) => Promise<void>;

before(async () => {
  server = await startTestServer({ worker: true, env: { SANDBOX_STATUS_DELAY_MS: '30' } });
  channelId = (await pairedGatewayChannel(server, 'Phone')).id;
  const [row] = await server.container.database.db.select().from(channels).where(eq(channels.id, channelId));
  const secret = (JSON.parse(server.container.sealer.open(row!.credentialsEncrypted!)) as { callback_secret: string }).callback_secret;
  const session = (row!.settings as { session: string }).session;
  report = async (event, payload, at = new Date()) => {
    const body = JSON.stringify({ event, session, timestamp: at.toISOString(), payload });
    const res = await request(server, 'POST', `/v1/providers/chatapp_unofficial/webhook/${channelId}`, {
      rawBody: body,
      headers: { 'x-gateway-signature': signBody(secret, body), 'x-gateway-event-id': randomUUID() },
    });
    assert.equal(res.status, 200, res.text);
  };
});
after(() => server.close());

const db = () => server.container.database.db;
/** Every delivery of the channel applied (or given up on). */
const settled = () =>
  eventually('the deliveries applied', async () => {
    const [row] = await queryRows<{ pending: number }>(
      db(),
      sql`select count(*)::int as pending from provider_events where channel_id = ${channelId} and processed_at is null`,
    );
    return row!.pending === 0 ? true : undefined;
  });
const rowsWith = (providerId: string) =>
  queryRows<{ id: string; direction: string; dispatch_at: Date | null; attempts: number }>(
    db(),
    sql`select id, direction, dispatch_at, attempts from messages where channel_id = ${channelId} and provider_message_id = ${providerId}`,
  );
const message = async (id: string) => (await request(server, 'GET', `/v1/messages/${id}`, { key: server.apiKey })).body.data;
const eventsFor = async (type: string, id: string) =>
  (await eventsOf(server, type)).filter((e) => e.payload.message_id === id).map((e) => e.payload);

async function phoneSends(to: string, body: string): Promise<{ providerId: string; id: string }> {
  const res = await request(server, 'POST', '/sandbox/echo', {
    key: server.apiKey,
    body: { channel_id: channelId, to, type: 'text', content: { body } },
  });
  assert.equal(res.status, 202, res.text);
  const providerId = res.body.provider_message_id as string;
  const id = await eventually('the echo', async () => (await rowsWith(providerId))[0]?.id);
  return { providerId, id };
}

test("a message the business sent from its phone appears in the customer's conversation once, as sent", async () => {
  const to = '4915112340101';
  const { providerId, id } = await phoneSends(to, 'We open at 9 tomorrow');
  const got = await message(id);
  assert.deepEqual(
    [got.direction, got.status, got.to, got.type, got.content, got.provider_message_id, got.edited_at, got.deleted_at],
    ['outbound', 'sent', to, 'text', { body: 'We open at 9 tomorrow' }, providerId, null, null],
  );
  const [row] = await rowsWith(providerId);
  assert.deepEqual([row!.dispatch_at, row!.attempts], [null, 0], 'never dispatched: the phone sent it');
  const history = (await request(server, 'GET', `/v1/messages/${id}/status`, { key: server.apiKey })).body.data.history.map(
    (h: { status: string }) => h.status,
  );
  assert.deepEqual(history, ['sent']);

  const conversations = (await request(server, 'GET', `/v1/conversations?channel_id=${channelId}&q=${to}`, { key: server.apiKey })).body
    .data;
  assert.equal(conversations.length, 1);
  assert.deepEqual(
    [conversations[0].last_message_preview, conversations[0].unread_count],
    ['We open at 9 tomorrow', 0],
    'an echo is nothing unread',
  );
  const thread = (await request(server, 'GET', `/v1/conversations/${conversations[0].id}/messages`, { key: server.apiKey })).body.data;
  assert.deepEqual(
    thread.map((m: { id: string }) => m.id),
    [id],
  );

  const [created] = await eventsFor('message.new', id);
  assert.deepEqual([created?.direction, created?.msg_type], ['outbound', 'text']);
  assert.equal((await eventsFor('message.sent', id)).length, 1);
  assert.deepEqual(
    (await eventsFor('message.status_update', id)).map((e) => e.status),
    ['sent'],
  );

  // The gateway delivers it again (a retry with a new delivery id, or the library reporting it twice): nothing new.
  await report('message.echo', { id: providerId, to, type: 'text', content: { body: 'We open at 9 tomorrow' } });
  await report('message.echo', { id: providerId, to, type: 'text', content: { body: 'We open at 9 tomorrow' } });
  await settled();
  assert.equal((await rowsWith(providerId)).length, 1);
  assert.equal((await eventsFor('message.new', id)).length, 1);
  assert.equal((await eventsFor('message.sent', id)).length, 1);

  // Its acks arrive out of order: the status only moves forward, and the history reads forward.
  await report('message.status', { id: providerId, status: 'read' });
  await report('message.status', { id: providerId, status: 'delivered' });
  await settled();
  const after = (await request(server, 'GET', `/v1/messages/${id}/status`, { key: server.apiKey })).body.data;
  assert.equal(after.status, 'read');
  assert.deepEqual(
    after.history.map((h: { status: string }) => h.status),
    ['sent', 'delivered', 'read'],
  );
});

test("an echo of Parley's own send stores nothing new", async () => {
  const res = await send(server, { channel_id: channelId, to: '4915112340102', type: 'text', content: { body: 'from the API' } });
  assert.equal(res.status, 201, res.text);
  const sent = await waitForStatus(server, res.body.data.id, 'read');
  await report('message.echo', { id: sent.provider_message_id, to: '4915112340102', type: 'text', content: { body: 'from the API' } });
  await settled();
  const rows = await rowsWith(sent.provider_message_id);
  assert.deepEqual(
    rows.map((r) => r.id),
    [res.body.data.id],
  );
  const echoes = (await eventsOf(server, 'message.new')).filter((e) => e.payload.conversation_id === res.body.data.conversation_id);
  assert.deepEqual(echoes, [], 'no message.new for it');
});

test("a customer's edit changes the text and keeps when; an older edit arriving late changes nothing", async () => {
  const from = '4915112340103';
  const id = await customerWrites(server, channelId, from, 'text', { body: 'I ordered 3 chairs' });
  const providerId = (await message(id)).provider_message_id as string;
  const edited = await request(server, 'POST', '/sandbox/edit', {
    key: server.apiKey,
    body: { channel_id: channelId, message_id: providerId, body: 'I ordered 4 chairs' },
  });
  assert.equal(edited.status, 202, edited.text);
  const got = await eventually('the edit', async () => {
    const m = await message(id);
    return m.edited_at ? m : undefined;
  });
  assert.deepEqual([got.content.body, got.direction, got.deleted_at], ['I ordered 4 chairs', 'inbound', null]);
  const [event] = await eventsFor('message.edited', id);
  assert.deepEqual([event?.direction, event?.edited_at, event?.conversation_id], ['inbound', got.edited_at, got.conversation_id]);

  await report('message.edited', { id: providerId, content: { body: 'I ordered 2 chairs' } }, new Date(Date.parse(got.edited_at) - 60_000));
  await settled();
  const still = await message(id);
  assert.deepEqual([still.content.body, still.edited_at], ['I ordered 4 chairs', got.edited_at]);
  assert.equal((await eventsFor('message.edited', id)).length, 1);
});

test('the business edits, then deletes, a message it sent from its phone; the deletion keeps the record', async () => {
  const { providerId, id } = await phoneSends('4915112340104', 'Price: 10 EUR');
  assert.equal(
    (
      await request(server, 'POST', '/sandbox/edit', {
        key: server.apiKey,
        body: { channel_id: channelId, message_id: providerId, body: 'Price: 12 EUR' },
      })
    ).status,
    202,
  );
  await eventually('the edit', async () => ((await message(id)).content.body === 'Price: 12 EUR' ? true : undefined));
  assert.equal((await eventsFor('message.edited', id))[0]?.direction, 'outbound');

  const deleted = await request(server, 'POST', '/sandbox/delete', {
    key: server.apiKey,
    body: { channel_id: channelId, message_id: providerId },
  });
  assert.equal(deleted.status, 202, deleted.text);
  const got = await eventually('the deletion', async () => {
    const m = await message(id);
    return m.deleted_at ? m : undefined;
  });
  assert.deepEqual([got.content, got.status], [{ body: 'Price: 12 EUR' }, 'sent'], 'the content is kept for the record');
  // Reported again: one event, the first time kept; an edit after the deletion changes nothing.
  await report('message.deleted', { id: providerId });
  await report('message.edited', { id: providerId, content: { body: 'Price: 99 EUR' } }, new Date(Date.now() + 60_000));
  await settled();
  const after = await message(id);
  assert.deepEqual([after.deleted_at, after.content.body], [got.deleted_at, 'Price: 12 EUR']);
  assert.equal((await eventsFor('message.deleted', id)).length, 1);
});

test('a poll vote names the options chosen from the poll Parley sent', async () => {
  const to = '4915112340105';
  const res = await send(server, {
    channel_id: channelId,
    to,
    type: 'poll',
    content: { question: 'Which day?', options: ['Mon', 'Tue', 'Wed'], multiple_answers: true },
  });
  assert.equal(res.status, 201, res.text);
  const poll = await waitForStatus(server, res.body.data.id, 'sent');
  const hash = (o: string) => createHash('sha256').update(o).digest('hex');
  await report('message', {
    id: 'VOTE1',
    from: to,
    type: 'poll_vote',
    content: { poll_id: poll.provider_message_id, selected_option_hashes: [hash('Tue'), hash('Wed')] },
  });
  await report('message', {
    id: 'VOTE2',
    from: to,
    type: 'poll_vote',
    content: { poll_id: 'UNKNOWN', selected_option_hashes: [hash('Tue')] },
  });
  await settled();
  const [vote] = await rowsWith('VOTE1');
  assert.deepEqual((await message(vote!.id)).content, {
    poll_id: poll.provider_message_id,
    poll_message_id: res.body.data.id,
    selected_options: ['Tue', 'Wed'],
  });
  const [unknown] = await rowsWith('VOTE2');
  assert.deepEqual(
    (await message(unknown!.id)).content,
    { poll_id: 'UNKNOWN', selected_option_hashes: [hash('Tue')] },
    'an unknown poll: the hashes are kept',
  );
});

test('the sandbox refuses what a phone could not do, naming the field', async () => {
  const official = await request(server, 'POST', '/v1/channels', {
    key: server.apiKey,
    body: { platform: 'chatapp_official', name: 'Cloud' },
  });
  const cases: Array<[string, Record<string, unknown>, number, RegExp]> = [
    ['/sandbox/echo', { channel_id: channelId, to: 'abc', content: { body: 'x' } }, 400, /to must be/],
    ['/sandbox/echo', { channel_id: channelId, to: '4915112340106', content: {} }, 400, /content\.body/],
    ['/sandbox/echo', { channel_id: official.body.data.id, to: '4915112340106', content: { body: 'x' } }, 400, /gateways only/],
    ['/sandbox/echo', { channel_id: randomUUID(), to: '4915112340106', content: { body: 'x' } }, 404, /sandbox channel/],
    ['/sandbox/edit', { channel_id: channelId, message_id: 'NOPE', body: 'x' }, 404, /message NOPE/],
    ['/sandbox/edit', { channel_id: channelId, message_id: 'NOPE' }, 400, /body must be/],
    ['/sandbox/delete', { channel_id: channelId, message_id: 'NOPE' }, 404, /message NOPE/],
  ];
  for (const [path, body, status, message] of cases) {
    const res = await request(server, 'POST', path, { key: server.apiKey, body });
    assert.equal(res.status, status, `${path} ${JSON.stringify(body)}: ${res.text}`);
    assert.match(res.body.error.message, message);
  }
  const anonymous = await request(server, 'POST', '/sandbox/echo', {
    body: { channel_id: channelId, to: '4915112340106', content: { body: 'x' } },
  });
  assert.equal(anonymous.status, 401);
});
