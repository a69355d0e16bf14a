/**
 * Official webhooks end to end through the real webhook route and the provider.inbound job: what
 * each documented kind does to messages, contacts, channels and templates, and rows stored raw by
 * earlier versions.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { queryRows } from '../../src/db/client.ts';
import { providerEvents } from '../../src/db/schema.ts';
import { uuidv7 } from '../../src/lib/ids.ts';
import { signBody } from '../../src/providers/signature.ts';
import { request, startTestServer, type TestServer } from '../harness.ts';
import { approvedTemplate, customerWrites, eventsOf, officialChannel } from '../messages-helpers.ts';
import { eventually } from '../eventually.ts';
import { webhookProblems } from '../providers/official-webhooks.schema.ts';

let server: TestServer;
let channel: { id: string; phone: string; phoneNumberId: string; wabaId: string };

before(async () => {
  server = await startTestServer({ worker: true });
  const made = await officialChannel(server, 'Inbound');
  const settings = (await request(server, 'GET', `/v1/channels/${made.id}`, { key: server.apiKey })).body.data.settings;
  channel = { ...made, phoneNumberId: settings.phone_number_id, wabaId: settings.waba_id };
});
after(() => server.close());

let seq = 0;
const ts = () => String(Math.floor(Date.now() / 1000));

/** Posts a signed webhook to the shared official path, as the provider does; the payload must have the documented shape. */
async function deliver(changes: Array<{ field: string; value: Record<string, unknown> }>, entry: { id?: string; time?: number } = {}) {
  const payload = {
    object: 'whatsapp_business_account',
    entry: [{ id: entry.id ?? channel.wabaId, ...(entry.time ? { time: entry.time } : {}), changes }],
  };
  assert.deepEqual(webhookProblems(payload), []);
  const body = JSON.stringify(payload);
  const res = await request(server, 'POST', '/v1/providers/chatapp_official/webhook', {
    rawBody: body,
    headers: { 'x-hub-signature-256': signBody(server.container.sandbox!.officialAppSecret, body) },
  });
  assert.equal(res.status, 200, res.text);
}

function messagesValue(messages: Array<Record<string, unknown>>, withContacts = true) {
  const from = String(messages[0]!.from);
  return {
    field: 'messages',
    value: {
      messaging_product: 'whatsapp',
      metadata: { display_phone_number: channel.phone.replace(/\D/g, ''), phone_number_id: channel.phoneNumberId },
      ...(withContacts ? { contacts: [{ profile: { name: 'Sheena' }, wa_id: from }] } : {}),
      messages,
    },
  };
}

/** A customer message through the webhook; resolves with the stored message as the API shows it. */
async function customerSends(from: string, message: Record<string, unknown>) {
  const id = `wamid.e2e.${++seq}`;
  await deliver([messagesValue([{ from, id, timestamp: ts(), ...message }])]);
  const messageId = await eventually('the inbound message', async () => {
    const rows = await queryRows<{ id: string }>(
      server.container.database.db,
      sql`select id from messages where provider_message_id = ${id}`,
    );
    return rows[0]?.id;
  });
  return (await request(server, 'GET', `/v1/messages/${messageId}`, { key: server.apiKey })).body.data;
}

/** Waits until every stored delivery of the channel was applied. */
const allApplied = () =>
  eventually('the stored deliveries to be applied', async () => {
    const rows = await queryRows<{ n: number }>(
      server.container.database.db,
      sql`select count(*)::int as n from provider_events where channel_id = ${channel.id} and processed_at is null`,
    );
    return rows[0]!.n === 0 ? true : undefined;
  });

const channelNow = async () => (await request(server, 'GET', `/v1/channels/${channel.id}`, { key: server.apiKey })).body.data;

