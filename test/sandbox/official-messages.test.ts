import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { queryRows } from '../../src/db/client.ts';
import type { SandboxOfficialNumber } from '../../src/sandbox/contract.ts';
import { request, startTestServer, type TestServer } from '../harness.ts';
import { sandboxQuiet } from '../messages-helpers.ts';
import { hmacHex, startReceiver, statusesOf, type Receiver } from './receiver.ts';
import { multipartBody } from '../media-helpers.ts';
import { SAMPLE_PNG_BASE64 } from '../../src/sandbox/media.ts';

let server: TestServer;
let receiver: Receiver;
let number: SandboxOfficialNumber;

before(async () => {
  receiver = await startReceiver();
  server = await startTestServer({ env: { SANDBOX_OFFICIAL_WEBHOOK_URL: receiver.url, SANDBOX_STATUS_DELAY_MS: '50' }, worker: true });
  number = await server.container.sandbox!.provisionOfficialNumber(server.container.database.db);
});
after(async () => {
  await server.close();
  await receiver.close();
});

const path = (suffix: string) => `/sandbox/official/${number.apiVersion}/${suffix}`;
const send = (body: unknown, bearer = number.accessToken) =>
  request(server, 'POST', path(`${number.phoneNumberId}/messages`), { bearer, body });
const text = (to: string, body = 'hello there') => ({
  messaging_product: 'whatsapp',
  recipient_type: 'individual',
  to,
  type: 'text',
  text: { body },
});

test('provisioning returns a number, a business account and a token the API accepts', async () => {
  assert.equal(number.apiBase, `${server.baseUrl}/sandbox/official`);
  assert.equal(number.apiVersion, server.config.official.apiVersion);
  assert.match(number.phoneNumberId, /^\d{15}$/);
  assert.match(number.wabaId, /^\d{15}$/);
  assert.match(number.displayPhoneNumber, /^\+1555\d{7}$/);
  const res = await request(server, 'GET', path(number.phoneNumberId), { bearer: number.accessToken });
  assert.equal(res.status, 200);
  assert.equal(res.body.id, number.phoneNumberId);
  assert.equal(res.body.display_phone_number, number.displayPhoneNumber);
  assert.equal(res.body.quality_rating, 'GREEN');
  assert.equal(typeof res.body.verified_name, 'string');
  const numbers = await request(server, 'GET', path(`${number.wabaId}/phone_numbers`), { bearer: number.accessToken });
  assert.equal(numbers.status, 200);
  assert.deepEqual(
    numbers.body.data.map((n: { id: string }) => n.id),
    [number.phoneNumberId],
  );
  const stored = await queryRows<{ token_hash: string }>(
    server.container.database.db,
    sql`select token_hash from sandbox_accounts where id = ${number.phoneNumberId}`,
  );
  assert.notEqual(stored[0]!.token_hash, number.accessToken, 'only a hash of the token is stored');
  assert.match(stored[0]!.token_hash, /^[0-9a-f]{64}$/);
  const sandbox = server.container.sandbox!;
  assert.equal(sandbox.officialVerifyToken, server.container.sealer.derive('sandbox-official-verify-token').slice(0, 32));
  assert.equal(sandbox.officialVerifyToken.length, 32);
});

test('the display number can be chosen', async () => {
  const chosen = await server.container.sandbox!.provisionOfficialNumber(server.container.database.db, {
    displayPhoneNumber: '+1 555 010 9999',
  });
  assert.equal(chosen.displayPhoneNumber, '+15550109999');
  assert.notEqual(chosen.accessToken, number.accessToken);
});

test('a missing or wrong bearer token is 401 with code 190, in the provider error shape', async () => {
  for (const bearer of [undefined, 'EAASnot-a-token']) {
    const res = await request(server, 'POST', path(`${number.phoneNumberId}/messages`), { bearer, body: text('15551234567') });
    assert.equal(res.status, 401);
    assert.equal(res.body.error.code, 190);
    assert.equal(res.body.error.type, 'OAuthException');
    assert.equal(typeof res.body.error.message, 'string');
    assert.equal(typeof res.body.error.fbtrace_id, 'string');
  }
  const query = await request(server, 'GET', `${path(number.phoneNumberId)}?access_token=${encodeURIComponent(number.accessToken)}`);
  assert.equal(query.status, 200, 'the token is also accepted as the access_token query parameter');
});

