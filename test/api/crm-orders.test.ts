/**
 * Orders: an inbound order message (played through the sandbox, and posted again as the provider's
 * own webhook) becomes one order of its contact and conversation; orders created by the API, numbered
 * per organization without gaps under concurrency; the status and payment status moves and their
 * events; the list's filters and cursor; another organization's records; the crm permissions.
 * Both stores: the order numbers' counter row is a lock that concurrent creations wait on.
 */
// stores: both
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { queryRows } from '../../src/db/client.ts';
import { mergeContacts } from '../../src/domain/contacts/merge.ts';
import { signBody } from '../../src/providers/signature.ts';
import { checkAuthCases } from '../auth-cases.ts';
import { allPages, assertNames, created, eventTail, recordEvent } from '../crm-helpers.ts';
import { eventually } from '../eventually.ts';
import { createOtherOrganization, request, startTestServer, type TestServer } from '../harness.ts';
import { customerWrites, officialChannelWithCustomers, pairedGatewayChannel } from '../messages-helpers.ts';

let server: TestServer;
let other: Awaited<ReturnType<typeof createOtherOrganization>>;
before(async () => {
  server = await startTestServer({ worker: true });
  other = await createOtherOrganization(server, 'orders');
});
after(() => server.close());

const key = () => ({ key: server.apiKey });

const orderEvent = (order: Record<string, any>) => ({
  type: 'commerce.order.updated',
  data: { order_id: order.id, order_no: order.order_no, status: order.status, payment_status: order.payment_status },
});

/**
 * The next `n` events about one order from the log read on: events of earlier tests may be sequenced
 * after this test began (the worker numbers them), so the others are left out.
 */
async function eventsOfOrder(events: Awaited<ReturnType<typeof eventTail>>, orderId: string, n: number) {
  const got: Array<{ type: string; data: Record<string, any> }> = [];
  const mine = () => got.filter((e) => e.data.order_id === orderId || e.data.record_id === orderId);
  await eventually(`${n} events of the order`, async () => {
    got.push(...(await events.take(1)));
    return mine().length >= n;
  });
  return mine();
}

async function contactOf(phone: string): Promise<string> {
  const res = await request(server, 'GET', `/v1/contacts/phone/${encodeURIComponent(phone)}`, key());
  assert.equal(res.status, 200, res.text);
  return res.body.data.id;
}

