/**
 * Calls to an unofficial channel, end to end over the HTTP gateway protocol against the sandbox gateway:
 * a call rings (the gateway's `call` callback) and becomes a `call` message in the caller's conversation
 * with message.new and call.received (the caller's privacy id beside the phone); what became of it moves
 * the record on (answered and ended, missed) with its event; the reject route ends a ringing call at the
 * gateway and sends the message given; the channel's reject_calls setting rejects every call as it rings.
 * Bad input is a 4xx naming the field; official channels answer 422.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { queryRows } from '../../src/db/client.ts';
import { lidOf } from '../../src/sandbox/rules.ts';
import { eventually } from '../eventually.ts';
import { request, startTestServer, type TestServer } from '../harness.ts';
import { eventsOf, officialChannel, pairedGatewayChannel } from '../messages-helpers.ts';

let server: TestServer;
let gateway: string;
const api = (method: string, path: string, body?: unknown) =>
  request(server, method, path, { key: server.apiKey, ...(body === undefined ? {} : { body }) });

before(async () => {
  server = await startTestServer({ worker: true, env: { SANDBOX_STATUS_DELAY_MS: '0' } });
  gateway = (await pairedGatewayChannel(server, 'Calls gateway')).id;
});
after(() => server.close());

/** A customer calls through the sandbox; the call's record once Parley has it. */
async function ring(channelId: string, from: string, extra: Record<string, unknown> = {}) {
  const res = await api('POST', '/sandbox/call', { channel_id: channelId, from, ...extra });
  assert.equal(res.status, 202, res.text);
  const callId = res.body.call_id as string;
  const record = await callRecord(callId, 'ringing');
  return { callId, record };
}

/** The call's message (as GET /v1/messages/{id} shows it) once its content shows `status`. */
function callRecord(callId: string, status: string) {
  return eventually(`call ${callId} ${status}`, async () => {
    const [row] = await queryRows<{ id: string }>(
      server.container.database.db,
      sql`select id from messages where provider_message_id = ${callId}`,
    );
    if (!row) return undefined;
    const found = (await api('GET', `/v1/messages/${row.id}`)).body.data as Record<string, any>;
    return found.content.status === status ? found : undefined;
  });
}

const endCall = (callId: string, status: string) => api('POST', '/sandbox/call/end', { channel_id: gateway, call_id: callId, status });
const callEvents = async (type: string, callId: string) =>
  (await eventsOf(server, type)).map((e) => e.payload).filter((p) => p.call_id === callId);

test('a call rings: a call message in the conversation, message.new and call.received naming the caller by phone and privacy id', async () => {
  const from = '4915133330001';
  const { callId, record } = await ring(gateway, from, { video: true, name: 'Ana Lima' });
  assert.equal(record.type, 'call');
  assert.equal(record.direction, 'inbound');
  assert.equal(record.from_phone, from);
  assert.equal(record.provider_message_id, callId);
  assert.deepEqual(
    { call_id: record.content.call_id, video: record.content.video, status: record.content.status, from_lid: record.content.from_lid },
    { call_id: callId, video: true, status: 'ringing', from_lid: lidOf(from) },
  );
  const [received] = await callEvents('call.received', callId);
  assert.equal(received?.message_id, record.id);
  assert.equal(received?.from_phone, from);
  assert.equal(received?.from_lid, lidOf(from));
  assert.equal(received?.status, 'ringing');
  assert.equal(received?.video, true);
  const created = (await eventsOf(server, 'message.new')).map((e) => e.payload).find((p) => p.message_id === record.id);
  assert.equal(created?.msg_type, 'call');
  const conversation = (await api('GET', `/v1/conversations/${record.conversation_id}`)).body.data;
  assert.equal(conversation.last_message_preview, 'Video call');
  assert.equal(conversation.unread_count, 1);
  const contact = (await api('GET', `/v1/contacts/${record.contact_id}`)).body.data;
  assert.equal(contact.name, 'Ana Lima');
});

test('answered on the phone, then ended: call.accepted and call.ended; a call that rings out is missed', async () => {
  const answered = await ring(gateway, '4915133330002');
  assert.equal((await endCall(answered.callId, 'accept')).status, 202);
  await callRecord(answered.callId, 'answered');
  assert.equal((await endCall(answered.callId, 'terminate')).status, 202);
  const ended = await callRecord(answered.callId, 'ended');
  assert.ok(ended.content.answered_at && ended.content.ended_at);
  assert.equal((await callEvents('call.accepted', answered.callId)).length, 1);
  assert.equal((await callEvents('call.ended', answered.callId)).length, 1);

  const missed = await ring(gateway, '4915133330003');
  await endCall(missed.callId, 'timeout');
  await callRecord(missed.callId, 'missed');
  const [event] = await callEvents('call.missed', missed.callId);
  assert.equal(event?.status, 'missed');
  // A call that ended says so: the sandbox refuses to end it again.
  assert.equal((await endCall(missed.callId, 'terminate')).status, 409);
});

