/**
 * The chats of unofficial channels end to end through the HTTP gateway protocol against the sandbox
 * gateway (docs/gateway-protocol.md, "Chats"): the chat list (last message, unread count, state on the
 * phone), archive, pin, mute, mark read and unread, delete, the phone's own changes coming back as
 * chat.update callbacks (conversation.updated), earlier messages fetched on demand (stored at their own
 * time, never unread), the refusals (unknown chat 404, a number not on the network 400, both naming
 * chatID) and the official platform's 422. The embedded engine's side is test/embedded/chats.test.ts.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { queryRows } from '../../src/db/client.ts';
import { eventually } from '../eventually.ts';
import { request, startTestServer, type TestServer } from '../harness.ts';
import { customerWrites, eventsOf, officialChannel, pairedGatewayChannel } from '../messages-helpers.ts';

let server: TestServer;
before(async () => {
  server = await startTestServer({ worker: true, env: { SANDBOX_STATUS_DELAY_MS: '0' } });
});
after(() => server.close());

const api = (method: string, path: string, body?: unknown) => request(server, method, path, { key: server.apiKey, body });
const chatsOf = (channelId: string) => `/v1/channels/${channelId}/chats`;
const chatPath = (channelId: string, chat: string, rest = '') => `${chatsOf(channelId)}/${encodeURIComponent(chat)}${rest}`;

type Chat = { id: string; archived: boolean; pinned: boolean; muted_until: string | null; unread: boolean; unread_count: number };

async function chatOf(channelId: string, chat: string): Promise<Chat> {
  const res = await api('GET', chatPath(channelId, chat));
  assert.equal(res.status, 200, res.text);
  return res.body.data;
}

/** conversation.updated events of a conversation, once `count` were recorded. */
async function updates(conversationId: string, count: number) {
  return eventually(`${count} conversation.updated of ${conversationId}`, async () => {
    const found = (await eventsOf(server, 'conversation.updated'))
      .map((e) => e.payload)
      .filter((p) => p.conversation_id === conversationId);
    return found.length >= count ? found : undefined;
  });
}

test('the chat list: last message, unread count and the state on the phone; archive, pin, mute, unread, read through the API', async () => {
  const channel = await pairedGatewayChannel(server, 'Chats');
  await customerWrites(server, channel.id, '4915112350101', 'text', { body: 'first customer' });
  await customerWrites(server, channel.id, '4915112350102', 'text', { body: 'second customer' });
  await customerWrites(server, channel.id, '4915112350102', 'text', { body: 'second again' });

  const listed = await api('GET', chatsOf(channel.id));
  assert.equal(listed.status, 200, listed.text);
  assert.deepEqual(
    listed.body.data.map((c: Chat & { last_message_preview: string; kind: string }) => [
      c.id,
      c.kind,
      c.last_message_preview,
      c.unread_count,
    ]),
    [
      ['+4915112350102', 'person', 'second again', 2],
      ['+4915112350101', 'person', 'first customer', 1],
    ],
  );
  const conversationId = listed.body.data[1].conversation_id as string;

  const archived = await api('PATCH', chatPath(channel.id, '+4915112350101'), { archived: true, pinned: true });
  assert.equal(archived.status, 200, archived.text);
  assert.equal(archived.body.data.archived, true);
  assert.equal(archived.body.data.pinned, true);
  assert.ok(archived.body.data.pinned_at);
  // The phone tells every device (a chat.update callback): it comes back as no change.
  const [event] = await updates(conversationId, 1);
  assert.equal(event!.archived, true);
  assert.equal(event!.pinned, true);

  assert.deepEqual(
    (await api('GET', `${chatsOf(channel.id)}?archived=false`)).body.data.map((c: Chat) => c.id),
    ['+4915112350102'],
  );
  assert.deepEqual(
    (await api('GET', `${chatsOf(channel.id)}?archived=true&pinned=true`)).body.data.map((c: Chat) => c.id),
    ['+4915112350101'],
  );

  const until = new Date(Date.now() + 8 * 3_600_000).toISOString();
  const muted = await api('PATCH', chatPath(channel.id, '4915112350101'), { muted_until: until, unread: false });
  assert.equal(muted.status, 200, muted.text);
  assert.equal(muted.body.data.muted_until, until);
  assert.equal(muted.body.data.unread_count, 0);
  assert.equal(muted.body.data.unread, false);

  const unread = await api('PATCH', chatPath(channel.id, '+4915112350101'), { unread: true, muted_until: null });
  assert.equal(unread.status, 200, unread.text);
  assert.equal(unread.body.data.unread, true);
  assert.equal(unread.body.data.unread_count, 0);
  assert.equal(unread.body.data.muted_until, null);
  // The inbox shows the same state; reading it there clears the mark.
  const conversation = (await api('GET', `/v1/conversations/${conversationId}`)).body.data;
  assert.deepEqual([conversation.archived, conversation.pinned, conversation.marked_unread], [true, true, true]);
  assert.equal((await api('POST', `/v1/conversations/${conversationId}/read`)).body.data.marked_unread, false);

  // Nothing more comes back than what was asked: every callback applied, each change one event.
  await eventually('the callbacks applied', async () => {
    const rows = await queryRows<{ n: number }>(
      server.container.database.db,
      sql`select count(*)::int as n from provider_events where channel_id = ${channel.id} and processed_at is null`,
    );
    return rows[0]!.n === 0 ? true : undefined;
  });
  const chat = await chatOf(channel.id, '+4915112350101');
  assert.deepEqual([chat.archived, chat.pinned, chat.muted_until, chat.unread], [true, true, null, false]);
});

