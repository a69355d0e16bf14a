/**
 * The provider holding sends back (docs/messages.md, "Holds"), through the real adapter: the sandbox
 * answers sends with the official provider's own errors (a fault rule naming the code). A throughput
 * limit (130429, with or without HTTP 429 and Retry-After), the business account's rate limit
 * (80007), the pair rate (131056) and maintenance (131057) hold the channel or the recipient; the
 * message waits without spending its attempts, up to MESSAGE_HOLD_SECONDS after it was accepted, and
 * the channel's health shows the hold. The waits are the server's clock's: the tests move it on.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { queryRows } from '../../src/db/client.ts';
import { MAX_SEND_ATTEMPTS } from '../../src/domain/messages/dispatch.ts';
import { movableClock, request, startTestServer, type TestServer } from '../harness.ts';
import { eventually } from '../eventually.ts';
import {
  eventuallyMovingClock,
  faultHits as faultHitsOf,
  heldBySandbox as heldBySandboxOf,
  officialChannelWithCustomers,
  sendText as sendTextOf,
  waitForStatusMovingClock,
} from '../messages-helpers.ts';

/** Long enough for a dozen holds of a minute each (the defaults of 80007 and 131057 without a Retry-After). */
const HOLD_SECONDS = 1800;
const clock = movableClock();
let server: TestServer;
before(async () => {
  server = await startTestServer({
    worker: true,
    clock,
    env: { SANDBOX_STATUS_DELAY_MS: '20', SANDBOX_FAULT_INJECTION: 'true', MESSAGE_HOLD_SECONDS: String(HOLD_SECONDS) },
  });
});
after(async () => {
  await server.close();
});

const db = () => server.container.database.db;

type Answer = { code: number; status?: number; retry_after?: string; subcode?: number };

/** Makes the sandbox answer sends of the number (to `to`, if given) with the provider's own error for `answer.code`. */
async function answerSends(account: string, answer: Answer, options: { to?: string; times?: number } = {}) {
  const res = await request(server, 'PUT', '/sandbox/faults', {
    body: { rules: [{ fault: 'provider_error', account, answer, ...options }] },
  });
  assert.equal(res.status, 200, res.text);
}

const faultHits = () => faultHitsOf(server);
const channelWithCustomers = (name: string, ...customers: string[]) => officialChannelWithCustomers(server, name, ...customers);
const sendText = (channelId: string, to: string, body: string) => sendTextOf(server, channelId, to, body);
const heldBySandbox = (messageId: string) => heldBySandboxOf(server, messageId);

async function messageRow(id: string) {
  const [row] = await queryRows<{
    attempts: number;
    error_code: string | null;
    last_attempt_at: Date | string | null;
    created_at: Date | string;
  }>(db(), sql`select attempts, error_code, last_attempt_at, created_at from messages where id = ${id}`);
  return row!;
}

const health = async (channelId: string) =>
  (await request(server, 'GET', `/v1/channels/${channelId}/status`, { key: server.apiKey })).body.data.health;

/** The message's status once it has left `queued` (sent or further, or failed), moving the clock on meanwhile. */
async function settled(id: string) {
  const data = await eventuallyMovingClock(
    server,
    clock,
    `message ${id} to leave queued`,
    async () => {
      const res = await request(server, 'GET', `/v1/messages/${id}/status`, { key: server.apiKey });
      return res.body.data.status !== 'queued' ? res.body.data : undefined;
    },
    50_000,
  );
  return data as { status: string; provider_message_id: string | null; error: unknown; history: Array<{ status: string; at: string }> };
}

const historyAt = (data: { history: Array<{ status: string; at: string }> }, status: string) =>
  Date.parse(data.history.find((h) => h.status === status)!.at);

describe('a hold spends no attempt: answered more times than the attempts allow, the message waits and is sent once', () => {
  const times = MAX_SEND_ATTEMPTS + 1;
  const cases: Array<[string, Answer]> = [
    ['130429 (throughput) with HTTP 400 and no Retry-After', { code: 130429, status: 400 }],
    ['130429 (throughput) with HTTP 429 and a Retry-After', { code: 130429, status: 429, retry_after: '30' }],
    ['80007 (business account rate limit)', { code: 80007 }],
    ['131056 (pair rate)', { code: 131056 }],
    ['131057 (maintenance)', { code: 131057 }],
  ];
  for (const [index, [title, answer]] of cases.entries()) {
    test(title, { timeout: 60_000 }, async () => {
      const to = `49151123490${10 + index}`;
      const channel = await channelWithCustomers(`held ${answer.code} ${index}`, to);
      await answerSends(channel.account, answer, { times });
      const id = await sendText(channel.id, to, title);
      const sent = await settled(id);
      assert.notEqual(sent.status, 'failed', `failed: ${JSON.stringify(sent.error)} after ${await faultHits()} refusals`);
      assert.equal(await faultHits(), times, `refused ${times} times, then sent`);
      assert.equal(await heldBySandbox(id), 1, 'the provider holds it once');
      assert.ok(sent.provider_message_id);
      const row = await messageRow(id);
      assert.equal(row.attempts, 1, 'only the send the provider took counts as an attempt');
      assert.equal(row.error_code, null);
      const now = await health(channel.id);
      assert.equal(now.last_error_code, String(answer.code), 'the hold shows in the channel health');
      assert.ok(now.last_error_at);
      const state = (await request(server, 'GET', `/v1/channels/${channel.id}`, { key: server.apiKey })).body.data;
      assert.equal(state.status, 'connected', 'a hold is not a fault of the channel');
    });
  }
});

