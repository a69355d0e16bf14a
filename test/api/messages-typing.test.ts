/**
 * Typing indicators: POST /v1/messages/{id}/typing answers a customer's message with a `presence`
 * (typing) message, and on official channels a `presence` goes out as the provider's read body with
 * `typing_indicator`, for the message named or else the customer's latest.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { queryRows } from '../../src/db/client.ts';
import { request, startTestServer, type TestServer } from '../harness.ts';
import { customerWrites, officialChannel, pairedGatewayChannel, send, waitForStatus } from '../messages-helpers.ts';

let server: TestServer;
let official: { id: string };
let gateway: { id: string };

before(async () => {
  server = await startTestServer({ worker: true, env: { SANDBOX_STATUS_DELAY_MS: '50' } });
  official = await officialChannel(server);
  gateway = await pairedGatewayChannel(server);
});
after(() => server.close());

async function rowOf(id: string) {
  const rows = await queryRows<{ provider_message_id: string; status: string }>(
    server.container.database.db,
    sql`select m.provider_message_id, s.status from messages m left join sandbox_messages s on s.id = m.provider_message_id where m.id = ${id}`,
  );
  return rows[0]!;
}

const typing = (messageId: string, key = server.apiKey) => request(server, 'POST', `/v1/messages/${messageId}/typing`, { key });

test("typing answers a customer's message on an official channel: the provider gets the read body with the typing indicator", async () => {
  const inbound = await customerWrites(server, official.id, '4915112348001');
  const { provider_message_id: wamid } = await rowOf(inbound);
  const res = await typing(inbound);
  assert.equal(res.status, 201, res.text);
  assert.equal(res.body.data.type, 'presence');
  assert.deepEqual(res.body.data.content, { state: 'typing', message_id: wamid });
  assert.equal(res.body.data.to, '4915112348001');
  const status = await waitForStatus(server, res.body.data.id, 'sent', 15_000);
  assert.equal(status.provider_message_id, null, 'a typing indicator is no message of its own');
  assert.equal((await rowOf(inbound)).status, 'read', 'the provider marked the message read as it showed typing');
});

test('a presence on an official channel types in answer to the customer’s latest message; other states are refused naming /content/state', async () => {
  const to = '4915112348002';
  await customerWrites(server, official.id, to, 'text', { body: 'first' });
  const latest = await customerWrites(server, official.id, to, 'text', { body: 'second' });
  const res = await send(server, { channel_id: official.id, to, type: 'presence', content: { state: 'typing' } });
  assert.equal(res.status, 201, res.text);
  await waitForStatus(server, res.body.data.id, 'sent', 15_000);
  assert.equal((await rowOf(latest)).status, 'read');
  for (const state of ['paused', 'recording', 'available']) {
    const refused = await send(server, { channel_id: official.id, to, type: 'presence', content: { state } });
    assert.equal(refused.status, 422, refused.text);
    assert.equal(refused.body.code, 'unsupported');
    assert.deepEqual(
      refused.body.errors.map((e: { pointer: string }) => e.pointer),
      ['/content/state'],
    );
  }
});

test('typing on a gateway channel is its presence; on an outbound message it is 409, on an unknown one 404', async () => {
  const inbound = await customerWrites(server, gateway.id, '4915112348003');
  const res = await typing(inbound);
  assert.equal(res.status, 201, res.text);
  assert.equal(res.body.data.type, 'presence');
  await waitForStatus(server, res.body.data.id, 'sent', 15_000);
  const outbound = await send(server, { channel_id: gateway.id, to: '4915112348003', type: 'text', content: { body: 'hi' } });
  const conflict = await typing(outbound.body.data.id);
  assert.equal(conflict.status, 409, conflict.text);
  assert.match(conflict.body.detail, /customer/);
  const unknown = await typing('00000000-0000-7000-8000-000000000000');
  assert.equal(unknown.status, 404, unknown.text);
  assert.equal(unknown.body.detail, 'message not found');
});
