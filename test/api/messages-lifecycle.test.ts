import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { eventually } from '../eventually.ts';
import { queryRows } from '../../src/db/client.ts';
import { request, startTestServer, type TestServer } from '../harness.ts';
import {
  approvedTemplate,
  customerWrites,
  eventsOf,
  officialChannel,
  outsideOfficialChannel,
  postOfficialStatuses,
  send,
  waitForStatus,
} from '../messages-helpers.ts';

let server: TestServer;
let channel: { id: string; phone: string };
let template: { name: string; language: { code: string } };
before(async () => {
  server = await startTestServer({ worker: true, env: { SANDBOX_STATUS_DELAY_MS: '30' } });
  channel = await officialChannel(server);
  template = await approvedTemplate(server, channel.id, 'order_update');
});
after(() => server.close());

test('a template is queued, then sent, delivered and read, each change an event', async () => {
  const res = await send(server, {
    channel_id: channel.id,
    to: '4915112340001'.replace(/0001$/, '7777'),
    type: 'template',
    content: { template: { ...template, components: [{ type: 'body', parameters: [{ type: 'text', text: 'Ana' }] }] } },
  });
  assert.equal(res.status, 201, res.text);
  const message = res.body.data;
  assert.equal(message.status, 'queued');
  assert.match(message.id, /^[0-9a-f-]{36}$/);
  assert.equal(message.to, '4915112347777');
  assert.equal(message.to_phone, '4915112347777');
  assert.equal(message.provider_message_id, null);

  const read = await waitForStatus(server, message.id, 'read');
  assert.match(read.provider_message_id, /^wamid\./);
  const statuses = read.history.map((h: { status: string }) => h.status);
  assert.equal(statuses[0], 'queued');
  assert.deepEqual(
    statuses,
    ['queued', 'sent', 'delivered', 'read'],
    'one row per status (the sandbox reports `sent` after the dispatcher wrote it)',
  );
  const got = await request(server, 'GET', `/v1/messages/${message.id}`, { key: server.apiKey });
  assert.equal(got.body.data.status, 'read');
  assert.ok(Date.parse(got.body.data.updated_at) >= Date.parse(got.body.data.created_at));

  const sent = (await eventsOf(server, 'message.sent')).filter((e) => e.payload.message_id === message.id);
  assert.equal(sent.length, 1);
  assert.equal(sent[0]!.payload.channel_id, channel.id);
  const updates = (await eventsOf(server, 'message.status_update'))
    .filter((e) => e.payload.message_id === message.id)
    .map((e) => e.payload.status);
  assert.deepEqual(updates, ['sent', 'delivered', 'read']);
});

test('outside the 24-hour window only templates are allowed; a customer message opens it', async () => {
  const to = '4915112348888';
  const refused = await send(server, { channel_id: channel.id, to, type: 'text', content: { body: 'hi' } });
  assert.equal(refused.status, 422);
  assert.equal(refused.body.code, 'window_closed');
  assert.match(refused.body.detail, /24-hour customer service window/);
  assert.match(refused.body.detail, /send a template message \(type template\)/);
  // What to do about it: a sandbox channel's customer can be played writing first, and the answer names the route.
  assert.match(refused.body.detail, /POST \/sandbox\/inbound/);
  const outside = await outsideOfficialChannel(server, 'outside');
  const elsewhere = await send(server, { channel_id: outside.id, to, type: 'text', content: { body: 'hi' } });
  assert.equal(elsewhere.body.code, 'window_closed', elsewhere.text);
  assert.match(elsewhere.body.detail, /send a template message \(type template\)/);
  assert.doesNotMatch(elsewhere.body.detail, /sandbox/, 'a channel of a real provider has no sandbox to play customers');
  await customerWrites(server, channel.id, to, 'text', { body: 'Hi, is my order ready?' });
  const ok = await send(server, { channel_id: channel.id, to, type: 'text', content: { text: { body: 'Yes, it is!' } } });
  assert.equal(ok.status, 201, ok.text);
  assert.equal(ok.body.data.content.body, 'Yes, it is!');
  await waitForStatus(server, ok.body.data.id, 'read');
});

