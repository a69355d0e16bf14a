/**
 * The provider failing under the dispatcher: 500s, rate limits, calls that time out before or after
 * the provider got the send, and connections cut mid-call (the sandbox's fault switch). What was lost
 * is checked, not just what arrived: nothing acknowledged is lost, the provider holds each message
 * exactly once, and every status change is delivered to the organization's webhook endpoint.
 * Retries, lookups and the wait for a status are due at the server's clock's times: the tests move
 * the clock on to them instead of waiting (eventuallyMovingClock).
 */
// stores: both
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { eq, sql } from 'drizzle-orm';
import { dispatchDeps } from '../../src/container.ts';
import { queryRows } from '../../src/db/client.ts';
import { messages, sandboxMessages } from '../../src/db/schema.ts';
import { dispatchMessage } from '../../src/domain/messages/dispatch.ts';
import type { MessageRow } from '../../src/domain/messages/messages.ts';
import { signBody } from '../../src/providers/signature.ts';
import { movableClock, request, startTestServer, type TestServer } from '../harness.ts';
import { eventually } from '../eventually.ts';
import {
  customerWrites,
  officialChannel,
  outsideOfficialChannel,
  pairedGatewayChannel,
  send,
  waitForStatus,
  waitForStatusMovingClock,
} from '../messages-helpers.ts';
import { startReceiver, type Receiver } from '../webhook-receiver.ts';

const RECONCILE_SECONDS = 8;
let server: TestServer;
let receiver: Receiver;
const clock = movableClock();
before(async () => {
  server = await startTestServer({
    worker: true,
    clock,
    env: {
      SANDBOX_STATUS_DELAY_MS: '20',
      SANDBOX_FAULT_INJECTION: 'true',
      PROVIDER_TIMEOUT_MS: '1000',
      MESSAGE_RECONCILE_SECONDS: String(RECONCILE_SECONDS),
      // The webhook receiver and the sandbox reached as an outside provider are on loopback.
      ALLOW_PRIVATE_NETWORK_TARGETS: 'true',
      WEBHOOK_POLL_INTERVAL_MS: '100',
    },
  });
  receiver = await startReceiver();
  const endpoint = await request(server, 'POST', '/v1/settings/developer/webhooks/endpoints', {
    key: server.apiKey,
    body: { url: receiver.url, event_types: ['message.status_update'] },
  });
  assert.equal(endpoint.status, 201, endpoint.text);
});
after(async () => {
  await server.close();
  await receiver.close();
});

const db = () => server.container.database.db;

/** Every fault, each hitting `times` sends of the account in turn, then the sandbox behaves. */
async function injectEveryFault(account: string, times: number) {
  const rules = ['error', 'rate_limit', 'hang', 'lose_answer', 'reset'].map((fault) => ({ fault, account, times }));
  const res = await request(server, 'PUT', '/sandbox/faults', { body: { rules } });
  assert.equal(res.status, 200, res.text);
}

async function faultHits(account: string): Promise<Record<string, number>> {
  const res = await request(server, 'GET', '/sandbox/faults');
  return Object.fromEntries(
    (res.body.rules as Array<{ fault: string; account: string; hits: number }>)
      .filter((r) => r.account === account)
      .map((r) => [r.fault, r.hits]),
  );
}

/** The read status_update of every message reached the endpoint (at least once). */
async function assertStatusWebhooks(ids: string[]) {
  await eventually(
    'a read webhook for every message',
    async () => {
      const read = new Set(
        receiver.requests
          .map((r) => JSON.parse(r.body))
          .filter((b) => b.status === 'read')
          .map((b) => b.message_id),
      );
      return ids.every((id) => read.has(id)) ? true : undefined;
    },
    30_000,
  );
}

async function sendAll(channelId: string, to: string, count: number): Promise<string[]> {
  const accepted = await Promise.all(
    Array.from({ length: count }, (_, i) => send(server, { channel_id: channelId, to, type: 'text', content: { body: `fault ${i}` } })),
  );
  return accepted.map((res) => {
    assert.equal(res.status, 201, res.text);
    return res.body.data.id as string;
  });
}

