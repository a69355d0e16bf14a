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
import {
  approvedTemplate,
  customerWrites,
  eventsOf,
  officialChannel,
  outsideOfficialChannel,
  send,
  waitForStatus,
} from '../messages-helpers.ts';
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

const templateOf = async (id: string) => (await request(server, 'GET', `/v1/templates/${id}`, { key: server.apiKey })).body.data;

test('every documented template event, reported through the sandbox, gives the template a status the API can present', async () => {
  await approvedTemplate(server, channel.id, 'every_event');
  const [listed] = (await request(server, 'GET', `/v1/templates?channel_id=${channel.id}&name=every_event`, { key: server.apiKey })).body
    .data;
  let last = (await templateOf(listed.id)).provider_note?.received_at as string | undefined;
  /** The provider reports `event` on the template; resolves with the template once Parley applied it. */
  const report = async (event: string, extra: Record<string, unknown> = {}) => {
    const res = await request(server, 'POST', '/sandbox/template-event', {
      key: server.apiKey,
      body: { channel_id: channel.id, name: 'every_event', language: 'en_US', event, ...extra },
    });
    assert.equal(res.status, 202, res.text);
    const applied = await eventually(`the ${event} report`, async () => {
      const t = await templateOf(listed.id);
      return t?.provider_note?.event === event && t.provider_note.received_at !== last ? t : undefined;
    });
    last = applied.provider_note.received_at;
    const list = await request(server, 'GET', '/v1/templates', { key: server.apiKey });
    assert.equal(list.status, 200, `GET /v1/templates after ${event}: ${list.text}`);
    const one = await request(server, 'GET', `/v1/templates/${listed.id}`, { key: server.apiKey });
    assert.equal(one.status, 200, `GET /v1/templates/{id} after ${event}: ${one.text}`);
    return applied;
  };

  const flagged = await report('FLAGGED', { reason: 'Your template has received negative feedback.' });
  assert.equal(flagged.status, 'approved', 'a flagged template can still be sent');
  assert.equal(flagged.quality.flagged, true);
  assert.equal(flagged.quality.reason, 'Your template has received negative feedback.');
  const qualityEvents = (await eventsOf(server, 'template.quality_update')).filter((e) => e.payload.template_id === listed.id);
  assert.deepEqual(qualityEvents.at(-1)!.payload, {
    template_id: listed.id,
    status: 'approved',
    quality_score: null,
    flagged: true,
    reason: 'Your template has received negative feedback.',
  });
  const reinstated = await report('REINSTATED');
  assert.equal(reinstated.status, 'approved');
  assert.equal(reinstated.quality.flagged, false);

  const pauseInfo = { title: 'FIRST_PAUSE', description: 'Your WhatsApp message template has been paused for 3 hours.' };
  const paused = await report('PAUSED', { other_info: pauseInfo });
  assert.equal(paused.status, 'paused');
  assert.equal(paused.rejection_reason, 'FIRST_PAUSE: Your WhatsApp message template has been paused for 3 hours.');
  const statusEvents = () => eventsOf(server, 'template.status_update');
  assert.deepEqual((await statusEvents()).at(-1)!.payload, { template_id: listed.id, status: 'paused' });
  const unpaused = await report('APPROVED', { other_info: { title: 'UNPAUSE', description: 'Your template has been unpaused.' } });
  assert.equal(unpaused.status, 'approved');

  for (const [event, status] of [
    ['LOCKED', 'approved'],
    ['UNLOCKED', 'approved'],
    ['ARCHIVED', 'disabled'],
    ['UNARCHIVED', 'approved'],
    ['IN_APPEAL', 'pending'],
    ['APPROVED', 'approved'],
    ['LIMIT_EXCEEDED', 'rejected'],
    ['PENDING', 'pending'],
  ] as const)
    assert.equal((await report(event)).status, status, event);

  const rejected = await report('REJECTED', {
    reason: 'INVALID_FORMAT',
    rejection_info: { reason: 'Parameters are next to each other.', recommendation: 'Separate them with text.' },
  });
  assert.equal(rejected.status, 'rejected');
  assert.equal(rejected.rejection_reason, 'INVALID_FORMAT: Parameters are next to each other. Separate them with text.');
  assert.equal((await report('ARCHIVED')).status, 'disabled');
  const back = await report('UNARCHIVED');
  assert.equal(back.status, 'rejected', 'unarchived, a rejected template is rejected again, with its reason');
  assert.equal(back.rejection_reason, 'INVALID_FORMAT: Parameters are next to each other. Separate them with text.');
  assert.equal((await report('APPROVED')).status, 'approved');
  const disabled = await report('DISABLED', { disable_date: 1751234563 });
  assert.equal(disabled.status, 'disabled');
  assert.equal(disabled.rejection_reason, 'disabled on 2025-06-29T22:02:43.000Z');
  assert.equal((await report('PENDING_DELETION')).status, 'disabled');
  assert.equal((await report('DELETED')).status, 'disabled');

  const synced = await request(server, 'POST', '/v1/templates/sync', { key: server.apiKey, body: { channel_id: channel.id } });
  assert.equal(synced.status, 200, synced.text);
  assert.equal(synced.body.data.templates.find((t: { id: string }) => t.id === listed.id).status, 'disabled');

  const unknown = await request(server, 'POST', '/sandbox/template-event', {
    key: server.apiKey,
    body: { channel_id: channel.id, name: 'every_event', language: 'en_US', event: 'SUNSET' },
  });
  assert.equal(unknown.status, 400, 'the sandbox reports only what the provider documents');
});