test("the phone's own changes come back: archived, pinned, muted, marked unread on the phone; deleted there, the chat leaves the list until a newer message", async () => {
  const channel = await pairedGatewayChannel(server, 'Phone chats');
  await customerWrites(server, channel.id, '4915112350201', 'text', { body: 'hello' });
  const { conversation_id: conversationId } = (await api('GET', chatPath(channel.id, '+4915112350201'))).body.data;

  const door = await api('POST', '/sandbox/chat', {
    channel_id: channel.id,
    chat: '+4915112350201',
    archived: true,
    pinned: true,
    unread: true,
    muted_until: '2099-01-01T00:00:00.000Z',
  });
  assert.equal(door.status, 202, door.text);
  const [changed] = await updates(conversationId, 1);
  assert.deepEqual(
    [changed!.archived, changed!.pinned, changed!.marked_unread, changed!.muted_until],
    [true, true, false, '2099-01-01T00:00:00.000Z'],
    'an unread chat is unread already: no mark',
  );

  assert.equal((await api('POST', '/sandbox/chat', { channel_id: channel.id, chat: '4915112350201', deleted: true })).status, 202);
  await updates(conversationId, 2);
  assert.deepEqual((await api('GET', chatsOf(channel.id))).body.data, []);
  const gone = await api('PATCH', chatPath(channel.id, '+4915112350201'), { archived: false });
  assert.equal(gone.status, 404, gone.text);
  // The conversation keeps its history; a new message brings the chat back, in its plain state.
  const kept = (await api('GET', `/v1/conversations/${conversationId}/messages`)).body.data;
  assert.equal(kept.length, 1);
  await customerWrites(server, channel.id, '4915112350201', 'text', { body: 'are you there?' });
  const back = await chatOf(channel.id, '+4915112350201');
  assert.deepEqual([back.archived, back.pinned, back.muted_until, back.unread_count], [false, false, null, 1]);
});

