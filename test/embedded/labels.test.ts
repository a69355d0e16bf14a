/**
 * Business labels and status posts on the embedded engine, driven through the API against a scripted
 * socket that plays the service with the library's own calls and shapes: addLabel (deleted for a
 * removal), addChatLabel / removeChatLabel, addMessageLabel, the `labels.edit` and `labels.association`
 * events (the phone's changes, and the echo of our own, which announces nothing twice), a status post
 * as sendMessage to status@broadcast with statusJidList, backgroundColor and font, and contacts' posts
 * (messages.upsert from status@broadcast) as status.received only while the channel keeps them.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { proto, type BaileysEventMap, type WAMessage } from 'baileys';
import { sql } from 'drizzle-orm';
import { queryRows } from '../../src/db/client.ts';
import { eventually } from '../eventually.ts';
import { request } from '../harness.ts';
import { jpegBytes } from '../media-helpers.ts';
import { eventsOf } from '../messages-helpers.ts';
import { startEmbeddedServer, waitForStatus } from './helpers.ts';
import type { ScriptedSocket } from './scripted-socket.ts';

const CUSTOMER = '4915144450001';
const CUSTOMER_LID = '80221344450001';
const GROUP = '120363044450000001@g.us';

describe('embedded engine: labels and status posts', () => {
  let ctx: Awaited<ReturnType<typeof startEmbeddedServer>>;
  let images: Server;
  let imageBase: string;
  const picture = jpegBytes();
  before(async () => {
    ctx = await startEmbeddedServer({ lidPhones: new Map([[`${CUSTOMER_LID}@lid`, `${CUSTOMER}@s.whatsapp.net`]]) });
    images = createServer((_req, res) => res.writeHead(200, { 'content-type': 'image/jpeg' }).end(picture));
    await new Promise<void>((resolve) => images.listen(0, '127.0.0.1', resolve));
    imageBase = `http://127.0.0.1:${(images.address() as AddressInfo).port}`;
  });
  after(async () => {
    images.close();
    await ctx.server.close();
  });

  const api = (method: string, path: string, body?: unknown) => request(ctx.server, method, path, { key: ctx.server.apiKey, body });
  const callsOf = (socket: ScriptedSocket, method: string) => socket.calls.filter((c) => c.method === method).map((c) => c.args);

  async function paired(phone: string) {
    const created = await api('POST', '/v1/channels', { platform: 'chatapp_unofficial', name: `Phone ${phone}` });
    assert.equal(created.status, 201, created.text);
    const id = created.body.data.id as string;
    assert.equal((await api('POST', `/v1/channels/${id}/connect`)).status, 200);
    await ctx.scripted.latest(id)!.scan(phone, 'Shop');
    await waitForStatus(ctx.server, id, 'connected');
    return { id, socket: ctx.scripted.latest(id)! };
  }

  async function channelEvents(type: string, channelId: string, count: number) {
    return eventually(`${count} ${type} events`, async () => {
      const found = (await eventsOf(ctx.server, type)).map((e) => e.payload).filter((p) => p.channel_id === channelId);
      return found.length >= count ? found : undefined;
    });
  }

  /** The holder handled everything the socket emitted so far: a later one-to-one message is stored. */
  async function drained(channelId: string, socket: ScriptedSocket, id: string) {
    socket.receiveText('4915144459999', 'marker', id);
    await eventually('the marker stored', async () => {
      const rows = await queryRows(
        ctx.server.container.database.db,
        sql`select 1 from messages where channel_id = ${channelId} and provider_message_id = ${id}`,
      );
      return rows.length === 1 ? true : undefined;
    });
  }

  test("the library's label calls; its echoes announce nothing twice; the phone's own labels and associations kept", async () => {
    const channel = await paired('4915144450100');
    const { socket } = channel;
    const labels = `/v1/channels/${channel.id}/labels`;

    const made = await api('POST', labels, { name: 'Paid', color: 4 });
    assert.equal(made.status, 201, made.text);
    assert.deepEqual(callsOf(socket, 'addLabel'), [['', { id: '1', name: 'Paid', color: 4, deleted: false }]]);
    const renamed = await api('PATCH', `${labels}/1`, { name: 'Paid in full' });
    assert.equal(renamed.status, 200, renamed.text);
    assert.deepEqual(callsOf(socket, 'addLabel')[1], ['', { id: '1', name: 'Paid in full', color: 4, deleted: false }]);

    assert.equal((await api('POST', `${labels}/1/chats`, { chat: `+${CUSTOMER}` })).status, 200);
    const onGroup = await api('POST', `${labels}/1/chats`, { chat: GROUP });
    assert.equal(onGroup.status, 200, onGroup.text);
    assert.deepEqual(onGroup.body.data.chats, [`+${CUSTOMER}`, GROUP]);
    assert.deepEqual(callsOf(socket, 'addChatLabel'), [
      [`${CUSTOMER}@s.whatsapp.net`, '1'],
      [GROUP, '1'],
    ]);
    const onMessage = await api('POST', `${labels}/1/chats`, { chat: `+${CUSTOMER}`, message_id: '3A0000000000000000B1' });
    assert.equal(onMessage.status, 200, onMessage.text);
    assert.deepEqual(callsOf(socket, 'addMessageLabel'), [[`${CUSTOMER}@s.whatsapp.net`, '3A0000000000000000B1', '1']]);
    const off = await api('DELETE', `${labels}/1/chats/${encodeURIComponent(GROUP)}`);
    assert.equal(off.status, 200, off.text);
    assert.deepEqual(callsOf(socket, 'removeChatLabel'), [[GROUP, '1']]);
    assert.deepEqual(off.body.data.chats, [`+${CUSTOMER}`]);

    // The phone makes a label and puts it on a chat it names by privacy id (the store knows the phone).
    socket.emit('labels.edit', { id: '5', name: 'VIP', color: 2, deleted: false } as BaileysEventMap['labels.edit']);
    socket.emit('labels.association', {
      type: 'add',
      association: { type: 'label_jid', chatId: `${CUSTOMER_LID}@lid`, labelId: '5' },
    } as BaileysEventMap['labels.association']);
    await drained(channel.id, socket, '3A0000000000000000F1');
    const listed = (await api('GET', labels)).body.data;
    assert.deepEqual(
      listed.map((l: { id: string; name: string; color: number; chats: string[] }) => [l.id, l.name, l.color, l.chats]),
      [
        ['1', 'Paid in full', 4, [`+${CUSTOMER}`]],
        ['5', 'VIP', 2, [`+${CUSTOMER}`]],
      ],
    );
    assert.equal((await api('POST', labels, { name: 'Next' })).body.data.id, '6', 'numbered after the phone’s');

    const removed = await api('DELETE', `${labels}/1`);
    assert.equal(removed.status, 204, removed.text);
    assert.deepEqual(callsOf(socket, 'addLabel').at(-1), ['', { id: '1', deleted: true }]);
    await drained(channel.id, socket, '3A0000000000000000F2');

    // One event per change: ours (their echoes changed nothing) and the phone's.
    const updated = await channelEvents('label.updated', channel.id, 5);
    assert.deepEqual(
      updated.map((e) => [e.label_id, e.name, e.deleted]),
      [
        ['1', 'Paid', false],
        ['1', 'Paid in full', false],
        ['5', 'VIP', false],
        ['6', 'Next', false],
        ['1', 'Paid in full', true],
      ],
    );
    const assigned = await channelEvents('label.assigned', channel.id, 4);
    assert.deepEqual(
      assigned.map((e) => [e.label_id, e.chat_id, e.message_id]),
      [
        ['1', `+${CUSTOMER}`, null],
        ['1', GROUP, null],
        ['1', `+${CUSTOMER}`, '3A0000000000000000B1'],
        ['5', `+${CUSTOMER}`, null],
      ],
    );
    assert.equal((await channelEvents('label.unassigned', channel.id, 1)).length, 1);
  });

  test('status posts: text with its background and font, an image fetched by Parley, to the chosen contacts', async () => {
    const channel = await paired('4915144450200');
    const { socket } = channel;
    const text = await api('POST', `/v1/channels/${channel.id}/status`, {
      type: 'text',
      text: 'Open on Sunday',
      background_color: '#112233',
      font: 3,
      recipients: [`+${CUSTOMER}`, '+4915144450002'],
    });
    assert.equal(text.status, 201, text.text);
    const [jid, content, options] = callsOf(socket, 'sendMessage').at(-1)!;
    assert.equal(jid, 'status@broadcast');
    assert.deepEqual(content, { text: 'Open on Sunday' });
    assert.deepEqual(options, {
      statusJidList: [`${CUSTOMER}@s.whatsapp.net`, '4915144450002@s.whatsapp.net'],
      backgroundColor: '#112233',
      font: 3,
    });
    assert.match(text.body.data.id, /^3EB0/);

    const image = await api('POST', `/v1/channels/${channel.id}/status`, {
      type: 'image',
      url: `${imageBase}/june.jpg`,
      caption: 'June',
      recipients: [`+${CUSTOMER}`],
    });
    assert.equal(image.status, 201, image.text);
    const [, imageContent, imageOptions] = callsOf(socket, 'sendMessage').at(-1)! as [string, { image: Buffer; caption: string }, unknown];
    assert.ok(Buffer.from(imageContent.image).equals(picture), 'the bytes Parley fetched');
    assert.equal(imageContent.caption, 'June');
    assert.deepEqual(imageOptions, { statusJidList: [`${CUSTOMER}@s.whatsapp.net`] });

    const refused = await api('POST', `/v1/channels/${channel.id}/status`, {
      type: 'image',
      url: 'http://10.0.0.1/x.jpg',
      recipients: [`+${CUSTOMER}`],
    });
    assert.equal(refused.status, 400, refused.text);
    assert.equal(refused.body.errors[0].pointer, '/url');
  });

  test("contacts' status posts: status.received only while the channel keeps them", async () => {
    const channel = await paired('4915144450300');
    const { socket } = channel;
    const post = (id: string) =>
      socket.emit('messages.upsert', {
        type: 'notify',
        messages: [
          proto.WebMessageInfo.fromObject({
            key: { remoteJid: 'status@broadcast', participant: `${CUSTOMER}@s.whatsapp.net`, fromMe: false, id },
            message: { conversation: 'My story' },
            messageTimestamp: Math.floor(Date.now() / 1000),
            pushName: 'Customer',
          }) as WAMessage,
        ],
      });
    post('3A0000000000000000C1');
    await drained(channel.id, socket, '3A0000000000000000F3');
    assert.equal((await eventsOf(ctx.server, 'status.received')).filter((e) => e.payload.channel_id === channel.id).length, 0);

    assert.equal((await api('PATCH', `/v1/channels/${channel.id}`, { settings: { status_messages: true } })).status, 200);
    post('3A0000000000000000C2');
    const [received] = await channelEvents('status.received', channel.id, 1);
    assert.equal(received!.from_phone, `+${CUSTOMER}`);
    assert.equal(received!.type, 'text');
    const message = await api('GET', `/v1/messages/${received!.message_id as string}`);
    assert.deepEqual(message.body.data.content, { body: 'My story', status_post: true });
  });
});
