/**
 * The official channel's outbound wire: read receipts settle, and every message type the channel
 * sends reaches the provider (the sandbox) in the shape the provider documents.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { after, before, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { queryRows } from '../../src/db/client.ts';
import { toNativeRequest } from '../../src/providers/official/adapter.ts';
import { freePort, request, startTestServer, type TestServer } from '../harness.ts';
import { approvedTemplate, customerWrites, officialChannel, send, waitForStatus } from '../messages-helpers.ts';
import { eventually } from '../eventually.ts';
import { FULL_CONTACT_CARD } from '../contact-card-fixture.ts';
import { conformanceProblems } from '../providers/official-messages.schema.ts';

let server: TestServer;
let official: { id: string };
let media: Server;
let base: string;
const TO = '4915112342222';

/** Serves one small file of each media kind, as a CDN would. */
const MEDIA: Record<string, string> = {
  '/a.png': 'image/png',
  '/a.mp4': 'video/mp4',
  '/a.ogg': 'audio/ogg',
  '/a.pdf': 'application/pdf',
  '/a.webp': 'image/webp',
};

before(async () => {
  server = await startTestServer({ worker: true, env: { SANDBOX_STATUS_DELAY_MS: '50' } });
  official = await officialChannel(server);
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  media = createServer((req, res) => {
    const type = MEDIA[req.url ?? ''];
    if (!type) return void res.writeHead(404).end();
    res.writeHead(206, { 'content-type': type, 'content-range': 'bytes 0-63/2048', 'content-length': '64' });
    res.end(Buffer.alloc(64));
  });
  await new Promise<void>((r) => media.listen(port, '127.0.0.1', r));
});
after(async () => {
  await server.close();
  await new Promise<void>((r) => media.close(() => r()));
});

async function providerIdOf(messageId: string): Promise<string> {
  const rows = await queryRows<{ provider_message_id: string }>(
    server.container.database.db,
    sql`select provider_message_id from messages where id = ${messageId}`,
  );
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
  const read = await queryRows<{ status: string }>(
    server.container.database.db,
    sql`select status from sandbox_messages where id = ${wamid}`,
  );
  assert.equal(read[0]!.status, 'read', 'the provider got the receipt');
  const again = await request(server, 'GET', `/v1/messages/${res.body.data.id}`, { key: server.apiKey });
  assert.equal(again.body.data.status, 'sent');
});

/** What reached the provider for a message: the sandbox keeps each native body it accepted. */
async function nativeBodyOf(messageId: string): Promise<Record<string, any>> {
  return eventually(`the native body of ${messageId}`, async () => {
    const rows = await queryRows<{ body: Record<string, any> }>(
      server.container.database.db,
      sql`select body from sandbox_messages where direction = 'outbound' and body->>'biz_opaque_callback_data' = ${messageId}`,
    );
    return rows[0]?.body;
  });
}

