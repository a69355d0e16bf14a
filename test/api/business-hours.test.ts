/**
 * Business hours (GET/PATCH /v1/settings/business-hours, /v1/channels/{id}/business-hours and their
 * /status), through the sandbox: validation names the field; open/closed and the next change across a
 * week boundary, a holiday and a DST change; the away message goes once per period and never inside
 * hours; the greeting once, to a new contact only; a channel's own field beats the organization's; another
 * organization's settings stay as they were. "Outside hours" is made by moving the server's clock.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { queryRows } from '../../src/db/client.ts';
import { eventually } from '../eventually.ts';
import { createOtherOrganization, movableClock, request, startTestServer, type TestServer } from '../harness.ts';
import { customerWrites, officialChannel } from '../messages-helpers.ts';

const clock = movableClock();
let server: TestServer;
let channel: { id: string; phone: string };
let number = 0;
/** A new customer's number each time. */
const customer = () => `4915120${String(++number).padStart(6, '0')}`;

before(async () => {
  server = await startTestServer({ worker: true, clock });
  channel = await officialChannel(server);
});
after(() => server.close());

/** Moves the server's clock to an instant. */
const setClock = (iso: string) => clock.advance(Date.parse(iso) - clock.now().getTime());

const orgSettings = (body: unknown, key = server.apiKey) => request(server, 'PATCH', '/v1/settings/business-hours', { key, body });
const channelSettings = (id: string, body: unknown) =>
  request(server, 'PATCH', `/v1/channels/${id}/business-hours`, { key: server.apiKey, body });
async function status(path = '/v1/settings/business-hours/status') {
  const res = await request(server, 'GET', path, { key: server.apiKey });
  assert.equal(res.status, 200, res.text);
  return res.body.data as { open: boolean; reason: string; holiday: string | null; next_change_at: string | null };
}

const WEEKDAYS_9_TO_5 = {
  monday: ['09:00-17:00'],
  tuesday: ['09:00-17:00'],
  wednesday: ['09:00-17:00'],
  thursday: ['09:00-17:00'],
  friday: ['09:00-17:00'],
};

async function conversationOf(messageId: string) {
  const [row] = await queryRows<{ conversation_id: string; away_sent_at: Date | string | null }>(
    server.container.database.db,
    sql`select m.conversation_id, c.away_sent_at from messages m join conversations c on c.id = m.conversation_id where m.id = ${messageId}`,
  );
  return row!;
}
async function outbound(conversationId: string) {
  const rows = await queryRows<{ body: string | null; type: string }>(
    server.container.database.db,
    sql`select content->>'body' as body, type from messages where conversation_id = ${conversationId} and direction = 'outbound' order by created_at, id`,
  );
  return rows.map((r) => r.body ?? r.type);
}
/** Auto-reply jobs the message enqueued (its transaction committed when customerWrites returns). */
async function jobsFor(messageId: string) {
  const rows = await queryRows<{ n: number | string }>(
    server.container.database.db,
    sql`select count(*) as n from pgboss.job where name = 'conversation.auto-reply' and data->>'message_id' = ${messageId}`,
  );
  return Number(rows[0]!.n);
}
const outboundEventually = (conversationId: string, count: number) =>
  eventually(`${count} outbound messages`, async () => {
    const sent = await outbound(conversationId);
    return sent.length >= count ? sent : undefined;
  });