test('flow and address replies, unsupported messages, ad referrals, product questions, voice notes and animated stickers keep what the provider sent', async () => {
  const from = '4915112340001';
  const context = { from: channel.phone.replace(/\D/g, ''), id: 'wamid.flow-sent' };
  const flow = await customerSends(from, {
    type: 'interactive',
    context,
    interactive: {
      type: 'nfm_reply',
      nfm_reply: { name: 'flow', body: 'Sent', response_json: '{"flow_token":"f-1","date":"2026-12-01"}' },
    },
  });
  assert.deepEqual(flow.content, {
    type: 'nfm_reply',
    name: 'flow',
    body: 'Sent',
    response_json: { flow_token: 'f-1', date: '2026-12-01' },
    reply_to: { id: 'wamid.flow-sent' },
  });

  const unsupported = await customerSends(from, {
    type: 'unsupported',
    errors: [
      {
        code: 131051,
        title: 'Message type unknown',
        message: 'Message type unknown',
        error_data: { details: 'Message type is currently not supported.' },
      },
    ],
  });
  assert.equal(unsupported.type, 'unsupported');
  assert.deepEqual(unsupported.content.errors, [
    { code: '131051', title: 'Message type unknown', message: 'Message type unknown', details: 'Message type is currently not supported.' },
  ]);

  const referral = {
    source_url: 'https://fb.me/x',
    source_id: '1202',
    source_type: 'ad',
    body: 'Summer sale',
    headline: 'Chat with us',
    media_type: 'image',
    image_url: 'https://cdn.example/a.jpg',
    ctwa_clid: 'clid-1',
  };
  const ad = await customerSends(from, { type: 'text', text: { body: 'More info?' }, referral });
  assert.deepEqual(ad.content.referral, referral);
  const product = await customerSends(from, {
    type: 'text',
    text: { body: 'Still available?' },
    context: { ...context, id: 'wamid.catalog', referred_product: { catalog_id: '1948', product_retailer_id: 'sku-9' } },
  });
  assert.deepEqual(product.content.referred_product, { catalog_id: '1948', product_retailer_id: 'sku-9' });

  const media = { mime_type: 'audio/ogg; codecs=opus', sha256: 'abc=', id: '1003383421387256' };
  assert.equal((await customerSends(from, { type: 'audio', audio: { ...media, voice: true } })).content.voice, true);
  assert.equal(
    (await customerSends(from, { type: 'sticker', sticker: { ...media, mime_type: 'image/webp', animated: true } })).content.animated,
    true,
  );
});

test('a list reply through the sandbox keeps its description and the message it answers', async () => {
  const id = await customerWrites(
    server,
    channel.id,
    '4915112340002',
    'interactive',
    { type: 'list_reply', id: 'am', title: 'Morning', description: '9–12' },
    { reply_to: 'wamid.list-sent' },
  );
  const message = (await request(server, 'GET', `/v1/messages/${id}`, { key: server.apiKey })).body.data;
  assert.deepEqual(message.content, {
    type: 'list_reply',
    id: 'am',
    title: 'Morning',
    description: '9–12',
    reply_to: { id: 'wamid.list-sent' },
  });
});