test('FLAGGED and REINSTATED posted by the provider keep the templates readable (they once answered 500 for the organization)', async () => {
  await approvedTemplate(server, channel.id, 'flag_then_reinstate');
  const [listed] = (await request(server, 'GET', `/v1/templates?channel_id=${channel.id}&name=flag_then_reinstate`, { key: server.apiKey }))
    .body.data;
  const base = {
    message_template_id: Number(listed.provider_template_id),
    message_template_name: 'flag_then_reinstate',
    message_template_language: 'en_US',
  };
  for (const event of ['FLAGGED', 'REINSTATED']) {
    await deliver([
      { field: 'message_template_status_update', value: { event, ...base, reason: 'NONE', message_template_category: 'UTILITY' } },
    ]);
    await allApplied();
    const list = await request(server, 'GET', '/v1/templates', { key: server.apiKey });
    assert.equal(list.status, 200, `after ${event}: ${list.text}`);
    const one = await request(server, 'GET', `/v1/templates/${listed.id}`, { key: server.apiKey });
    assert.equal(one.status, 200, `after ${event}: ${one.text}`);
    assert.equal(one.body.data.status, 'approved');
    assert.equal(one.body.data.quality.flagged, event === 'FLAGGED');
  }
});

test('a template report stored by an earlier version with a status of its own is applied as a note, never as that status', async () => {
  await approvedTemplate(server, channel.id, 'legacy_flag');
  const [listed] = (await request(server, 'GET', `/v1/templates?channel_id=${channel.id}&name=legacy_flag`, { key: server.apiKey })).body
    .data;
  const { db } = server.container.database;
  const id = uuidv7();
  await db.transaction(async (tx) => {
    await tx.insert(providerEvents).values({
      id,
      organizationId: server.organizationId,
      channelId: channel.id,
      platform: 'chatapp_official',
      // As the version before every event was mapped stored FLAGGED: lower-cased into the status.
      payload: {
        version: 2,
        events: [{ kind: 'template.status', account: channel.wabaId, providerTemplateId: listed.provider_template_id, status: 'flagged' }],
      },
      receivedAt: new Date(),
    });
    await server.container.queue.enqueue(tx, 'provider.inbound', { provider_event_id: id });
  });
  const noted = await eventually('the legacy report', async () => {
    const t = await templateOf(listed.id);
    return t.provider_note?.event === 'FLAGGED' ? t : undefined;
  });
  assert.equal(noted.status, 'approved');
  assert.equal((await request(server, 'GET', '/v1/templates', { key: server.apiKey })).status, 200);
});

