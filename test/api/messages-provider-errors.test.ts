/**
 * The official provider's error answers under the dispatcher, through real HTTP and the real adapter:
 * the sandbox's fault switch answers sends with the provider's error bodies and headers
 * (`provider_error`), and each is checked for whom it concerns — the message (retried when transient
 * or told when, not otherwise), one recipient (pair rate limit), the channel (account-level faults) or
 * the template (paused, disabled, missing in that language) — and for what it keeps (the provider's wording for the end user).
 * Waits the provider asks for are the server's clock's: the tests move it on instead of waiting.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { queryRows } from '../../src/db/client.ts';
import { movableClock, request, startTestServer, type TestServer } from '../harness.ts';
import {
  approvedTemplate,
  eventsOf,
  faultHits as faultHitsOf,
  heldBySandbox as heldBySandboxOf,
  officialChannel,
  officialChannelWithCustomers,
  outsideOfficialChannel,
  send,
  sendText as sendTextOf,
  eventuallyMovingClock,
  waitForStatus,
} from '../messages-helpers.ts';
import { eventually } from '../eventually.ts';

let server: TestServer;
const clock = movableClock();
before(async () => {
  server = await startTestServer({
    worker: true,
    clock,
    env: {
      SANDBOX_STATUS_DELAY_MS: '20',
      SANDBOX_FAULT_INJECTION: 'true',
      // The sandbox reached as an outside provider (the template sync test) is on loopback.
      ALLOW_PRIVATE_NETWORK_TARGETS: 'true',
    },
  });
});
after(async () => {
  await server.close();
});

const db = () => server.container.database.db;

type GraphError = {
  code: number;
  message: string;
  details?: string;
  is_transient?: boolean;
  error_user_title?: string;
  error_user_msg?: string;
};

/** The provider's error object, in its wire shape. */
function graphError(e: GraphError): Record<string, unknown> {
  return {
    message: e.message,
    type: 'OAuthException',
    code: e.code,
    ...(e.details ? { error_data: { messaging_product: 'whatsapp', details: e.details } } : {}),
    ...(e.is_transient !== undefined ? { is_transient: e.is_transient } : {}),
    ...(e.error_user_title ? { error_user_title: e.error_user_title } : {}),
    ...(e.error_user_msg ? { error_user_msg: e.error_user_msg } : {}),
    fbtrace_id: 'AbCdEfGhIjK',
  };
}

/** Makes the sandbox answer the next `times` sends of the number (to `to`, if given) with this error. */
async function injectError(
  account: string,
  status: number,
  error: GraphError,
  options: { to?: string; times?: number; retryAfter?: string } = {},
) {
  const res = await request(server, 'PUT', '/sandbox/faults', {
    body: {
      rules: [
        {
          fault: 'provider_error',
          account,
          times: options.times ?? 1,
          ...(options.to ? { to: options.to } : {}),
          answer: { status, error: graphError(error), ...(options.retryAfter ? { retry_after: options.retryAfter } : {}) },
        },
      ],
    },
  });
  assert.equal(res.status, 200, res.text);
}

const faultHits = () => faultHitsOf(server);
const channelWithCustomer = (name: string, ...customers: string[]) => officialChannelWithCustomers(server, name, ...customers);
const sendText = (channelId: string, to: string, body: string) => sendTextOf(server, channelId, to, body);

/**
 * When the message was recorded `sent` (ms since the epoch, by the server's clock; it may have moved on
 * to delivered or read since), moving the clock on to the dispatcher's due times meanwhile, or
 * (`realTime`) waiting without moving it.
 */
async function sentAt(id: string, { realTime = false } = {}): Promise<number> {
  const what = `message ${id} to be sent`;
  const probe = async () => {
    const history = (await request(server, 'GET', `/v1/messages/${id}/status`, { key: server.apiKey })).body.data.history as Array<{
      status: string;
      at: string;
    }>;
    return history.find((h) => h.status === 'sent');
  };
  const sent = await (realTime ? eventually(what, probe, 30_000) : eventuallyMovingClock(server, clock, what, probe)).catch(async () => {
    const now = await request(server, 'GET', `/v1/messages/${id}/status`, { key: server.apiKey });
    throw new Error(`message ${id} not sent: ${JSON.stringify(now.body.data)}`);
  });
  return Date.parse(sent.at);
}