test('a customer who changed number keeps their contact and conversation under the new number; no chat message is stored', async () => {
  const oldNumber = '4915112340003';
  const newNumber = '4915112349999';
  const first = await customerSends(oldNumber, { type: 'text', text: { body: 'hi' } });
  const contactId = first.contact_id as string;
  // The new number was someone's before (numbers are reassigned): that record loses it.
  const previous = await request(server, 'POST', '/v1/contacts', {
    key: server.apiKey,
    body: { phone_number: `+${newNumber}`, name: 'Previous owner' },
  });
  assert.ok(previous.status < 300, previous.text);
  const previousId = (previous.body.data ?? previous.body).id as string;
  await deliver([
    messagesValue(
      [
        {
          from: oldNumber,
          id: 'wamid.system.1',
          timestamp: ts(),
          type: 'system',
          system: { body: `User Sheena changed from ${oldNumber} to ${newNumber}`, wa_id: newNumber, type: 'user_changed_number' },
        },
      ],
      false,
    ),
  ]);
  const identities = await eventually('the identity move', async () => {
    const res = await request(server, 'GET', `/v1/contacts/${contactId}/identities`, { key: server.apiKey });
    const list = (res.body.data ?? res.body) as Array<{ type: string; value: string }>;
    return list.some((i) => i.value === `+${newNumber}`) ? list : undefined;
  });
  const values = identities.map((i) => `${i.type}:${i.value}`).sort();
  assert.deepEqual(values, [`chatapp_id:${newNumber}`, `phone:+${newNumber}`]);
  const contact = (await request(server, 'GET', `/v1/contacts/${contactId}`, { key: server.apiKey })).body;
  assert.equal((contact.data ?? contact).phone_number, `+${newNumber}`);
  const stored = await queryRows<{ n: number }>(
    server.container.database.db,
    sql`select count(*)::int as n from messages where provider_message_id = 'wamid.system.1'`,
  );
  assert.equal(stored[0]!.n, 0, 'a system notice is not a chat message');
  const conversation = (await request(server, 'GET', `/v1/conversations/${first.conversation_id}`, { key: server.apiKey })).body.data;
  assert.equal(conversation.peer_phone, newNumber);
  assert.ok((await eventsOf(server, 'contact.updated')).some((e) => e.payload.contact_id === contactId));
  const before = (await request(server, 'GET', `/v1/contacts/${previousId}`, { key: server.apiKey })).body;
  assert.equal((before.data ?? before).phone_number, null);
  const theirs = (await request(server, 'GET', `/v1/contacts/${previousId}/identities`, { key: server.apiKey })).body;
  assert.deepEqual((theirs.data ?? theirs) as unknown[], []);

  const next = await customerSends(newNumber, { type: 'text', text: { body: 'new phone, same me' } });
  assert.equal(next.contact_id, contactId);
  assert.equal(next.conversation_id, first.conversation_id);
});

test('account and number-quality reports reach the channels of the business account: a disabled account is an error until reinstated, a flagged number a warning', async () => {
  const time = Math.floor(Date.now() / 1000);
  await deliver(
    [
      {
        field: 'phone_number_quality_update',
        value: { display_phone_number: channel.phone.replace(/\D/g, ''), event: 'FLAGGED', current_limit: 'TIER_1K' },
      },
    ],
    { time },
  );
  const flagged = await eventually('the quality flag', async () => {
    const c = await channelNow();
    return c.health.last_error_code === 'FLAGGED' ? c : undefined;
  });
  assert.equal(flagged.status, 'connected', 'a flagged number can still send');
  assert.match(flagged.health.last_error_message, /flagged/);

  await deliver(
    [
      {
        field: 'account_update',
        value: { event: 'DISABLED_UPDATE', ban_info: { waba_ban_state: 'DISABLE', waba_ban_date: 'April 17, 2025' } },
      },
    ],
    { time: time + 1 },
  );
  const disabled = await eventually('the disabled account', async () => {
    const c = await channelNow();
    return c.status === 'error' ? c : undefined;
  });
  assert.equal(disabled.status_reason, 'the business account was disabled on April 17, 2025');
  assert.equal(disabled.health.last_error_code, 'DISABLED_UPDATE/DISABLE');
  const update = (await eventsOf(server, 'channel.status_update')).filter((e) => e.payload.channel_id === channel.id).at(-1)!;
  assert.equal(update.payload.reason_code, 'DISABLED_UPDATE/DISABLE');

  // A report older than the one applied changes nothing; the reinstatement after it restores the channel.
  await deliver([{ field: 'account_update', value: { event: 'DISABLED_UPDATE', ban_info: { waba_ban_state: 'REINSTATE' } } }], {
    time: time - 60,
  });
  await allApplied();
  assert.equal((await channelNow()).status, 'error', 'a reinstatement older than the ban is history');
  await deliver([{ field: 'account_update', value: { event: 'DISABLED_UPDATE', ban_info: { waba_ban_state: 'REINSTATE' } } }], {
    time: time + 2,
  });
  await eventually('the reinstatement', async () => ((await channelNow()).status === 'connected' ? true : undefined));
  const history = (await request(server, 'GET', `/v1/channels/${channel.id}/status`, { key: server.apiKey })).body.data.history as Array<{
    to: string;
    reason_code: string | null;
  }>;
  assert.deepEqual(
    history.filter((h) => h.reason_code?.startsWith('DISABLED_UPDATE')).map((h) => `${h.to}:${h.reason_code}`),
    ['connected:DISABLED_UPDATE/REINSTATE', 'error:DISABLED_UPDATE/DISABLE'],
  );
});

