/** Helpers for message tests: channels bound to the sandbox, customers writing in, waiting. */
import { signBody } from '../src/providers/signature.ts';
import assert from 'node:assert/strict';
import { sql } from 'drizzle-orm';
import { queryRows, type Executor } from '../src/db/client.ts';
import { DISPATCH_LEASE_SECONDS } from '../src/domain/messages/dispatcher.ts';
import { eventually } from './eventually.ts';
import { request, type movableClock, type TestServer } from './harness.ts';

export async function officialChannel(server: TestServer, name = 'Official'): Promise<{ id: string; phone: string }> {
  const res = await request(server, 'POST', '/v1/channels', { key: server.apiKey, body: { platform: 'chatapp_official', name } });
  assert.equal(res.status, 201, res.text);
  return { id: res.body.data.id, phone: res.body.data.display_phone_number };
}

/**
 * An official channel on a number of the sandbox's, reached like any outside provider (not bound to
 * the sandbox): Parley learns what the provider holds only through its API and webhooks.
 */
export async function outsideOfficialChannel(server: TestServer, name: string) {
  const number = await server.container.sandbox!.provisionOfficialNumber(server.container.database.db);
  const created = await request(server, 'POST', '/v1/channels', {
    key: server.apiKey,
    body: {
      platform: 'chatapp_official',
      name,
      settings: { api_base: number.apiBase, api_version: number.apiVersion, phone_number_id: number.phoneNumberId, waba_id: number.wabaId },
      credentials: { access_token: number.accessToken },
    },
  });
  assert.equal(created.status, 201, created.text);
  assert.equal(created.body.data.status, 'connected', created.text);
  return { id: created.body.data.id as string, number };
}

/** A gateway channel bound to the sandbox, paired (connected). */
export async function pairedGatewayChannel(
  server: TestServer,
  name = 'Gateway',
  settings?: Record<string, unknown>,
): Promise<{ id: string }> {
  const res = await request(server, 'POST', '/v1/channels', {
    key: server.apiKey,
    body: { platform: 'chatapp_unofficial', name, sandbox: true, ...(settings ? { settings } : {}) },
  });
  assert.equal(res.status, 201, res.text);
  const id = res.body.data.id as string;
  const connect = await request(server, 'POST', `/v1/channels/${id}/connect`, { key: server.apiKey });
  assert.equal(connect.status, 200, connect.text);
  const scan = await request(server, 'POST', '/sandbox/gateway/scan', { body: { qr: connect.body.data.qr.qr } });
  assert.ok(scan.status < 300, scan.text);
  await eventually('pairing', async () => {
    const r = await request(server, 'GET', `/v1/channels/${id}`, { key: server.apiKey });
    return r.body.data.status === 'connected' ? true : undefined;
  });
  return { id };
}

/** A customer writes to the channel (through the sandbox and the provider's own webhook); waits until stored. */
export async function customerWrites(
  server: TestServer,
  channelId: string,
  from: string,
  type = 'text',
  content: Record<string, unknown> = { body: 'hello' },
  extra: { reply_to?: string; name?: string } = {},
) {
  const res = await request(server, 'POST', '/sandbox/inbound', {
    key: server.apiKey,
    body: { channel_id: channelId, from, type, content, ...extra },
  });
  assert.ok(res.status < 300, res.text);
  const providerId = res.body.provider_message_id as string;
  return eventually('the inbound message', async () => {
    const rows = await queryRows<{ id: string }>(
      server.container.database.db,
      sql`select id from messages where provider_message_id = ${providerId}`,
    );
    return rows[0]?.id;
  });
}

export async function send(server: TestServer, body: Record<string, unknown>, key = server.apiKey, headers: Record<string, string> = {}) {
  return request(server, 'POST', '/v1/messages', { key, body, headers });
}

/** Sends a text message, which must be accepted; its id. */
export async function sendText(server: TestServer, channelId: string, to: string, body: string): Promise<string> {
  const res = await send(server, { channel_id: channelId, to, type: 'text', content: { body } });
  assert.equal(res.status, 201, res.text);
  return res.body.data.id;
}

