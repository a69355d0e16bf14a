import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { MESSAGE_TYPES } from '../../src/domain/channels/capabilities.ts';
import { request, startTestServer, type TestServer } from '../harness.ts';
import { customerWrites, officialChannel, pairedGatewayChannel, send } from '../messages-helpers.ts';

let server: TestServer;
let gateway: { id: string };
let official: { id: string };
const TO = '4915112341111';
before(async () => {
  server = await startTestServer({ worker: true, env: { SANDBOX_STATUS_DELAY_MS: '50' } });
  gateway = await pairedGatewayChannel(server);
  official = await officialChannel(server);
  await customerWrites(server, official.id, TO);
});
after(() => server.close());

const IMG = 'https://cdn.example.com/a.png';

/** One valid content per type; every type is covered (checked below). */
const VALID: Record<string, Record<string, unknown>> = {
  text: { body: 'hi', reply_to: { id: 'wamid.X', participant: '4915112340000' } },
  image: { media_url: IMG, caption: 'c' },
  video: { url: 'https://cdn.example.com/v.mp4' },
  audio: { media: 'https://cdn.example.com/a.ogg', mediaType: 'audio' },
  document: { media_url: 'https://cdn.example.com/d.pdf', fileName: 'Invoice.pdf', caption: 'invoice' },
  sticker: { sticker_url: 'https://cdn.example.com/s.webp' },
  location: { name: 'Shop', address: 'Main St 1', latitude: -33.86, longitude: 151.2 },
  location_request: { text: 'Where are you?' },
  contact: { full_name: 'Ana Lima', phone: '+55 11 91234 5678', organization: 'Acme' },
  reaction: { message_id: 'wamid.X', reaction: '' },
  mark_as_read: { message_id: 'wamid.X' },
  address: { body: 'Where to?', country: 'IN' },
  single_product: { catalog_id: 'c1', product_retailer_id: 'sku-1' },
  multi_product: { catalog_id: 'c1', header: 'Picks', body: 'For you', sections: [{ title: 'S', product_retailer_ids: ['a'] }] },
  catalog: { body: 'Browse' },
  template: {
    template: {
      name: 'order_update',
      language: { code: 'en_US' },
      components: [{ type: 'button', sub_type: 'quick_reply', index: '0', parameters: [{ type: 'payload', payload: 'P' }] }],
    },
  },
  buttons: {
    body: 'Pick',
    buttons: [
      { id: 'a', title: 'A' },
      { id: 'b', title: 'B' },
      { id: 'c', title: 'C' },
    ],
  },
  list: { body: 'Pick', button_text: 'Options', sections: [{ title: 'T', rows: [{ id: 'r', title: 'Row', description: 'd' }] }] },
  cta_url: { body: 'Track', display_text: 'Open', url: 'https://example.com' },
  media_carousel: {
    body: 'New',
    cards: [
      { media_type: 'image', media_url: IMG, buttons: [{ type: 'url', title: 'Buy', url: 'https://example.com/a' }] },
      { media_type: 'image', media_url: IMG, buttons: [{ type: 'url', title: 'Buy', url: 'https://example.com/b' }] },
    ],
  },
  product_carousel: { body: 'Picks', catalog_id: 'c1', products: [{ product_retailer_id: 'a' }, { product_retailer_id: 'b' }] },
  link: { url: 'https://example.com/post', title: 'Post' },
  poll: { question: 'Best?', options: ['A', 'B'] },
  presence: { state: 'typing' },
  edit_message: { message_id: '3EB0', body: 'fixed' },
  delete_message: { message_id: '3EB0' },
  message_status_query: { message_id: '3EB0' },
  message_media_download: { media_id: 'm1' },
  flow: { body: 'Book a table', flow_id: '1234567890', flow_cta: 'Book' },
};