test('a chat deleted through the API; earlier messages fetched on demand arrive at their own time, never unread', async () => {
  const channel = await pairedGatewayChannel(server, 'History');
  await customerWrites(server, channel.id, '4915112350301', 'text', { body: 'latest' });
  const chat = (await api('GET', chatPath(channel.id, '+4915112350301'))).body.data;

  const asked = await api('POST', chatPath(channel.id, '+4915112350301', '/history'), { count: 3 });
  assert.equal(asked.status, 202, asked.text);
  assert.equal(asked.body.data.status, 'requested');
  assert.equal(asked.body.data.count, 3);
  const messages = await eventually('the earlier messages', async () => {
    const res = await api('GET', `/v1/conversations/${chat.conversation_id}/messages`);
    return res.body.data.length === 4 ? res.body.data : undefined;
  });
  // Newest first: the latest message, then the history by its own times.
  assert.deepEqual(
    messages.map((m: { content: { body: string } }) => m.content.body),
    ['latest', 'Earlier message 3', 'Earlier message 2', 'Earlier message 1'],
  );
  assert.ok(messages.slice(1).every((m: { created_at: string }) => m.created_at < messages[0].created_at));
  const after = await chatOf(channel.id, '+4915112350301');
  assert.equal(after.unread_count, 1, 'history is not unread');
  assert.equal((await api('GET', `/v1/conversations/${chat.conversation_id}`)).body.data.last_message_preview, 'latest');
  // Asked again: the ones before those.
  assert.equal((await api('POST', chatPath(channel.id, '+4915112350301', '/history'), { count: 3 })).status, 202);
  const more = await eventually('the messages before those', async () => {
    const res = await api('GET', `/v1/conversations/${chat.conversation_id}/messages`);
    return res.body.data.length === 7 ? res.body.data : undefined;
  });
  assert.ok(more.slice(4).every((m: { created_at: string }) => m.created_at < messages[3].created_at));

  const deleted = await api('DELETE', chatPath(channel.id, '+4915112350301'));
  assert.equal(deleted.status, 204, deleted.text);
  assert.equal((await api('GET', chatPath(channel.id, '+4915112350301'))).status, 404);
  assert.equal((await api('GET', `/v1/conversations/${chat.conversation_id}/messages`)).body.data.length, 7);
});

test('refusals: an unknown chat 404 and a number not on the network 400, naming chatID; bad input 400 naming the field; official 422; unpaired 409', async () => {
  const channel = await pairedGatewayChannel(server, 'Chat refusals');
  const unknown = await api('PATCH', chatPath(channel.id, '+4915112359999'), { archived: true });
  assert.equal(unknown.status, 404, unknown.text);
  assert.deepEqual(unknown.body.errors, [
    { pointer: '/chatID', location: 'params', message: 'no chat of this channel has this number or group id' },
  ]);
  assert.equal((await api('POST', chatPath(channel.id, '120363000000000001@g.us', '/history'), {})).status, 404);

  // A number the network does not know (the sandbox's 0002) that wrote before, say, from another account.
  await queryRows(
    server.container.database.db,
    sql`insert into conversations (id, organization_id, channel_id, peer_phone, last_message_at, created_at, updated_at)
        values (gen_random_uuid(), ${server.organizationId}, ${channel.id}, '4915112350002', now(), now(), now())`,
  );
  const off = await api('PATCH', chatPath(channel.id, '+4915112350002'), { pinned: true });
  assert.equal(off.status, 400, off.text);
  assert.equal(off.body.errors[0].pointer, '/chatID');
  assert.match(off.body.errors[0].message, /not on the chat network/);

  await customerWrites(server, channel.id, '4915112350401', 'text', { body: 'x' });
  for (const [body, pointer] of [
    [{}, ''],
    [{ archived: 'yes' }, '/archived'],
    [{ muted_until: 'tomorrow' }, '/muted_until'],
    [{ muted_until: '2001-01-01T00:00:00Z' }, '/muted_until'],
    [{ colour: 'red' }, '/'],
  ] as const) {
    const res = await api('PATCH', chatPath(channel.id, '+4915112350401'), body);
    assert.equal(res.status, 400, `${JSON.stringify(body)}: ${res.text}`);
    assert.ok(
      res.body.errors.some((e: { pointer: string }) => e.pointer === pointer),
      `${JSON.stringify(body)} names ${pointer}: ${res.text}`,
    );
  }
  const badChat = await api('PATCH', chatPath(channel.id, 'not-a-chat'), { archived: true });
  assert.equal(badChat.status, 400, badChat.text);
  assert.equal(badChat.body.errors[0].pointer, '/chatID');
  const badCount = await api('POST', chatPath(channel.id, '+4915112350401', '/history'), { count: 500 });
  assert.equal(badCount.status, 400, badCount.text);
  assert.equal(badCount.body.errors[0].pointer, '/count');

  const official = await officialChannel(server, 'Official chats');
  for (const [method, path, body] of [
    ['GET', chatsOf(official.id), undefined],
    ['PATCH', chatPath(official.id, '+4915112350401'), { archived: true }],
    ['DELETE', chatPath(official.id, '+4915112350401'), undefined],
    ['POST', chatPath(official.id, '+4915112350401', '/history'), {}],
  ] as const) {
    const res = await api(method, path, body);
    assert.equal(res.status, 422, `${method} ${path}: ${res.text}`);
    assert.match(res.body.detail, /not supported on chatapp_official channels/);
  }
  const unpaired = (await api('POST', '/v1/channels', { platform: 'chatapp_unofficial', name: 'Unpaired chats', sandbox: true })).body.data;
  assert.equal((await api('GET', chatsOf(unpaired.id))).status, 200, 'the list is Parley’s own');
  const res = await api('PATCH', chatPath(unpaired.id, '+4915112350401'), { archived: true });
  assert.equal(res.status, 409, res.text);
});

