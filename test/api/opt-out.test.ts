/**
 * Opt-out by message, through the sandbox (customers write through POST /sandbox/inbound): a message
 * that is exactly a stop keyword (case and accents aside) or the marketing opt-out button's reply makes
 * a marketing suppression once, with contact.suppressed; START lifts one an opt-out made, never an
 * operator's; the organization's keywords (GET/PATCH /v1/settings/opt-out) decide what matches, and
 * another organization's stay as they were.
 */
// stores: both
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { queryRows } from '../../src/db/client.ts';
import { marketingSuppressed } from '../../src/domain/contacts/consents.ts';
import { createKeyWith, createOtherOrganization, request, startTestServer, type TestServer } from '../harness.ts';
import { customerWrites, eventsOf, officialChannel } from '../messages-helpers.ts';

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
