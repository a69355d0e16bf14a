/**
 * Chats on the embedded engine, driven through the API against a scripted socket that plays the service
 * with the library's own shapes: archive, pin, mute, mark read and unread and delete as the library's
 * chatModify (with the chat's last message as its range), the patches coming back as chats.update and
 * chats.delete (applied, no second event), the phone's own changes applied to the chat, earlier messages
 * asked with fetchMessageHistory and imported from the ON_DEMAND history sync the phone answers with
 * (at their own time, never unread), and a number not on the network refused naming chatID.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { proto, type WAMessage } from 'baileys';
import { sql } from 'drizzle-orm';
import { queryRows } from '../../src/db/client.ts';
import { eventually } from '../eventually.ts';
import { request } from '../harness.ts';
import { eventsOf } from '../messages-helpers.ts';
import { pairedChannel, startEmbeddedServer } from './helpers.ts';
import type { ScriptedSocket } from './scripted-socket.ts';

const CUSTOMER = '4915155550101';
const JID = `${CUSTOMER}@s.whatsapp.net`;
const OFF_NETWORK = '4915155550002';
const HOUR = 3_600_000;

/** The phone's earlier messages of the customer's chat, oldest first: two of theirs, one of the business's. */
const earlier = (): WAMessage[] =>
  [
    { id: '3AHIST000001', fromMe: false, text: 'Do you ship to Porto?', ago: 5 * HOUR },
    { id: '3EBHIST00002', fromMe: true, text: 'Yes, in two days', ago: 4 * HOUR },
    { id: '3AHIST000003', fromMe: false, text: 'Great, thanks', ago: 3 * HOUR },
  ].map(
    (m) =>
      proto.WebMessageInfo.fromObject({
        key: { remoteJid: JID, fromMe: m.fromMe, id: m.id },
        message: { conversation: m.text },
        messageTimestamp: Math.floor((Date.now() - m.ago) / 1000),
      }) as WAMessage,
  );