const heldBySandbox = (messageId: string) => heldBySandboxOf(server, messageId);

test("the default official API version is the published document's, v23.0", async () => {
  assert.equal(server.config.official.apiVersion, 'v23.0');
  const channel = await officialChannel(server, 'versioned');
  const data = (await request(server, 'GET', `/v1/channels/${channel.id}`, { key: server.apiKey })).body.data;
  assert.equal(data.settings.api_version, 'v23.0');
});

describe('retry advice', () => {
  const retried: Array<[string, string, number, GraphError, number]> = [
    [
      'an error the provider says is transient is retried, after its Retry-After',
      '4915112348001',
      400,
      { code: 131000, message: '(#131000) Something went wrong', details: 'Try again later.', is_transient: true },
      3,
    ],
    [
      'a rate limit is retried after the Retry-After the provider gives, not a guess',
      '4915112348002',
      429,
      { code: 130429, message: '(#130429) Rate limit hit', details: 'Cloud API message throughput has been reached.', is_transient: true },
      6,
    ],
  ];
  for (const [title, to, status, error, seconds] of retried) {
    test(title, { timeout: 60_000 }, async () => {
      const channel = await channelWithCustomer(title.slice(0, 40), to);
      await injectError(channel.account, status, error, { retryAfter: String(seconds) });
      const started = clock.now().getTime();
      const id = await sendText(channel.id, to, title);
      const at = await sentAt(id);
      assert.ok(at - started >= seconds * 1000, `retried after the ${seconds} s the provider asked for (after ${at - started} ms)`);
      assert.equal(await faultHits(), 1);
      assert.equal(await heldBySandbox(id), 1);
    });
  }

  test('a server error the provider says is not transient fails at once, without a blind retry', { timeout: 60_000 }, async () => {
    const channel = await channelWithCustomer('not transient', '4915112348003');
    await injectError(channel.account, 500, {
      code: 131000,
      message: '(#131000) Something went wrong',
      details: 'The message cannot be sent.',
      is_transient: false,
    });
    const id = await sendText(channel.id, '4915112348003', 'not transient');
    const failed = await waitForStatus(server, id, 'failed');
    assert.equal(failed.error.code, '131000');
    assert.equal(await faultHits(), 1, 'tried once');
    assert.equal(await heldBySandbox(id), 0);
  });
});

test('a pair rate limit (131056) holds only the sends to that recipient, for the time given; the channel goes on', {
  timeout: 60_000,
}, async () => {
  const held = '4915112348011';
  const other = '4915112348012';
  const channel = await channelWithCustomer('pair limited', held, other);
  await injectError(
    channel.account,
    400,
    {
      code: 131056,
      message: '(#131056) (Business Account, Consumer Account) pair rate limit hit',
      details:
        'Message failed to send because there were too many messages sent from this phone number to the same phone number in a short period of time.',
    },
    { to: held, retryAfter: '8' },
  );
  const first = await sendText(channel.id, held, 'to the held recipient');
  const limitedAt = await eventually('the pair rate limit answer', async () => {
    const [row] = await queryRows<{ code: string | null; at: Date | null }>(
      db(),
      sql`select error_code as code, last_attempt_at as at from messages where id = ${first}`,
    );
    return row?.code === '131056' ? new Date(row.at!).getTime() : undefined;
  });
  const second = await sendText(channel.id, held, 'to the held recipient again');
  const others = [await sendText(channel.id, other, 'to another recipient 1'), await sendText(channel.id, other, 'to another recipient 2')];
  for (const id of others) {
    // The clock stands still meanwhile: the held recipient's messages are due later by it.
    const at = await sentAt(id, { realTime: true });
    assert.ok(at - limitedAt < 4000, `another recipient's message went on at once (after ${at - limitedAt} ms)`);
  }
  for (const id of [first, second]) {
    const at = await sentAt(id);
    assert.ok(at - limitedAt >= 8000, `the held recipient's message waited the 8 s given (after ${at - limitedAt} ms)`);
  }
  assert.equal(await heldBySandbox(first), 1, 'sent once');
  const channelNow = (await request(server, 'GET', `/v1/channels/${channel.id}`, { key: server.apiKey })).body.data;
  assert.equal(channelNow.status, 'connected');
});