test('template updates keep the category: a status update naming it and a category update change the stored template', async () => {
  const template = await approvedTemplate(server, channel.id, 'inbound_category');
  const listed = (await request(server, 'GET', `/v1/templates?channel_id=${channel.id}&name=${template.name}`, { key: server.apiKey })).body
    .data[0];
  assert.equal(listed.category, 'UTILITY');
  const base = {
    message_template_id: Number(listed.provider_template_id),
    message_template_name: template.name,
    message_template_language: 'en_US',
  };
  await deliver([{ field: 'template_category_update', value: { ...base, previous_category: 'UTILITY', new_category: 'MARKETING' } }]);
  const categoryOf = async () => (await request(server, 'GET', `/v1/templates/${listed.id}`, { key: server.apiKey })).body.data;
  await eventually('the category update', async () => ((await categoryOf()).category === 'MARKETING' ? true : undefined));
  await deliver([
    { field: 'message_template_status_update', value: { event: 'PAUSED', ...base, reason: 'NONE', message_template_category: 'UTILITY' } },
  ]);
  const paused = await eventually('the status update', async () => {
    const t = await categoryOf();
    return t.status === 'paused' ? t : undefined;
  });
  assert.equal(paused.category, 'UTILITY');
});

test('a delivery stored raw by an earlier version is normalized and applied by the job', async () => {
  const { db } = server.container.database;
  const [row] = await queryRows<{ organization_id: string }>(db, sql`select organization_id from channels where id = ${channel.id}`);
  const raw = {
    object: 'whatsapp_business_account',
    entry: [
      {
        id: channel.wabaId,
        changes: [
          messagesValue([
            { from: '4915112340004', id: 'wamid.legacy', timestamp: ts(), type: 'text', text: { body: 'from before the upgrade' } },
          ]),
        ],
      },
    ],
  };
  const id = uuidv7();
  await db.transaction(async (tx) => {
    await tx.insert(providerEvents).values({
      id,
      organizationId: row!.organization_id,
      channelId: channel.id,
      platform: 'chatapp_official',
      payload: raw,
      receivedAt: new Date(),
    });
    await server.container.queue.enqueue(tx, 'provider.inbound', { provider_event_id: id });
  });
  const [message] = await eventually('the legacy message', async () => {
    const rows = await queryRows<{ content: { body: string } }>(
      db,
      sql`select content from messages where provider_message_id = 'wamid.legacy'`,
    );
    return rows.length > 0 ? rows : undefined;
  });
  assert.equal(message!.content.body, 'from before the upgrade');
  const stored = await queryRows<{ processed: boolean }>(
    db,
    sql`select processed_at is not null as processed from provider_events where id = ${id}`,
  );
  assert.equal(stored[0]!.processed, true);
});

test('a new delivery is stored normalized, once per channel', async () => {
  await customerSends('4915112340005', { type: 'text', text: { body: 'stored how?' } });
  const rows = await queryRows<{ payload: { version: number; events: Array<{ kind: string; content: unknown }> } }>(
    server.container.database.db,
    sql`select payload from provider_events where payload->'events'->0->>'providerMessageId' = ${`wamid.e2e.${seq}`}`,
  );
  assert.equal(rows.length, 1);
  assert.equal(rows[0]!.payload.version, 2);
  assert.deepEqual(
    rows[0]!.payload.events.map((e) => [e.kind, e.content]),
    [['message.inbound', { body: 'stored how?' }]],
  );
});