test('an inbound order message becomes an order of its contact and conversation, once', async () => {
  const channel = await officialChannelWithCustomers(server, 'Shop');
  const events = await eventTail(server);
  const messageId = await customerWrites(server, channel.id, '447700900101', 'order', {
    catalog_id: 'cat-1',
    text: 'Before Friday please',
    product_items: [
      { product_retailer_id: 'beans-1kg', quantity: 2, item_price: 18.9, currency: 'EUR' },
      { product_retailer_id: 'filter-100', quantity: 1, item_price: 4.5, currency: 'eur' },
    ],
  });
  const message = (await request(server, 'GET', `/v1/messages/${messageId}`, key())).body.data;
  assert.equal(message.type, 'order');
  const list = await eventually('the order', async () => {
    const res = await request(server, 'GET', `/v1/orders?conversation_id=${message.conversation_id}`, key());
    return res.body.data.length > 0 ? res.body.data : undefined;
  });
  assert.equal(list.length, 1);
  const order = list[0];
  assert.deepEqual(
    { ...order, id: undefined, order_no: undefined, created_at: undefined, updated_at: undefined },
    {
      id: undefined,
      order_no: undefined,
      status: 'pending',
      payment_status: 'pending',
      contact_id: await contactOf('+447700900101'),
      conversation_id: message.conversation_id,
      message_id: messageId,
      source: 'message',
      catalog_id: 'cat-1',
      currency: 'EUR',
      items: [
        { product_retailer_id: 'beans-1kg', name: null, quantity: 2, unit_amount: 1890, amount: 3780 },
        { product_retailer_id: 'filter-100', name: null, quantity: 1, unit_amount: 450, amount: 450 },
      ],
      total_amount: 4230,
      note: 'Before Friday please',
      created_at: undefined,
      updated_at: undefined,
    },
  );
  // The message's own events come with the order's, in its transaction.
  const got: Array<{ type: string; data: Record<string, any> }> = [];
  const ofOrder = () => got.filter((e) => e.type === 'commerce.order.updated' || e.data.object_kind === 'order');
  await eventually('the order’s events', async () => {
    got.push(...(await events.take(1)));
    return ofOrder().length >= 2;
  });
  assert.deepEqual(ofOrder(), [
    orderEvent(order),
    recordEvent('created', 'order', order.id, `Order #${order.order_no}`, server.organizationId),
  ]);
  assert.ok(got.some((e) => e.type === 'message.new' && e.data.message_id === messageId));

  // The provider delivers the same message again (its webhook retried): no second order.
  const wamid = (
    await queryRows<{ id: string }>(
      server.container.database.db,
      sql`select provider_message_id as id from messages where id = ${messageId}`,
    )
  )[0]!.id;
  const phone = (await request(server, 'GET', `/v1/channels/${channel.id}`, key())).body.data.display_phone_number;
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
              metadata: { display_phone_number: phone, phone_number_id: channel.account },
              contacts: [{ profile: { name: 'Repeat' }, wa_id: '447700900101' }],
              messages: [
                {
                  from: '447700900101',
                  id: wamid,
                  timestamp: String(Math.floor(Date.now() / 1000)),
                  type: 'order',
                  order: {
                    catalog_id: 'cat-1',
                    product_items: [{ product_retailer_id: 'beans-1kg', quantity: 2, item_price: 18.9, currency: 'EUR' }],
                  },
                },
              ],
            },
          },
        ],
      },
    ],
  });
  const again = await request(server, 'POST', '/v1/providers/chatapp_official/webhook', {
    rawBody: body,
    headers: { 'x-hub-signature-256': signBody(server.container.sandbox!.officialAppSecret, body) },
  });
  assert.equal(again.status, 200, again.text);
  await eventually('the repeat applied', async () => {
    const rows = await queryRows<{ n: number }>(
      server.container.database.db,
      sql`select count(*)::int as n from provider_events where channel_id = ${channel.id} and processed_at is null`,
    );
    return rows[0]!.n === 0;
  });
  const orders = await request(server, 'GET', `/v1/orders?conversation_id=${message.conversation_id}`, key());
  assert.deepEqual(
    orders.body.data.map((o: { id: string }) => o.id),
    [order.id],
  );

  // An order Parley cannot price (two currencies, a yen price with fractions rounds): the message stays; only the priceable one is an order.
  const mixed = await customerWrites(server, channel.id, '447700900102', 'order', {
    catalog_id: 'cat-1',
    product_items: [
      { product_retailer_id: 'a', quantity: 1, item_price: 1, currency: 'EUR' },
      { product_retailer_id: 'b', quantity: 1, item_price: 1, currency: 'USD' },
    ],
  });
  const yen = await customerWrites(server, channel.id, '447700900102', 'order', {
    catalog_id: 'cat-2',
    product_items: [{ product_retailer_id: 'tea', quantity: 3, item_price: 499.6, currency: 'JPY' }],
  });
  const contact = await contactOf('+447700900102');
  const theirs = await eventually('the yen order', async () => {
    const res = await request(server, 'GET', `/v1/orders?contact_id=${contact}`, key());
    return res.body.data.length > 0 ? res.body.data : undefined;
  });
  assert.deepEqual(
    theirs.map((o: Record<string, any>) => [o.message_id, o.currency, o.items[0].unit_amount, o.total_amount]),
    [[yen, 'JPY', 500, 1500]],
  );
  assert.equal((await request(server, 'GET', `/v1/messages/${mixed}`, key())).status, 200, 'the unpriceable order message is kept');
});