describe('account-level errors mark the channel and record its health', () => {
  const cases: Array<[number, number, string]> = [
    [400, 131031, '(#131031) Business Account locked'],
    [400, 133010, '(#133010) Account not registered'],
    [403, 368, '(#368) Temporarily blocked for policies violations'],
    [400, 131042, '(#131042) Business eligibility payment issue'],
    [403, 200, '(#200) Permissions error'],
    [401, 190, 'Error validating access token: Session has expired'],
  ];
  for (const [status, code, message] of cases) {
    test(`${code}: the message fails with the provider's error, the channel goes to error with the reason and code`, {
      timeout: 30_000,
    }, async () => {
      const to = `49151123480${20 + cases.findIndex((c) => c[1] === code)}`;
      const channel = await channelWithCustomer(`account ${code}`, to);
      await injectError(channel.account, status, { code, message, details: `details of ${code}` });
      const id = await sendText(channel.id, to, `account ${code}`);
      const failed = await waitForStatus(server, id, 'failed');
      assert.equal(failed.error.code, String(code));
      assert.equal(failed.error.title, message);
      assert.equal(failed.error.message, `details of ${code}`);
      const state = (await request(server, 'GET', `/v1/channels/${channel.id}/status`, { key: server.apiKey })).body.data;
      assert.equal(state.status, 'error');
      assert.equal(state.status_reason, message);
      assert.equal(state.history[0].to, 'error');
      assert.equal(state.history[0].reason_code, String(code));
      assert.equal(state.health.last_error_code, String(code));
      assert.equal(state.health.last_error_message, message);
      assert.ok(state.health.last_error_at);
    });
  }
});

describe('template errors pause or disable the stored template', () => {
  const lowQuality = (status: string) => `Template is ${status} due to low quality so it cannot be sent in a template message.`;
  for (const [code, status, message, details] of [
    [132015, 'paused', '(#132015) Template is Paused', lowQuality('paused')],
    [132016, 'disabled', '(#132016) Template is disabled', lowQuality('disabled')],
    // No such template in that language: deleted at the provider (its DELETED status reads disabled).
    [
      132001,
      'disabled',
      '(#132001) Template name does not exist in the translation',
      'template name (held_132001) does not exist in en_US',
    ],
  ] as const) {
    test(`${code}: the template becomes ${status} with the reason, and the message fails`, { timeout: 30_000 }, async () => {
      const to = `4915112348${{ 132015: '041', 132016: '042', 132001: '043' }[code]}`;
      const channel = await channelWithCustomer(`template ${code}`, to);
      const template = await approvedTemplate(server, channel.id, `held_${code}`);
      await injectError(channel.account, 400, { code, message, details });
      const res = await send(server, {
        channel_id: channel.id,
        to,
        type: 'template',
        content: { template: { ...template, components: [{ type: 'body', parameters: [{ type: 'text', text: 'Ann' }] }] } },
      });
      assert.equal(res.status, 201, res.text);
      const failed = await waitForStatus(server, res.body.data.id, 'failed');
      assert.equal(failed.error.code, String(code));
      assert.equal(await faultHits(), 1, 'not retried');
      const listed = await request(server, 'GET', `/v1/templates?channel_id=${channel.id}&name=${template.name}`, { key: server.apiKey });
      const stored = listed.body.data[0];
      assert.equal(stored.status, status);
      assert.equal(stored.rejection_reason, details);
      const events = (await eventsOf(server, 'template.status_update'))
        .filter((e) => e.payload.template_id === stored.id)
        .map((e) => e.payload.status);
      assert.equal(events.at(-1), status);
    });
  }
});