test("another number's token cannot use this number", async () => {
  const other = await server.container.sandbox!.provisionOfficialNumber(server.container.database.db);
  const res = await send(text('15551234567'), other.accessToken);
  assert.equal(res.status, 400);
  assert.equal(res.body.error.code, 100);
  assert.equal(res.body.error.error_subcode, 33);
});

test('a text send answers a wamid, then sent, delivered and read webhooks arrive in order, signed with the app secret', async () => {
  const res = await send(text('+15551234567'));
  assert.equal(res.status, 200);
  assert.equal(res.body.messaging_product, 'whatsapp');
  assert.deepEqual(res.body.contacts, [{ input: '+15551234567', wa_id: '15551234567' }]);
  const id = res.body.messages[0].id as string;
  assert.match(id, /^wamid\./);

  const all = await receiver.waitFor((r) => statusesOf(r, id).length >= 3);
  const statuses = statusesOf(all, id);
  assert.deepEqual(
    statuses.map((s) => s.status),
    ['sent', 'delivered', 'read'],
  );
  const secret = server.container.sandbox!.officialAppSecret;
  assert.equal(secret, server.container.sealer.derive('sandbox-official-app-secret'));
  const deliveries = all.filter((r) => statusesOf([r], id).length > 0);
  for (const delivery of deliveries) {
    assert.equal(delivery.method, 'POST');
    assert.equal(delivery.headers['content-type'], 'application/json');
    assert.equal(delivery.headers['x-hub-signature-256'], `sha256=${hmacHex(secret, delivery.raw)}`);
    assert.notEqual(delivery.headers['x-hub-signature-256'], `sha256=${hmacHex('another secret', delivery.raw)}`);
    const body = delivery.json;
    assert.equal(body.object, 'whatsapp_business_account');
    assert.equal(body.entry.length, 1);
    assert.equal(body.entry[0].id, number.wabaId);
    assert.equal(body.entry[0].changes[0].field, 'messages');
    const value = body.entry[0].changes[0].value;
    assert.equal(value.messaging_product, 'whatsapp');
    assert.deepEqual(value.metadata, { display_phone_number: number.displayPhoneNumber.slice(1), phone_number_id: number.phoneNumberId });
    const status = value.statuses[0];
    assert.equal(status.recipient_id, '15551234567');
    assert.match(status.timestamp, /^\d{10}$/);
    assert.equal(status.errors, undefined);
  }
  assert.deepEqual(statuses[0]!.pricing, { billable: false, pricing_model: 'PMP', type: 'free_customer_service', category: 'service' });
  assert.equal(typeof statuses[0]!.conversation.id, 'string');
  assert.match(statuses[0]!.conversation.expiration_timestamp, /^\d{10}$/, 'the conversation says when it expires with `sent`');
  assert.deepEqual(statuses[0]!.conversation.origin, { type: 'service' });
});

test('recipient ending 0001 is accepted, then reported failed with 131026', async () => {
  const res = await send(text('15557770001'));
  assert.equal(res.status, 200);
  const id = res.body.messages[0].id as string;
  const statuses = statusesOf(await receiver.waitFor((r) => statusesOf(r, id).length >= 1), id);
  assert.equal(statuses[0]!.status, 'failed');
  assert.equal(statuses[0]!.errors[0].code, 131026);
  assert.equal(typeof statuses[0]!.errors[0].title, 'string');
  // Nothing follows a failure: once the sandbox has nothing left to send about it, only `failed` came.
  await sandboxQuiet(server.container.database.db, id);
  assert.deepEqual(
    statusesOf(receiver.received, id).map((s) => s.status),
    ['failed'],
  );
});

test('recipient ending 0002 is refused at send time with 131047', async () => {
  const res = await send(text('15557770002'));
  assert.equal(res.status, 400);
  assert.equal(res.body.error.code, 131047);
  assert.equal(res.body.error.type, 'OAuthException');
  assert.equal(typeof res.body.error.error_data.details, 'string');
});

test('recipient ending 0429 is refused with 130429 on the first attempt only; the retry is accepted and delivered', async () => {
  const body = text('15557770429', 'throttled once');
  const first = await send(body);
  assert.equal(first.status, 429);
  assert.equal(first.body.error.code, 130429);
  const retry = await send(body);
  assert.equal(retry.status, 200);
  const id = retry.body.messages[0].id as string;
  const another = await send(text('15557770429', 'a different message'));
  assert.equal(another.status, 429, 'a new message to the same recipient is throttled again');
  const statuses = statusesOf(await receiver.waitFor((r) => statusesOf(r, id).length >= 3), id);
  assert.deepEqual(
    statuses.map((s) => s.status),
    ['sent', 'delivered', 'read'],
  );
});

