/**
 * A provider delivery of status reports with no failure among them is applied first and stored after,
 * with no transaction around the two (src/domain/inbound/accept.ts; DECISIONS 62): three round trips
 * where a transaction took five. That is safe because applying is idempotent: a delivery stopped
 * between the two (here: its storing fails) is refused, the provider sends it again, and the second
 * time changes nothing but the stored row. A failure report is still applied and stored in one
 * transaction (what the failure reaches is written only when the status moves).
 */
// stores: both
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { queryRows, type Db } from '../../src/db/client.ts';
import { providerEvents } from '../../src/db/schema.ts';
import { findChannel, type ChannelRow } from '../../src/domain/channels/channels.ts';
import { acceptInboundDelivery, type AcceptDeps } from '../../src/domain/inbound/accept.ts';
import { applyStatuses, type StatusEvent } from '../../src/domain/messages/provider-events.ts';
import { startTestServer, type TestServer } from '../harness.ts';
import { pairedGatewayChannel, send, waitForStatus } from '../messages-helpers.ts';

let server: TestServer;
let channel: ChannelRow;
before(async () => {
  // The sandbox's own status callbacks come ten minutes later: the test reports the statuses itself.
  server = await startTestServer({ worker: true, env: { SANDBOX_STATUS_DELAY_MS: '600000' } });
  channel = (await findChannel(server.container.database.db, (await pairedGatewayChannel(server, 'Reports')).id))!;
});
after(() => server.close());

/** A message sent on the channel, with the provider's id it was sent under. */
async function sentMessage(to: string): Promise<{ id: string; providerMessageId: string }> {
  const res = await send(server, { channel_id: channel.id, to, type: 'text', content: { body: 'status me' } });
  assert.equal(res.status, 201, res.text);
  const id = res.body.data.id as string;
  await waitForStatus(server, id, 'sent');
  const [row] = await queryRows<{ provider_message_id: string }>(
    server.container.database.db,
    sql`select provider_message_id from messages where id = ${id}`,
  );
  return { id, providerMessageId: row!.provider_message_id };
}

const report = (providerMessageId: string, status: StatusEvent['status'], extra: Partial<StatusEvent> = {}): StatusEvent => ({
  kind: 'message.status',
  ref: channel.providerRef!,
  providerMessageId,
  status,
  timestamp: new Date(),
  ...extra,
});

/** The database handed to the accept, with its transactions counted and, while `failStore` is set, the delivery's row refused. */
function instrumented(db: Db) {
  const seen = { transactions: 0, failStore: false };
  const proxy = new Proxy(db, {
    get(target, key, receiver) {
      if (key === 'transaction') {
        return (...args: Parameters<Db['transaction']>) => {
          seen.transactions++;
          return target.transaction(...args);
        };
      }
      if (key === 'insert') {
        return (table: unknown) => {
          if (seen.failStore && table === providerEvents) throw new Error('the database went away');
          return target.insert(table as typeof providerEvents);
        };
      }
      return Reflect.get(target, key, receiver) as unknown;
    },
  });
  return { db: proxy, seen };
}

const deps = (db: Db): AcceptDeps => ({
  db,
  queue: server.container.queue,
  clock: server.container.clock,
  logger: server.container.logger,
  statuses: applyStatuses,
});

const statusEvents = (messageId: string) =>
  queryRows<{ status: string; n: number }>(
    server.container.database.db,
    sql`select payload->>'status' as status, count(*)::int as n from events where type = 'message.status_update' and payload->>'message_id' = ${messageId} group by 1 order by 1`,
  );

test('status reports are applied, then stored done, with no transaction', async () => {
  const message = await sentMessage('4915112340301');
  const { db, seen } = instrumented(server.container.database.db);
  const deliveryId = `delivery-${message.id}`;
  const result = await acceptInboundDelivery(deps(db), {
    platform: channel.platform as 'chatapp_unofficial',
    channel,
    events: [report(message.providerMessageId, 'delivered')],
    deliveryId,
  });
  assert.deepEqual(result, { stored: 1 });
  assert.equal(seen.transactions, 0, 'no BEGIN/COMMIT');
  const [row] = await queryRows<{ status: string }>(
    server.container.database.db,
    sql`select status from messages where id = ${message.id}`,
  );
  assert.equal(row!.status, 'delivered');
  const stored = await queryRows<{ processed: boolean }>(
    server.container.database.db,
    sql`select processed_at is not null as processed from provider_events where external_id = ${deliveryId}`,
  );
  assert.deepEqual(stored, [{ processed: true }]);
  // The same delivery again (the provider retried): stored once, nothing moves, no event.
  assert.deepEqual(
    await acceptInboundDelivery(deps(db), {
      platform: channel.platform as 'chatapp_unofficial',
      channel,
      events: [report(message.providerMessageId, 'delivered')],
      deliveryId,
    }),
    { stored: 0 },
  );
  assert.deepEqual(await statusEvents(message.id), [
    { status: 'delivered', n: 1 },
    { status: 'sent', n: 1 },
  ]);
});

test('a delivery whose storing fails after its reports were applied is refused, and applied once when the provider sends it again', async () => {
  const message = await sentMessage('4915112340302');
  const { db, seen } = instrumented(server.container.database.db);
  const deliveryId = `delivery-${message.id}`;
  const delivery = {
    platform: channel.platform as 'chatapp_unofficial',
    channel,
    events: [report(message.providerMessageId, 'read')],
    deliveryId,
  };
  seen.failStore = true;
  await assert.rejects(acceptInboundDelivery(deps(db), delivery), /the database went away/);
  seen.failStore = false;
  assert.deepEqual(
    await queryRows(server.container.database.db, sql`select 1 from provider_events where external_id = ${deliveryId}`),
    [],
    'nothing stored: the provider is refused',
  );
  assert.deepEqual(await acceptInboundDelivery(deps(db), delivery), { stored: 1 });
  const [row] = await queryRows<{ status: string }>(
    server.container.database.db,
    sql`select status from messages where id = ${message.id}`,
  );
  assert.equal(row!.status, 'read');
  // Applied twice, announced once: `delivered` (the skipped step) and `read`, each one event.
  assert.deepEqual(await statusEvents(message.id), [
    { status: 'delivered', n: 1 },
    { status: 'read', n: 1 },
    { status: 'sent', n: 1 },
  ]);
  const history = await queryRows<{ status: string; n: number }>(
    server.container.database.db,
    sql`select status, count(*)::int as n from message_status_log where message_id = ${message.id} and status in ('delivered', 'read') group by 1 order by 1`,
  );
  assert.deepEqual(history, [
    { status: 'delivered', n: 1 },
    { status: 'read', n: 1 },
  ]);
});

test('a failure report is applied and stored in one transaction', async () => {
  const message = await sentMessage('4915112340303');
  const { db, seen } = instrumented(server.container.database.db);
  const result = await acceptInboundDelivery(deps(db), {
    platform: channel.platform as 'chatapp_unofficial',
    channel,
    events: [report(message.providerMessageId, 'failed', { error: { code: 'undeliverable', title: 'message undeliverable' } })],
  });
  assert.deepEqual(result, { stored: 1 });
  assert.equal(seen.transactions, 1);
  const [row] = await queryRows<{ status: string; error_code: string }>(
    server.container.database.db,
    sql`select status, error_code from messages where id = ${message.id}`,
  );
  assert.deepEqual(row, { status: 'failed', error_code: 'undeliverable' });
});