test('a template send with the wrong number of parameters is refused at accept, naming the component and the counts', async () => {
  const shipped = await approvedTemplate(server, channel.id, 'order_shipped_counted', 'en_US', [
    { type: 'HEADER', format: 'TEXT', text: 'Order {{1}}' },
    { type: 'BODY', text: 'Hi {{1}}, your order {{2}} is on its way. Thanks, {{1}}!' },
    {
      type: 'BUTTONS',
      buttons: [
        { type: 'URL', text: 'Track', url: 'https://example.com/t/{{1}}' },
        { type: 'QUICK_REPLY', text: 'Stop' },
      ],
    },
  ]);
  const text = (t: string) => ({ type: 'text', text: t });
  const header = { type: 'header', parameters: [text('A-1')] };
  const body = { type: 'body', parameters: [text('Ana'), text('A-1')] };
  const button = { type: 'button', sub_type: 'url', index: '0', parameters: [text('a1')] };
  const to = '4915112340777';
  const sendWith = (components: unknown[]) =>
    send(server, { channel_id: channel.id, to, type: 'template', content: { template: { ...shipped, components } } });
  const cases: Array<[unknown[], Record<string, unknown>]> = [
    [[header, { type: 'body', parameters: [text('Ana')] }, button], { component: 'body', expected: 2, given: 1 }],
    [[body, button], { component: 'header', expected: 1, given: 0 }],
    [[header, body], { component: 'button', index: 0, expected: 1, given: 0 }],
    [[header, body, { ...button, parameters: [text('a1'), text('a2')] }], { component: 'button', index: 0, expected: 1, given: 2 }],
  ];
  for (const [components, expected] of cases) {
    const res = await sendWith(components);
    assert.equal(res.status, 422, res.text);
    assert.equal(res.body.code, 'template_mismatch');
    assert.deepEqual(
      { component: res.body.component, index: res.body.index, expected: res.body.expected, given: res.body.given },
      { index: undefined, ...expected },
    );
    assert.match(
      res.body.detail,
      new RegExp(`${expected.component}.*order_shipped_counted.*${expected.expected} parameter.*${expected.given} given`),
    );
  }
  const [written] = await queryRows<{ n: number }>(
    server.container.database.db,
    sql`select count(*)::int as n from messages where to_phone = ${to}`,
  );
  assert.equal(written!.n, 0, 'nothing written for a refused send');
  const ok = await sendWith([header, body, button]);
  assert.equal(ok.status, 201, ok.text);
});

test('a template whose components changed elsewhere (a sync in another process) is checked against the new ones at once', async () => {
  const changing = await approvedTemplate(server, channel.id, 'order_changing');
  const to = '4915112340778';
  const sendWith = (parameters: string[]) =>
    send(server, {
      channel_id: channel.id,
      to,
      type: 'template',
      content: {
        template: { ...changing, components: [{ type: 'body', parameters: parameters.map((t) => ({ type: 'text', text: t })) }] },
      },
    });
  assert.equal((await sendWith(['Ana'])).status, 201, 'one parameter, as approved (and now in the cache)');
  // What a sync that found the template edited at the provider writes, in any process.
  await server.container.database.db.execute(
    sql`update templates set components = ${JSON.stringify([{ type: 'BODY', text: 'Hi {{1}}, order {{2}}' }])}::jsonb where channel_id = ${channel.id} and name = 'order_changing'`,
  );
  const res = await sendWith(['Ana', 'A-2']);
  assert.equal(res.status, 201, `two parameters, as the template now has: ${res.text}`);
});

test('a permanent provider failure fails the message with the provider code and title', async () => {
  const to = '4915112340001';
  await customerWrites(server, channel.id, to);
  const res = await send(server, { channel_id: channel.id, to, type: 'text', content: { body: 'will fail' } });
  assert.equal(res.status, 201);
  const failed = await waitForStatus(server, res.body.data.id, 'failed');
  assert.equal(failed.error.code, '131026');
  assert.ok(failed.error.title.length > 0);
  await customerWrites(server, channel.id, '4915112340002');
  const rejectedAtSend = await send(server, {
    channel_id: channel.id,
    to: '4915112340002',
    type: 'text',
    content: { body: 'refused at send' },
  });
  const failedAtSend = await waitForStatus(server, rejectedAtSend.body.data.id, 'failed');
  assert.equal(failedAtSend.error.code, '131047');
  assert.equal(failedAtSend.provider_message_id, null);
});

test('a throughput refusal holds the message, which goes out once after the hold, spending no attempt on it', async () => {
  const res = await send(server, {
    channel_id: channel.id,
    to: '4915112340429',
    type: 'template',
    content: { template: { ...template, components: [{ type: 'body', parameters: [{ type: 'text', text: 'Ana' }] }] } },
  });
  const sent = await waitForStatus(server, res.body.data.id, 'read', 40_000);
  assert.ok(sent.provider_message_id);
  const [row] = await queryRows<{ attempts: number }>(
    server.container.database.db,
    sql`select attempts from messages where id = ${res.body.data.id}`,
  );
  assert.equal(row!.attempts, 1, 'the refusal was a hold (docs/messages.md, Holds): only the send the provider took counts');
  const accepted = await queryRows<{ n: number }>(
    server.container.database.db,
    sql`select count(*)::int as n from sandbox_messages where body->>'biz_opaque_callback_data' = ${res.body.data.id}`,
  );
  assert.equal(accepted[0]!.n, 1, 'the provider accepted it exactly once');
});