test('native bodies the provider would refuse are answered with its error codes', async () => {
  const to = '15551234567';
  // 100: not an object, an unknown field or a value of the wrong kind; 131008: a required parameter
  // is absent; 131009: a parameter's value is not one the provider accepts.
  const cases: Array<[string, unknown, number]> = [
    ['not an object', ['x'], 100],
    ['no messaging_product', { to, type: 'text', text: { body: 'x' } }, 131008],
    ['wrong messaging_product', { messaging_product: 'sms', to, type: 'text', text: { body: 'x' } }, 131009],
    ['no recipient', { messaging_product: 'whatsapp', type: 'text', text: { body: 'x' } }, 131008],
    ['recipient not a number', { messaging_product: 'whatsapp', to: 'bob', type: 'text', text: { body: 'x' } }, 131009],
    ['unknown type', { messaging_product: 'whatsapp', to, type: 'fax', fax: {} }, 131009],
    ['type object missing', { messaging_product: 'whatsapp', to, type: 'image' }, 131008],
    ['another type’s object', { messaging_product: 'whatsapp', to, type: 'image', text: { body: 'x' } }, 100],
    ['empty text body', { messaging_product: 'whatsapp', to, type: 'text', text: { body: '   ' } }, 131009],
    ['text body as a bare string', { messaging_product: 'whatsapp', to, type: 'text', text: 'hello' }, 100],
    ['media with neither link nor id', { messaging_product: 'whatsapp', to, type: 'image', image: { caption: 'x' } }, 131008],
    ['media link not a URL', { messaging_product: 'whatsapp', to, type: 'document', document: { link: 'not a url' } }, 131009],
    ['location without longitude', { messaging_product: 'whatsapp', to, type: 'location', location: { latitude: 1 } }, 131008],
    ['contact without a name', { messaging_product: 'whatsapp', to, type: 'contacts', contacts: [{ phones: [{ phone: '1' }] }] }, 131008],
    ['reaction without a message id', { messaging_product: 'whatsapp', to, type: 'reaction', reaction: { emoji: 'x' } }, 131008],
    ['template without a name', { messaging_product: 'whatsapp', to, type: 'template', template: { language: { code: 'en_US' } } }, 131008],
    [
      'template without a language code',
      { messaging_product: 'whatsapp', to, type: 'template', template: { name: 'x', language: {} } },
      131008,
    ],
    [
      'four reply buttons',
      {
        messaging_product: 'whatsapp',
        to,
        type: 'interactive',
        interactive: {
          type: 'button',
          body: { text: 'pick' },
          action: { buttons: [1, 2, 3, 4].map((i) => ({ type: 'reply', reply: { id: `b${i}`, title: `B${i}` } })) },
        },
      },
      131009,
    ],
    [
      'interactive without a body',
      {
        messaging_product: 'whatsapp',
        to,
        type: 'interactive',
        interactive: { type: 'button', action: { buttons: [{ type: 'reply', reply: { id: 'a', title: 'A' } }] } },
      },
      131008,
    ],
    [
      'list without sections',
      {
        messaging_product: 'whatsapp',
        to,
        type: 'interactive',
        interactive: { type: 'list', body: { text: 'x' }, action: { button: 'Open' } },
      },
      131008,
    ],
    ['mark-as-read without message_id', { messaging_product: 'whatsapp', status: 'read' }, 131008],
  ];
  for (const [name, body, code] of cases) {
    const res = await send(body);
    assert.equal(res.status, 400, `${name}: ${res.text}`);
    assert.equal(res.body.error.code, code, `${name}: ${res.text}`);
    assert.equal(res.body.error.type, 'OAuthException', name);
    assert.match(res.body.error.message, new RegExp(`^\\(#${code}\\) `), name);
  }
  const malformed = await request(server, 'POST', path(`${number.phoneNumberId}/messages`), {
    bearer: number.accessToken,
    rawBody: '{"messaging_product":',
  });
  assert.equal(malformed.status, 400);
  assert.equal(malformed.body.error.code, 100);
  const plain = await request(server, 'POST', path(`${number.phoneNumberId}/messages`), {
    bearer: number.accessToken,
    rawBody: 'hello',
    contentType: 'text/plain',
  });
  assert.equal(plain.status, 415);
  assert.equal(plain.body.error.type, 'OAuthException');
  const charset = await request(server, 'POST', path(`${number.phoneNumberId}/messages`), {
    bearer: number.accessToken,
    rawBody: JSON.stringify(text(to)),
    contentType: 'application/json; charset=utf-8',
  });
  assert.equal(charset.status, 200, charset.text);
});