test('validation names the field', async () => {
  const cases: Array<[unknown, string]> = [
    [{ time_zone: 'Mars/Olympus_Mons' }, '/time_zone'],
    [{ weekly_hours: { monday: ['09:00-12:00', '11:30-13:00'] } }, '/weekly_hours/monday/1'],
    [{ weekly_hours: { tuesday: ['9:00-17:00'] } }, '/weekly_hours/tuesday/0'],
    [{ weekly_hours: { tuesday: ['09:00-25:00'] } }, '/weekly_hours/tuesday/0'],
    [{ weekly_hours: { friday: ['17:00-09:00'] } }, '/weekly_hours/friday/0'],
    [{ weekly_hours: { someday: ['09:00-17:00'] } }, ''],
    [{ holidays: [{ from: '2027-01-05', to: '2027-01-01' }] }, '/holidays/0/to'],
    [{ holidays: [{ date: '2027-02-30' }] }, '/holidays/0/date'],
    [{ away_every_hours: 0 }, '/away_every_hours'],
    [{ away_template: { name: 'Bad Name', language: { code: 'en' } } }, '/away_template/name'],
  ];
  for (const [body, pointer] of cases) {
    const res = await orgSettings(body);
    assert.equal(res.status, 400, `${JSON.stringify(body)}: ${res.text}`);
    assert.match(res.headers.get('content-type') ?? '', /problem\+json/);
    if (pointer) assert.ok(JSON.stringify(res.body).includes(`"${pointer}"`), `${JSON.stringify(body)} names ${pointer}: ${res.text}`);
  }
  const bad = await channelSettings(channel.id, { time_zone: 'Nowhere/Town' });
  assert.equal(bad.status, 400, bad.text);
  assert.ok(bad.text.includes('"/time_zone"'), bad.text);
  // Nothing was stored by the refusals.
  const res = await request(server, 'GET', '/v1/settings/business-hours', { key: server.apiKey });
  assert.equal(res.body.data.time_zone, 'UTC');
  assert.equal(res.body.data.weekly_hours, null);
  assert.equal((await status()).reason, 'always_open');
});

test('open and closed across a week boundary, a holiday and a DST change (Europe/Paris)', async () => {
  const res = await orgSettings({
    time_zone: 'Europe/Paris',
    weekly_hours: { ...WEEKDAYS_9_TO_5, monday: ['13:30-17:00', '09:00 – 12:30'], friday: ['09:00-16:00'] },
    holidays: [{ date: '2027-01-25', name: 'Test day' }],
  });
  assert.equal(res.status, 200, res.text);
  assert.deepEqual(res.body.data.weekly_hours.monday, ['09:00-12:30', '13:30-17:00'], 'sorted and normalized');
  assert.deepEqual(res.body.data.holidays, [{ from: '2027-01-25', to: '2027-01-25', name: 'Test day' }]);
  assert.deepEqual(res.body.data.weekly_hours.saturday, []);

  const at = async (iso: string) => {
    setClock(iso);
    const { open, reason, holiday, next_change_at } = await status();
    return { open, reason, holiday, next_change_at };
  };
  // Tuesday 11:00 in Paris (CET, UTC+1): open until 17:00.
  assert.deepEqual(await at('2027-01-19T10:00:00Z'), {
    open: true,
    reason: 'hours',
    holiday: null,
    next_change_at: '2027-01-19T16:00:00.000Z',
  });
  // Friday 16:00 in Paris: closed over the weekend, and Monday is the holiday: until Tuesday 09:00.
  assert.deepEqual(await at('2027-01-22T15:00:00Z'), {
    open: false,
    reason: 'hours',
    holiday: null,
    next_change_at: '2027-01-26T08:00:00.000Z',
  });
  // On the holiday, in what would be its hours.
  assert.deepEqual(await at('2027-01-25T10:00:00Z'), {
    open: false,
    reason: 'holiday',
    holiday: 'Test day',
    next_change_at: '2027-01-26T08:00:00.000Z',
  });
  // The next Monday's lunch break (12:45 in Paris), then its afternoon.
  assert.deepEqual(await at('2027-02-01T11:45:00Z'), {
    open: false,
    reason: 'hours',
    holiday: null,
    next_change_at: '2027-02-01T12:30:00.000Z',
  });
  assert.deepEqual(await at('2027-02-01T12:30:00Z'), {
    open: true,
    reason: 'hours',
    holiday: null,
    next_change_at: '2027-02-01T16:00:00.000Z',
  });
  // Sunday 2027-03-28 the clocks go forward (CEST, UTC+2): Friday closes at 16:00 CET, Monday opens at 09:00 CEST.
  assert.deepEqual(await at('2027-03-26T14:30:00Z'), {
    open: true,
    reason: 'hours',
    holiday: null,
    next_change_at: '2027-03-26T15:00:00.000Z',
  });
  assert.deepEqual(await at('2027-03-27T12:00:00Z'), {
    open: false,
    reason: 'hours',
    holiday: null,
    next_change_at: '2027-03-29T07:00:00.000Z',
  });
  // A channel without its own fields has the organization's.
  setClock('2027-03-29T07:30:00Z');
  assert.equal((await status(`/v1/channels/${channel.id}/business-hours/status`)).open, true);
  // Every day open to 24:00 and from 00:00: one span, closing only before the holiday.
  const allDay = Object.fromEntries(
    ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'].map((d) => [d, ['00:00-24:00']]),
  );
  assert.equal((await orgSettings({ weekly_hours: allDay, holidays: [{ from: '2027-04-10', to: '2027-04-11' }] })).status, 200);
  assert.deepEqual(await at('2027-04-05T12:00:00Z'), {
    open: true,
    reason: 'hours',
    holiday: null,
    next_change_at: '2027-04-09T22:00:00.000Z',
  });
  // Back to no hours.
  assert.equal((await orgSettings({ time_zone: 'UTC', weekly_hours: null, holidays: [] })).status, 200);
});