test('late and out-of-order status callbacks never move a status backwards', async () => {
  const to = '4915112346666';
  await customerWrites(server, channel.id, to);
  const res = await send(server, { channel_id: channel.id, to, type: 'text', content: { body: 'order check' } });
  const sent = await waitForStatus(server, res.body.data.id, 'read');
  const providerId = sent.provider_message_id as string;
  const phoneNumberId = (await request(server, 'GET', `/v1/channels/${channel.id}`, { key: server.apiKey })).body.data.settings
    .phone_number_id;
  const posted = await postOfficialStatuses(server, { phone: channel.phone, phoneNumberId }, [
    { id: providerId, status: 'delivered', recipient_id: to },
    { id: providerId, status: 'sent', recipient_id: to },
  ]);
  assert.equal(posted.status, 200);
  await eventually('the late callbacks applied', async () => {
    const [row] = await queryRows<{ n: number }>(
      server.container.database.db,
      sql`select count(*)::int as n from provider_events where processed_at is null`,
    );
    return row!.n === 0 ? true : undefined;
  });
  const history = (await request(server, 'GET', `/v1/messages/${res.body.data.id}/status`, { key: server.apiKey })).body.data;
  assert.equal(history.status, 'read');
  // Late reports of statuses already reached add no second row.
  assert.deepEqual(
    history.history.map((h: { status: string }) => h.status),
    ['queued', 'sent', 'delivered', 'read'],
  );
  const updates = (await eventsOf(server, 'message.status_update'))
    .filter((e) => e.payload.message_id === res.body.data.id)
    .map((e) => e.payload.status);
  assert.deepEqual(updates, ['sent', 'delivered', 'read'], 'no event for a backwards move');
});

test('inbound messages are stored, attached to a conversation and announced as message.new', async () => {
  const from = '4915112345555';
  const textId = await customerWrites(server, channel.id, from, 'text', { body: 'Do you ship to Austria?' });
  const buttonId = await customerWrites(
    server,
    channel.id,
    from,
    'interactive',
    { type: 'button_reply', id: 'yes', title: 'Yes please' },
    { reply_to: 'wamid.asked' },
  );
  const locationId = await customerWrites(server, channel.id, from, 'location', {
    latitude: 48.2,
    longitude: 16.37,
    name: 'Home',
    address: 'Wien',
  });
  const text = (await request(server, 'GET', `/v1/messages/${textId}`, { key: server.apiKey })).body.data;
  assert.equal(text.direction, 'inbound');
  assert.equal(text.status, 'received');
  assert.equal(text.from_phone, from);
  assert.equal(text.content.body, 'Do you ship to Austria?');
  const button = (await request(server, 'GET', `/v1/messages/${buttonId}`, { key: server.apiKey })).body.data;
  assert.equal(button.type, 'interactive');
  assert.deepEqual(
    { type: button.content.type, id: button.content.id, title: button.content.title },
    { type: 'button_reply', id: 'yes', title: 'Yes please' },
  );
  const location = (await request(server, 'GET', `/v1/messages/${locationId}`, { key: server.apiKey })).body.data;
  assert.equal(location.content.latitude, 48.2);

  const news = (await eventsOf(server, 'message.new')).filter((e) => e.payload.from_phone === from);
  assert.deepEqual(
    news.map((e) => e.payload.msg_type),
    ['text', 'interactive', 'location'],
  );
  const first = news[0]!.payload;
  assert.equal(first.message_id, textId);
  assert.equal(first.direction, 'inbound');
  assert.equal(first.channel_id, channel.id);
  assert.equal(first.conversation_id, text.conversation_id);
  assert.equal('content' in first, false, 'message.new carries no reply content');
  assert.equal(button.conversation_id, text.conversation_id);

  const conversation = (await request(server, 'GET', `/v1/conversations/${text.conversation_id}`, { key: server.apiKey })).body.data;
  assert.equal(conversation.peer_phone, from);
  assert.ok(conversation.window_expires_at);
  const thread = await request(server, 'GET', `/v1/conversations/${text.conversation_id}/messages`, { key: server.apiKey });
  assert.deepEqual(
    thread.body.data.map((m: { id: string }) => m.id),
    [locationId, buttonId, textId],
  );
});
