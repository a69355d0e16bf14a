/**
 * The official channel's outbound wire: read receipts settle, and every message type the channel
 * sends reaches the provider (the sandbox) in the shape the provider documents.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { queryRows } from '../../src/db/client.ts';
import { request, startTestServer, type TestServer } from '../harness.ts';
import { customerWrites, officialChannel, send, waitForStatus } from '../messages-helpers.ts';

let server: TestServer;
let official: { id: string };
const TO = '4915112342222';

before(async () => {
  server = await startTestServer({ worker: true, env: { SANDBOX_STATUS_DELAY_MS: '50' } });
  official = await officialChannel(server);
});
after(() => server.close());

async function providerIdOf(messageId: string): Promise<string> {
  const rows = await queryRows<{ provider_message_id: string }>(server.container.database.db, sql`select provider_message_id from messages where id = ${messageId}`);
  return rows[0]!.provider_message_id;
}

test('a read receipt settles as sent without taking the read message’s provider id', async () => {
  const inbound = await customerWrites(server, official.id, TO);
  const wamid = await providerIdOf(inbound);
  const res = await send(server, { channel_id: official.id, to: TO, type: 'mark_as_read', content: { message_id: wamid } });
  assert.equal(res.status, 201, res.text);
  // Before the fix the row took the read message's wamid, the unique index refused it and it stayed queued.
  const status = await waitForStatus(server, res.body.data.id, 'sent', 15_000);
  assert.equal(status.provider_message_id, null);
  assert.equal(await providerIdOf(inbound), wamid, 'the read message keeps its id');
  const read = await queryRows<{ status: string }>(server.container.database.db, sql`select status from sandbox_messages where id = ${wamid}`);
  assert.equal(read[0]!.status, 'read', 'the provider got the receipt');
  const again = await request(server, 'GET', `/v1/messages/${res.body.data.id}`, { key: server.apiKey });
  assert.equal(again.body.data.status, 'sent');
});