test('well-formed native bodies of every kind are accepted', async () => {
  const to = '15551234567';
  const bodies: unknown[] = [
    { messaging_product: 'whatsapp', to, type: 'image', image: { link: 'https://example.com/a.png', caption: 'look' } },
    { messaging_product: 'whatsapp', to, type: 'document', document: { id: '123456', filename: 'a.pdf' } },
    { messaging_product: 'whatsapp', to, type: 'location', location: { latitude: 52.5, longitude: 13.4, name: 'Berlin' } },
    {
      messaging_product: 'whatsapp',
      to,
      type: 'contacts',
      contacts: [{ name: { formatted_name: 'Ada' }, phones: [{ phone: '+15550001111' }] }],
    },
    { messaging_product: 'whatsapp', to, type: 'reaction', reaction: { message_id: 'wamid.x', emoji: '' } },
    {
      messaging_product: 'whatsapp',
      to,
      type: 'interactive',
      interactive: {
        type: 'list',
        body: { text: 'Choose' },
        action: { button: 'Open', sections: [{ title: 'S', rows: [{ id: 'r1', title: 'Row 1', description: 'd' }] }] },
      },
    },
    {
      messaging_product: 'whatsapp',
      to,
      type: 'interactive',
      context: { message_id: 'wamid.quoted' },
      interactive: { type: 'button', body: { text: 'pick' }, action: { buttons: [{ type: 'reply', reply: { id: 'yes', title: 'Yes' } }] } },
    },
    {
      messaging_product: 'whatsapp',
      to,
      type: 'interactive',
      // Without parameters the catalog's first product is its thumbnail.
      interactive: { type: 'catalog_message', body: { text: 'Browse' }, action: { name: 'catalog_message' } },
    },
    {
      messaging_product: 'whatsapp',
      to,
      type: 'interactive',
      interactive: {
        type: 'flow',
        header: { type: 'text', text: 'Tonight' },
        body: { text: 'Book a table' },
        action: {
          name: 'flow',
          parameters: {
            flow_message_version: '3',
            flow_name: 'booking',
            flow_cta: 'Book',
            mode: 'draft',
            flow_token: 't-1',
            flow_action: 'navigate',
            flow_action_payload: { screen: 'START', data: { party: 2 } },
          },
        },
      },
    },
    {
      messaging_product: 'whatsapp',
      to,
      type: 'interactive',
      interactive: {
        type: 'cta_url',
        body: { text: 'Go' },
        action: { name: 'cta_url', parameters: { display_text: 'Open', url: 'https://example.com' } },
      },
    },
  ];
  for (const body of bodies) {
    const res = await send(body);
    assert.equal(res.status, 200, res.text);
    assert.match(res.body.messages[0].id, /^wamid\./);
  }
});