/** Invalid contents, each with a field path the rejection must name. */
const INVALID: Array<[string, Record<string, unknown>, string]> = [
  ['text', {}, '/content/body'],
  ['text', { body: '' }, '/content/body'],
  ['text', { body: 'x', reply_to: { participant: 'p' } }, '/content/reply_to/id'],
  ['text', { body: 'x', colour: 'red' }, '/content'],
  ['image', { caption: 'no url' }, '/content/media_url'],
  ['image', { media_url: 'ftp://cdn.example.com/a.png' }, '/content/media_url'],
  ['image', { media_url: IMG, media_type: 'video' }, '/content/media_type'],
  ['sticker', {}, '/content/media_url'],
  ['image', { media_url: IMG, media_id: '1037543291543636' }, '/content/media_id'],
  ['document', { media_id: 'not an id!' }, '/content/media_id'],
  ['buttons', { body: 'b', header: { type: 'image' }, buttons: [{ id: 'a', title: 'A' }] }, '/content/header'],
  [
    'buttons',
    { body: 'b', header: { type: 'image', media_url: IMG, file_name: 'a.png' }, buttons: [{ id: 'a', title: 'A' }] },
    '/content/header',
  ],
  ['location', { name: 'x', address: 'y', latitude: 91, longitude: 0 }, '/content/latitude'],
  ['location', { name: 'x', address: 'y', latitude: 0, longitude: -180.5 }, '/content/longitude'],
  ['location', { name: 'x', address: 'y', latitude: '1', longitude: 0 }, '/content/latitude'],
  ['contact', { full_name: 'A' }, '/content/phone'],
  ['contact', { full_name: 'A', phones: [] }, '/content/phones'],
  ['contact', { full_name: 'A', phones: [{ phone: '+5511912345678', kind: 'HOME' }] }, '/content/phones/0'],
  ['contact', { full_name: 'A', phone: '+5511912345678', emails: [{ email: 'not an address' }] }, '/content/emails/0/email'],
  ['contact', { full_name: 'A', phone: '+5511912345678', urls: [{ url: 'ftp://example.com' }] }, '/content/urls/0/url'],
  ['contact', { full_name: 'A', phone: '+5511912345678', birthday: '01/04/1990' }, '/content/birthday'],
  ['reaction', { reaction: '👍' }, '/content/message_id'],
  ['mark_as_read', {}, '/content/message_id'],
  ['template', { template_name: 'order_update' }, '/content/template_name'],
  ['template', { template: { name: 'order_update' } }, '/content/template/language'],
  [
    'template',
    { template: { name: 'x', language: { code: 'en_US' }, components: [{ type: 'footer', parameters: [] }] } },
    '/content/template/components/0/type',
  ],
  [
    'template',
    { template: { name: 'x', language: { code: 'en_US' }, components: [{ type: 'button', sub_type: 'url', index: 0, parameters: [] }] } },
    '/content/template/components/0/index',
  ],
  [
    'template',
    { template: { name: 'x', language: { code: 'en_US' }, components: [{ type: 'button', index: '0', parameters: [] }] } },
    '/content/template/components/0/sub_type',
  ],
  [
    'template',
    {
      template: {
        name: 'x',
        language: { code: 'en_US' },
        components: [{ type: 'header', parameters: [{ type: 'image', image: { link: 'http://x.example/a.png' } }] }],
      },
    },
    '/content/template/components/0/parameters/0/image/link',
  ],
  [
    'template',
    { template: { name: 'x', language: { code: 'en_US' }, components: [{ type: 'body', parameters: [{ type: 'currency' }] }] } },
    '/content/template/components/0/parameters/0/type',
  ],
  ['buttons', { body: 'b', buttons: [1, 2, 3, 4].map((i) => ({ id: `${i}`, title: `${i}` })) }, '/content/buttons'],
  ['buttons', { body: 'b', buttons: [{ id: 'a' }] }, '/content/buttons/0/title'],
  ['list', { body: 'b', button_text: 'x', sections: [] }, '/content/sections'],
  ['list', { body: 'b', button_text: 'x', sections: [{ title: 't', rows: [{ title: 'no id' }] }] }, '/content/sections/0/rows/0/id'],
  ['cta_url', { body: 'b', display_text: 'x' }, '/content/url'],
  ['media_carousel', { body: 'b', cards: [] }, '/content/cards'],
  ['poll', { question: 'q', options: ['only one'] }, '/content/options'],
  ['poll', { question: 'q', options: ['same', 'same'] }, '/content/options'],
  ['presence', { state: 'dancing' }, '/content/state'],
  ['address', { body: 'b', country: 'India' }, '/content/country'],
  ['flow', { body: 'b', flow_cta: 'Open' }, '/content/flow_id'],
  ['flow', { body: 'b', flow_id: '1', flow_name: 'signup', flow_cta: 'Open' }, '/content/flow_id'],
  ['flow', { body: 'b', flow_id: '1', flow_cta: 'A call to action of more than thirty characters' }, '/content/flow_cta'],
  ['flow', { body: 'b', flow_id: '1', flow_cta: 'Open', mode: 'live' }, '/content/mode'],
  [
    'flow',
    { body: 'b', flow_id: '1', flow_cta: 'Open', flow_action: 'data_exchange', flow_action_payload: { screen: 'START' } },
    '/content/flow_action_payload',
  ],
  [
    'flow',
    { body: 'b', flow_id: '1', flow_cta: 'Open', flow_action_payload: { screen: 'START', data: {} } },
    '/content/flow_action_payload/data',
  ],
];

