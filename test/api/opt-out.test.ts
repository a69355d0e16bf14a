/**
 * Opt-out by message, through the sandbox (customers write through POST /sandbox/inbound): a message
 * that is exactly a stop keyword (case and accents aside) or the marketing opt-out button's reply makes
 * a marketing suppression once, with contact.suppressed; START lifts one an opt-out made, never an
 * operator's; the organization's keywords (GET/PATCH /v1/settings/opt-out) decide what matches, and
 * another organization's stay as they were. A marketing template sent through POST /v1/messages to an
 * opted-out contact is refused (send_refused, opted_out); the provider's `user_preferences` webhook (the
 * phone's own stop/resume of marketing messages) makes and lifts the suppression.
 */
// stores: both
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { queryRows } from '../../src/db/client.ts';
import { marketingSuppressed } from '../../src/domain/contacts/consents.ts';
import { createKeyWith, createOtherOrganization, request, startTestServer, type TestServer } from '../harness.ts';
import { eventually } from '../eventually.ts';
import { signBody } from '../../src/providers/signature.ts';
import { approvedTemplate, customerWrites, eventsOf, officialChannel } from '../messages-helpers.ts';

let server: TestServer;
let channel: { id: string; phone: string };
let number = 0;
/** A new customer's number each time. */
const customer = () => `4915110${String(++number).padStart(6, '0')}`;

before(async () => {
  server = await startTestServer({ worker: true });
  channel = await officialChannel(server);
});
after(() => server.close());

/** The customer writes a text; the stored message's id and its contact's. */
async function writes(from: string, body: string, type = 'text', content: Record<string, unknown> = { body }) {
  const messageId = await customerWrites(server, channel.id, from, type, content);
  const [row] = await queryRows<{ contact_id: string }>(
    server.container.database.db,
    sql`select contact_id from messages where id = ${messageId}`,
  );
  return { messageId, contactId: row!.contact_id };
}

async function suppressions(contactId: string) {
  const res = await request(server, 'GET', `/v1/contacts/${contactId}/suppressions`, { key: server.apiKey });
  assert.equal(res.status, 200, res.text);
  return res.body.data as Array<{ channel: string; reason: string; message_id: string | null; active: boolean }>;
}

const eventsFor = async (type: string, contactId: string) =>
  (await eventsOf(server, type)).map((e) => e.payload).filter((p) => p.contact_id === contactId);

const settings = (key = server.apiKey) => request(server, 'GET', '/v1/settings/opt-out', { key });
const changeSettings = (body: unknown, key = server.apiKey) => request(server, 'PATCH', '/v1/settings/opt-out', { key, body });

test('STOP suppresses for marketing once; a second STOP records no second event', async () => {
  const from = customer();
  const stop = await writes(from, 'STOP');
  assert.deepEqual(
    (await suppressions(stop.contactId)).map(({ channel, reason, message_id, active }) => ({ channel, reason, message_id, active })),
    [{ channel: 'marketing', reason: 'opt_out_keyword', message_id: stop.messageId, active: true }],
  );
  const [event] = await eventsFor('contact.suppressed', stop.contactId);
  assert.deepEqual(event, {
    contact_id: stop.contactId,
    channel: 'marketing',
    reason: 'opt_out_keyword',
    expires_at: null,
    message_id: stop.messageId,
    organization_id: server.organizationId,
  });
  await writes(from, 'stop ');
  assert.equal((await eventsFor('contact.suppressed', stop.contactId)).length, 1);
  assert.equal((await suppressions(stop.contactId))[0]!.message_id, stop.messageId, 'the first opt-out stays the record');
});

test('any case and accents match, the whole text only', async () => {
  for (const word of ['Stopp', 'ARRÊT', 'arret', '  unsubscribe\n']) {
    const { contactId } = await writes(customer(), word);
    assert.equal((await suppressions(contactId)).length, 1, word);
    assert.equal((await eventsFor('contact.suppressed', contactId)).length, 1, word);
  }
  for (const text of ['please stop sending', 'STOP!', 'stop it']) {
    const { contactId } = await writes(customer(), text);
    assert.deepEqual(await suppressions(contactId), [], text);
    assert.deepEqual(await eventsFor('contact.suppressed', contactId), [], text);
  }
});