test('the sandbox refuses a malformed order message, and an order on a gateway channel', async () => {
  const channel = await officialChannelWithCustomers(server, 'Shop 2');
  const bad = await request(server, 'POST', '/sandbox/inbound', {
    ...key(),
    body: { channel_id: channel.id, from: '447700900109', type: 'order', content: { catalog_id: 'c', product_items: [] } },
  });
  assert.equal(bad.status, 400, bad.text);
  assert.match(bad.text, /product_items/);
  // A catalog's cart is the official provider's message: a gateway channel gets none.
  const gateway = await pairedGatewayChannel(server, 'Gateway shop');
  const refused = await request(server, 'POST', '/sandbox/inbound', {
    ...key(),
    body: {
      channel_id: gateway.id,
      from: '447700900109',
      type: 'order',
      content: { catalog_id: 'c', product_items: [{ product_retailer_id: 'a', quantity: 1, item_price: 1, currency: 'EUR' }] },
    },
  });
  assert.equal(refused.status, 400, refused.text);
  assert.match(refused.text, /official channels only/);
});

test('an order created by the API is priced from its items and numbered; bad fields are named', async () => {
  const channel = await officialChannelWithCustomers(server, 'Shop 3', '447700900111');
  const contact = await contactOf('+447700900111');
  const conversation = (await request(server, 'GET', `/v1/conversations?contact_id=${contact}`, key())).body.data[0].id;
  const events = await eventTail(server);
  const order = await created(server, '/v1/orders', {
    conversation_id: conversation,
    currency: 'usd',
    items: [
      { product_retailer_id: 'mug', name: 'Mug', quantity: 3, unit_amount: 1299 },
      { product_retailer_id: 'lid', quantity: 1, unit_amount: 0 },
    ],
    note: '  gift wrap ',
  });
  assert.equal(order.contact_id, contact, 'the conversation’s contact is the customer');
  assert.equal(order.source, 'api');
  assert.equal(order.message_id, null);
  assert.equal(order.currency, 'USD');
  assert.equal(order.total_amount, 3897);
  assert.equal(order.note, 'gift wrap');
  assert.deepEqual(order.items[1], { product_retailer_id: 'lid', name: null, quantity: 1, unit_amount: 0, amount: 0 });
  assert.deepEqual((await request(server, 'GET', `/v1/orders/${order.id}`, key())).body.data, order);
  assert.deepEqual(await eventsOfOrder(events, order.id, 2), [
    orderEvent(order),
    recordEvent('created', 'order', order.id, `Order #${order.order_no}`, server.organizationId),
  ]);
  assert.ok(channel.id);

  const post = (body: unknown) => request(server, 'POST', '/v1/orders', { ...key(), body });
  const item = { product_retailer_id: 'x', quantity: 1, unit_amount: 100 };
  assertNames(await post({ currency: 'EUR', items: [] }), 400, '/items');
  assertNames(await post({ currency: 'XYZ', items: [item] }), 400, '/currency');
  assertNames(await post({ currency: 'EUR', items: [{ ...item, quantity: 0 }] }), 400, '/items/0/quantity');
  assertNames(await post({ currency: 'EUR', items: [{ ...item, unit_amount: 1.5 }] }), 400, '/items/0/unit_amount');
  assertNames(
    await post({ currency: 'EUR', items: [{ ...item, quantity: 1_000_000, unit_amount: 999_999_999_999 }] }),
    400,
    '/items/0/quantity',
  );
  assertNames(await post({ currency: 'EUR', items: [item], status: 'lost' }), 400, '/status');
  assertNames(await post({ currency: 'EUR', items: [item], extra: 1 }), 400, '/');
  // Another organization's contact and conversation answer as unknown ones.
  const theirContact = await request(server, 'POST', '/v1/contacts', { key: other.apiKey, body: { phone_number: '+447700900199' } });
  assert.equal(theirContact.status, 201, theirContact.text);
  assertNames(await post({ currency: 'EUR', items: [item], contact_id: theirContact.body.data.id }), 400, '/contact_id');
  assertNames(await post({ currency: 'EUR', items: [item], contact_id: '0196b1f2-0a00-7000-8000-0000000000c1' }), 400, '/contact_id');
  assertNames(
    await post({ currency: 'EUR', items: [item], conversation_id: '0196b1f2-0a00-7000-8000-0000000000d1' }),
    400,
    '/conversation_id',
  );
  // Another organization's order is not found.
  const theirs = await created(server, '/v1/orders', { currency: 'EUR', items: [item] }, other.apiKey);
  assert.equal(theirs.order_no, '1', 'each organization counts its own orders');
  assert.equal((await request(server, 'GET', `/v1/orders/${theirs.id}`, key())).status, 404);
  assert.equal((await request(server, 'PATCH', `/v1/orders/${theirs.id}`, { ...key(), body: { status: 'confirmed' } })).status, 404);
  assert.equal((await request(server, 'GET', '/v1/orders/not-a-uuid', key())).status, 404);
});