describe('content by type', () => {
  test('every type has a valid example that is accepted on a platform that supports it', async () => {
    assert.deepEqual(Object.keys(VALID).sort(), [...MESSAGE_TYPES].sort());
    const gatewayCaps = (await request(server, 'GET', `/v1/channels/${gateway.id}/capabilities`, { key: server.apiKey })).body.data;
    for (const [type, content] of Object.entries(VALID)) {
      const channel = gatewayCaps.message_types.includes(type) ? gateway.id : official.id;
      const res = await send(server, { channel_id: channel, to: TO, type, content });
      assert.equal(res.status, 201, `${type}: ${res.text}`);
      assert.equal(res.body.data.type, type);
    }
  });

  test('aliases are resolved into the stored content', async () => {
    const audio = await send(server, { channel_id: gateway.id, to: TO, type: 'audio', content: VALID.audio });
    assert.equal(audio.body.data.content.media_url, 'https://cdn.example.com/a.ogg');
    assert.equal(audio.body.data.content.media, undefined);
    const doc = await send(server, { channel_id: gateway.id, to_phone: TO, type: 'document', content: VALID.document });
    assert.equal(doc.status, 201, doc.text);
    assert.equal(doc.body.data.content.file_name, 'Invoice.pdf');
    const sticker = await send(server, { channel_id: gateway.id, to: TO, type: 'sticker', content: VALID.sticker });
    assert.equal(sticker.body.data.content.media_url, 'https://cdn.example.com/s.webp');
    const text = await send(server, { channel_id: gateway.id, to: TO, type: 'text', content: { text: 'as a string' } });
    assert.equal(text.body.data.content.body, 'as a string');
  });

  test('invalid shapes are 400 problems naming the field path', async () => {
    const gatewayTypes = (await request(server, 'GET', `/v1/channels/${gateway.id}/capabilities`, { key: server.apiKey })).body.data
      .message_types as string[];
    for (const [type, content, pointer] of INVALID) {
      const channel = gatewayTypes.includes(type) ? gateway.id : official.id;
      const res = await send(server, { channel_id: channel, to: TO, type, content });
      assert.equal(res.status, 400, `${type} ${JSON.stringify(content)}: ${res.text}`);
      assert.match(res.headers.get('content-type') ?? '', /problem\+json/);
      assert.ok(
        res.body.errors.some((e: { pointer: string }) => e.pointer === pointer || e.pointer.startsWith(`${pointer}/`)),
        `${type} ${JSON.stringify(content)} should name ${pointer}: ${JSON.stringify(res.body.errors)}`,
      );
    }
    const flat = await send(server, { channel_id: gateway.id, to: TO, type: 'template', content: { template_name: 'x' } });
    assert.match(flat.body.detail, /content\.template/);
  });

  test('the request envelope is checked too', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ to: TO, type: 'text', content: { body: 'x' } }, '/channel_id'],
      [{ channel_id: gateway.id, type: 'text', content: { body: 'x' } }, '/to'],
      [{ channel_id: gateway.id, to: 'not a number', type: 'text', content: { body: 'x' } }, '/to'],
      [{ channel_id: gateway.id, to: TO, type: 'fax', content: {} }, '/type'],
      [{ channel_id: gateway.id, to: TO, type: 'text' }, '/content'],
      [{ channel_id: '00000000-0000-7000-8000-000000000000', to: TO, type: 'text', content: { body: 'x' } }, '/channel_id'],
      [
        { channel_id: gateway.id, to: TO, conversation_id: '00000000-0000-7000-8000-000000000000', type: 'text', content: { body: 'x' } },
        '/conversation_id',
      ],
    ];
    for (const [body, pointer] of cases) {
      const res = await send(server, body);
      assert.equal(res.status, 400, `${JSON.stringify(body)}: ${res.text}`);
      assert.ok(
        res.body.errors.some((e: { pointer: string }) => e.pointer === pointer),
        `${JSON.stringify(body)} names ${pointer}: ${res.text}`,
      );
    }
  });
});