test("a hold of the whole channel holds its other sends too, and shows in the channel's health until it ends", {
  timeout: 60_000,
}, async () => {
  const [first, second] = ['4915112349021', '4915112349022'];
  const channel = await channelWithCustomers('held channel', first, second);
  await answerSends(channel.account, { code: 130429, status: 429, retry_after: '30' }, { times: 1 });
  const refused = await sendText(channel.id, first, 'refused once');
  const refusedAt = await eventually('the throughput answer', async () => {
    const row = await messageRow(refused);
    return row.error_code === '130429' ? new Date(row.last_attempt_at!).getTime() : undefined;
  });
  const held = await eventually('the hold in the health', async () => {
    const h = await health(channel.id);
    return h.held_until ? h : undefined;
  });
  const heldUntil = Date.parse(held.held_until);
  assert.ok(heldUntil - refusedAt >= 30_000 && heldUntil - refusedAt < 35_000, `held for the 30 s given (${heldUntil - refusedAt} ms)`);
  assert.equal(held.last_error_code, '130429');
  assert.match(held.last_error_message, /130429/);

  const other = await sendText(channel.id, second, 'to another recipient, during the hold');
  for (const id of [refused, other]) {
    const sent = await settled(id);
    assert.notEqual(sent.status, 'failed', JSON.stringify(sent.error));
    assert.ok(historyAt(sent, 'sent') >= heldUntil, `sent after the hold (${historyAt(sent, 'sent') - heldUntil} ms after it ended)`);
  }
  assert.equal((await health(channel.id)).held_until, null, 'the hold is over');
});

test('a message the provider keeps holding back fails once MESSAGE_HOLD_SECONDS have passed since it was accepted, with the provider’s error', {
  timeout: 60_000,
}, async () => {
  const to = '4915112349031';
  const channel = await channelWithCustomers('held for good', to);
  await answerSends(channel.account, { code: 130429, status: 429, retry_after: '300' });
  const id = await sendText(channel.id, to, 'never taken');
  const failed = await waitForStatusMovingClock(server, clock, id, 'failed', 50_000);
  const accepted = historyAt(failed, 'queued');
  const waited = historyAt(failed, 'failed') - accepted;
  assert.ok(waited <= HOLD_SECONDS * 1000, `not held past the bound (${waited} ms)`);
  assert.ok(waited >= (HOLD_SECONDS - 300) * 1000, `held until the next wait would pass the bound (${waited} ms)`);
  assert.equal(failed.error.code, '130429');
  assert.equal(failed.error.title, '(#130429) Rate limit hit');
  assert.match(failed.error.message, /MESSAGE_HOLD_SECONDS/);
  assert.ok((await faultHits()) >= HOLD_SECONDS / 300, 'tried again after each wait the provider asked for');
  assert.equal(await heldBySandbox(id), 0);
  await request(server, 'DELETE', '/sandbox/faults');
});

test("a named answer is the provider's wire shape: error object, status, error_subcode and Retry-After as given", async () => {
  const number = await server.container.sandbox!.provisionOfficialNumber(db());
  await answerSends(number.phoneNumberId, { code: 131056, subcode: 2494055, retry_after: '7' }, { times: 1 });
  const res = await request(server, 'POST', `/sandbox/official/${number.apiVersion}/${number.phoneNumberId}/messages`, {
    bearer: number.accessToken,
    body: { messaging_product: 'whatsapp', to: '4915112349051', type: 'text', text: { body: 'hi' } },
  });
  assert.equal(res.status, 400, res.text);
  assert.equal(res.headers.get('retry-after'), '7');
  assert.deepEqual(
    { ...res.body.error, fbtrace_id: 'x' },
    {
      message: '(#131056) (Business Account, Consumer Account) pair rate limit hit',
      type: 'OAuthException',
      code: 131056,
      error_subcode: 2494055,
      error_data: {
        messaging_product: 'whatsapp',
        details:
          'Message failed to send because there were too many messages sent from this phone number to the same phone number in a short period of time.',
      },
      fbtrace_id: 'x',
    },
  );
});