test('received view-once media, live locations, mentions and forwards are kept as such; a text sent with mentions (gateway), refused on official channels naming the field', async () => {
  const channel = await pairedGatewayChannel(server, 'Marks');
  const contentOf = async (id: string) => (await api('GET', `/v1/messages/${id}`)).body.data;
  const once = await customerWrites(server, channel.id, '4915112350501', 'image', { caption: 'only once', view_once: true });
  assert.deepEqual(
    { type: (await contentOf(once)).type, view_once: (await contentOf(once)).content.view_once },
    { type: 'image', view_once: true },
  );
  const live = await customerWrites(server, channel.id, '4915112350501', 'location', { latitude: 38.72, longitude: -9.14, live: true });
  assert.equal((await contentOf(live)).content.live, true);
  const mention = await customerWrites(server, channel.id, '4915112350501', 'text', {
    body: '@4915112350999 can you help?',
    mentions: ['4915112350999'],
    forwarded: true,
  });
  const mentioned = await contentOf(mention);
  assert.deepEqual(mentioned.content.mentions, ['+4915112350999']);
  assert.equal(mentioned.content.forwarded, true);

  const sent = await api('POST', '/v1/messages', {
    channel_id: channel.id,
    to: '4915112350501',
    type: 'text',
    content: { body: 'Thanks @4915112350501', mentions: ['+4915112350501'] },
  });
  assert.equal(sent.status, 201, sent.text);
  const [row] = await eventually('the gateway got the send', async () => {
    const rows = await queryRows<{ body: { content: { mentions?: string[] } } }>(
      server.container.database.db,
      sql`select body from sandbox_messages where idempotency_key = ${sent.body.data.id as string}`,
    );
    return rows.length > 0 ? rows : undefined;
  });
  assert.deepEqual(row!.body.content.mentions, ['+4915112350501']);

  const official = await officialChannel(server, 'Official marks');
  const refused = await api('POST', '/v1/messages', {
    channel_id: official.id,
    to: '4915112350501',
    type: 'text',
    content: { body: 'Hi', mentions: ['+4915112350501'] },
  });
  assert.equal(refused.status, 422, refused.text);
  assert.equal(refused.body.errors[0].pointer, '/content/mentions');
  const badMention = await api('POST', '/v1/messages', {
    channel_id: channel.id,
    to: '4915112350501',
    type: 'text',
    content: { body: 'Hi', mentions: ['someone'] },
  });
  assert.equal(badMention.status, 400, badMention.text);
  assert.equal(badMention.body.errors[0].pointer, '/content/mentions/0');
});

