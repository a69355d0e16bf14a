/**
 * What a session keeps of its messages (channel_session_messages) and what it is for: a recipient's
 * retry gets the content of what the session sent (the library's getMessage), after a restart too;
 * quotes carry the quoted message's content and its chat key; read receipts and reactions name a
 * message of a privacy-id chat or a group by its own key; sends to a group go to its jid, with its
 * metadata cached for the library.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { proto, type AnyMessageContent, type GroupMetadata, type MiscMessageGenerationOptions, type WAMessage } from 'baileys';
import { eventually } from '../eventually.ts';
import { request } from '../harness.ts';
import { send, waitForStatus as waitForMessage } from '../messages-helpers.ts';
import { libraryMessageId } from '../../src/providers/gateway/embedded/ids.ts';
import { pairedChannel, startEmbeddedServer, waitForStatus } from './helpers.ts';
import type { ScriptedSocket } from './scripted-socket.ts';

const LID = '199887766554433';
const LID_PHONE = '4915133330001';
const GROUP = '120363025246125486@g.us';
const MEMBER = '4915133330002';

const group: GroupMetadata = {
  id: GROUP,
  subject: 'Customers',
  owner: undefined,
  participants: [{ id: `${MEMBER}@s.whatsapp.net` }],
};

type SendCall = { jid: string; content: AnyMessageContent; options: MiscMessageGenerationOptions | undefined };
const sendsOf = (socket: ScriptedSocket): SendCall[] =>
  socket.calls
    .filter((c) => c.method === 'sendMessage')
    .map((c) => ({
      jid: c.args[0] as string,
      content: c.args[1] as AnyMessageContent,
      options: c.args[2] as MiscMessageGenerationOptions,
    }));

describe('embedded engine: the messages a session keeps', () => {
  let ctx: Awaited<ReturnType<typeof startEmbeddedServer>>;
  before(async () => {
    ctx = await startEmbeddedServer({
      lidPhones: new Map([[`${LID}@lid`, `${LID_PHONE}@s.whatsapp.net`]]),
      groups: new Map([[GROUP, group]]),
    });
  });
  after(() => ctx.server.close());

  const inbound = async (channelId: string, providerMessageId: string) =>
    eventually(`message ${providerMessageId} stored`, async () => {
      const list = (await request(ctx.server, 'GET', `/v1/messages?channel_id=${channelId}&direction=inbound`, { key: ctx.server.apiKey }))
        .body.data as Array<{ id: string; provider_message_id: string }>;
      return list.find((m) => m.provider_message_id === providerMessageId);
    });

  const arrive = (socket: ScriptedSocket, key: proto.IMessageKey, text: string) => {
    socket.emit('messages.upsert', {
      type: 'notify',
      messages: [
        proto.WebMessageInfo.fromObject({
          key,
          message: { conversation: text },
          messageTimestamp: Math.floor(Date.now() / 1000),
          pushName: 'Ana',
        }) as WAMessage,
      ],
    });
  };

  test("a recipient's retry gets the content of what the session sent, also from a socket opened after a restart", async () => {
    const { server, scripted } = ctx;
    const channel = await pairedChannel(ctx, '4915100000401');
    const to = '4915133330401';
    const res = await send(server, { channel_id: channel.id, to, type: 'text', content: { body: 'Your parcel is on its way' } });
    assert.equal(res.status, 201, res.text);
    const id = libraryMessageId(res.body.data.id);
    await waitForMessage(server, res.body.data.id, 'sent');
    const key = { remoteJid: `${to}@s.whatsapp.net`, fromMe: true, id };
    const content = await channel.socket.askRetry(key);
    assert.equal(content?.extendedTextMessage?.text, 'Your parcel is on its way');
    // Not a message it did not send, nor one it does not know.
    assert.equal(await channel.socket.askRetry({ ...key, id: '3EB0UNKNOWN' }), undefined);

    // The library's own cache of recent sends is gone after a restart; the content is not.
    await server.container.embedded.stop({ timeoutMs: 1000 });
    await server.container.embedded.start();
    await eventually('a new socket', () => scripted.of(channel.id).length === 3);
    await waitForStatus(server, channel.id, 'connected');
    const again = await scripted.latest(channel.id)!.askRetry(key);
    assert.equal(again?.extendedTextMessage?.text, 'Your parcel is on its way');
  });

  test('a reply quotes the content Parley holds: a privacy-id customer named as participant; our own message as sent', async () => {
    const { server } = ctx;
    const channel = await pairedChannel(ctx, '4915100000402');
    arrive(channel.socket, { remoteJid: `${LID}@lid`, fromMe: false, id: '3A0000000000000000A1' }, 'Where is my order?');
    await inbound(channel.id, '3A0000000000000000A1');
    const reply = await send(server, {
      channel_id: channel.id,
      to: LID_PHONE,
      type: 'text',
      content: { body: 'It left today', reply_to: { id: '3A0000000000000000A1' } },
    });
    await waitForMessage(server, reply.body.data.id, 'sent');
    const [first] = sendsOf(channel.socket);
    assert.equal(first!.jid, `${LID_PHONE}@s.whatsapp.net`);
    assert.deepEqual(first!.options?.quoted?.key, {
      remoteJid: `${LID_PHONE}@s.whatsapp.net`,
      id: '3A0000000000000000A1',
      fromMe: false,
      participant: `${LID}@lid`,
    });
    assert.deepEqual(first!.options?.quoted?.message, { conversation: 'Where is my order?' });

    // Quoting what the business sent: its content as the library built it.
    const again = await send(server, {
      channel_id: channel.id,
      to: LID_PHONE,
      type: 'text',
      content: { body: 'As I said', reply_to: { id: libraryMessageId(reply.body.data.id) } },
    });
    await waitForMessage(server, again.body.data.id, 'sent');
    const second = sendsOf(channel.socket)[1]!;
    assert.equal(second.options?.quoted?.key.fromMe, true);
    assert.equal(second.options?.quoted?.message?.extendedTextMessage?.text, 'It left today');
  });

  test('read receipts and reactions name a privacy-id chat message by its own key, and go to its chat', async () => {
    const { server } = ctx;
    const channel = await pairedChannel(ctx, '4915100000403');
    arrive(channel.socket, { remoteJid: `${LID}@lid`, fromMe: false, id: '3A0000000000000000B1' }, 'Hello?');
    await inbound(channel.id, '3A0000000000000000B1');
    const read = await send(server, {
      channel_id: channel.id,
      to: LID_PHONE,
      type: 'mark_as_read',
      content: { message_id: '3A0000000000000000B1' },
    });
    await waitForMessage(server, read.body.data.id, 'sent');
    const receipts = channel.socket.calls.filter((c) => c.method === 'readMessages').map((c) => c.args[0]);
    assert.deepEqual(receipts, [[{ remoteJid: `${LID}@lid`, fromMe: false, id: '3A0000000000000000B1' }]]);

    const react = await send(server, {
      channel_id: channel.id,
      to: LID_PHONE,
      type: 'reaction',
      content: { message_id: '3A0000000000000000B1', reaction: '👍' },
    });
    await waitForMessage(server, react.body.data.id, 'sent');
    const [reaction] = sendsOf(channel.socket);
    assert.equal(reaction!.jid, `${LID}@lid`, 'sent into the chat the message is in');
    assert.deepEqual((reaction!.content as { react: { key: unknown } }).react.key, {
      remoteJid: `${LID}@lid`,
      fromMe: false,
      id: '3A0000000000000000B1',
    });
  });

  test('groups: a send to a group id goes to its jid with its metadata cached; a group message is read, reacted to and quoted with its participant', async () => {
    const { server } = ctx;
    const created = await request(server, 'POST', '/v1/channels', {
      key: server.apiKey,
      body: { platform: 'chatapp_unofficial', name: 'Groups', settings: { group_messages: true } },
    });
    assert.equal(created.status, 201, created.text);
    const channel = { id: created.body.data.id as string };
    assert.equal((await request(server, 'POST', `/v1/channels/${channel.id}/connect`, { key: server.apiKey })).status, 200);
    await ctx.scripted.latest(channel.id)!.scan('4915100000404', 'Shop');
    await waitForStatus(server, channel.id, 'connected');
    const socket = ctx.scripted.latest(channel.id)!;

    for (const body of ['Hello group', 'And again']) {
      const res = await send(server, { channel_id: channel.id, to: GROUP, type: 'text', content: { body } });
      assert.equal(res.status, 201, res.text);
      assert.equal(res.body.data.to, GROUP);
      await waitForMessage(server, res.body.data.id, 'sent');
    }
    assert.deepEqual(
      sendsOf(socket).map((s) => s.jid),
      [GROUP, GROUP],
    );
    assert.equal(socket.calls.filter((c) => c.method === 'groupMetadata').length, 1, 'fetched once, then cached');
    assert.equal((await socket.input.cachedGroupMetadata(GROUP))?.subject, 'Customers');

    // A member writes in the group: read, reacted to and quoted by its key (group and participant).
    arrive(socket, { remoteJid: GROUP, participant: `${MEMBER}@s.whatsapp.net`, fromMe: false, id: '3A0000000000000000C1' }, 'Anyone?');
    await inbound(channel.id, '3A0000000000000000C1');
    const memberKey = { remoteJid: GROUP, fromMe: false, id: '3A0000000000000000C1', participant: `${MEMBER}@s.whatsapp.net` };
    const read = await send(server, {
      channel_id: channel.id,
      to: GROUP,
      type: 'mark_as_read',
      content: { message_id: '3A0000000000000000C1' },
    });
    await waitForMessage(server, read.body.data.id, 'sent');
    assert.deepEqual(
      socket.calls.filter((c) => c.method === 'readMessages').map((c) => c.args[0]),
      [[memberKey]],
    );
    const react = await send(server, {
      channel_id: channel.id,
      to: MEMBER,
      type: 'reaction',
      content: { message_id: '3A0000000000000000C1', reaction: '❤️' },
    });
    await waitForMessage(server, react.body.data.id, 'sent');
    const reaction = sendsOf(socket)[2]!;
    assert.equal(reaction.jid, GROUP);
    assert.deepEqual((reaction.content as { react: { key: unknown } }).react.key, memberKey);

    const card = await send(server, {
      channel_id: channel.id,
      to: GROUP,
      type: 'contact',
      content: { full_name: 'Support', phone: '+4915100000404', reply_to: { id: '3A0000000000000000C1' } },
    });
    assert.equal(card.status, 201, card.text);
    await waitForMessage(server, card.body.data.id, 'sent');
    const quoted = sendsOf(socket)[3]!;
    assert.equal(quoted.jid, GROUP);
    assert.deepEqual(quoted.options?.quoted?.key, memberKey);
    assert.deepEqual(quoted.options?.quoted?.message, { conversation: 'Anyone?' });
  });

  test('a group the phone is not in fails the message; a group id is refused on an official channel, naming /to', async () => {
    const { server } = ctx;
    const channel = await pairedChannel(ctx, '4915100000405');
    const res = await send(server, { channel_id: channel.id, to: '120363099999999999@g.us', type: 'text', content: { body: 'x' } });
    assert.equal(res.status, 201, res.text);
    const failed = await waitForMessage(server, res.body.data.id, 'failed');
    assert.ok(failed.error?.code, JSON.stringify(failed.error));

    const official = (
      await request(server, 'POST', '/v1/channels', { key: server.apiKey, body: { platform: 'chatapp_official', name: 'Official' } })
    ).body.data;
    const refused = await send(server, { channel_id: official.id, to: GROUP, type: 'text', content: { body: 'x' } });
    assert.equal(refused.status, 400, refused.text);
    assert.deepEqual(
      refused.body.errors.map((e: { pointer: string }) => e.pointer),
      ['/to'],
    );
    const bad = await send(server, { channel_id: channel.id, to: 'group:abc', type: 'text', content: { body: 'x' } });
    assert.equal(bad.status, 400, bad.text);
    assert.match(bad.body.errors[0].message, /group id/);
  });
});
