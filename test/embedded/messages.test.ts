/**
 * Sending and receiving through the embedded engine: the dispatcher sends on the holder's socket with
 * the library message id made from Parley's id; acks drive sent -> delivered -> read (out of order and
 * twice, stored once); an answer lost mid-send is settled by the ack that names the message, never by
 * a second send; inbound text is stored once however often the library delivers it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { and, eq } from 'drizzle-orm';
import { randomBytes } from 'node:crypto';
import { proto, type WAMessage } from 'baileys';
import { channelSessions, messages, providerEvents } from '../../src/db/schema.ts';
import { libraryMessageId } from '../../src/providers/gateway/embedded/ids.ts';
import { eventually } from '../eventually.ts';
import { request } from '../harness.ts';
import { send, waitForStatus as waitForMessage } from '../messages-helpers.ts';
import { pairedChannel, startEmbeddedServer } from './helpers.ts';

const Status = proto.WebMessageInfo.Status;
/** A sender's privacy id the library's store maps to a phone (and one it knows nothing of). */
const PRIVATE_LID = '187654321098765';
const UNKNOWN_LID = '187654321098799';

describe('embedded engine: messages', () => {
  let ctx: Awaited<ReturnType<typeof startEmbeddedServer>>;
  before(async () => {
    // A lost answer is given up on after 30 s unless an ack names it.
    ctx = await startEmbeddedServer({
      env: { MESSAGE_RECONCILE_SECONDS: '30' },
      lidPhones: new Map([[`${PRIVATE_LID}@lid`, '4915122220004@s.whatsapp.net']]),
    });
  });
  after(() => ctx.server.close());

  test('a text goes out on the socket with the library id made from the message id; acks move it to read, late and repeated ones change nothing', async () => {
    const { server } = ctx;
    const channel = await pairedChannel(ctx, '4915100000101');
    const to = '4915122220001';
    const res = await send(server, { channel_id: channel.id, to, type: 'text', content: { body: 'Your order shipped' } });
    assert.equal(res.status, 201, res.text);
    const id = res.body.data.id as string;
    const sent = await waitForMessage(server, id, 'sent');
    const libraryId = libraryMessageId(id);
    assert.equal(sent.provider_message_id, libraryId);
    assert.match(libraryId, /^3EB0[0-9A-F]{32}$/);
    const sends = channel.socket.calls.filter((c) => c.method === 'sendMessage');
    assert.equal(sends.length, 1);
    assert.deepEqual(
      sends[0]!.args.slice(0, 2),
      [`${to}@s.whatsapp.net`, { text: 'Your order shipped', linkPreview: null }],
      'no link preview the library would fetch itself',
    );
    assert.deepEqual(sends[0]!.args[2], { messageId: libraryId });

    // read overtakes delivered; both come twice.
    channel.socket.ack(libraryId, to, Status.READ);
    channel.socket.ack(libraryId, to, Status.DELIVERY_ACK);
    channel.socket.ack(libraryId, to, Status.READ);
    channel.socket.ack(libraryId, to, Status.DELIVERY_ACK);
    const read = await waitForMessage(server, id, 'read');
    // The late delivered is history, not a step back.
    assert.deepEqual(read.history.map((h: { status: string }) => h.status).sort(), ['delivered', 'queued', 'read', 'sent']);
    // The message can read `read` before the overtaken `delivered` ack is stored: wait for both to be.
    const ackIds = await eventually('both acks stored', async () => {
      const acks = await server.container.database.db.select().from(providerEvents).where(eq(providerEvents.channelId, channel.id));
      const ids = acks
        .map((a) => a.externalId)
        .filter((x) => x?.startsWith('ack:'))
        .sort();
      return ids.length >= 2 ? ids : undefined;
    });
    assert.deepEqual(ackIds, [`ack:${libraryId}:delivered`, `ack:${libraryId}:read`], 'a repeated ack is stored once');
    await eventually('the acks to be applied', async () => {
      const rows = await server.container.database.db.select().from(providerEvents).where(eq(providerEvents.channelId, channel.id));
      return rows.every((r) => r.processedAt !== null);
    });
    assert.equal((await request(server, 'GET', `/v1/messages/${id}`, { key: server.apiKey })).body.data.status, 'read');
  });

  test('an answer lost mid-send is not sent again: the server ack naming the message settles it', async () => {
    const { server } = ctx;
    const channel = await pairedChannel(ctx, '4915100000102');
    const to = '4915122220002';
    // The library's own time-out (Boom 408 "Timed Out"): the write may have reached the service.
    channel.socket.failNextSend = Object.assign(new Error('Timed Out'), { output: { statusCode: 408 } });
    const res = await send(server, { channel_id: channel.id, to, type: 'text', content: { body: 'Only once' } });
    const id = res.body.data.id as string;
    // Recorded with its lost answer and left to a status that names it: due again only when the wait
    // for one ends (MESSAGE_RECONCILE_SECONDS after the attempt), to fail as unknown unless one came.
    await eventually('the attempt to be left to the acks', async () => {
      if (server.container.dispatcher.inFlight() > 0) return undefined;
      const [row] = await server.container.database.db.select().from(messages).where(eq(messages.id, id));
      const waits = row?.dispatchAt && row.lastAttemptAt ? row.dispatchAt.getTime() - row.lastAttemptAt.getTime() : 0;
      return row?.errorCode === 'timeout' && row.attempts === 1 && waits >= 29_000 ? row : undefined;
    });
    // The library did send it: its server ack arrives, naming the library id made from Parley's.
    channel.socket.ack(libraryMessageId(id), to, Status.SERVER_ACK);
    const sent = await waitForMessage(server, id, 'sent');
    assert.equal(sent.provider_message_id, libraryMessageId(id));
    server.container.dispatcher.wake();
    channel.socket.ack(libraryMessageId(id), to, Status.DELIVERY_ACK);
    await waitForMessage(server, id, 'delivered');
    assert.equal(channel.socket.calls.filter((c) => c.method === 'sendMessage').length, 1, 'never sent twice');
  });

  test('a customer message is stored once, however often the library delivers it', async () => {
    const { server } = ctx;
    const channel = await pairedChannel(ctx, '4915100000103');
    const from = '4915122220003';
    const message = channel.socket.receiveText(from, 'Is my order ready?');
    channel.socket.emit('messages.upsert', { messages: [message], type: 'notify' });
    const stored = await eventually('the inbound message', async () => {
      const list = (await request(server, 'GET', `/v1/messages?channel_id=${channel.id}&direction=inbound`, { key: server.apiKey })).body
        .data;
      return list.length > 0 ? list : undefined;
    });
    await eventually('both deliveries to be handled', async () => {
      const rows = await server.container.database.db
        .select()
        .from(providerEvents)
        .where(and(eq(providerEvents.channelId, channel.id), eq(providerEvents.externalId, `msg:${message.key.id}`)));
      return rows.length === 1 && rows[0]!.processedAt !== null;
    });
    const list = (await request(server, 'GET', `/v1/messages?channel_id=${channel.id}&direction=inbound`, { key: server.apiKey })).body
      .data;
    assert.equal(list.length, 1);
    assert.equal(stored[0].provider_message_id, message.key.id);
    assert.equal(list[0].content.body, 'Is my order ready?');
  });

  test('a sender named by privacy id only becomes the contact of the phone the library maps it to, the privacy id linked', async () => {
    const { server } = ctx;
    const channel = await pairedChannel(ctx, '4915100000104');
    const arrive = (lid: string, text: string) => {
      const id = `3A${randomBytes(8).toString('hex').toUpperCase()}`;
      channel.socket.emit('messages.upsert', {
        type: 'notify',
        messages: [
          proto.WebMessageInfo.fromObject({
            key: { remoteJid: `${lid}@lid`, fromMe: false, id },
            message: { conversation: text },
            messageTimestamp: Math.floor(Date.now() / 1000),
            pushName: 'Private',
          }) as WAMessage,
        ],
      });
      return id;
    };
    const unknown = arrive(UNKNOWN_LID, 'from nobody known');
    const known = arrive(PRIVATE_LID, 'from a privacy id');
    const [stored] = await eventually('the message from the mapped privacy id', async () => {
      const list = (await request(server, 'GET', `/v1/messages?channel_id=${channel.id}&direction=inbound`, { key: server.apiKey })).body
        .data;
      return list.length > 0 ? list : undefined;
    });
    assert.equal(stored.provider_message_id, known);
    assert.equal(stored.content.body, 'from a privacy id');
    const identities = (await request(server, 'GET', `/v1/contacts/${stored.contact_id}/identities`, { key: server.apiKey })).body
      .data as Array<{ type: string; value: string }>;
    assert.deepEqual(
      identities.map((i) => `${i.type}:${i.value}`).sort(),
      ['chatapp_id:4915122220004', `linked_id:${PRIVATE_LID}`, 'phone:+4915122220004'].sort(),
    );
    // The one the store knows no phone for cannot reach a contact: asked about, and not stored.
    assert.ok(channel.socket.calls.some((c) => c.method === 'phoneJidOfLid' && c.args[0] === `${UNKNOWN_LID}@lid`));
    const all = (await request(server, 'GET', `/v1/messages?channel_id=${channel.id}&direction=inbound`, { key: server.apiKey })).body
      .data as Array<{ provider_message_id: string }>;
    assert.deepEqual(
      all.map((m) => m.provider_message_id),
      [known],
      unknown,
    );
  });

  test('messages of a channel another process holds are left to that process; without its socket a send waits', async () => {
    const { server } = ctx;
    const channel = await pairedChannel(ctx, '4915100000104');
    const db = server.container.database.db;
    // Another process holds the session now: this one loses its lease and closes its socket at once.
    await db
      .update(channelSessions)
      .set({ owner: 'another-process', leaseUntil: new Date(Date.now() + 3_600_000) })
      .where(eq(channelSessions.channelId, channel.id));
    await eventually('the socket to be closed', () => channel.socket.ended);
    assert.equal(server.container.embedded.socketOf(channel.id), undefined);
    const res = await send(server, { channel_id: channel.id, to: '4915122220004', type: 'text', content: { body: 'held elsewhere' } });
    const id = res.body.data.id as string;
    // The dispatcher polls every second; three polls later the message is still untouched.
    const polls = async () => {
      for (let i = 0; i < 3; i++) {
        const before = Date.now();
        server.container.dispatcher.wake();
        await eventually('a poll', () => Date.now() - before > 1000);
      }
    };
    await polls();
    const [row] = await db.select().from(messages).where(eq(messages.id, id));
    assert.equal(row!.attempts, 0, 'not claimed by a process that does not hold the session');
    assert.equal(row!.status, 'queued');
    // The holder is gone: the session is this process's again, and the message goes out.
    await db.update(channelSessions).set({ owner: null, leaseUntil: null }).where(eq(channelSessions.channelId, channel.id));
    server.container.embedded.wake();
    await waitForMessage(server, id, 'sent');
  });
});
