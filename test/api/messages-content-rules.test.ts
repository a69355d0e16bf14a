/**
 * Well-formed content the provider would refuse is refused at accept with 422, naming the field,
 * instead of failing later at the provider.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startTestServer, type TestServer } from '../harness.ts';
import { customerWrites, officialChannel, send } from '../messages-helpers.ts';

let server: TestServer;
let official: { id: string };
const TO = '4915112343333';
const IMG = 'https://cdn.example.com/a.png';

before(async () => {
  server = await startTestServer({ worker: true, env: { SANDBOX_STATUS_DELAY_MS: '50' } });
  official = await officialChannel(server);
  await customerWrites(server, official.id, TO);
});
after(() => server.close());

const urlCard = (n: number) => ({
  media_type: 'image',
  media_url: IMG,
  buttons: [{ type: 'url', title: 'Buy', url: `https://example.com/${n}` }],
});
const replyCard = (...ids: string[]) => ({
  media_type: 'image',
  media_url: IMG,
  buttons: ids.map((id) => ({ type: 'quick_reply', id, title: id })),
});
const section = (title: string, count: number) => ({
  title,
  product_retailer_ids: Array.from({ length: count }, (_, i) => `${title}-${i}`),
});

const REFUSED: Array<[string, string, Record<string, unknown>, string]> = [
  [
    'a list with an image header',
    'list',
    {
      body: 'b',
      button_text: 'Open',
      header: { type: 'image', media_url: IMG },
      sections: [{ title: 't', rows: [{ id: 'r', title: 'R' }] }],
    },
    '/content/header/type',
  ],
  [
    'a list with a document header',
    'list',
    {
      body: 'b',
      button_text: 'Open',
      header: { type: 'document', media_url: IMG },
      sections: [{ title: 't', rows: [{ id: 'r', title: 'R' }] }],
    },
    '/content/header/type',
  ],
  [
    'carousel cards with different button kinds',
    'media_carousel',
    { body: 'b', cards: [urlCard(1), replyCard('a')] },
    '/content/cards/1/buttons',
  ],
  [
    'a carousel card mixing url and quick reply',
    'media_carousel',
    { body: 'b', cards: [{ ...urlCard(1), buttons: [...urlCard(1).buttons, ...replyCard('a').buttons] }, urlCard(2)] },
    '/content/cards/0/buttons',
  ],
  [
    'a carousel card with two url buttons',
    'media_carousel',
    { body: 'b', cards: [{ ...urlCard(1), buttons: [...urlCard(1).buttons, ...urlCard(3).buttons] }, urlCard(2)] },
    '/content/cards/0/buttons',
  ],
  [
    'carousel cards with different quick reply counts',
    'media_carousel',
    { body: 'b', cards: [replyCard('a', 'b'), replyCard('c')] },
    '/content/cards/1/buttons',
  ],
  ['an address in a country the provider does not offer', 'address', { body: 'b', country: 'US' }, '/content/country'],
  ['an address prefilling an unknown field', 'address', { body: 'b', country: 'IN', values: { zip: '110001' } }, '/content/values/zip'],
  [
    'an address pin code longer than 6',
    'address',
    { body: 'b', country: 'IN', values: { in_pin_code: '1100011' } },
    '/content/values/in_pin_code',
  ],
  [
    'a contact phone of type CELL',
    'contact',
    { full_name: 'Ana Lima', phone: '+5511912345678', phone_type: 'CELL' },
    '/content/phone_type',
  ],
  [
    'a contact email of type OTHER',
    'contact',
    { full_name: 'Ana Lima', phones: [{ phone: '+5511912345678' }], emails: [{ email: 'ana@example.com', type: 'OTHER' }] },
    '/content/emails/0/type',
  ],
  [
    'a second contact phone of type MAIN',
    'contact',
    {
      full_name: 'Ana Lima',
      phones: [
        { phone: '+5511912345678', type: 'HOME' },
        { phone: '+5511912345679', type: 'MAIN' },
      ],
    },
    '/content/phones/1/type',
  ],
  [
    'a multi-product message without a header',
    'multi_product',
    { catalog_id: 'c1', body: 'b', sections: [section('s', 2)] },
    '/content/header',
  ],
  [
    'a multi-product message with more than 30 products',
    'multi_product',
    { catalog_id: 'c1', header: 'h', body: 'b', sections: [section('a', 20), section('b', 11)] },
    '/content/sections',
  ],
];

test('content the provider refuses is 422, naming the field', async () => {
  for (const [name, type, content, pointer] of REFUSED) {
    const res = await send(server, { channel_id: official.id, to: TO, type, content });
    assert.equal(res.status, 422, `${name}: ${res.text}`);
    assert.equal(res.body.code, 'unsupported', name);
    assert.ok(
      res.body.errors.some((e: { pointer: string }) => e.pointer === pointer),
      `${name} names ${pointer}: ${res.text}`,
    );
    assert.ok(res.body.detail.includes(pointer.slice('/content/'.length)), `${name}: the detail names the field: ${res.body.detail}`);
  }
});

test('the same types within the provider’s rules are accepted', async () => {
  const accepted: Array<[string, Record<string, unknown>]> = [
    [
      'list',
      {
        body: 'b',
        button_text: 'Open',
        header: { type: 'text', text: 'Menu' },
        sections: [{ title: 't', rows: [{ id: 'r', title: 'R' }] }],
      },
    ],
    ['media_carousel', { body: 'b', cards: [replyCard('a', 'b'), replyCard('c', 'd')] }],
    ['media_carousel', { body: 'b', cards: [urlCard(1), urlCard(2)] }],
    ['address', { body: 'b', country: 'IN', values: { name: 'Ana', in_pin_code: '110001' } }],
    ['contact', { full_name: 'Ana Lima', phone: '+5511912345678', phone_type: 'work' }],
    ['multi_product', { catalog_id: 'c1', header: 'h', body: 'b', sections: [section('a', 20), section('b', 10)] }],
  ];
  for (const [type, content] of accepted) {
    const res = await send(server, { channel_id: official.id, to: TO, type, content });
    assert.equal(res.status, 201, `${type}: ${res.text}`);
  }
  const contact = await send(server, {
    channel_id: official.id,
    to: TO,
    type: 'contact',
    content: { full_name: 'Bo', phone: '+5511912345678', phone_type: 'home' },
  });
  assert.equal(contact.body.data.content.phone_type, 'HOME', 'stored as the provider spells it');
  const card = await send(server, {
    channel_id: official.id,
    to: TO,
    type: 'contact',
    content: { full_name: 'Bo', phones: [{ phone: '+5511912345678', type: 'work' }], emails: [{ email: 'bo@example.com', type: 'home' }] },
  });
  assert.equal(card.status, 201, card.text);
  assert.equal(card.body.data.content.phones[0].type, 'WORK');
  assert.equal(card.body.data.content.emails[0].type, 'HOME');
});
