/**
 * Stubs the library delivers (messageStubType): a message it could not decrypt is stored as an
 * `unsupported` message with the reason and announced like any inbound message; when the sender's
 * phone sends it again under the same id, the real content replaces the placeholder.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { proto, WAMessageStubType, type WAMessage } from 'baileys';
import { eventually } from '../eventually.ts';
import { request } from '../harness.ts';
import { eventsOf } from '../messages-helpers.ts';
import { pairedChannel, startEmbeddedServer } from './helpers.ts';

describe('embedded engine: stub messages', () => {
  let ctx: Awaited<ReturnType<typeof startEmbeddedServer>>;
  before(async () => {
    ctx = await startEmbeddedServer();
  });
  after(() => ctx.server.close());

  const inboundOf = async (channelId: string) =>
    (await request(ctx.server, 'GET', `/v1/messages?channel_id=${channelId}&direction=inbound`, { key: ctx.server.apiKey })).body
      .data as Array<Record<string, unknown> & { id: string; type: string; content: Record<string, unknown> }>;

  test('a message that could not be decrypted is stored as unsupported with the reason; its resend replaces it', async () => {
    const { server } = ctx;
    const channel = await pairedChannel(ctx, '4915100000301');
    const from = '4915122223001';
    const id = '3AF0000000000000000001';
    // What the library upserts after a failed decryption (decode-wa-message.js): the stub, the error, no content.
    channel.socket.emit('messages.upsert', {
      type: 'notify',
      messages: [
        proto.WebMessageInfo.fromObject({
          key: { remoteJid: `${from}@s.whatsapp.net`, fromMe: false, id },
          messageStubType: WAMessageStubType.CIPHERTEXT,
          messageStubParameters: ['Bad MAC'],
          messageTimestamp: Math.floor(Date.now() / 1000),
          pushName: 'Ana',
        }) as WAMessage,
      ],
    });
    const [stub] = await eventually('the unsupported message', async () => {
      const list = await inboundOf(channel.id);
      return list.length > 0 ? list : undefined;
    });
    assert.equal(stub!.type, 'unsupported');
    assert.equal(stub!.provider_message_id, id);
    assert.deepEqual(
      (stub!.content.errors as Array<{ code: string }>).map((e) => e.code),
      ['decryption_failed'],
    );
    assert.match(String((stub!.content.errors as Array<{ title: string }>)[0]!.title), /Bad MAC/);
    const news = await eventsOf(server, 'message.new');
    assert.ok(
      news.some((e) => e.payload.message_id === stub!.id && e.payload.msg_type === 'unsupported'),
      'message.new as for any inbound message',
    );

    // The sender's phone sends it again (the library's retry): the same id, now with its content.
    channel.socket.receiveText(from, 'the real words', id);
    const replaced = await eventually('the placeholder replaced', async () => {
      const [m] = await inboundOf(channel.id);
      return m?.type === 'text' ? m : undefined;
    });
    assert.equal(replaced.id, stub!.id, 'the same message');
    assert.deepEqual(replaced.content, { body: 'the real words' });
    assert.equal((await inboundOf(channel.id)).length, 1);
    const edited = await eventsOf(server, 'message.edited');
    assert.ok(edited.some((e) => e.payload.message_id === stub!.id));
    // The conversation's preview shows the words, not the placeholder any more.
    const conversation = (await request(server, 'GET', `/v1/conversations/${replaced.conversation_id}`, { key: server.apiKey })).body.data;
    assert.equal(conversation.last_message_preview, 'the real words');
  });
});