test("the provider's error_user_title and error_user_msg are kept in the message's error", { timeout: 30_000 }, async () => {
  const to = '4915112348051';
  const channel = await channelWithCustomer('user wording', to);
  await injectError(channel.account, 400, {
    code: 131026,
    message: '(#131026) Message Undeliverable',
    details: 'Message failed to send because the recipient is unable to receive it.',
    error_user_title: 'Message not delivered',
    error_user_msg: 'The recipient cannot receive this message.',
  });
  const id = await sendText(channel.id, to, 'undeliverable');
  const failed = await waitForStatus(server, id, 'failed');
  assert.deepEqual(failed.error, {
    code: '131026',
    title: '(#131026) Message Undeliverable',
    message: 'Message failed to send because the recipient is unable to receive it.',
    user_title: 'Message not delivered',
    user_message: 'The recipient cannot receive this message.',
  });
  const message = await request(server, 'GET', `/v1/messages/${id}`, { key: server.apiKey });
  assert.equal(message.body.data.error.user_title, 'Message not delivered');
  assert.equal(message.body.data.error.user_message, 'The recipient cannot receive this message.');
});

test('the template sync asks for rejected_reason and stores it', { timeout: 60_000 }, async () => {
  // A number of the sandbox's reached like any outside provider, whose template is made at the
  // provider directly, so only the sync can tell Parley why it was rejected.
  const { id: channelId, number } = await outsideOfficialChannel(server, 'synced');
  const made = await request(server, 'POST', `/sandbox/official/${number.apiVersion}/${number.wabaId}/message_templates`, {
    bearer: number.accessToken,
    body: { name: 'rejected_at_provider', language: 'en_US', category: 'MARKETING', components: [{ type: 'BODY', text: 'Buy now' }] },
  });
  assert.equal(made.status, 200, made.text);
  const synced = await eventually('the rejection, synced', async () => {
    const sync = await request(server, 'POST', '/v1/templates/sync', { key: server.apiKey, body: { channel_id: channelId } });
    assert.equal(sync.status, 200, sync.text);
    const t = (sync.body.data.templates as Array<{ name: string; status: string; rejection_reason: string | null }>).find(
      (x) => x.name === 'rejected_at_provider',
    );
    return t?.status === 'rejected' ? t : undefined;
  });
  assert.equal(synced.rejection_reason, 'INVALID_FORMAT');
});

test('the fault switch refuses a provider_error rule it cannot answer, naming the field', async () => {
  const put = (rule: Record<string, unknown>) => request(server, 'PUT', '/sandbox/faults', { body: { rules: [rule] } });
  for (const [rule, field] of [
    [{ fault: 'provider_error' }, /rules\[0\]\.answer must be/],
    [{ fault: 'provider_error', answer: { status: 200, error: {} } }, /rules\[0\]\.answer\.status/],
    [{ fault: 'provider_error', answer: { status: 400, error: 'x' } }, /rules\[0\]\.answer\.error/],
    [{ fault: 'provider_error', answer: { status: 400, error: {}, retry_after: 5 } }, /rules\[0\]\.answer\.retry_after/],
    [
      { fault: 'provider_error', answer: { code: 131000 } },
      /rules\[0\]\.answer\.code must be one of the official codes the sandbox answers: 130429/,
    ],
    [{ fault: 'provider_error', answer: { code: 130429, error: {} } }, /rules\[0\]\.answer\.code and \.error cannot both/],
    [{ fault: 'provider_error', answer: { code: 130429, status: 200 } }, /rules\[0\]\.answer\.status/],
    [{ fault: 'provider_error', answer: { code: 130429, subcode: 'x' } }, /rules\[0\]\.answer\.subcode/],
    [{ fault: 'provider_error', on: 'media', answer: { code: 130429 } }, /rules\[0\]\.answer\.code is for sends only/],
    [{ fault: 'error', answer: { status: 400, error: {} } }, /rules\[0\]\.answer is only for/],
    [{ fault: 'error', to: '+49 151' }, /rules\[0\]\.to/],
  ] as const) {
    const res = await put(rule);
    assert.equal(res.status, 400, res.text);
    assert.match(res.body.error.message, field);
  }
  assert.equal((await request(server, 'DELETE', '/sandbox/faults')).status, 204);
});