/** An official channel bound to the sandbox whose customers have written (their windows are open), with its number's phone_number_id. */
export async function officialChannelWithCustomers(server: TestServer, name: string, ...customers: string[]) {
  const channel = await officialChannel(server, name);
  const data = (await request(server, 'GET', `/v1/channels/${channel.id}`, { key: server.apiKey })).body.data;
  for (const to of customers) await customerWrites(server, channel.id, to);
  return { id: channel.id, account: data.settings.phone_number_id as string, settings: data.settings as Record<string, string> };
}

/** How many sends the sandbox's fault rules have hit, all rules together. */
export async function faultHits(server: TestServer): Promise<number> {
  const res = await request(server, 'GET', '/sandbox/faults');
  return (res.body.rules as Array<{ hits: number }>).reduce((n, r) => n + r.hits, 0);
}

/** How many times the sandbox (as the official provider) holds a message Parley sent. */
export async function heldBySandbox(server: TestServer, messageId: string): Promise<number> {
  const [row] = await queryRows<{ n: number }>(
    server.container.database.db,
    sql`select count(*)::int as n from sandbox_messages where body->>'biz_opaque_callback_data' = ${messageId} and direction = 'outbound'`,
  );
  return row!.n;
}

export async function waitForStatus(server: TestServer, messageId: string, status: string, timeoutMs = 40_000) {
  return eventually(
    `message ${messageId} to be ${status}`,
    async () => {
      const res = await request(server, 'GET', `/v1/messages/${messageId}/status`, { key: server.apiKey });
      return res.body.data.status === status ? res.body.data : undefined;
    },
    timeoutMs,
  );
}

export async function eventsOf(server: TestServer, type: string) {
  return queryRows<{ payload: Record<string, unknown> }>(
    server.container.database.db,
    sql`select payload from events where organization_id = ${server.organizationId} and type = ${type} order by seq`,
  );
}

/** A template approved by the sandbox provider, ready to send. */
export async function approvedTemplate(
  server: TestServer,
  channelId: string,
  name: string,
  language = 'en_US',
  components: unknown[] = [{ type: 'BODY', text: 'Hi {{1}}' }],
): Promise<{ name: string; language: { code: string } }> {
  const made = await request(server, 'POST', '/v1/templates', {
    key: server.apiKey,
    body: { channel_id: channelId, name, language, category: 'UTILITY', components },
  });
  assert.equal(made.status, 201, made.text);
  const submitted = await request(server, 'POST', `/v1/templates/${made.body.data.id}/submit`, { key: server.apiKey });
  assert.equal(submitted.status, 200, submitted.text);
  await eventually('template approval', async () => {
    const r = await request(server, 'GET', `/v1/templates/${made.body.data.id}`, { key: server.apiKey });
    return r.body.data.status === 'approved' ? true : undefined;
  });
  return { name, language: { code: language } };
}

/** Posts statuses to the official provider webhook, signed with the sandbox's app secret, as the provider would. */
export async function postOfficialStatuses(
  server: TestServer,
  metadata: { phone: string; phoneNumberId: string },
  statuses: Array<Record<string, unknown>>,
) {
  const timestamp = String(Math.floor(Date.now() / 1000));
  const body = JSON.stringify({
    object: 'whatsapp_business_account',
    entry: [
      {
        id: '1',
        changes: [
          {
            field: 'messages',
            value: {
              messaging_product: 'whatsapp',
              metadata: { display_phone_number: metadata.phone, phone_number_id: metadata.phoneNumberId },
              statuses: statuses.map((status) => ({ timestamp, ...status })),
            },
          },
        ],
      },
    ],
  });
  return request(server, 'POST', '/v1/providers/chatapp_official/webhook', {
    rawBody: body,
    headers: { 'x-hub-signature-256': signBody(server.container.sandbox!.officialAppSecret, body) },
  });
}