test('the away message goes outside hours, once per period, never inside hours', async () => {
  const res = await orgSettings({ time_zone: 'UTC', weekly_hours: WEEKDAYS_9_TO_5, away_message: 'We are closed.', away_every_hours: 24 });
  assert.equal(res.status, 200, res.text);
  // Saturday.
  setClock('2027-05-01T10:00:00Z');
  const from = customer();
  const first = await customerWrites(server, channel.id, from, 'text', { body: 'hello?' });
  const { conversation_id: conversationId } = await conversationOf(first);
  assert.deepEqual(await outboundEventually(conversationId, 1), ['We are closed.']);
  const awaySentAt = new Date((await conversationOf(first)).away_sent_at!).getTime();
  assert.ok(Math.abs(awaySentAt - Date.parse('2027-05-01T10:00:00Z')) < 60_000, 'the away message is recorded on the conversation');
  // Again within the 24 hours: nothing owed (decided in the transaction that stored it).
  clock.advance(3 * 3_600_000);
  const second = await customerWrites(server, channel.id, from, 'text', { body: 'anyone?' });
  assert.equal(await jobsFor(second), 0);
  // A day later (Sunday), another.
  clock.advance(22 * 3_600_000);
  const third = await customerWrites(server, channel.id, from, 'text', { body: 'still there?' });
  assert.equal(await jobsFor(third), 1);
  assert.deepEqual(await outboundEventually(conversationId, 2), ['We are closed.', 'We are closed.']);
  // Monday 10:00: inside hours, nothing, even for a new conversation.
  setClock('2027-05-03T10:00:00Z');
  const inside = await customerWrites(server, channel.id, customer(), 'text', { body: 'good morning' });
  assert.equal(await jobsFor(inside), 0);
  assert.deepEqual(await outbound((await conversationOf(inside)).conversation_id), []);
  // With no text, the approved template goes instead.
  const template = { name: 'closed_notice', language: { code: 'en_US' } };
  assert.equal((await orgSettings({ away_message: null, away_template: template })).status, 200);
  setClock('2027-05-08T20:00:00Z');
  const byTemplate = await customerWrites(server, channel.id, customer(), 'text', { body: 'hello' });
  assert.deepEqual(await outboundEventually((await conversationOf(byTemplate)).conversation_id, 1), ['template']);
  assert.equal((await orgSettings({ away_template: null })).status, 200);
});