test('a template report the provider does not document is logged and kept as a note, never as a status; quality scores are kept', async () => {
  await approvedTemplate(server, channel.id, 'unknown_event');
  const [listed] = (await request(server, 'GET', `/v1/templates?channel_id=${channel.id}&name=unknown_event`, { key: server.apiKey })).body
    .data;
  const base = {
    message_template_id: Number(listed.provider_template_id),
    message_template_name: 'unknown_event',
    message_template_language: 'en_US',
  };
  const body = JSON.stringify({
    object: 'whatsapp_business_account',
    entry: [
      { id: channel.wabaId, changes: [{ field: 'message_template_status_update', value: { event: 'SUNSET', ...base, reason: 'NONE' } }] },
    ],
  });
  const res = await request(server, 'POST', '/v1/providers/chatapp_official/webhook', {
    rawBody: body,
    headers: { 'x-hub-signature-256': signBody(server.container.sandbox!.officialAppSecret, body) },
  });
  assert.equal(res.status, 200, res.text);
  const noted = await eventually('the note', async () => {
    const t = await templateOf(listed.id);
    return t.provider_note?.event === 'SUNSET' ? t : undefined;
  });
  assert.equal(noted.status, 'approved');
  assert.ok(
    server.logs.some((l) => l.includes('template report of an unknown kind') && l.includes('SUNSET')),
    'the unknown report is logged',
  );
  const list = await request(server, 'GET', '/v1/templates', { key: server.apiKey });
  assert.equal(list.status, 200, list.text);

  await deliver([
    { field: 'message_template_quality_update', value: { previous_quality_score: 'GREEN', new_quality_score: 'YELLOW', ...base } },
  ]);
  const scored = await eventually('the quality score', async () => {
    const t = await templateOf(listed.id);
    return t.quality?.score === 'YELLOW' ? t : undefined;
  });
  assert.equal(scored.quality.flagged, false);
  assert.ok(
    (await eventsOf(server, 'template.quality_update')).some(
      (e) => e.payload.template_id === listed.id && e.payload.quality_score === 'YELLOW',
    ),
  );
});

test("status reports keep the provider's pricing and billing conversation on the history and in message.status_update", async () => {
  const customer = '4915112340010';
  await customerWrites(server, channel.id, customer, 'text', { body: 'hi' });
  const sent = await send(server, { channel_id: channel.id, to: customer, type: 'text', content: { body: 'hello back' } });
  assert.equal(sent.status, 201, sent.text);
  const messageId = sent.body.data.id as string;
  await waitForStatus(server, messageId, 'read');
  const status = await eventually('the billing of sent and delivered', async () => {
    const s = (await request(server, 'GET', `/v1/messages/${messageId}/status`, { key: server.apiKey })).body.data;
    const byStatus = Object.fromEntries(s.history.map((h: { status: string }) => [h.status, h]));
    return byStatus.sent?.pricing && byStatus.delivered?.pricing ? byStatus : undefined;
  });
  const free = { billable: false, pricing_model: 'PMP', type: 'free_customer_service', category: 'service' };
  assert.deepEqual(status.sent.pricing, free, "the provider's own `sent`, after the dispatcher wrote it, still adds its billing");
  assert.equal(status.sent.conversation.origin.type, 'service');
  assert.match(status.sent.conversation.expiration_timestamp, /^\d{10}$/);
  assert.deepEqual(status.delivered.pricing, free);
  assert.equal(status.read.pricing, null, 'a read report carries no billing');
  assert.equal(status.queued.conversation, null);
  const delivered = (await eventsOf(server, 'message.status_update')).find(
    (e) => e.payload.message_id === messageId && e.payload.status === 'delivered',
  )!;
  assert.deepEqual(delivered.payload.pricing, free);
  assert.equal((delivered.payload.conversation as { id: string }).id, status.delivered.conversation.id);
});

test('a deleted status deletes the customer message it names', async () => {
  const incoming = await customerSends('4915112340011', { type: 'text', text: { body: 'oops, wrong chat' } });
  await deliver([
    {
      field: 'messages',
      value: {
        messaging_product: 'whatsapp',
        metadata: { display_phone_number: channel.phone.replace(/\D/g, ''), phone_number_id: channel.phoneNumberId },
        statuses: [{ id: incoming.provider_message_id, status: 'deleted', timestamp: ts(), recipient_id: '4915112340011' }],
      },
    },
  ]);
  const deleted = await eventually('the deletion', async () => {
    const m = (await request(server, 'GET', `/v1/messages/${incoming.id}`, { key: server.apiKey })).body.data;
    return m.deleted_at ? m : undefined;
  });
  assert.equal(deleted.content.body, 'oops, wrong chat', 'the record keeps its content');
  assert.ok((await eventsOf(server, 'message.deleted')).some((e) => e.payload.message_id === incoming.id));
});