test('reject with a message: the gateway ends the call, the record is rejected by Parley, the message goes to the caller', async () => {
  const from = '4915133330004';
  const { callId, record } = await ring(gateway, from);
  const res = await api('POST', `/v1/channels/${gateway}/calls/${callId}/reject`, { message: 'We cannot take calls; please write.' });
  assert.equal(res.status, 200, res.text);
  assert.equal(res.body.data.call.id, record.id);
  assert.equal(res.body.data.call.content.status, 'rejected');
  assert.equal(res.body.data.call.content.rejected_by, 'parley');
  assert.equal(res.body.data.message.to, from);
  assert.deepEqual(res.body.data.message.content, { body: 'We cannot take calls; please write.' });
  assert.equal(res.body.data.message.conversation_id, record.conversation_id);
  assert.equal(res.body.data.message_refusal, null);
  const [event] = await callEvents('call.rejected', callId);
  assert.equal(event?.rejected_by, 'parley');
  // The sandbox's side: the gateway rejected the call.
  const [row] = await queryRows<{ status: string }>(
    server.container.database.db,
    sql`select status from sandbox_messages where id = ${callId}`,
  );
  assert.equal(row?.status, 'rejected');
  // The message is sent like any other.
  await eventually('the message sent', async () => {
    const status = (await api('GET', `/v1/messages/${res.body.data.message.id}/status`)).body.data.status;
    return status === 'sent' || status === 'delivered' || status === 'read' ? status : undefined;
  });

  const again = await api('POST', `/v1/channels/${gateway}/calls/${callId}/reject`);
  assert.equal(again.status, 409, again.text);
  assert.match(again.body.detail, /rejected/);
});

test('reject without a message; an unknown call is 404 naming callID; a message out of bounds 400; an official channel 422', async () => {
  const { callId } = await ring(gateway, '4915133330005');
  const res = await api('POST', `/v1/channels/${gateway}/calls/${callId}/reject`);
  assert.equal(res.status, 200, res.text);
  assert.equal(res.body.data.message, null);

  const unknown = await api('POST', `/v1/channels/${gateway}/calls/NOSUCHCALL/reject`, {});
  assert.equal(unknown.status, 404, unknown.text);
  assert.deepEqual(unknown.body.errors?.[0], { pointer: '/callID', location: 'params', message: 'no call of this channel has this id' });
  const long = await api('POST', `/v1/channels/${gateway}/calls/${callId}/reject`, { message: 'x'.repeat(4097) });
  assert.equal(long.status, 400, long.text);
  const official = await officialChannel(server, 'Calls official');
  const refused = await api('POST', `/v1/channels/${official.id}/calls/${callId}/reject`);
  assert.equal(refused.status, 422, refused.text);
  assert.equal(refused.body.operation, 'calls.reject');
});

test("the channel's reject_calls setting rejects every call as it rings, with its message", async () => {
  const channel = await pairedGatewayChannel(server, 'Rejecting gateway', {
    reject_calls: true,
    reject_calls_message: 'Calls are not answered here.',
  });
  const res = await api('POST', '/sandbox/call', { channel_id: channel.id, from: '4915133330006' });
  const callId = res.body.call_id as string;
  const rejected = await callRecord(callId, 'rejected');
  assert.equal(rejected.content.rejected_by, 'parley');
  const [event] = await callEvents('call.rejected', callId);
  assert.equal(event?.rejected_by, 'parley');
  const sent = await eventually('the reply to the caller', async () => {
    const list = (await api('GET', `/v1/conversations/${rejected.conversation_id}/messages`)).body.data as Array<Record<string, any>>;
    return list.find((m) => m.direction === 'outbound');
  });
  assert.deepEqual(sent.content, { body: 'Calls are not answered here.' });
  // A setting that is not a boolean is refused naming it.
  const bad = await api('PATCH', `/v1/channels/${channel.id}`, { settings: { reject_calls: 'yes' } });
  assert.equal(bad.status, 400, bad.text);
});

test('the sandbox refuses calls it cannot make, naming what is wrong', async () => {
  assert.equal((await api('POST', '/sandbox/call', { channel_id: gateway, from: 'x' })).status, 400);
  assert.equal((await api('POST', '/sandbox/call', { channel_id: gateway, from: '4915133330007', video: 'yes' })).status, 400);
  assert.equal((await api('POST', '/sandbox/call/end', { channel_id: gateway, call_id: 'nope', status: 'timeout' })).status, 404);
  assert.equal((await api('POST', '/sandbox/call/end', { channel_id: gateway, call_id: 'nope', status: 'later' })).status, 400);
});