test('START lifts the suppression an opt-out made, with contact.unsuppressed', async () => {
  const from = customer();
  const { contactId } = await writes(from, 'STOP');
  const start = await writes(from, 'start');
  assert.deepEqual(await suppressions(contactId), []);
  const [event] = await eventsFor('contact.unsuppressed', contactId);
  assert.equal(event!.message_id, start.messageId);
  assert.equal(event!.channel, 'marketing');
  assert.equal(event!.reason, 'opt_out_keyword');
  // Suppressed again by the next STOP.
  await writes(from, 'STOP');
  assert.equal((await suppressions(contactId)).length, 1);
  assert.equal((await eventsFor('contact.suppressed', contactId)).length, 2);
});

test("START does not lift an operator's suppression, and STOP leaves it as it is", async () => {
  const from = customer();
  const { contactId } = await writes(from, 'hello');
  const set = await request(server, 'POST', `/v1/contacts/${contactId}/suppressions`, {
    key: server.apiKey,
    body: { channel: 'marketing', reason: 'complained about frequency' },
  });
  assert.equal(set.status, 201, set.text);
  assert.equal(set.body.data.message_id, null);
  assert.equal((await eventsFor('contact.suppressed', contactId)).length, 1, 'the API records contact.suppressed too');
  await writes(from, 'START');
  await writes(from, 'STOP');
  assert.deepEqual(
    (await suppressions(contactId)).map((s) => [s.channel, s.reason, s.message_id]),
    [['marketing', 'complained about frequency', null]],
  );
  assert.deepEqual(await eventsFor('contact.unsuppressed', contactId), []);
  assert.equal((await eventsFor('contact.suppressed', contactId)).length, 1);
  // Lifting it through the API records contact.unsuppressed.
  const lifted = await request(server, 'DELETE', `/v1/contacts/${contactId}/suppressions/marketing`, { key: server.apiKey });
  assert.equal(lifted.status, 204, lifted.text);
  assert.equal((await eventsFor('contact.unsuppressed', contactId))[0]!.message_id, null);
});

test("the marketing opt-out button's reply suppresses; another button does not", async () => {
  const tapped = await writes(customer(), '', 'button', { text: 'Stop promotions' });
  assert.deepEqual(
    (await suppressions(tapped.contactId)).map((s) => [s.channel, s.reason, s.message_id]),
    [['marketing', 'opt_out_button', tapped.messageId]],
  );
  assert.equal((await eventsFor('contact.suppressed', tapped.contactId))[0]!.reason, 'opt_out_button');
  const localized = await writes(customer(), '', 'button', { text: 'PARAR PROMOÇÕES', payload: 'Parar promoções' });
  assert.equal((await suppressions(localized.contactId))[0]?.reason, 'opt_out_button');
  const other = await writes(customer(), '', 'button', { text: 'Yes please', payload: 'confirm' });
  assert.deepEqual(await suppressions(other.contactId), []);
});

test('the settings decide what matches; another organization keeps its own', async () => {
  const other = await createOtherOrganization(server, 'opt-out-other');
  const defaults = (await settings()).body.data;
  assert.deepEqual(defaults.stop_keywords, ['STOP', 'STOPP', 'UNSUBSCRIBE', 'ARRET', 'ARRÊT', 'BAJA', 'CANCELAR', 'PARAR']);
  assert.deepEqual(defaults.start_keywords, ['START', 'UNSTOP', 'SUBSCRIBE']);

  const changed = await changeSettings({ stop_keywords: ['HALT', ' Basta ', 'halt'], start_keywords: ['RESUME'] });
  assert.equal(changed.status, 200, changed.text);
  assert.deepEqual(changed.body.data.stop_keywords, ['HALT', 'Basta'], 'trimmed, duplicates dropped');
  assert.deepEqual(changed.body.data.opt_out_buttons, defaults.opt_out_buttons, 'a list left out stays');
  assert.deepEqual((await settings()).body.data, changed.body.data);
  assert.deepEqual((await settings(other.apiKey)).body.data, defaults, "the other organization's are the defaults still");

  const from = customer();
  const { contactId } = await writes(from, 'STOP');
  assert.deepEqual(await suppressions(contactId), [], 'STOP is no longer a stop keyword');
  await writes(from, 'basta');
  assert.equal((await suppressions(contactId))[0]?.reason, 'opt_out_keyword');
  await writes(from, 'START');
  assert.equal((await suppressions(contactId)).length, 1, 'START is no longer a start keyword');
  await writes(from, 'Resume');
  assert.deepEqual(await suppressions(contactId), []);

  const restored = await changeSettings(defaults);
  assert.equal(restored.status, 200, restored.text);
});