describe('embedded engine: chats', () => {
  let ctx: Awaited<ReturnType<typeof startEmbeddedServer>>;
  let channel: { id: string; socket: ScriptedSocket };
  let conversationId: string;
  before(async () => {
    ctx = await startEmbeddedServer({ notOnNetwork: new Set([OFF_NETWORK]), history: new Map([[JID, earlier()]]) });
    channel = await pairedChannel(ctx, '4915155550999');
    channel.socket.receiveText(CUSTOMER, 'Is my order on its way?', '3ALATEST0001');
    conversationId = await eventually('the customer’s conversation', async () => {
      const rows = await queryRows<{ id: string }>(
        ctx.server.container.database.db,
        sql`select id from conversations where channel_id = ${channel.id} and peer_phone = ${CUSTOMER}`,
      );
      return rows[0]?.id;
    });
  });
  after(() => ctx.server.close());

  const api = (method: string, path: string, body?: unknown) => request(ctx.server, method, path, { key: ctx.server.apiKey, body });
  const chatPath = (chat: string, rest = '') => `/v1/channels/${channel.id}/chats/${encodeURIComponent(chat)}${rest}`;
  const modifies = () => channel.socket.calls.filter((c) => c.method === 'chatModify').map((c) => c.args);
  const updates = async (count: number) =>
    eventually(`${count} conversation.updated`, async () => {
      const found = (await eventsOf(ctx.server, 'conversation.updated'))
        .map((e) => e.payload)
        .filter((p) => p.conversation_id === conversationId);
      return found.length >= count ? found : undefined;
    });
  /** Every session event stored is applied (the patches coming back included). */
  const settled = () =>
    eventually('the session events applied', async () => {
      const rows = await queryRows<{ n: number }>(
        ctx.server.container.database.db,
        sql`select count(*)::int as n from provider_events where channel_id = ${channel.id} and processed_at is null`,
      );
      return rows[0]!.n === 0 ? true : undefined;
    });

  test("archive, pin, mute and read are the library's chatModify, with the chat's last message as the range; the patches coming back record no change", async () => {
    const res = await api('PATCH', chatPath(`+${CUSTOMER}`), { archived: true, pinned: true });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual([res.body.data.archived, res.body.data.pinned, res.body.data.unread_count], [true, true, 1]);
    const [archive, pin] = modifies();
    assert.equal(archive![1], JID);
    const mod = archive![0] as { archive: boolean; lastMessages: Array<{ key: Record<string, unknown>; messageTimestamp: number }> };
    assert.equal(mod.archive, true);
    assert.deepEqual(mod.lastMessages[0]!.key, { remoteJid: JID, id: '3ALATEST0001', fromMe: false });
    assert.equal(typeof mod.lastMessages[0]!.messageTimestamp, 'number');
    assert.deepEqual(pin, [{ pin: true }, JID]);

    const until = new Date(Date.now() + 8 * HOUR);
    const muted = await api('PATCH', chatPath(CUSTOMER), { muted_until: until.toISOString(), unread: false });
    assert.equal(muted.status, 200, muted.text);
    assert.deepEqual(modifies()[2], [{ mute: until.getTime() }, JID]);
    assert.deepEqual((modifies()[3]![0] as { markRead: boolean }).markRead, true);
    assert.equal(muted.body.data.unread_count, 0);

    await settled();
    // Each change recorded once: the socket's chats.update of our own patches (which may be applied before
    // the route's own write, or after it) never records an event that changes nothing.
    const events = await updates(2);
    const bodies = events.map((e) => JSON.stringify(e));
    assert.ok(
      bodies.every((b, i) => i === 0 || b !== bodies[i - 1]),
      `no event without a change: ${bodies.join('\n')}`,
    );
    assert.ok(events.length <= 6, `at most one event per field changed: ${events.length}`);
    const chat = (await api('GET', chatPath(CUSTOMER))).body.data;
    assert.deepEqual([chat.archived, chat.pinned, chat.muted_until, chat.unread], [true, true, until.toISOString(), false]);
  });

  test("the phone's own changes (app-state sync: chats.update) are applied to the chat", async () => {
    const before = (await updates(1)).length;
    channel.socket.emit('chats.update', [{ id: JID, archived: false }]);
    channel.socket.emit('chats.update', [{ id: JID, pinned: null, muteEndTime: null }]);
    channel.socket.emit('chats.update', [{ id: JID, unreadCount: -1 }]);
    // A count a new message raises is no change of the chat's state.
    channel.socket.emit('chats.update', [{ id: JID, unreadCount: 3 }]);
    await updates(before + 3);
    await settled();
    const chat = (await api('GET', chatPath(CUSTOMER))).body.data;
    assert.deepEqual([chat.archived, chat.pinned, chat.muted_until, chat.unread], [false, false, null, true]);
  });

  test('earlier messages on demand: fetchMessageHistory before the oldest message, imported from the ON_DEMAND sync at their own time, never unread', async () => {
    const unreadBefore = (await api('GET', chatPath(CUSTOMER))).body.data.unread_count;
    const asked = await api('POST', chatPath(CUSTOMER, '/history'), { count: 10 });
    assert.equal(asked.status, 202, asked.text);
    assert.equal(asked.body.data.before.provider_message_id, '3ALATEST0001');
    const [call] = channel.socket.calls.filter((c) => c.method === 'fetchMessageHistory').map((c) => c.args);
    assert.equal(call![0], 10);
    assert.deepEqual(call![1], { remoteJid: JID, id: '3ALATEST0001', fromMe: false });
    assert.equal(call![2], new Date(asked.body.data.before.at).getTime());

    const messages = await eventually('the earlier messages', async () => {
      const res = await api('GET', `/v1/conversations/${conversationId}/messages`);
      return res.body.data.length === 4 ? res.body.data : undefined;
    });
    assert.deepEqual(
      messages.map((m: { direction: string; content: { body: string } }) => [m.direction, m.content.body]),
      [
        ['inbound', 'Is my order on its way?'],
        ['inbound', 'Great, thanks'],
        ['outbound', 'Yes, in two days'],
        ['inbound', 'Do you ship to Porto?'],
      ],
    );
    const chat = (await api('GET', chatPath(CUSTOMER))).body.data;
    assert.equal(chat.unread_count, unreadBefore);
    assert.equal(chat.last_message_preview, 'Is my order on its way?');
  });

  test('received: view-once media (the library wrapper), a live location, mentions (contextInfo.mentionedJid) and a forward; a text sent with mentions', async () => {
    const upsert = (id: string, message: Record<string, unknown>) =>
      channel.socket.emit('messages.upsert', {
        type: 'notify',
        messages: [
          proto.WebMessageInfo.fromObject({
            key: { remoteJid: JID, fromMe: false, id },
            message,
            messageTimestamp: Math.floor(Date.now() / 1000),
            pushName: 'Scripted Customer',
          }) as WAMessage,
        ],
      });
    const stored = (id: string) =>
      eventually(`message ${id}`, async () => {
        const rows = await queryRows<{ type: string; content: Record<string, unknown> }>(
          ctx.server.container.database.db,
          sql`select type, content from messages where provider_message_id = ${id}`,
        );
        return rows[0];
      });
    upsert('3AONCE000001', {
      viewOnceMessageV2: {
        message: {
          imageMessage: {
            url: 'https://mmg.whatsapp.net/v/t62.7118-24/once.enc',
            mimetype: 'image/jpeg',
            caption: 'just once',
            viewOnce: true,
            mediaKey: Buffer.alloc(32, 1),
            fileSha256: Buffer.alloc(32, 2),
            fileEncSha256: Buffer.alloc(32, 3),
            fileLength: 10,
          },
        },
      },
    });
    const once = await stored('3AONCE000001');
    assert.equal(once.type, 'image');
    assert.equal(once.content.view_once, true);
    assert.equal(once.content.caption, 'just once');

    upsert('3ALIVE000001', { liveLocationMessage: { degreesLatitude: 38.72, degreesLongitude: -9.14, caption: 'on my way' } });
    assert.deepEqual((await stored('3ALIVE000001')).content, { latitude: 38.72, longitude: -9.14, name: 'on my way', live: true });

    upsert('3AMENT000001', {
      extendedTextMessage: {
        text: '@4915155550999 is this yours?',
        contextInfo: { mentionedJid: ['4915155550999@s.whatsapp.net'], isForwarded: true, forwardingScore: 1 },
      },
    });
    const mentioned = await stored('3AMENT000001');
    assert.deepEqual(mentioned.content, { body: '@4915155550999 is this yours?', mentions: ['+4915155550999'], forwarded: true });

    const sent = await api('POST', '/v1/messages', {
      channel_id: channel.id,
      to: CUSTOMER,
      type: 'text',
      content: { body: 'Yes @4915155550999', mentions: ['+49 151 5555 0999'] },
    });
    assert.equal(sent.status, 201, sent.text);
    const call = await eventually('the send', async () =>
      channel.socket.calls.find((c) => c.method === 'sendMessage' && (c.args[1] as { text?: string }).text === 'Yes @4915155550999'),
    );
    assert.deepEqual((call.args[1] as { mentions: string[] }).mentions, ['4915155550999@s.whatsapp.net']);
  });

  test("star is the library's chatModify star, pin its pin message (PIN_FOR_ALL with the time, UNPIN_FOR_ALL)", async () => {
    const id = await eventually('the latest message', async () => {
      const rows = await queryRows<{ id: string }>(
        ctx.server.container.database.db,
        sql`select id from messages where provider_message_id = '3ALATEST0001'`,
      );
      return rows[0]?.id;
    });
    const starred = await api('POST', `/v1/messages/${id}/star`, { starred: true });
    assert.equal(starred.status, 200, starred.text);
    assert.deepEqual(modifies().at(-1), [{ star: { messages: [{ id: '3ALATEST0001', fromMe: false }], star: true } }, JID]);
    await settled();
    assert.equal((await api('GET', `/v1/messages/${id}`)).body.data.starred, true, 'the star coming back changes nothing');
    // Unstarred on the phone (app-state sync: messages.update with starred).
    channel.socket.emit('messages.update', [{ key: { remoteJid: JID, id: '3ALATEST0001', fromMe: false }, update: { starred: false } }]);
    await eventually('the star gone', async () =>
      (await api('GET', `/v1/messages/${id}`)).body.data.starred === false ? true : undefined,
    );
    const pinned = await api('POST', `/v1/messages/${id}/pin`, { duration_seconds: 604800 });
    assert.equal(pinned.status, 200, pinned.text);
    const pins = () =>
      channel.socket.calls.filter((c) => c.method === 'sendMessage' && (c.args[1] as { pin?: unknown }).pin).map((c) => c.args);
    assert.deepEqual(pins().at(-1)!.slice(0, 2), [
      JID,
      { pin: { remoteJid: JID, id: '3ALATEST0001', fromMe: false }, type: 1, time: 604800 },
    ]);
    assert.equal((await api('POST', `/v1/messages/${id}/pin`, { pinned: false })).status, 200);
    assert.deepEqual((pins().at(-1)![1] as { type: number }).type, 2);
  });

  test("a forward is sent with the library's forwarded context (isForwarded); a number not on the network is refused first", async () => {
    const id = await eventually('the latest message', async () => {
      const rows = await queryRows<{ id: string }>(
        ctx.server.container.database.db,
        sql`select id from messages where provider_message_id = '3ALATEST0001'`,
      );
      return rows[0]?.id;
    });
    const forwarded = await api('POST', `/v1/messages/${id}/forward`, { to: '+4915155550103' });
    assert.equal(forwarded.status, 201, forwarded.text);
    const call = await eventually('the forward sent', async () =>
      channel.socket.calls.find((c) => c.method === 'sendMessage' && c.args[0] === '4915155550103@s.whatsapp.net'),
    );
    assert.deepEqual(call.args[1], {
      text: 'Is my order on its way?',
      linkPreview: null,
      contextInfo: { isForwarded: true, forwardingScore: 1 },
    });
    const off = await api('POST', `/v1/messages/${id}/forward`, { to: `+${OFF_NETWORK}` });
    assert.equal(off.status, 400, off.text);
    assert.equal(off.body.errors[0].pointer, '/to');
  });

  test('a chat deleted is chatModify delete with its range; a number not on the network is 400 naming chatID', async () => {
    await queryRows(
      ctx.server.container.database.db,
      sql`insert into conversations (id, organization_id, channel_id, peer_phone, last_message_at, created_at, updated_at)
          values (gen_random_uuid(), ${ctx.server.organizationId}, ${channel.id}, ${OFF_NETWORK}, now(), now(), now())`,
    );
    const off = await api('PATCH', chatPath(`+${OFF_NETWORK}`), { archived: true });
    assert.equal(off.status, 400, off.text);
    assert.equal(off.body.errors[0].pointer, '/chatID');
    assert.ok(!modifies().some((m) => m[1] === `${OFF_NETWORK}@s.whatsapp.net`), 'the network was asked first, nothing changed');

    const deleted = await api('DELETE', chatPath(CUSTOMER));
    assert.equal(deleted.status, 204, deleted.text);
    const del = modifies().at(-1)!;
    assert.equal(del[1], JID);
    assert.equal((del[0] as { delete: boolean }).delete, true);
    assert.equal((del[0] as { lastMessages: unknown[] }).lastMessages.length, 1);
    await settled();
    assert.equal((await api('GET', chatPath(CUSTOMER))).status, 404);
    assert.deepEqual(
      (await api('GET', `/v1/channels/${channel.id}/chats`)).body.data.map((c: { id: string }) => c.id).sort(),
      [`+${OFF_NETWORK}`, '+4915155550103'],
      'the deleted chat is gone; the forward made another',
    );
  });
});