test('media uploads: multipart with messaging_product, type and file answer a media id the number can read back', async () => {
  const png = Buffer.from(SAMPLE_PNG_BASE64, 'base64');
  const upload = async (parts: Parameters<typeof multipartBody>[0], bearer = number.accessToken) => {
    const { rawBody, contentType } = await multipartBody(parts);
    return request(server, 'POST', path(`${number.phoneNumberId}/media`), { bearer, rawBody, contentType });
  };
  const ok = await upload({ messaging_product: 'whatsapp', type: 'image/png', file: { data: png, type: 'image/png', name: 'a.png' } });
  assert.equal(ok.status, 200, ok.text);
  assert.match(ok.body.id, /^\d+$/);
  assert.deepEqual(Object.keys(ok.body), ['id']);
  const media = await request(server, 'GET', path(ok.body.id), { bearer: number.accessToken });
  assert.equal(media.status, 200, media.text);
  assert.equal(media.body.mime_type, 'image/png');
  assert.equal(media.body.file_size, png.length);
  const file = { data: png, type: 'image/png' };
  const cases: Array<[string, Parameters<typeof multipartBody>[0], number, RegExp]> = [
    ['no messaging_product', { type: 'image/png', file }, 131008, /messaging_product/],
    ['another messaging_product', { messaging_product: 'sms', type: 'image/png', file }, 131009, /messaging_product/],
    ['no file', { messaging_product: 'whatsapp', type: 'image/png' }, 131008, /file/],
    ['no type', { messaging_product: 'whatsapp', file }, 131008, /type/],
    ['a type the provider does not take', { messaging_product: 'whatsapp', type: 'text/html', file }, 100, /text\/html/],
    [
      'an image over 5 MB',
      { messaging_product: 'whatsapp', type: 'image/png', file: { data: Buffer.alloc(5 * 1024 * 1024 + 1), type: 'image/png' } },
      100,
      /5242880/,
    ],
  ];
  for (const [name, parts, code, details] of cases) {
    const res = await upload(parts);
    assert.equal(res.status, 400, `${name}: ${res.text}`);
    assert.equal(res.body.error.code, code, `${name}: ${res.text}`);
    assert.match(res.body.error.error_data?.details ?? res.body.error.message, details, name);
  }
  const json = await request(server, 'POST', path(`${number.phoneNumberId}/media`), {
    bearer: number.accessToken,
    body: { messaging_product: 'whatsapp', file: '@/tmp/a.png' },
  });
  assert.equal(json.status, 400, json.text);
  assert.equal(json.body.error.code, 100);
  const otherNumber = await upload({ messaging_product: 'whatsapp', type: 'image/png', file }, 'EAASnot-a-token');
  assert.equal(otherNumber.status, 401);
});

test('mark-as-read of a message the number never received is code 100', async () => {
  const res = await send({ messaging_product: 'whatsapp', status: 'read', message_id: 'wamid.unknown' });
  assert.equal(res.status, 400);
  assert.equal(res.body.error.code, 100);
});

test('unknown paths and versions answer in the provider shape', async () => {
  const res = await request(server, 'GET', `/sandbox/official/${number.apiVersion}/${number.phoneNumberId}/nothing/here`, {
    bearer: number.accessToken,
  });
  assert.equal(res.status, 400);
  assert.equal(res.body.error.code, 2500);
  const version = await request(server, 'GET', `/sandbox/official/latest/${number.phoneNumberId}`, { bearer: number.accessToken });
  assert.equal(version.status, 400);
  assert.equal(version.body.error.code, 2500);
});

test('the sandbox routes stay out of the OpenAPI document', async () => {
  const res = await request(server, 'GET', '/v1/openapi.json');
  assert.equal(res.status, 200);
  assert.ok(!Object.keys(res.body.paths).some((p) => p.startsWith('/sandbox')));
});