test('official (sandbox): every fault, yet each message reaches the provider exactly once and is read', { timeout: 90_000 }, async () => {
  const channel = await officialChannel(server, 'faulty official');
  const settings = (await request(server, 'GET', `/v1/channels/${channel.id}`, { key: server.apiKey })).body.data.settings;
  const to = '4915112347001';
  await customerWrites(server, channel.id, to);
  await injectEveryFault(settings.phone_number_id, 2);
  const ids = await sendAll(channel.id, to, 12);
  for (const id of ids) {
    const final = await waitForStatusMovingClock(server, clock, id, 'read');
    assert.ok(final.provider_message_id, `message ${id} has the provider's id`);
  }
  assert.deepEqual(await faultHits(settings.phone_number_id), { error: 2, rate_limit: 2, hang: 2, lose_answer: 2, reset: 2 });
  const held = await queryRows<{ id: string; n: number }>(
    db(),
    sql`select body->>'biz_opaque_callback_data' as id, count(*)::int as n from sandbox_messages
        where account_id = ${settings.phone_number_id} and direction = 'outbound' and status <> 'throttled' group by 1`,
  );
  assert.deepEqual(
    Object.fromEntries(held.map((r) => [r.id, r.n])),
    Object.fromEntries(ids.map((id) => [id, 1])),
    'each message reached the provider exactly once',
  );
  await assertStatusWebhooks(ids);
});

test('gateway (sandbox): every fault, yet each message reaches the gateway exactly once and is read', { timeout: 90_000 }, async () => {
  const channel = await pairedGatewayChannel(server, 'faulty gateway');
  const session = (await request(server, 'GET', `/v1/channels/${channel.id}`, { key: server.apiKey })).body.data.settings.session;
  await injectEveryFault(session, 2);
  const ids = await sendAll(channel.id, '4915112347002', 12);
  for (const id of ids) await waitForStatusMovingClock(server, clock, id, 'read');
  assert.deepEqual(await faultHits(session), { error: 2, rate_limit: 2, hang: 2, lose_answer: 2, reset: 2 });
  const held = await queryRows<{ id: string; n: number }>(
    db(),
    sql`select idempotency_key as id, count(*)::int as n from sandbox_messages where account_id = ${session} and status <> 'throttled' group by 1`,
  );
  assert.deepEqual(
    Object.fromEntries(held.map((r) => [r.id, r.n])),
    Object.fromEntries(ids.map((id) => [id, 1])),
    'each message reached the gateway exactly once',
  );
  await assertStatusWebhooks(ids);
});

test('official API as it really is (no lookup): a lost answer is settled by the status naming it; a send never received fails as outcome unknown, saying so', {
  timeout: 90_000,
}, async () => {
  // A number of the sandbox's, reached like any outside provider: the channel is not bound to the
  // sandbox, so Parley can only learn what the provider got from its status webhooks.
  const { id: channelId, number } = await outsideOfficialChannel(server, 'outside official');
  const to = '4915112347003';
  // The customer writes first (through the provider's signed webhook), opening the window.
  const inbound = JSON.stringify({
    object: 'whatsapp_business_account',
    entry: [
      {
        id: number.wabaId,
        changes: [
          {
            field: 'messages',
            value: {
              messaging_product: 'whatsapp',
              metadata: { display_phone_number: number.displayPhoneNumber.replace(/\D/g, ''), phone_number_id: number.phoneNumberId },
              contacts: [{ wa_id: to, profile: { name: 'Outside Customer' } }],
              messages: [
                {
                  id: 'wamid.outside-inbound-1',
                  from: to,
                  timestamp: String(Math.floor(Date.now() / 1000)),
                  type: 'text',
                  text: { body: 'hello' },
                },
              ],
            },
          },
        ],
      },
    ],
  });
  const posted = await request(server, 'POST', '/v1/providers/chatapp_official/webhook', {
    rawBody: inbound,
    headers: { 'x-hub-signature-256': signBody(server.container.sandbox!.officialAppSecret, inbound) },
  });
  assert.equal(posted.status, 200, posted.text);
  await eventually('the window to open', async () => {
    const c = await request(server, 'GET', `/v1/conversations?channel_id=${channelId}`, { key: server.apiKey });
    return c.body.data[0]?.last_inbound_at ? true : undefined;
  });

  await request(server, 'PUT', '/sandbox/faults', { body: { rules: [{ fault: 'lose_answer', account: number.phoneNumberId, times: 1 }] } });
  const [received] = await sendAll(channelId, to, 1);
  // In real time: the status naming it comes well before the wait for one ends.
  const read = await waitForStatus(server, received!, 'read', 30_000);
  assert.match(read.provider_message_id, /^wamid\./);

  await request(server, 'PUT', '/sandbox/faults', { body: { rules: [{ fault: 'hang', account: number.phoneNumberId, times: 1 }] } });
  const started = clock.now().getTime();
  const [lost] = await sendAll(channelId, to, 1);
  const failed = await waitForStatusMovingClock(server, clock, lost!, 'failed');
  const failedAt = Date.parse((failed.history as Array<{ status: string; at: string }>).find((h) => h.status === 'failed')!.at);
  assert.ok(failedAt - started >= RECONCILE_SECONDS * 1000, `it waited for a status first (failed after ${failedAt - started} ms)`);
  assert.equal(failed.error.code, 'outcome_unknown');
  assert.match(failed.error.title, /unknown/);
  const held = await queryRows<{ id: string; n: number }>(
    db(),
    sql`select body->>'biz_opaque_callback_data' as id, count(*)::int as n from sandbox_messages where account_id = ${number.phoneNumberId} and direction = 'outbound' group by 1`,
  );
  assert.deepEqual(
    Object.fromEntries(held.map((r) => [r.id, r.n])),
    { [received!]: 1 },
    'never sent twice, and the lost one never sent again',
  );
});