test('order numbers are consecutive without gaps when orders are created at once, a refused one taking none', async () => {
  const first = await created(server, '/v1/orders', {
    currency: 'EUR',
    items: [{ product_retailer_id: 'x', quantity: 1, unit_amount: 1 }],
  });
  const results = await Promise.all(
    Array.from({ length: 12 }, (_, i) =>
      request(server, 'POST', '/v1/orders', {
        ...key(),
        body: {
          currency: 'EUR',
          items: [{ product_retailer_id: `p${i}`, quantity: 1, unit_amount: 100 }],
          // Every third refused in its transaction (an unknown contact): it must not use up a number.
          ...(i % 3 === 2 ? { contact_id: '0196b1f2-0a00-7000-8000-0000000000c9' } : {}),
        },
      }),
    ),
  );
  const made = results.filter((r) => r.status === 201).map((r) => Number(r.body.data.order_no));
  assert.equal(made.length, 8);
  assert.equal(results.filter((r) => r.status === 400).length, 4);
  const start = Number(first.order_no);
  assert.deepEqual(
    made.sort((a, b) => a - b),
    Array.from({ length: 8 }, (_, i) => start + 1 + i),
  );
});

test('status and payment status move only the allowed ways, each move with its events', async () => {
  // The log read from before the creation: its events may be sequenced after the answer.
  const events = await eventTail(server);
  const order = await created(server, '/v1/orders', {
    currency: 'EUR',
    items: [{ product_retailer_id: 'x', quantity: 2, unit_amount: 500 }],
  });
  const patch = (body: unknown) => request(server, 'PATCH', `/v1/orders/${order.id}`, { ...key(), body });
  const confirmed = await patch({ status: 'confirmed', payment_status: 'paid' });
  assert.equal(confirmed.status, 200, confirmed.text);
  assert.equal(confirmed.body.data.status, 'confirmed');
  assert.equal(confirmed.body.data.payment_status, 'paid');
  const same = await patch({ status: 'confirmed' });
  assert.equal(same.status, 200);
  assert.equal(same.body.data.updated_at, confirmed.body.data.updated_at, 'the same status again is no change');
  const refusedBack = await patch({ status: 'pending' });
  assertNames(refusedBack, 409, '/status');
  assert.match(refusedBack.text, /confirmed moves only to shipped, delivered, cancelled/);
  const delivered = await patch({ status: 'delivered' });
  assert.equal(delivered.status, 200, delivered.text);
  assertNames(await patch({ status: 'cancelled' }), 409, '/status');
  assertNames(await patch({ payment_status: 'failed' }), 409, '/payment_status');
  const refunded = await patch({ payment_status: 'refunded' });
  assert.equal(refunded.status, 200, refunded.text);
  assertNames(await patch({ payment_status: 'paid' }), 409, '/payment_status');
  assertNames(await patch({ status: 'gone' }), 400, '/status');
  assertNames(await patch({ order_no: '7' }), 400, '/');
  const org = server.organizationId;
  const name = `Order #${order.order_no}`;
  assert.deepEqual(await eventsOfOrder(events, order.id, 8), [
    orderEvent(order),
    recordEvent('created', 'order', order.id, name, org),
    orderEvent(confirmed.body.data),
    recordEvent('updated', 'order', order.id, name, org),
    orderEvent(delivered.body.data),
    recordEvent('updated', 'order', order.id, name, org),
    orderEvent(refunded.body.data),
    recordEvent('updated', 'order', order.id, name, org),
  ]);

  // Cancelled is final too; a failed payment may be tried again.
  const second = await created(server, '/v1/orders', {
    currency: 'EUR',
    items: [{ product_retailer_id: 'y', quantity: 1, unit_amount: 1 }],
  });
  const move = (body: unknown) => request(server, 'PATCH', `/v1/orders/${second.id}`, { ...key(), body });
  assert.equal((await move({ payment_status: 'failed' })).status, 200);
  assert.equal((await move({ payment_status: 'pending' })).status, 200);
  assert.equal((await move({ status: 'cancelled' })).status, 200);
  assertNames(await move({ status: 'shipped' }), 409, '/status');
});