test('shapes the provider refuses and the sandbox once let through are refused with the provider’s code and error body', async () => {
  const to = '15551234567';
  const interactive = (body: Record<string, unknown>) => ({ messaging_product: 'whatsapp', to, type: 'interactive', interactive: body });
  const img = { type: 'image', image: { link: 'https://example.com/a.png' } };
  const urlCard = (i: number) => ({
    card_index: i,
    type: 'cta_url',
    header: img,
    action: { name: 'cta_url', parameters: { display_text: 'Buy', url: 'https://example.com' } },
  });
  const replyCard = (i: number, n = 1) => ({
    card_index: i,
    header: img,
    action: { buttons: Array.from({ length: n }, (_, j) => ({ type: 'quick_reply', quick_reply: { id: `q${i}${j}`, title: `Q${j}` } })) },
  });
  const section = { title: 'S', product_items: [{ product_retailer_id: 'a' }] };
  const flow = (parameters: Record<string, unknown>) =>
    interactive({
      type: 'flow',
      body: { text: 'b' },
      action: { name: 'flow', parameters: JSON.parse(JSON.stringify({ flow_message_version: '3', flow_cta: 'Open', ...parameters })) },
    });
  const cases: Array<[string, unknown, number, RegExp]> = [
    [
      'an unknown top-level field',
      { messaging_product: 'whatsapp', to, type: 'text', text: { body: 'x' }, priority: 'high' },
      100,
      /priority/,
    ],
    [
      'an unknown field inside the object',
      { messaging_product: 'whatsapp', to, type: 'text', text: { body: 'x', colour: 'red' } },
      100,
      /colour/,
    ],
    [
      'multi-product sections with product_retailer_ids',
      interactive({
        type: 'product_list',
        header: { type: 'text', text: 'h' },
        body: { text: 'b' },
        action: { catalog_id: 'c', sections: [{ title: 'S', product_retailer_ids: ['a'] }] },
      }),
      100,
      /product_retailer_ids/,
    ],
    [
      'a multi-product message without a header',
      interactive({ type: 'product_list', body: { text: 'b' }, action: { catalog_id: 'c', sections: [section] } }),
      131008,
      /header/,
    ],
    ['a flow named both by id and by name', flow({ flow_id: '1', flow_name: 'n' }), 131009, /flow_name/],
    ['a flow without its message version', flow({ flow_message_version: undefined, flow_id: '1' }), 131008, /flow_message_version/],
    ['a flow with an unknown parameter', flow({ flow_id: '1', colour: 'red' }), 100, /colour/],
    ['a flow call to action longer than 30', flow({ flow_id: '1', flow_cta: 'x'.repeat(31) }), 131009, /flow_cta/],
    [
      'a data-exchange flow with a payload',
      flow({ flow_id: '1', flow_action: 'data_exchange', flow_action_payload: { screen: 'S' } }),
      131009,
      /flow_action_payload/,
    ],
    ['a flow payload with empty data', flow({ flow_id: '1', flow_action_payload: { screen: 'S', data: {} } }), 131009, /data/],
    [
      'a document header with a caption',
      interactive({
        type: 'button',
        header: { type: 'document', document: { link: 'https://example.com/a.pdf', caption: 'c' } },
        body: { text: 'b' },
        action: { buttons: [{ type: 'reply', reply: { id: 'a', title: 'A' } }] },
      }),
      100,
      /caption/,
    ],
    [
      'catalog parameters without a thumbnail',
      interactive({ type: 'catalog_message', body: { text: 'b' }, action: { name: 'catalog_message', parameters: {} } }),
      131008,
      /thumbnail_product_retailer_id/,
    ],
    [
      'a list with an image header',
      interactive({
        type: 'list',
        header: img,
        body: { text: 'b' },
        action: { button: 'Open', sections: [{ title: 'T', rows: [{ id: 'r', title: 'R' }] }] },
      }),
      131009,
      /header/,
    ],
    [
      'a carousel mixing button kinds across cards',
      interactive({ type: 'carousel', body: { text: 'b' }, action: { cards: [urlCard(0), replyCard(1)] } }),
      131009,
      /cards'\]\[1\]/,
    ],
    [
      'a carousel with different quick-reply counts',
      interactive({ type: 'carousel', body: { text: 'b' }, action: { cards: [replyCard(0, 2), replyCard(1, 1)] } }),
      131009,
      /cards'\]\[1\]/,
    ],
    ['a one-card carousel', interactive({ type: 'carousel', body: { text: 'b' }, action: { cards: [urlCard(0)] } }), 131009, /cards/],
    [
      'a carousel card typed quick_reply',
      interactive({ type: 'carousel', body: { text: 'b' }, action: { cards: [{ ...replyCard(0), type: 'quick_reply' }, replyCard(1)] } }),
      131009,
      /type/,
    ],
    [
      'a carousel with a header',
      interactive({
        type: 'carousel',
        header: { type: 'text', text: 'h' },
        body: { text: 'b' },
        action: { cards: [urlCard(0), urlCard(1)] },
      }),
      131009,
      /header/,
    ],
    [
      'an address message outside India',
      interactive({ type: 'address_message', body: { text: 'b' }, action: { name: 'address_message', parameters: { country: 'US' } } }),
      131009,
      /country/,
    ],
    [
      'a contact phone of type CELL',
      {
        messaging_product: 'whatsapp',
        to,
        type: 'contacts',
        contacts: [{ name: { formatted_name: 'Ana' }, phones: [{ phone: '+15550001111', type: 'CELL' }] }],
      },
      131009,
      /phones'\]\[0\]\['type'\]/,
    ],
  ];
  for (const [name, body, code, names] of cases) {
    const res = await send(body);
    assert.equal(res.status, 400, `${name}: ${res.text}`);
    assert.equal(res.body.error.code, code, `${name}: ${res.text}`);
    const { error } = res.body;
    assert.deepEqual(Object.keys(error).sort(), ['code', 'error_data', 'fbtrace_id', 'message', 'type'], name);
    assert.equal(error.type, 'OAuthException');
    assert.equal(error.error_data.messaging_product, 'whatsapp');
    assert.match(error.error_data.details, names, `${name}: the details name the parameter`);
    assert.match(error.fbtrace_id, /\S/);
  }
});