test('errors the provider reports at the change level are stored, logged and kept as the channel health', async () => {
  const errors = [
    {
      code: 130429,
      title: 'Rate limit hit',
      message: 'Rate limit hit',
      error_data: { details: 'Message failed to send because there were too many messages sent from this phone number' },
      href: '/documentation/business-messaging/whatsapp/support/error-codes',
    },
  ];
  await deliver([
    {
      field: 'messages',
      value: {
        messaging_product: 'whatsapp',
        metadata: { display_phone_number: channel.phone.replace(/\D/g, ''), phone_number_id: channel.phoneNumberId },
        errors,
      },
    },
  ]);
  const health = await eventually('the health note', async () => {
    const c = await channelNow();
    return c.health.last_error_code === '130429' ? c.health : undefined;
  });
  assert.equal(
    health.last_error_message,
    'Rate limit hit: Message failed to send because there were too many messages sent from this phone number',
  );
  assert.equal((await channelNow()).status, 'connected', 'a rate limit is no fault of the channel');
  const stored = await queryRows<{ events: Array<{ kind: string; errors: Array<{ code: string }> }> }>(
    server.container.database.db,
    sql`select payload->'events' as events from provider_events where channel_id = ${channel.id} and payload->'events'->0->>'kind' = 'channel.errors'`,
  );
  assert.equal(stored.length, 1, 'the delivery is stored with the errors');
  assert.equal(stored[0]!.events[0]!.errors[0]!.code, '130429');
  assert.ok(server.logs.some((l) => l.includes('provider reported errors for the channel') && l.includes('130429')));
});

test('the three group webhooks are stored and announced as group.updated', async () => {
  const participants = [{ input: '4915112340020', wa_id: '4915112340020' }];
  const groupChange = (field: string, item: Record<string, unknown>) => ({
    field,
    value: {
      messaging_product: 'whatsapp',
      metadata: { display_phone_number: channel.phone.replace(/\D/g, ''), phone_number_id: channel.phoneNumberId },
      groups: [{ timestamp: 1750269342, group_id: 'Y2FwaV9ncm91cDpl2e', request_id: 'req-1', ...item }],
    },
  });
  await deliver([
    groupChange('group_lifecycle_update', {
      type: 'group_create',
      subject: 'Launch',
      description: 'Launch team',
      added_participants: participants,
    }),
    groupChange('group_settings_update', { type: 'group_settings_update', profile_picture: { mime_type: 'image/jpeg', sha256: 'abc=' } }),
    groupChange('group_participants_update', { type: 'group_remove_participants', removed_participants: participants }),
  ]);
  const updates = await eventually('the group events', async () => {
    const all = (await eventsOf(server, 'group.updated')).filter((e) => e.payload.group_id === 'Y2FwaV9ncm91cDpl2e');
    return all.length === 3 ? all.map((e) => e.payload) : undefined;
  });
  const common = {
    channel_id: channel.id,
    organization_id: server.organizationId,
    group_id: 'Y2FwaV9ncm91cDpl2e',
    request_id: 'req-1',
    occurred_at: new Date(1750269342 * 1000).toISOString(),
  };
  assert.deepEqual(updates, [
    { ...common, change: 'group_create', subject: 'Launch', description: 'Launch team', added_participants: participants },
    { ...common, change: 'group_settings_update', profile_picture: { mime_type: 'image/jpeg', sha256: 'abc=' } },
    { ...common, change: 'group_remove_participants', removed_participants: participants },
  ]);
});