test('bad settings are 400 naming the field; changing them needs contacts:write', async () => {
  const cases: Array<[unknown, string]> = [
    [{ stop_keywords: [''] }, '/stop_keywords/0'],
    [{ stop_keywords: 'STOP' }, '/stop_keywords'],
    [{ start_keywords: ['x'.repeat(65)] }, '/start_keywords/0'],
    [{ opt_out_buttons: Array.from({ length: 51 }, (_, i) => `b${i}`) }, '/opt_out_buttons'],
    [{ start_keywords: ['START', 'stop'] }, '/start_keywords/1'],
    [{ keywords: ['STOP'] }, ''],
  ];
  for (const [body, pointer] of cases) {
    const res = await changeSettings(body);
    assert.equal(res.status, 400, `${JSON.stringify(body)}: ${res.text}`);
    assert.match(res.headers.get('content-type') ?? '', /problem\+json/);
    if (pointer) assert.ok(JSON.stringify(res.body).includes(`"${pointer}"`), `${JSON.stringify(body)} names ${pointer}: ${res.text}`);
  }
  const reader = await createKeyWith(server, ['contacts:read']);
  assert.equal((await settings(reader)).status, 200);
  assert.equal((await changeSettings({ stop_keywords: ['HALT'] }, reader)).status, 403);
  assert.deepEqual((await settings()).body.data.stop_keywords.slice(0, 1), ['STOP'], 'nothing changed');
});

test('the marketing scope is for suppressions only', async () => {
  const { contactId } = await writes(customer(), 'hello');
  const consent = await request(server, 'PUT', `/v1/contacts/${contactId}/consent/marketing`, {
    key: server.apiKey,
    body: { state: 'revoked' },
  });
  assert.equal(consent.status, 404, consent.text);
});

test('marketingSuppressed: the condition broadcasts skip contacts by', async () => {
  const db = server.container.database.db;
  const suppressed = await writes(customer(), 'STOP');
  const free = await writes(customer(), 'hello');
  const at = sql`${new Date().toISOString()}::timestamptz`;
  const rows = await queryRows<{ id: string; skipped: boolean }>(
    db,
    sql`select id, ${marketingSuppressed(sql`c.id`, at)} as skipped from contacts c where c.id in (${suppressed.contactId}, ${free.contactId})`,
  );
  assert.deepEqual(Object.fromEntries(rows.map((r) => [r.id, r.skipped])), { [suppressed.contactId]: true, [free.contactId]: false });
});

test('POST /v1/messages: a marketing template to an opted-out contact is refused (send_refused, opted_out); a utility one is not', async () => {
  const db = server.container.database.db;
  await approvedTemplate(server, channel.id, 'sale');
  await approvedTemplate(server, channel.id, 'receipt');
  await db.execute(sql`update templates set category = 'MARKETING' where channel_id = ${channel.id} and name = 'sale'`);
  const from = customer();
  await writes(from, 'STOP');
  const send = (name: string, to = from) =>
    request(server, 'POST', '/v1/messages', {
      key: server.apiKey,
      body: {
        channel_id: channel.id,
        to: `+${to}`,
        type: 'template',
        content: {
          template: { name, language: { code: 'en_US' }, components: [{ type: 'body', parameters: [{ type: 'text', text: 'x' }] }] },
        },
      },
    });
  const refused = await send('sale');
  assert.equal(refused.status, 422, refused.text);
  assert.equal(refused.body.code, 'send_refused');
  assert.equal(refused.body.reason, 'opted_out');
  assert.match(refused.body.detail ?? refused.body.message ?? refused.text, /opted out of marketing/);
  assert.equal((await send('receipt')).status, 201, 'a utility template still goes');
  assert.equal((await send('sale', customer())).status, 201, 'a contact who did not opt out gets it');
  await writes(from, 'START');
  assert.equal((await send('sale')).status, 201, 'after START it goes again');
});