test('the greeting goes to a new contact once, whatever the hours; not to a known contact', async () => {
  assert.equal((await orgSettings({ weekly_hours: null, greeting_message: 'Welcome!' })).status, 200);
  const from = customer();
  const first = await customerWrites(server, channel.id, from, 'text', { body: 'hi' });
  const { conversation_id: conversationId } = await conversationOf(first);
  assert.deepEqual(await outboundEventually(conversationId, 1), ['Welcome!']);
  const second = await customerWrites(server, channel.id, from, 'text', { body: 'hi again' });
  assert.equal(await jobsFor(second), 0);
  // A contact the team made before they wrote is not a first contact.
  const known = customer();
  const made = await request(server, 'POST', '/v1/contacts', { key: server.apiKey, body: { phone_number: `+${known}`, name: 'Known' } });
  assert.equal(made.status, 201, made.text);
  const theirs = await customerWrites(server, channel.id, known, 'text', { body: 'hello' });
  assert.equal(await jobsFor(theirs), 0);
  assert.equal((await orgSettings({ greeting_message: null })).status, 200);
  assert.deepEqual(await outbound(conversationId), ['Welcome!']);
});

test("a channel's own fields beat the organization's; inherit drops them", async () => {
  const other = await officialChannel(server, 'Always open');
  assert.equal((await orgSettings({ time_zone: 'UTC', weekly_hours: WEEKDAYS_9_TO_5, away_message: 'Closed (org).' })).status, 200);
  const res = await channelSettings(other.id, { weekly_hours: null, away_message: 'Closed (channel).' });
  assert.equal(res.status, 200, res.text);
  assert.deepEqual(res.body.data.overridden, ['weekly_hours', 'away_message']);
  assert.equal(res.body.data.effective.time_zone, 'UTC');
  // Saturday: the organization is closed, the channel always open.
  setClock('2027-05-08T10:00:00Z');
  assert.equal((await status()).open, false);
  assert.equal((await status(`/v1/channels/${other.id}/business-hours/status`)).reason, 'always_open');
  const onOther = await customerWrites(server, other.id, customer(), 'text', { body: 'hello' });
  assert.equal(await jobsFor(onOther), 0);
  // Its own hours again (inherited), with its own text.
  const back = await channelSettings(other.id, { inherit: ['weekly_hours'] });
  assert.equal(back.status, 200, back.text);
  assert.deepEqual(back.body.data.overridden, ['away_message']);
  const later = await customerWrites(server, other.id, customer(), 'text', { body: 'hello' });
  assert.deepEqual(await outboundEventually((await conversationOf(later)).conversation_id, 1), ['Closed (channel).']);
  const clash = await channelSettings(other.id, { away_message: 'x', inherit: ['away_message'] });
  assert.equal(clash.status, 400, clash.text);
  assert.ok(clash.text.includes('"/inherit/0"'), clash.text);
  assert.equal((await orgSettings({ weekly_hours: null, away_message: null })).status, 200);
});

test("another organization's settings are its own", async () => {
  const otherOrg = await createOtherOrganization(server, 'bh');
  assert.equal((await orgSettings({ time_zone: 'Asia/Tokyo', greeting_message: 'Hi from us' })).status, 200);
  const theirs = await request(server, 'GET', '/v1/settings/business-hours', { key: otherOrg.apiKey });
  assert.equal(theirs.status, 200, theirs.text);
  assert.equal(theirs.body.data.time_zone, 'UTC');
  assert.equal(theirs.body.data.greeting_message, null);
  const changed = await orgSettings({ time_zone: 'America/New_York' }, otherOrg.apiKey);
  assert.equal(changed.status, 200, changed.text);
  const ours = await request(server, 'GET', '/v1/settings/business-hours', { key: server.apiKey });
  assert.equal(ours.body.data.time_zone, 'Asia/Tokyo');
  for (const [method, path] of [
    ['GET', `/v1/channels/${channel.id}/business-hours`],
    ['PATCH', `/v1/channels/${channel.id}/business-hours`],
    ['GET', `/v1/channels/${channel.id}/business-hours/status`],
  ] as const) {
    const res = await request(server, method, path, {
      key: otherOrg.apiKey,
      ...(method === 'PATCH' ? { body: { time_zone: 'UTC' } } : {}),
    });
    assert.equal(res.status, 404, `${method} ${path}: ${res.text}`);
  }
  assert.equal((await orgSettings({ time_zone: 'UTC', greeting_message: null })).status, 200);
});
