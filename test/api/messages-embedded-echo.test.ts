/**
 * The embedded engine's socket reports, through the real inbound pipeline (the path the engine takes:
 * normalizeSocketEvent, then acceptInboundDelivery and the provider.inbound job): the library's echo of
 * Parley's own send names the Parley message, so a send whose answer has not come back (yet, or ever)
 * is settled as sent by it rather than stored twice or sent again. Library events are built with its
 * protobuf types.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { proto, type WAMessage } from 'baileys';
import { sql } from 'drizzle-orm';
import { queryRows } from '../../src/db/client.ts';
import { findChannel } from '../../src/domain/channels/channels.ts';
import { acceptInboundDelivery } from '../../src/domain/inbound/accept.ts';
import { libraryMessageId } from '../../src/providers/gateway/embedded/ids.ts';
import { normalizeSocketEvent } from '../../src/providers/gateway/embedded/inbound.ts';
import { loadLibrary } from '../../src/providers/gateway/embedded/library.ts';
import { eventually } from '../eventually.ts';
import { request, startTestServer, type TestServer } from '../harness.ts';
import { eventsOf, pairedGatewayChannel, send } from '../messages-helpers.ts';

let server: TestServer;
let channelId: string;
before(async () => {
  // The provider answers nothing until the call times out (4 s): the send's answer is lost.
  server = await startTestServer({
    worker: true,
    env: { SANDBOX_FAULT_INJECTION: 'true', PROVIDER_TIMEOUT_MS: '4000', SANDBOX_STATUS_DELAY_MS: '30' },
  });
  channelId = (await pairedGatewayChannel(server, 'Embedded')).id;
});
after(() => server.close());

/** Hands socket events to the inbound pipeline as the engine does. */
async function socketReports(messages: WAMessage[]) {
  // The engine has loaded the chat library before any socket reports (library.ts).
  await loadLibrary();
  const channel = (await findChannel(server.container.database.db, channelId))!;
  const events = normalizeSocketEvent(
    channel.providerRef!,
    { event: 'messages.upsert', data: { messages, type: 'append' } },
    { self: { phone: '15550001111' }, groups: false },
  );
  assert.ok(events.length > 0);
  const { database, queue, clock, logger } = server.container;
  await acceptInboundDelivery(
    { db: database.db, queue, clock, logger },
    { platform: channel.platform as 'chatapp_unofficial', events, channel },
  );
}

test("the library's echo of a send whose answer is lost settles it as sent, under the library's id, once", async () => {
  const to = '4915112340201';
  const hang = await request(server, 'PUT', '/sandbox/faults', { body: { rules: [{ fault: 'hang', to, times: 1 }] } });
  assert.equal(hang.status, 200, hang.text);
  const res = await send(server, { channel_id: channelId, to, type: 'text', content: { body: 'Your table is ready' } });
  assert.equal(res.status, 201, res.text);
  const id = res.body.data.id as string;
  // The attempt is recorded and the call hangs.
  await eventually('the attempt', async () => {
    const [row] = await queryRows<{ attempts: number }>(server.container.database.db, sql`select attempts from messages where id = ${id}`);
    return row!.attempts > 0 ? true : undefined;
  });
  const libraryId = libraryMessageId(id);
  const echo = proto.WebMessageInfo.fromObject({
    key: { remoteJid: `${to}@s.whatsapp.net`, fromMe: true, id: libraryId },
    message: { extendedTextMessage: { text: 'Your table is ready' } },
    messageTimestamp: Math.floor(Date.now() / 1000),
  }) as WAMessage;
  await socketReports([echo]);
  const sent = await eventually('settled by the echo', async () => {
    const got = (await request(server, 'GET', `/v1/messages/${id}`, { key: server.apiKey })).body.data;
    return got.status === 'sent' ? got : undefined;
  });
  assert.equal(sent.provider_message_id, libraryId);
  // Reported again, and the lost answer's time-out passes: still one message, sent once, never failed.
  await socketReports([echo, echo]);
  await eventually('the lost answer settled by the dispatcher', async () => {
    const [row] = await queryRows<{ dispatch_at: Date | null; attempts: number }>(
      server.container.database.db,
      sql`select dispatch_at, attempts from messages where id = ${id}`,
    );
    return row!.dispatch_at === null ? row : undefined;
  });
  const rows = await queryRows<{ id: string; status: string }>(
    server.container.database.db,
    sql`select id, status from messages where channel_id = ${channelId} and (provider_message_id = ${libraryId} or id = ${id})`,
  );
  assert.deepEqual(rows, [{ id, status: 'sent' }]);
  assert.equal((await eventsOf(server, 'message.sent')).filter((e) => e.payload.message_id === id).length, 1);
  assert.equal(
    (await eventsOf(server, 'message.new')).filter((e) => e.payload.conversation_id === res.body.data.conversation_id).length,
    0,
  );
});