test('a provider that can be asked but keeps failing the lookup is asked again, then the message fails as outcome unknown, saying why', {
  timeout: 60_000,
}, async () => {
  const channel = await officialChannel(server, 'lookup down');
  const to = '4915112347004';
  await customerWrites(server, channel.id, to);
  await server.container.dispatcher.stop({ timeoutMs: 1000 });
  try {
    const [id] = await sendAll(channel.id, to, 1);
    // As a process that died mid-call leaves it: an attempt recorded, no answer. (Past the settle time,
    // PROVIDER_TIMEOUT_MS + 5 s = 6 s, so the provider is asked.)
    const lastAttempt = async (secondsAgo: number): Promise<MessageRow> => {
      const [row] = await db()
        .update(messages)
        .set({ attempts: 1, lastAttemptAt: new Date(clock.now().getTime() - secondsAgo * 1000), dispatchAt: null })
        .where(eq(messages.id, id!))
        .returning();
      return row!;
    };
    let asked = 0;
    const deps = {
      ...dispatchDeps(server.container),
      sandboxSends: async () => {
        asked++;
        return { ok: false as const, error: { code: 'http_503', title: 'the provider is down', retryable: true } };
      },
    };
    const again = await dispatchMessage(deps, await lastAttempt(RECONCILE_SECONDS - 1));
    assert.equal(asked, 1);
    assert.ok(typeof again === 'number' && again > 0, 'asked again later');
    assert.equal((await request(server, 'GET', `/v1/messages/${id}`, { key: server.apiKey })).body.data.status, 'queued');

    assert.equal(await dispatchMessage(deps, await lastAttempt(RECONCILE_SECONDS + 1)), null);
    assert.equal(asked, 2);
    const failed = await waitForStatus(server, id!, 'failed');
    assert.equal(failed.error.code, 'outcome_unknown');
    assert.match(failed.error.title, /could not be asked.*unknown/);
    const [held] = await queryRows<{ n: number }>(
      db(),
      sql`select count(*)::int as n from sandbox_messages where body->>'biz_opaque_callback_data' = ${id!}`,
    );
    assert.equal(held!.n, 0, 'never sent while its first attempt was unsettled');
  } finally {
    await server.container.dispatcher.start();
  }
});

test('a lookup made while the provider is still recording the send (the caller timed out first) waits for it and finds it', async () => {
  // Under load a send may outlast PROVIDER_TIMEOUT_MS and still land; with the clock moved on, the
  // lookup comes at once. Answering "not found" then would have the message sent twice.
  const connection = { sandbox: true, settings: { phone_number_id: 'slow-landing-number' } };
  const messageId = 'msg_slow_landing';
  let land!: () => void;
  const landed = new Promise<void>((resolve) => (land = resolve));
  const recording = server.container.sandbox!.inFlight.track('slow-landing-number', async () => {
    await landed;
    await db()
      .insert(sandboxMessages)
      .values({
        id: 'wamid.slow-landing',
        accountId: 'slow-landing-number',
        recipient: '4915112347005',
        type: 'text',
        body: { biz_opaque_callback_data: messageId },
        status: 'accepted',
      });
  });
  const lookup = dispatchDeps(server.container).sandboxSends!(connection as never, messageId);
  land();
  await recording;
  assert.deepEqual(await lookup, { ok: true, value: { found: true, providerMessageId: 'wamid.slow-landing' } });
});