/** Posts a `user_preferences` change to the official webhook, signed as the provider signs it. */
async function userPreference(from: string, value: 'stop' | 'resume') {
  const data = (await request(server, 'GET', `/v1/channels/${channel.id}`, { key: server.apiKey })).body.data;
  const body = JSON.stringify({
    object: 'whatsapp_business_account',
    entry: [
      {
        id: String(data.settings.waba_id ?? '1'),
        changes: [
          {
            field: 'user_preferences',
            value: {
              messaging_product: 'whatsapp',
              metadata: { display_phone_number: channel.phone, phone_number_id: data.settings.phone_number_id },
              contacts: [{ wa_id: from, profile: { name: 'Pat' } }],
              user_preferences: [
                {
                  wa_id: from,
                  detail: value === 'stop' ? 'User requested to stop marketing messages' : 'User requested to resume marketing messages',
                  category: 'marketing_messages',
                  value,
                  timestamp: Math.floor(Date.now() / 1000),
                },
              ],
            },
          },
        ],
      },
    ],
  });
  const res = await request(server, 'POST', '/v1/providers/chatapp_official/webhook', {
    rawBody: body,
    headers: { 'x-hub-signature-256': signBody(server.container.sandbox!.officialAppSecret, body) },
  });
  assert.equal(res.status, 200, res.text);
}

async function contactOf(phone: string): Promise<string | undefined> {
  const [row] = await queryRows<{ id: string }>(
    server.container.database.db,
    sql`select id from contacts where organization_id = ${server.organizationId} and phone_number = ${`+${phone}`}`,
  );
  return row?.id;
}

test('the user_preferences webhook: stop makes the marketing suppression with contact.suppressed, resume lifts it', async () => {
  const from = customer();
  await userPreference(from, 'stop');
  const contactId = await eventually('the contact suppressed', async () => {
    const id = await contactOf(from);
    return id && (await suppressions(id)).length === 1 ? id : undefined;
  });
  assert.deepEqual(
    (await suppressions(contactId)).map(({ channel, reason, message_id, active }) => ({ channel, reason, message_id, active })),
    [{ channel: 'marketing', reason: 'opt_out_preferences', message_id: null, active: true }],
  );
  assert.equal((await eventsFor('contact.suppressed', contactId)).length, 1);
  await userPreference(from, 'stop');
  await userPreference(from, 'resume');
  await eventually('lifted', async () => ((await suppressions(contactId)).length === 0 ? true : undefined));
  assert.equal((await eventsFor('contact.suppressed', contactId)).length, 1, 'a second stop records nothing');
  assert.equal((await eventsFor('contact.unsuppressed', contactId)).length, 1);

  // An operator's marketing suppression is not the customer's to lift from the phone.
  const operator = await request(server, 'POST', `/v1/contacts/${contactId}/suppressions`, {
    key: server.apiKey,
    body: { channel: 'marketing', reason: 'complaint' },
  });
  assert.ok(operator.status < 300, operator.text);
  await userPreference(from, 'resume');
  await userPreference(from, 'stop'); // a later report, applied after the resume: the order is kept
  await eventually('both applied', async () => {
    const [row] = await queryRows<{ n: number }>(
      server.container.database.db,
      sql`select count(*)::int as n from provider_events where processed_at is null`,
    );
    return row!.n === 0 ? true : undefined;
  });
  assert.deepEqual(
    (await suppressions(contactId)).map((s) => s.reason),
    ['complaint'],
  );
});