/**
 * How many times the sandbox (the provider) holds each message Parley sent, by message id (the
 * gateway's idempotency key, the official API's biz_opaque_callback_data); throttled attempts are not sends.
 */
export async function providerSendCounts(db: Executor): Promise<Record<string, number>> {
  const rows = await queryRows<{ id: string; n: number }>(
    db,
    sql`select coalesce(idempotency_key, body->>'biz_opaque_callback_data') as id, count(*)::int as n
        from sandbox_messages where direction = 'outbound' and status <> 'throttled' group by 1`,
  );
  return Object.fromEntries(rows.map((r) => [r.id, r.n]));
}

/**
 * Resolves once the sandbox has nothing left to send about a message: no status or other callback
 * job naming it is waiting, due or running. Every callback it made has then reached its receiver,
 * so a test can check that nothing more came without waiting a while to see.
 */
export async function sandboxQuiet(db: Executor, messageId: string): Promise<void> {
  await eventually(`the sandbox to have nothing more to send about ${messageId}`, async () => {
    const [row] = await queryRows<{ n: number }>(
      db,
      sql`select count(*)::int as n from pgboss.job
          where name = 'sandbox.callback' and state < 'completed' and (data->>'message_id' = ${messageId} or data->'message_ids' ? ${messageId})`,
    );
    return row!.n === 0;
  });
}

/**
 * How far the clock is moved, at most, from the last moment no send was under way: any send under way
 * started after that moment (or, its claim's statement running then, at most one such stretch before),
 * so none sees its lease (DISPATCH_LEASE_SECONDS) run out and is taken again as a dead worker's.
 */
const CLOCK_MOVE_MS = (DISPATCH_LEASE_SECONDS * 1000 * 2) / 5;

/**
 * Waits for `probe` like eventually(), moving the server's clock instead of waiting for it: the clock
 * goes on to the next time a message is due (a retry, a provider's hold, a lookup or the end of a wait
 * for a status: all are the dispatcher's due times), at most CLOCK_MOVE_MS from the last moment no
 * send was under way, and the dispatcher is woken. Nothing is moved while a message is due now.
 */
export async function eventuallyMovingClock<T>(
  server: TestServer,
  clock: ReturnType<typeof movableClock>,
  what: string,
  probe: () => Promise<T | undefined | false>,
  timeoutMs = 60_000,
): Promise<T> {
  let movedSinceIdle = 0;
  return eventually(
    what,
    async () => {
      const value = await probe();
      if (value !== undefined && value !== false) return value;
      if (server.container.dispatcher.inFlight() === 0) movedSinceIdle = 0;
      const room = CLOCK_MOVE_MS - movedSinceIdle;
      const now = clock.now();
      const [next] = await queryRows<{ at: Date | string | null; due_now: boolean }>(
        server.container.database.db,
        sql`select min(dispatch_at) filter (where dispatch_at > ${now.toISOString()}::timestamptz) as at,
                   bool_or(dispatch_at <= ${now.toISOString()}::timestamptz) as due_now
              from messages where dispatch_at is not null`,
      );
      if (room > 0 && next?.at && !next.due_now) {
        const step = Math.min(room, new Date(next.at).getTime() - now.getTime() + 1);
        clock.advance(step);
        movedSinceIdle += step;
      }
      server.container.dispatcher.wake();
      return undefined;
    },
    timeoutMs,
  );
}

/** waitForStatus, moving the server's clock to the dispatcher's due times instead of waiting for them (eventuallyMovingClock). */
export async function waitForStatusMovingClock(
  server: TestServer,
  clock: ReturnType<typeof movableClock>,
  messageId: string,
  status: string,
  timeoutMs = 60_000,
) {
  return eventuallyMovingClock(
    server,
    clock,
    `message ${messageId} to be ${status}`,
    async () => {
      const res = await request(server, 'GET', `/v1/messages/${messageId}/status`, { key: server.apiKey });
      return res.body.data.status === status ? res.body.data : undefined;
    },
    timeoutMs,
  );
}