test('every type the official channel sends reaches the provider in the documented shape', async () => {
  await customerWrites(server, official.id, TO);
  const tpl = await approvedTemplate(server, official.id, 'wire_check');
  const url = (n: number) => ({ type: 'url', title: 'Buy', url: `https://example.com/${n}` });
  const reply = (id: string) => ({ type: 'quick_reply', id, title: id });
  const cases: Array<[string, Record<string, unknown>]> = [
    ['text', { body: 'hi https://example.com', preview_url: true, reply_to: { id: 'wamid.quoted' } }],
    ['image', { media_url: `${base}/a.png`, caption: 'look' }],
    ['video', { media_url: `${base}/a.mp4` }],
    ['audio', { media_url: `${base}/a.ogg` }],
    ['document', { media_url: `${base}/a.pdf`, file_name: 'Invoice.pdf', caption: 'invoice' }],
    ['sticker', { media_url: `${base}/a.webp` }],
    ['location', { name: 'Shop', address: 'Main St 1', latitude: 52.52, longitude: 13.405 }],
    ['location_request', { body: 'Where are you?' }],
    ['contact', { full_name: 'Ana Lima', phone: '+5511912345678', organization: 'Acme' }],
    ['contact', { full_name: 'Bo', phone: '+5511912345679', phone_type: 'WORK' }],
    ['contact', FULL_CONTACT_CARD],
    ['reaction', { message_id: 'wamid.X', reaction: '👍' }],
    ['address', { body: 'Where to?', country: 'IN', values: { name: 'Ana', in_pin_code: '110001' } }],
    ['single_product', { catalog_id: 'c1', product_retailer_id: 'sku-1', body: 'Back', footer: 'Shop' }],
    [
      'multi_product',
      {
        catalog_id: 'c1',
        header: 'Picks',
        body: 'For you',
        sections: [
          { title: 'A', product_retailer_ids: ['a', 'b'] },
          { title: 'B', product_retailer_ids: ['c'] },
        ],
      },
    ],
    ['catalog', { body: 'Browse' }],
    ['catalog', { body: 'Browse', footer: 'Deals', thumbnail_product_retailer_id: 'sku-1' }],
    ['template', { template: { ...tpl, components: [{ type: 'body', parameters: [{ type: 'text', text: 'Ana' }] }] } }],
    [
      'buttons',
      {
        body: 'Pick',
        header: { type: 'image', media_url: `${base}/a.png` },
        footer: 'f',
        buttons: [
          { id: 'a', title: 'A' },
          { id: 'b', title: 'B' },
        ],
      },
    ],
    [
      'list',
      {
        body: 'Pick',
        button_text: 'Options',
        header: 'Menu',
        footer: 'f',
        sections: [
          { title: 'T', rows: [{ id: 'r', title: 'Row', description: 'd' }] },
          { title: 'U', rows: [{ id: 's', title: 'S' }] },
        ],
      },
    ],
    ['cta_url', { body: 'Track', header: { type: 'text', text: 'Parcel' }, display_text: 'Open', url: 'https://example.com/t' }],
    [
      'media_carousel',
      {
        body: 'New',
        cards: [
          { media_type: 'image', media_url: `${base}/a.png`, body: 'One', buttons: [url(1)] },
          { media_type: 'image', media_url: `${base}/a.png`, buttons: [url(2)] },
        ],
      },
    ],
    [
      'media_carousel',
      {
        body: 'New',
        cards: [
          { media_type: 'video', media_url: `${base}/a.mp4`, buttons: [reply('a'), reply('b')] },
          { media_type: 'video', media_url: `${base}/a.mp4`, buttons: [reply('c'), reply('d')] },
        ],
      },
    ],
    ['product_carousel', { body: 'Picks', catalog_id: 'c1', products: [{ product_retailer_id: 'a' }, { product_retailer_id: 'b' }] }],
    // Media by the provider's id (POST /v1/channels/{id}/media), no URL.
    ['image', { media_id: '1037543291543636', caption: 'by id' }],
    ['video', { media_id: '1037543291543637' }],
    ['audio', { media_id: '1037543291543638' }],
    ['document', { media_id: '1037543291543639', file_name: 'Statement.pdf' }],
    ['sticker', { media_id: '1037543291543640' }],
    [
      'buttons',
      {
        body: 'Our menu',
        header: { type: 'document', media_url: `${base}/a.pdf`, file_name: 'Menu.pdf' },
        buttons: [{ id: 'order', title: 'Order' }],
      },
    ],
    [
      'cta_url',
      { body: 'New in', header: { type: 'image', media_id: '1037543291543641' }, display_text: 'Shop', url: 'https://example.com/n' },
    ],
    [
      'media_carousel',
      {
        body: 'By id',
        cards: [
          { media_type: 'image', media_id: '1037543291543642', buttons: [url(3)] },
          { media_type: 'image', media_url: `${base}/a.png`, buttons: [url(4)] },
        ],
      },
    ],
    [
      'flow',
      {
        body: 'Book a table',
        header: { type: 'text', text: 'Tonight' },
        footer: 'Takes a minute',
        flow_id: '1234567890',
        flow_cta: 'Book',
        flow_token: 'booking-42',
        flow_action: 'navigate',
        flow_action_payload: { screen: 'START', data: { party: 2 } },
      },
    ],
    ['flow', { body: 'Sign up', flow_name: 'signup', flow_cta: 'Open', mode: 'draft', flow_action: 'data_exchange' }],
  ];
  const caps = (await request(server, 'GET', `/v1/channels/${official.id}/capabilities`, { key: server.apiKey })).body.data
    .message_types as string[];
  // Read receipts and typing (the read body with its indicator) are checked on their own, below and in messages-typing.
  assert.deepEqual(
    [...new Set([...cases.map(([t]) => t), 'mark_as_read', 'presence'])].sort(),
    [...caps].sort(),
    'every official type is covered',
  );

  const sent: Array<[string, string]> = [];
  for (const [type, content] of cases) {
    const res = await send(server, { channel_id: official.id, to: TO, type, content });
    assert.equal(res.status, 201, `${type}: ${res.text}`);
    sent.push([type, res.body.data.id]);
  }
  const bodies: Record<string, Array<Record<string, any>>> = {};
  for (const [type, id] of sent) {
    const status = await eventually(`${type} ${id} to leave the queue`, async () => {
      const r = await request(server, 'GET', `/v1/messages/${id}`, { key: server.apiKey });
      return r.body.data.status === 'queued' ? undefined : r.body.data;
    });
    assert.notEqual(status.status, 'failed', `${type} failed: ${JSON.stringify(status.error)}`);
    const body = await nativeBodyOf(id);
    assert.deepEqual(conformanceProblems(body), [], `${type}: ${JSON.stringify(body)}`);
    (bodies[type] ??= []).push(body);
  }

  // The translations the provider's shapes need, beyond conforming.
  assert.deepEqual(bodies.multi_product![0]!.interactive.action.sections[0].product_items, [
    { product_retailer_id: 'a' },
    { product_retailer_id: 'b' },
  ]);
  assert.deepEqual(bodies.multi_product![0]!.interactive.header, { type: 'text', text: 'Picks' });
  // Without a thumbnail `parameters` is left out: the provider refuses it empty.
  assert.deepEqual(bodies.catalog![0]!.interactive.action, { name: 'catalog_message' });
  assert.deepEqual(bodies.catalog![1]!.interactive.action.parameters, { thumbnail_product_retailer_id: 'sku-1' });
  assert.deepEqual(bodies.contact![0]!.contacts[0].phones, [{ phone: '+5511912345678' }]);
  assert.deepEqual(bodies.contact![1]!.contacts[0].phones, [{ phone: '+5511912345679', type: 'WORK' }]);
  // A full card: every part of the provider's contacts object.
  assert.deepEqual(bodies.contact![2]!.contacts, [
    {
      name: { formatted_name: 'Dr Ana M. Lima Jr', first_name: 'Ana', middle_name: 'M.', last_name: 'Lima', prefix: 'Dr', suffix: 'Jr' },
      phones: [
        { phone: '+5511912345678', type: 'HOME' },
        { phone: '5511912345670', type: 'WORK', wa_id: '5511912345670' },
      ],
      emails: [{ email: 'ana@example.com', type: 'WORK' }, { email: 'ana.lima@example.org' }],
      urls: [{ url: 'https://example.com/ana', type: 'WORK' }],
      addresses: [
        { street: 'Rua A 1', city: 'São Paulo', state: 'SP', zip: '01000-000', country: 'Brazil', country_code: 'BR', type: 'HOME' },
      ],
      org: { company: 'Acme', department: 'Sales', title: 'Manager' },
      birthday: '1990-04-01',
    },
  ]);
  assert.equal(bodies.media_carousel![0]!.interactive.action.cards[1].type, 'cta_url');
  assert.equal(bodies.media_carousel![1]!.interactive.action.cards[0].type, undefined);
  assert.deepEqual(bodies.text![0]!.context, { message_id: 'wamid.quoted' });
  // By id: the provider's id in place of the link; a document, and a document header, carry their file name.
  assert.deepEqual(bodies.image![1]!.image, { id: '1037543291543636', caption: 'by id' });
  assert.deepEqual(bodies.sticker![1]!.sticker, { id: '1037543291543640' });
  assert.deepEqual(bodies.document![1]!.document, { id: '1037543291543639', filename: 'Statement.pdf' });
  assert.deepEqual(bodies.buttons![1]!.interactive.header, { type: 'document', document: { link: `${base}/a.pdf`, filename: 'Menu.pdf' } });
  assert.deepEqual(bodies.cta_url![1]!.interactive.header, { type: 'image', image: { id: '1037543291543641' } });
  assert.deepEqual(bodies.media_carousel![2]!.interactive.action.cards[0].header, { type: 'image', image: { id: '1037543291543642' } });
  assert.deepEqual(bodies.flow![0]!.interactive, {
    type: 'flow',
    header: { type: 'text', text: 'Tonight' },
    body: { text: 'Book a table' },
    footer: { text: 'Takes a minute' },
    action: {
      name: 'flow',
      parameters: {
        flow_message_version: '3',
        flow_id: '1234567890',
        flow_cta: 'Book',
        flow_token: 'booking-42',
        flow_action: 'navigate',
        flow_action_payload: { screen: 'START', data: { party: 2 } },
      },
    },
  });
  assert.deepEqual(bodies.flow![1]!.interactive.action.parameters, {
    flow_message_version: '3',
    flow_name: 'signup',
    flow_cta: 'Open',
    mode: 'draft',
    flow_action: 'data_exchange',
  });

  // The read receipt goes out as the provider's mark-as-read body.
  const read = toNativeRequest({ id: 'm', to: TO, type: 'mark_as_read', content: { message_id: 'wamid.R' } });
  assert.deepEqual(conformanceProblems(read), []);
  // Typing goes out as the read body with the typing indicator, for the message it answers.
  const typing = toNativeRequest({ id: 'm', to: TO, type: 'presence', content: { state: 'typing', message_id: 'wamid.T' } });
  assert.deepEqual(typing, { messaging_product: 'whatsapp', status: 'read', message_id: 'wamid.T', typing_indicator: { type: 'text' } });
  assert.deepEqual(conformanceProblems(typing), []);
  const answering = toNativeRequest({ id: 'm', to: TO, type: 'presence', content: { state: 'typing' }, answering: 'wamid.LAST' });
  assert.equal(answering.message_id, 'wamid.LAST', "without a message named, the customer's latest");
});