describe('support matrix', () => {
  test('gateway-only types are refused on official channels, naming type and platform', async () => {
    for (const type of ['link', 'poll', 'edit_message', 'delete_message', 'message_status_query', 'message_media_download']) {
      const res = await send(server, { channel_id: official.id, to: TO, type, content: VALID[type] });
      assert.equal(res.status, 422, `${type}: ${res.text}`);
      assert.match(res.body.detail, new RegExp(`${type}.*chatapp_official`));
    }
  });

  test('media by id is refused on a platform without uploads, naming each media_id', async () => {
    const cases: Array<[string, Record<string, unknown>, string]> = [
      ['image', { media_id: '1037543291543636' }, '/content/media_id'],
      [
        'buttons',
        { body: 'b', header: { type: 'video', media_id: '1037543291543636' }, buttons: [{ id: 'a', title: 'A' }] },
        '/content/header/media_id',
      ],
    ];
    for (const [type, content, pointer] of cases) {
      const res = await send(server, { channel_id: gateway.id, to: TO, type, content });
      assert.equal(res.status, 422, res.text);
      assert.equal(res.body.code, 'unsupported');
      assert.deepEqual(
        res.body.errors.map((e: { pointer: string }) => e.pointer),
        [pointer],
      );
      assert.match(res.body.detail, /media_url/);
    }
    const byId = await send(server, { channel_id: official.id, to: TO, type: 'image', content: { media_id: '1037543291543636' } });
    assert.equal(byId.status, 201, byId.text);
    assert.deepEqual(byId.body.data.content, { media_id: '1037543291543636' });
  });

  test('flow messages are native on official channels and refused on unofficial ones, naming the type', async () => {
    const caps = async (id: string) =>
      (await request(server, 'GET', `/v1/channels/${id}/capabilities`, { key: server.apiKey })).body.data.message_types as string[];
    assert.ok((await caps(official.id)).includes('flow'));
    assert.ok(!(await caps(gateway.id)).includes('flow'));
    const refused = await send(server, { channel_id: gateway.id, to: TO, type: 'flow', content: VALID.flow });
    assert.equal(refused.status, 422, refused.text);
    assert.equal(refused.body.code, 'unsupported');
    assert.deepEqual(
      refused.body.errors.map((e: { pointer: string }) => e.pointer),
      ['/type'],
    );
    assert.match(refused.body.detail, /flow.*chatapp_unofficial/);
  });

  test('a channel that is not connected refuses sends with 409', async () => {
    const res = await request(server, 'POST', '/v1/channels', {
      key: server.apiKey,
      body: { platform: 'chatapp_unofficial', name: 'unpaired', sandbox: true },
    });
    const refused = await send(server, { channel_id: res.body.data.id, to: TO, type: 'text', content: { body: 'x' } });
    assert.equal(refused.status, 409);
    assert.match(refused.body.detail, /disconnected/);
  });
});