test('a message starred and pinned in its chat through the gateway; refusals: not on the network yet 409, official 422, a bad duration 400', async () => {
  const channel = await pairedGatewayChannel(server, 'Star and pin');
  const inbound = await customerWrites(server, channel.id, '4915112350601', 'text', { body: 'keep this' });
  const starred = await api('POST', `/v1/messages/${inbound}/star`, { starred: true });
  assert.equal(starred.status, 200, starred.text);
  assert.equal(starred.body.data.starred, true);
  assert.equal((await api('GET', `/v1/messages/${inbound}`)).body.data.starred, true);
  assert.equal((await api('POST', `/v1/messages/${inbound}/star`, { starred: false })).body.data.starred, false);

  const pinned = await api('POST', `/v1/messages/${inbound}/pin`, { duration_seconds: 86400 });
  assert.equal(pinned.status, 200, pinned.text);
  const until = new Date(pinned.body.data.pinned_until).getTime();
  assert.ok(Math.abs(until - (Date.now() + 86_400_000)) < 60_000, pinned.body.data.pinned_until);
  const unpinned = await api('POST', `/v1/messages/${inbound}/pin`, { pinned: false });
  assert.equal(unpinned.body.data.pinned_until, null);
  const badDuration = await api('POST', `/v1/messages/${inbound}/pin`, { duration_seconds: 60 });
  assert.equal(badDuration.status, 400, badDuration.text);
  assert.equal(badDuration.body.errors[0].pointer, '/duration_seconds');

  // A message the gateway never saw (its provider id unknown to it) is not found on the phone.
  await queryRows(server.container.database.db, sql`update messages set provider_message_id = 'gw_unknown_1' where id = ${inbound}`);
  const unknown = await api('POST', `/v1/messages/${inbound}/star`, {});
  assert.equal(unknown.status, 404, unknown.text);
  await queryRows(server.container.database.db, sql`update messages set provider_message_id = null where id = ${inbound}`);
  assert.equal((await api('POST', `/v1/messages/${inbound}/star`, {})).status, 409);

  const official = await officialChannel(server, 'Official star');
  const theirs = await customerWrites(server, official.id, '4915112350602', 'text', { body: 'x' });
  for (const action of ['star', 'pin']) {
    const res = await api('POST', `/v1/messages/${theirs}/${action}`, {});
    assert.equal(res.status, 422, res.text);
    assert.equal(res.body.operation, `messages.${action}`);
  }
  assert.equal((await api('POST', '/v1/messages/0196a0e2-0000-7000-8000-000000000000/star', {})).status, 404);
});

test('a message forwarded to another chat: a new message marked forwarded; view-once 409, a number not on the network 400 naming to, official 422', async () => {
  const channel = await pairedGatewayChannel(server, 'Forward');
  const original = await customerWrites(server, channel.id, '4915112350701', 'text', { body: 'the delivery code is 4411' });
  const forwarded = await api('POST', `/v1/messages/${original}/forward`, { to: '+4915112350702' });
  assert.equal(forwarded.status, 201, forwarded.text);
  assert.equal(forwarded.body.data.direction, 'outbound');
  assert.equal(forwarded.body.data.to_phone, '4915112350702');
  assert.deepEqual(forwarded.body.data.content, { forwarded: true, body: 'the delivery code is 4411' });
  const [row] = await eventually('the gateway got the forward', async () => {
    const rows = await queryRows<{ body: { content: Record<string, unknown> } }>(
      server.container.database.db,
      sql`select body from sandbox_messages where idempotency_key = ${forwarded.body.data.id as string}`,
    );
    return rows.length > 0 ? rows : undefined;
  });
  assert.equal(row!.body.content.forwarded, true);

  const off = await api('POST', `/v1/messages/${original}/forward`, { to: '+4915112350002' });
  assert.equal(off.status, 400, off.text);
  assert.deepEqual(off.body.errors, [{ pointer: '/to', location: 'body', message: 'not on the chat network' }]);
  const bad = await api('POST', `/v1/messages/${original}/forward`, { to: 'nobody' });
  assert.equal(bad.status, 400, bad.text);
  assert.equal(bad.body.errors[0].pointer, '/to');
  const once = await customerWrites(server, channel.id, '4915112350701', 'image', { caption: 'secret', view_once: true });
  const refused = await api('POST', `/v1/messages/${once}/forward`, { to: '+4915112350702' });
  assert.equal(refused.status, 409, refused.text);
  assert.match(refused.body.detail, /view-once/);

  const official = await officialChannel(server, 'Official forward');
  const theirs = await customerWrites(server, official.id, '4915112350703', 'text', { body: 'x' });
  const unsupported = await api('POST', `/v1/messages/${theirs}/forward`, { to: '+4915112350702' });
  assert.equal(unsupported.status, 422, unsupported.text);
  assert.equal(unsupported.body.operation, 'messages.forward');
  const marked = await api('POST', '/v1/messages', {
    channel_id: official.id,
    to: '4915112350703',
    type: 'text',
    content: { body: 'x', forwarded: true },
  });
  assert.equal(marked.status, 422, marked.text);
  assert.equal(marked.body.errors[0].pointer, '/content/forwarded');
});