test('call permission replies, forwarded messages, template quick replies and security-code notices keep what the provider said', async () => {
  const from = '4915112340030';
  const context = { from: channel.phone.replace(/\D/g, ''), id: 'wamid.asked-call' };
  const call = await customerSends(from, {
    type: 'interactive',
    context,
    interactive: {
      type: 'call_permission_reply',
      call_permission_reply: { response: 'accept', is_permanent: false, expiration_timestamp: 1760000000 },
    },
  });
  assert.deepEqual(call.content, {
    type: 'call_permission_reply',
    response: 'accept',
    is_permanent: false,
    expiration_timestamp: 1760000000,
    reply_to: { id: 'wamid.asked-call' },
  });
  const quick = await customerSends(from, { type: 'button', context, button: { payload: 'stop-promos', text: 'Stop promotions' } });
  assert.equal(quick.type, 'button');
  assert.deepEqual(quick.content, { payload: 'stop-promos', text: 'Stop promotions', reply_to: { id: 'wamid.asked-call' } });
  assert.ok((await eventsOf(server, 'message.new')).some((e) => e.payload.message_id === quick.id && e.payload.msg_type === 'button'));
  const forwarded = await customerSends(from, {
    type: 'text',
    text: { body: 'seen this?' },
    context: { ...context, id: 'wamid.fwd', forwarded: true, frequently_forwarded: true },
  });
  assert.equal(forwarded.content.forwarded, true);
  assert.equal(forwarded.content.frequently_forwarded, true);

  const conversationOf = async () =>
    (await request(server, 'GET', `/v1/conversations/${call.conversation_id}`, { key: server.apiKey })).body.data;
  const before = await conversationOf();
  await deliver([
    messagesValue(
      [
        {
          from,
          id: 'wamid.identity.1',
          timestamp: String(Math.floor(Date.now() / 1000) + 60),
          type: 'system',
          system: { body: 'Sheena’s security code changed', identity: 'DF2lS5v2W6x=', customer: from, type: 'customer_identity_changed' },
        },
      ],
      false,
    ),
  ]);
  const notice = await eventually('the identity notice', async () => {
    const rows = await queryRows<{ id: string }>(
      server.container.database.db,
      sql`select id from messages where provider_message_id = 'wamid.identity.1'`,
    );
    return rows[0]?.id;
  });
  const stored = (await request(server, 'GET', `/v1/messages/${notice}`, { key: server.apiKey })).body.data;
  assert.equal(stored.type, 'system');
  assert.equal(stored.conversation_id, call.conversation_id);
  assert.deepEqual(stored.content, { type: 'customer_identity_changed', body: 'Sheena’s security code changed', identity: 'DF2lS5v2W6x=' });
  const after = await conversationOf();
  assert.equal(after.unread_count, before.unread_count, 'a notice is not unread');
  assert.equal(after.last_inbound_at, before.last_inbound_at, 'a notice opens no window');
});

test('an account report naming a number reaches a channel on its own path that does not know its display number', async () => {
  const own = await outsideOfficialChannel(server, 'Own app, no display number');
  const appSecret = 'own-app-secret-for-per-channel-path';
  const patched = await request(server, 'PATCH', `/v1/channels/${own.id}`, {
    key: server.apiKey,
    body: { credentials: { app_secret: appSecret } },
  });
  assert.equal(patched.status, 200, patched.text);
  await server.container.database.db.execute(sql`update channels set display_phone_number = null where id = ${own.id}`);
  const body = JSON.stringify({
    object: 'whatsapp_business_account',
    entry: [
      {
        id: own.number.wabaId,
        time: Math.floor(Date.now() / 1000),
        changes: [
          {
            field: 'phone_number_quality_update',
            value: { display_phone_number: own.number.displayPhoneNumber.replace(/\D/g, ''), event: 'FLAGGED', current_limit: 'TIER_1K' },
          },
        ],
      },
    ],
  });
  assert.deepEqual(webhookProblems(JSON.parse(body)), []);
  const res = await request(server, 'POST', `/v1/providers/chatapp_official/webhook/${own.id}`, {
    rawBody: body,
    headers: { 'x-hub-signature-256': signBody(appSecret, body) },
  });
  assert.equal(res.status, 200, res.text);
  await eventually('the quality flag on the channel', async () => {
    const c = (await request(server, 'GET', `/v1/channels/${own.id}`, { key: server.apiKey })).body.data;
    return c.health.last_error_code === 'FLAGGED' ? c : undefined;
  });
});