test('the list filters by status, payment status and contact, newest first, by cursor', async () => {
  const contact = await request(server, 'POST', '/v1/contacts', { ...key(), body: { phone_number: '+447700900150' } });
  assert.equal(contact.status, 201, contact.text);
  const contactId = contact.body.data.id;
  const item = { product_retailer_id: 'z', quantity: 1, unit_amount: 10 };
  const mine = [];
  for (let i = 0; i < 5; i++) mine.push(await created(server, '/v1/orders', { contact_id: contactId, currency: 'GBP', items: [item] }));
  await request(server, 'PATCH', `/v1/orders/${mine[1]!.id}`, { ...key(), body: { status: 'shipped' } });
  await request(server, 'PATCH', `/v1/orders/${mine[3]!.id}`, { ...key(), body: { status: 'shipped', payment_status: 'paid' } });
  const ids = (rows: Array<Record<string, any>>) => rows.map((r) => r.id);
  assert.deepEqual(ids(await allPages(server, `/v1/orders?contact_id=${contactId}&limit=2`)), ids([...mine].reverse()));
  assert.deepEqual(ids(await allPages(server, `/v1/orders?contact_id=${contactId}&status=shipped`)), [mine[3]!.id, mine[1]!.id]);
  assert.deepEqual(ids(await allPages(server, `/v1/orders?contact_id=${contactId}&status=shipped&payment_status=paid`)), [mine[3]!.id]);
  assertNames(await request(server, 'GET', '/v1/orders?status=lost', key()), 400, '/status', 'query');
  assertNames(await request(server, 'GET', '/v1/orders?cursor=forged', key()), 400, '/cursor', 'query');
  assertNames(await request(server, 'GET', '/v1/orders?contact_id=nope', key()), 400, '/contact_id', 'query');
  const theirs = await request(server, 'GET', `/v1/orders?contact_id=${contactId}`, { key: other.apiKey });
  assert.deepEqual(theirs.body.data, [], 'another organization sees none of them');
});

test('the orders routes need crm:read or crm:write', async () => {
  const order = await created(server, '/v1/orders', {
    currency: 'EUR',
    items: [{ product_retailer_id: 'x', quantity: 1, unit_amount: 1 }],
  });
  await checkAuthCases(server, [
    {
      method: 'POST',
      path: '/v1/orders',
      body: { currency: 'EUR', items: [{ product_retailer_id: 'x', quantity: 1, unit_amount: 1 }] },
      permission: 'crm:write',
    },
    { method: 'GET', path: '/v1/orders', permission: 'crm:read' },
    { method: 'GET', path: `/v1/orders/${order.id}`, permission: 'crm:read' },
    { method: 'PATCH', path: `/v1/orders/${order.id}`, body: { status: 'confirmed' }, permission: 'crm:write' },
  ]);
});

test('merged contacts bring their orders to the survivor', async () => {
  const older = await created(server, '/v1/contacts', { phone_number: '+447700900160', name: 'Older' });
  const younger = await created(server, '/v1/contacts', { phone_number: '+447700900161' });
  const order = await created(server, '/v1/orders', {
    contact_id: younger.id,
    currency: 'EUR',
    items: [{ product_retailer_id: 'x', quantity: 1, unit_amount: 1 }],
  });
  const db = server.container.database.db;
  await db.transaction((tx) => mergeContacts(tx, server.organizationId, [older.id, younger.id], new Date()));
  assert.equal((await request(server, 'GET', `/v1/orders/${order.id}`, key())).body.data.contact_id, older.id);
});
