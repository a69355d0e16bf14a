/**
 * Broadcasts end to end on the sandbox's official channel with an approved template: a segment and
 * numbers as the audience (a suppressed contact, a contact without a number and a number given twice
 * skipped with their reasons), its count before sending, each message accepted once with broadcast_id
 * and its variables filled, the recipients by status and the report; the per-minute pace by the
 * injected clock, pause and resume; the refusals naming the field; the auth cases. The sending rules
 * (docs/broadcasts.md): quiet hours in the organization's time zone, a template the provider paused
 * (132015 from the sandbox) pausing the broadcast, retry-failed, the per-user marketing limit (131049)
 * and its retry, the messaging tier's 24-hour count deferring recipients, and the audience rules of the
 * provider (+1 marketing) and of open conversations.
 */
// stores: both
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { queryRows } from '../../src/db/client.ts';
import { runDueBroadcasts } from '../../src/domain/broadcasts/runner.ts';
import { channelDeps, messageDeps } from '../../src/container.ts';
import { checkChannelHealth } from '../../src/domain/channels/watchdog.ts';
import { checkAuthCases } from '../auth-cases.ts';
import { postContact } from '../contacts-fixtures.ts';
import { eventually } from '../eventually.ts';
import { movableClock, request, startTestServer, type TestServer } from '../harness.ts';
import { approvedTemplate, customerWrites, eventsOf, officialChannel } from '../messages-helpers.ts';

let server: TestServer;
const clock = movableClock();
const key = () => ({ key: server.apiKey });
let channelId: string;
let segmentId: string;
const c: Record<string, Record<string, any>> = {};

before(async () => {
  server = await startTestServer({ worker: true, clock, env: { SANDBOX_FAULT_INJECTION: 'true' } });
  channelId = (await officialChannel(server, 'Broadcasts')).id;
  await approvedTemplate(server, channelId, 'promo');
  c.ada = await postContact(server, { name: 'Ada', phone_number: '+4930111111' });
  c.bob = await postContact(server, { phone_number: '+4930222222' });
  c.cy = await postContact(server, { name: 'Cy', phone_number: '+33612345678' });
  c.dee = await postContact(server, { name: 'Dee', email: 'dee@example.com' });
  c.eve = await postContact(server, { name: 'Eve', phone_number: '+4930444444' });
  for (const who of ['ada', 'bob', 'cy', 'dee', 'eve']) {
    const tagged = await request(server, 'POST', `/v1/contacts/${c[who]!.id}/tags`, { ...key(), body: { tag: 'june' } });
    assert.ok(tagged.status < 300, tagged.text);
  }
  const suppressed = await request(server, 'POST', `/v1/contacts/${c.cy!.id}/suppressions`, {
    ...key(),
    body: { channel: channelId, reason: 'asked to stop' },
  });
  assert.ok(suppressed.status < 300, suppressed.text);
  // Eve asked to stop promotions (what a STOP reply records): marketing only.
  const optedOut = await request(server, 'POST', `/v1/contacts/${c.eve!.id}/suppressions`, {
    ...key(),
    body: { channel: 'marketing', reason: 'opt_out_keyword' },
  });
  assert.ok(optedOut.status < 300, optedOut.text);
  const segment = await request(server, 'POST', '/v1/segments', {
    ...key(),
    body: { name: 'June', filter: { and: [{ field: 'tags', op: 'has', value: 'june' }] } },
  });
  assert.equal(segment.status, 201, segment.text);
  segmentId = segment.body.data.id;
});

after(() => server?.close());

const run = () =>
  runDueBroadcasts({ db: server.container.database.db, clock: server.container.clock, messages: messageDeps(server.container) });

async function broadcastMessages(id: string) {
  return queryRows<{ to_phone: string; content: any; broadcast_id: string }>(
    server.container.database.db,
    sql`select to_phone, content, broadcast_id from messages where broadcast_id = ${id} order by to_phone`,
  );
}

async function create(body: Record<string, unknown>) {
  return request(server, 'POST', '/v1/broadcasts', {
    ...key(),
    body: {
      name: 'June newsletter',
      channel_id: channelId,
      template: { name: 'promo', language: 'en_US', variables: ['{{contact.name|there}}'] },
      ...body,
    },
  });
}

async function waitForStatus(id: string, status: string) {
  return eventually(`broadcast ${status}`, async () => {
    const res = await request(server, 'GET', `/v1/broadcasts/${id}`, key());
    return res.body.data.status === status ? res.body.data : undefined;
  });
}

test('a segment and numbers: counted before, frozen with skips and reasons, each sent once with broadcast_id and its variables', async () => {
  const made = await create({ audience: { segment_id: segmentId, phones: ['+49 30 111111', '+4930333333'] } });
  assert.equal(made.status, 201, made.text);
  assert.equal(made.body.data.status, 'draft');
  const id = made.body.data.id as string;

  const count = await request(server, 'GET', `/v1/broadcasts/${id}/audience-count`, key());
  assert.equal(count.status, 200, count.text);
  assert.equal(count.body.data.total, 7);
  assert.equal(count.body.data.sendable, 3);
  assert.deepEqual(count.body.data.skipped, {
    invalid_number: 1,
    duplicate: 1,
    suppressed: 1,
    opted_out: 1,
    consent_revoked: 0,
    no_consent: 0,
    provider_restricted: 0,
    open_conversation: 0,
  });
  assert.equal(
    (await request(server, 'GET', `/v1/broadcasts/${id}/recipients`, key())).body.data.length,
    0,
    'nothing frozen before sending',
  );

  const patched = await request(server, 'PATCH', `/v1/broadcasts/${id}`, { ...key(), body: { name: 'June news' } });
  assert.equal(patched.status, 200, patched.text);
  assert.equal(patched.body.data.name, 'June news');

  const scheduled = await request(server, 'POST', `/v1/broadcasts/${id}/schedule`, key());
  assert.equal(scheduled.status, 200, scheduled.text);
  await run(); // as the broadcasts.run job does (woken by the schedule); whichever takes it first, the other finds it leased or done
  await waitForStatus(id, 'completed');
  await run(); // a later run finds nothing to do

  const sent = await broadcastMessages(id);
  assert.deepEqual(
    sent.map((m) => m.to_phone),
    ['4930111111', '4930222222', '4930333333'],
    'one message per number',
  );
  const param = (m: (typeof sent)[number]) => m.content.template.components[0].parameters[0].text;
  assert.deepEqual(sent.map(param), ['Ada', 'there', 'there']);

  const listedMessages = await request(server, 'GET', `/v1/messages?channel_id=${channelId}&limit=50`, key());
  assert.equal(listedMessages.body.data.filter((m: any) => m.broadcast_id === id).length, 3, 'the API shows broadcast_id');
  const skipped = await request(server, 'GET', `/v1/broadcasts/${id}/recipients?status=skipped`, key());
  assert.equal(skipped.status, 200, skipped.text);
  assert.deepEqual(skipped.body.data.map((r: any) => [r.phone, r.reason]).sort(), [
    ['+33612345678', 'suppressed'],
    ['+4930111111', 'duplicate'],
    ['+4930444444', 'opted_out'],
    [null, 'invalid_number'],
  ]);
  const page = await request(server, 'GET', `/v1/broadcasts/${id}/recipients?limit=2`, key());
  assert.equal(page.body.data.length, 2);
  const rest = await request(server, 'GET', `/v1/broadcasts/${id}/recipients?limit=10&cursor=${page.body.meta.next_cursor}`, key());
  assert.equal(rest.body.data.length, 5, 'the other five of the seven');
  const forged = await request(server, 'GET', `/v1/broadcasts/${id}/recipients?cursor=forged`, key());
  assert.equal(forged.status, 400, forged.text);

  const report = await request(server, 'GET', `/v1/broadcasts/${id}/report`, key());
  assert.equal(report.status, 200, report.text);
  assert.equal(report.body.data.recipients, 7);
  assert.equal(report.body.data.by_status.skipped, 4);
  assert.equal(report.body.data.skipped.duplicate, 1);
  assert.equal(report.body.data.skipped.opted_out, 1, 'opted out of promotions');
  const handed = ['pending', 'sent', 'delivered', 'read'].reduce((n, s) => n + report.body.data.by_status[s], 0);
  assert.equal(handed, 3);

  const started = (await eventsOf(server, 'broadcast.started')).filter((e) => e.payload.broadcast_id === id);
  assert.equal(started.length, 1);
  assert.equal(started[0]!.payload.recipients, 7);
  assert.equal((await eventsOf(server, 'broadcast.completed')).filter((e) => e.payload.broadcast_id === id).length, 1);

  const deleted = await request(server, 'DELETE', `/v1/broadcasts/${id}`, key());
  assert.equal(deleted.status, 409, 'a broadcast that sent stays');
  const listed = await request(server, 'GET', '/v1/broadcasts?status=completed', key());
  assert.ok(listed.body.data.some((b: any) => b.id === id));
});

test('per_minute paces by the clock; pause holds it, resume goes on', async () => {
  const phones = ['+4930400001', '+4930400002', '+4930400003', '+4930400004', '+4930400005'];
  const made = await create({ audience: { phones }, per_minute: 2 });
  assert.equal(made.status, 201, made.text);
  const id = made.body.data.id as string;
  assert.equal((await request(server, 'POST', `/v1/broadcasts/${id}/schedule`, key())).status, 200);
  await run();
  await eventually('the first minute’s share', async () => ((await broadcastMessages(id)).length === 2 ? true : undefined));
  await run();
  assert.equal((await broadcastMessages(id)).length, 2, 'no more within the minute');

  const paused = await request(server, 'POST', `/v1/broadcasts/${id}/pause`, key());
  assert.equal(paused.status, 200, paused.text);
  assert.equal(paused.body.data.status, 'paused');
  assert.equal((await eventsOf(server, 'broadcast.paused')).filter((e) => e.payload.broadcast_id === id).length, 1);
  clock.advance(61_000);
  await run();
  assert.equal((await broadcastMessages(id)).length, 2, 'nothing while paused');
  assert.equal((await request(server, 'POST', `/v1/broadcasts/${id}/pause`, key())).status, 409, 'already paused');

  const resumed = await request(server, 'POST', `/v1/broadcasts/${id}/resume`, key());
  assert.equal(resumed.status, 200, resumed.text);
  await run();
  await eventually('the next share', async () => ((await broadcastMessages(id)).length === 4 ? true : undefined));
  await run();
  assert.equal((await broadcastMessages(id)).length, 4);
  clock.advance(60_000);
  await run();
  await waitForStatus(id, 'completed');
  assert.equal((await broadcastMessages(id)).length, 5);
  assert.equal(new Set((await broadcastMessages(id)).map((m) => m.to_phone)).size, 5);
});

test('durable: a runner that died holds its lease until it lapses; a message accepted but not recorded is not sent again', async () => {
  const db = server.container.database.db;
  const made = await create({ audience: { phones: ['+4930800001', '+4930800002', '+4930800003'] }, per_minute: 1 });
  const id = made.body.data.id as string;
  assert.equal((await request(server, 'POST', `/v1/broadcasts/${id}/schedule`, key())).status, 200);
  await run();
  await eventually('the first share', async () => ((await broadcastMessages(id)).length === 1 ? true : undefined));
  // As if a runner was killed after its accept and before it recorded the message, holding the lease.
  const lease = new Date(clock.now().getTime() + 5 * 60_000).toISOString();
  await db.execute(sql`update broadcast_recipients set message_id = null where broadcast_id = ${id}`);
  await db.execute(
    sql`update broadcasts set next_run_at = ${clock.now().toISOString()}::timestamptz, lease_until = ${lease}::timestamptz where id = ${id}`,
  );
  await run();
  const held = await queryRows<{ n: number }>(
    db,
    sql`select count(*)::int as n from broadcast_recipients where broadcast_id = ${id} and message_id is not null`,
  );
  assert.equal(held[0]!.n, 0, 'nobody takes a leased broadcast');
  clock.advance(5 * 60_000 + 1000);
  await run();
  const [message] = await broadcastMessages(id);
  const recorded = await queryRows<{ message_id: string }>(
    db,
    sql`select message_id from broadcast_recipients where broadcast_id = ${id} and message_id is not null`,
  );
  assert.equal((await broadcastMessages(id)).length, 1, 'the first recipient got its message back, not a second one');
  assert.equal(recorded.length, 1);
  assert.equal(message!.to_phone, '4930800001');
  clock.advance(60_000);
  await run();
  clock.advance(60_000);
  await run();
  await waitForStatus(id, 'completed');
  assert.deepEqual(
    (await broadcastMessages(id)).map((m) => m.to_phone),
    ['4930800001', '4930800002', '4930800003'],
  );
});

test('cancel returns a schedule to draft; stop ends one; a draft is deleted', async () => {
  const later = new Date(clock.now().getTime() + 3_600_000).toISOString();
  const made = await create({ audience: { phones: ['+4930500001'] }, send_at: later });
  const id = made.body.data.id as string;
  assert.equal((await request(server, 'POST', `/v1/broadcasts/${id}/schedule`, key())).body.data.status, 'scheduled');
  await run();
  assert.equal((await broadcastMessages(id)).length, 0, 'not before its time');
  assert.equal((await request(server, 'PATCH', `/v1/broadcasts/${id}`, { ...key(), body: { name: 'x' } })).status, 409);
  assert.equal((await request(server, 'POST', `/v1/broadcasts/${id}/cancel`, key())).body.data.status, 'draft');
  assert.equal((await request(server, 'POST', `/v1/broadcasts/${id}/schedule`, key())).status, 200);
  const stopped = await request(server, 'POST', `/v1/broadcasts/${id}/stop`, key());
  assert.equal(stopped.body.data.status, 'stopped');
  clock.advance(2 * 3_600_000);
  await run();
  assert.equal((await broadcastMessages(id)).length, 0, 'a stopped broadcast sends nothing');

  const draft = await create({ audience: { phones: ['+4930500002'] } });
  assert.equal((await request(server, 'DELETE', `/v1/broadcasts/${draft.body.data.id}`, key())).status, 204);
  assert.equal((await request(server, 'GET', `/v1/broadcasts/${draft.body.data.id}`, key())).status, 404);
});

test('header and button parameters: filled per recipient and sent in the provider’s component shapes', async () => {
  await approvedTemplate(server, channelId, 'offer_media', 'en_US', [
    { type: 'HEADER', format: 'IMAGE' },
    { type: 'BODY', text: 'Hi {{1}}' },
    {
      type: 'BUTTONS',
      buttons: [
        { type: 'URL', text: 'Shop', url: 'https://shop.example.com/{{1}}' },
        { type: 'QUICK_REPLY', text: 'Not now' },
        { type: 'COPY_CODE', example: 'JUNE10' },
      ],
    },
  ]);
  const made = await create({
    audience: { contact_ids: [c.ada!.id, c.bob!.id] },
    template: {
      name: 'offer_media',
      language: 'en_US',
      variables: ['{{contact.name|there}}'],
      header: { type: 'image', link: 'https://cdn.example.com/{{contact.custom.pic|june}}.jpg' },
      buttons: [
        { index: 2, value: 'JUNE10' },
        { index: 0, value: 'june?who={{contact.name|guest}}' },
        { index: 1, value: 'later-{{contact.phone}}' },
      ],
    },
  });
  assert.equal(made.status, 201, made.text);
  assert.equal(made.body.data.template.header.type, 'image');
  const id = made.body.data.id as string;
  assert.equal((await request(server, 'POST', `/v1/broadcasts/${id}/schedule`, key())).status, 200);
  await run();
  await waitForStatus(id, 'completed');
  const sent = await broadcastMessages(id);
  assert.equal(sent.length, 2);
  const ada = sent.find((m) => m.to_phone === '4930111111')!;
  assert.deepEqual(ada.content.template.components, [
    { type: 'header', parameters: [{ type: 'image', image: { link: 'https://cdn.example.com/june.jpg' } }] },
    { type: 'body', parameters: [{ type: 'text', text: 'Ada' }] },
    { type: 'button', sub_type: 'url', index: '0', parameters: [{ type: 'text', text: 'june?who=Ada' }] },
    { type: 'button', sub_type: 'quick_reply', index: '1', parameters: [{ type: 'payload', payload: 'later-+4930111111' }] },
    { type: 'button', sub_type: 'copy_code', index: '2', parameters: [{ type: 'coupon_code', coupon_code: 'JUNE10' }] },
  ]);
  const bob = sent.find((m) => m.to_phone === '4930222222')!;
  assert.equal(bob.content.template.components[2].parameters[0].text, 'june?who=guest', 'a default where the field is empty');
  const failed = await request(server, 'GET', `/v1/broadcasts/${id}/recipients?status=failed`, key());
  assert.equal(failed.body.data.length, 0, 'the provider took them');
});

test('A/B variants: the test share split evenly, the winner by replies chosen at decide_at and sent to the rest; replied within 72 h; the report and CSV', async () => {
  await approvedTemplate(server, channelId, 'ab_text_header', 'en_US', [
    { type: 'HEADER', format: 'TEXT', text: 'Hello {{1}}' },
    { type: 'BODY', text: 'Our June offer' },
  ]);
  const phones = Array.from({ length: 10 }, (_, i) => `+49309100${String(i).padStart(2, '0')}`);
  const decideAt = new Date(clock.now().getTime() + 3_600_000).toISOString();
  const made = await create({
    template: undefined,
    audience: { phones },
    ab_test: {
      variants: [
        { name: 'promo', language: 'en_US', variables: ['{{contact.name|friend}}'] },
        { name: 'ab_text_header', language: 'en_US', variables: [], header: { type: 'text', text: '{{contact.name|friend}}' } },
      ],
      test_share: 40,
      metric: 'replied',
      decide_at: decideAt,
    },
  });
  assert.equal(made.status, 201, made.text);
  assert.equal(made.body.data.template.name, 'promo', 'the template columns are variant 0’s');
  const id = made.body.data.id as string;
  assert.equal((await request(server, 'POST', `/v1/broadcasts/${id}/schedule`, key())).status, 200);
  await run();
  await eventually('the test group', async () => ((await broadcastMessages(id)).length === 4 ? true : undefined));
  await run();
  assert.equal((await broadcastMessages(id)).length, 4, 'the rest wait for the decision');
  const all = (await request(server, 'GET', `/v1/broadcasts/${id}/recipients?limit=50`, key())).body.data as any[];
  const byVariant = (v: number | null) => all.filter((r) => r.variant === v);
  assert.equal(byVariant(0).length, 2, 'split evenly');
  assert.equal(byVariant(1).length, 2);
  assert.ok(
    byVariant(null).every((r) => r.status === 'pending' && r.message_id === null),
    'the rest pending, no variant',
  );
  assert.equal((await request(server, 'GET', `/v1/broadcasts/${id}`, key())).body.data.status, 'sending');
  const sentB = (await broadcastMessages(id)).filter((m) => m.content.template.name === 'ab_text_header');
  assert.equal(sentB.length, 2);
  assert.deepEqual(sentB[0]!.content.template.components, [{ type: 'header', parameters: [{ type: 'text', text: 'friend' }] }]);

  // A customer of variant 1 answers: replied (and variant 1 wins on replies).
  const answering = byVariant(1)[0]!;
  // A message still queued reads as pending whatever follows it: the customer answers once it went out.
  await eventually('the answered message sent', async () => {
    const r = await request(server, 'GET', `/v1/messages/${answering.message_id}/status`, key());
    return ['sent', 'delivered', 'read'].includes(r.body.data.status) ? true : undefined;
  });
  await customerWrites(server, channelId, answering.phone.slice(1), 'text', { body: 'Tell me more' });
  await eventually('replied', async () => {
    const r = await request(server, 'GET', `/v1/broadcasts/${id}/recipients?status=replied`, key());
    return r.body.data.length === 1 ? r.body.data[0] : undefined;
  });

  clock.advance(3_600_000 + 1000);
  await run();
  const won = await eventually('broadcast.variant_won', async () => {
    const e = (await eventsOf(server, 'broadcast.variant_won')).filter((x) => x.payload.broadcast_id === id);
    return e.length ? e : undefined;
  });
  assert.equal(won.length, 1);
  assert.equal(won[0]!.payload.variant, 1);
  assert.equal(won[0]!.payload.rest, 6);
  await waitForStatus(id, 'completed');
  const sent = await broadcastMessages(id);
  assert.equal(sent.length, 10);
  assert.equal(sent.filter((m) => m.content.template.name === 'ab_text_header').length, 8, 'the rest got the winner');
  const decided = (await request(server, 'GET', `/v1/broadcasts/${id}`, key())).body.data;
  assert.equal(decided.winner_variant, 1);

  // A customer writing more than 72 hours after the message is not a reply to it.
  const rest = (await request(server, 'GET', `/v1/broadcasts/${id}/recipients?limit=50`, key())).body.data.filter(
    (r: any) => r.variant === 1 && r.id !== answering.id,
  );
  clock.advance(73 * 3_600_000);
  await customerWrites(server, channelId, rest[0].phone.slice(1), 'text', { body: 'late' });

  const report = await request(server, 'GET', `/v1/broadcasts/${id}/report`, key());
  assert.equal(report.status, 200, report.text);
  const data = report.body.data;
  assert.equal(data.recipients, 10);
  assert.equal(data.by_status.replied, 1, 'the late message is no reply');
  assert.equal(data.sent, 10);
  assert.equal(data.rates.replied, 0.1);
  assert.deepEqual(
    data.variants.map((v: any) => [v.variant, v.recipients, v.by_status.replied]),
    [
      [0, 2, 0],
      [1, 8, 1],
    ],
  );
  assert.equal(data.variants[1].template.name, 'ab_text_header');
  assert.equal(data.over_time.bucket, 'minute');
  assert.equal(
    data.over_time.points.reduce((n: number, p: any) => n + p.sent, 0),
    10,
  );
  assert.equal(data.over_time.points.length, 2, 'the test group, then the rest an hour later');
  const byHour = await request(server, 'GET', `/v1/broadcasts/${id}/report?bucket=day`, key());
  assert.equal(byHour.body.data.over_time.points.length, 1);
  assert.equal((await request(server, 'GET', `/v1/broadcasts/${id}/report?bucket=week`, key())).status, 400);

  const csv = await fetch(`${server.baseUrl}/v1/broadcasts/${id}/recipients`, {
    headers: { 'x-api-key': server.apiKey, accept: 'text/csv' },
  });
  assert.equal(csv.status, 200);
  assert.match(csv.headers.get('content-type') ?? '', /^text\/csv/);
  const lines = (await csv.text()).trimEnd().split('\n');
  assert.equal(lines.length, 11, 'a header line and one line per recipient');
  assert.match(lines[0]!, /^id,contact_id,phone,status,reason,error_code,variant,/);
  const replied = await fetch(`${server.baseUrl}/v1/broadcasts/${id}/recipients?format=csv&status=replied`, {
    headers: { 'x-api-key': server.apiKey },
  });
  const repliedLines = (await replied.text()).trimEnd().split('\n');
  assert.equal(repliedLines.length, 2);
  assert.ok(repliedLines[1]!.includes(answering.id));
  const missing = await fetch(`${server.baseUrl}/v1/broadcasts/0190a5b3-7777-7e4f-8a1b-2c3d4e5f6a7b/recipients?format=csv`, {
    headers: { 'x-api-key': server.apiKey },
  });
  assert.equal(missing.status, 404);
});

test('bad input: 4xx naming the field, before anything is sent', async () => {
  const names = async (res: Awaited<ReturnType<typeof create>>, status: number, pointer: string) => {
    assert.equal(res.status, status, res.text);
    assert.ok(
      res.body.errors?.some((e: { pointer: string }) => e.pointer === pointer),
      `names ${pointer}: ${res.text}`,
    );
  };
  const audience = { phones: ['+4930600001'] };
  // A template that is not approved (made, never submitted).
  const draftTemplate = await request(server, 'POST', '/v1/templates', {
    ...key(),
    body: {
      channel_id: channelId,
      name: 'unsubmitted',
      language: 'en_US',
      category: 'MARKETING',
      components: [{ type: 'BODY', text: 'Hi {{1}}' }],
    },
  });
  assert.equal(draftTemplate.status, 201, draftTemplate.text);
  await names(await create({ audience, template: { name: 'unsubmitted', language: 'en_US', variables: ['x'] } }), 400, '/template/name');
  await names(await create({ audience, template: { name: 'nope', language: 'en_US', variables: ['x'] } }), 400, '/template/name');
  await names(
    await create({ audience, template: { name: 'promo', language: 'en_US', variables: ['{{contact.name}}'] } }),
    400,
    '/template/variables/0',
  );
  await names(
    await create({ audience, template: { name: 'promo', language: 'en_US', variables: ['{{contact.shoe_size|x}}'] } }),
    400,
    '/template/variables/0',
  );
  await names(await create({ audience, template: { name: 'promo', language: 'en_US', variables: [] } }), 400, '/template/variables');
  await names(await create({ audience, send_at: new Date(clock.now().getTime() - 3_600_000).toISOString() }), 400, '/send_at');
  await names(await create({ audience: {} }), 400, '/audience');
  await names(await create({ audience: { segment_id: '0190a5b3-7777-7e4f-8a1b-2c3d4e5f6a7b' } }), 400, '/audience/segment_id');
  await names(await create({ audience, channel_id: '0190a5b3-7777-7e4f-8a1b-2c3d4e5f6a7b' }), 400, '/channel_id');
  await names(await create({ audience, per_minute: 0 }), 400, '/per_minute');
  await names(await create({ audience, quiet_hours: { start: '25:00', end: '08:00' } }), 400, '/quiet_hours/start');
  await names(await create({ audience, quiet_hours: { start: '08:00', end: '08:00' } }), 400, '/quiet_hours');
  await names(await create({ audience, retry_marketing_limit_days: 8 }), 400, '/retry_marketing_limit_days');
  await approvedTemplate(server, channelId, 'bad_input_buttons', 'en_US', [
    { type: 'HEADER', format: 'VIDEO' },
    { type: 'BODY', text: 'Hi' },
    {
      type: 'BUTTONS',
      buttons: [
        { type: 'URL', text: 'Go', url: 'https://x.example.com/{{1}}' },
        { type: 'PHONE_NUMBER', text: 'Call', phone_number: '+4930123' },
      ],
    },
  ]);
  const withButtons = (extra: Record<string, unknown>) => ({ name: 'bad_input_buttons', language: 'en_US', variables: [], ...extra });
  const video = { type: 'video', link: 'https://cdn.example.com/v.mp4' };
  await names(await create({ audience, template: withButtons({ buttons: [{ index: 0, value: 'a' }] }) }), 400, '/template/header');
  await names(
    await create({
      audience,
      template: withButtons({ header: { type: 'image', link: 'https://cdn.example.com/a.jpg' }, buttons: [{ index: 0, value: 'a' }] }),
    }),
    400,
    '/template/header/type',
  );
  await names(await create({ audience, template: withButtons({ header: video }) }), 400, '/template/buttons');
  await names(
    await create({
      audience,
      template: withButtons({
        header: video,
        buttons: [
          { index: 0, value: 'a' },
          { index: 1, value: 'b' },
        ],
      }),
    }),
    400,
    '/template/buttons/1/index',
  );
  await names(
    await create({
      audience,
      template: withButtons({ header: { ...video, link: 'http://insecure.example.com/v.mp4' }, buttons: [{ index: 0, value: 'a' }] }),
    }),
    400,
    '/template/header/link',
  );
  await names(
    await create({ audience, template: withButtons({ header: video, buttons: [{ index: 0, value: '{{contact.custom.code}}' }] }) }),
    400,
    '/template/buttons/0/value',
  );
  assert.equal((await create({ audience, template: withButtons({ header: video, buttons: [{ index: 0, value: 'a' }] }) })).status, 201);
  await approvedTemplate(server, channelId, 'bad_input_location', 'en_US', [
    { type: 'HEADER', format: 'LOCATION' },
    { type: 'BODY', text: 'Hi' },
  ]);
  const location = await create({ audience, template: { name: 'bad_input_location', language: 'en_US', variables: [] } });
  assert.equal(location.status, 422, location.text);
  const ab = (extra: Record<string, unknown>) => ({
    variants: [
      { name: 'promo', language: 'en_US', variables: ['x'] },
      { name: 'promo', language: 'en_US', variables: ['y'] },
    ],
    test_share: 20,
    metric: 'read',
    decide_at: new Date(clock.now().getTime() + 3_600_000).toISOString(),
    ...extra,
  });
  await names(
    await create({ audience, template: undefined, ab_test: ab({ variants: [{ name: 'promo', language: 'en_US', variables: ['x'] }] }) }),
    400,
    '/ab_test/variants',
  );
  await names(
    await create({ audience, template: undefined, ab_test: ab({ decide_at: new Date(clock.now().getTime() - 1000).toISOString() }) }),
    400,
    '/ab_test/decide_at',
  );
  await names(await create({ audience, template: undefined, ab_test: ab({ metric: 'clicked' }) }), 400, '/ab_test/metric');
  await names(await create({ audience, template: undefined, ab_test: ab({ test_share: 0 }) }), 400, '/ab_test/test_share');
  await names(
    await create({
      audience,
      template: undefined,
      ab_test: ab({
        variants: [
          { name: 'promo', language: 'en_US', variables: ['x'] },
          { name: 'nope', language: 'en_US', variables: [] },
        ],
      }),
    }),
    400,
    '/ab_test/variants/1/name',
  );
  await names(await create({ audience, ab_test: ab({}) }), 400, '/template');

  // An audience of nobody to send to: refused when scheduled.
  const nobody = await create({ audience: { tags: ['no-such-tag'] } });
  assert.equal(nobody.status, 201, nobody.text);
  await names(await request(server, 'POST', `/v1/broadcasts/${nobody.body.data.id}/schedule`, key()), 400, '/audience');

  // A channel not connected: refused when scheduled.
  const second = (await officialChannel(server, 'Second')).id;
  await approvedTemplate(server, second, 'promo');
  const onSecond = await create({ channel_id: second, audience });
  assert.equal(onSecond.status, 201, onSecond.text);
  await server.container.database.db.execute(sql`update channels set status = 'disconnected' where id = ${second}`);
  await names(await request(server, 'POST', `/v1/broadcasts/${onSecond.body.data.id}/schedule`, key()), 409, '/channel_id');
  server.container.channelCache.forget(second);
});

test('auth cases', async () => {
  const made = await create({ audience: { phones: ['+4930700001'] } });
  await checkAuthCases(server, [
    { method: 'GET', path: '/v1/broadcasts', permission: 'messages:read' },
    { method: 'GET', path: `/v1/broadcasts/${made.body.data.id}/report`, permission: 'messages:read' },
    { method: 'POST', path: '/v1/broadcasts', permission: 'messages:send', body: {} },
  ]);
});

async function messagesTo(id: string, phone: string) {
  return (await broadcastMessages(id)).filter((m) => m.to_phone === phone).length;
}

async function faults(rules: unknown[]) {
  const res = await request(server, 'PUT', '/sandbox/faults', { body: { rules } });
  assert.ok(res.status < 300, res.text);
}

async function recipientsOf(id: string, status?: string) {
  const res = await request(server, 'GET', `/v1/broadcasts/${id}/recipients?limit=100${status ? `&status=${status}` : ''}`, key());
  assert.equal(res.status, 200, res.text);
  return res.body.data as Array<Record<string, any>>;
}

test('quiet hours in the organization’s time zone: nothing is sent inside them; the runner waits until they end', async () => {
  const zone = 'Asia/Kolkata';
  const hours = await request(server, 'PATCH', '/v1/settings/business-hours', { ...key(), body: { time_zone: zone } });
  assert.equal(hours.status, 200, hours.text);
  const [h, m] = new Intl.DateTimeFormat('en-GB', { timeZone: zone, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' })
    .format(clock.now())
    .split(':')
    .map(Number);
  const local = h! * 60 + m!;
  const hhmm = (minutes: number) => {
    const x = (minutes + 1440) % 1440;
    return `${String(Math.floor(x / 60)).padStart(2, '0')}:${String(x % 60).padStart(2, '0')}`;
  };
  // From an hour ago to two hours from now, local time (UTC now is 5:30 behind: read in UTC it would not hold).
  const made = await create({ audience: { phones: ['+4930930001'] }, quiet_hours: { start: hhmm(local - 60), end: hhmm(local + 120) } });
  assert.equal(made.status, 201, made.text);
  assert.deepEqual(made.body.data.quiet_hours, { start: hhmm(local - 60), end: hhmm(local + 120) });
  const id = made.body.data.id as string;
  assert.equal((await request(server, 'POST', `/v1/broadcasts/${id}/schedule`, key())).status, 200);
  await run();
  assert.equal((await broadcastMessages(id)).length, 0, 'nothing inside the quiet hours');
  assert.equal((await request(server, 'GET', `/v1/broadcasts/${id}`, key())).body.data.status, 'sending');
  const [due] = await queryRows<{ next_run_at: string }>(
    server.container.database.db,
    sql`select next_run_at from broadcasts where id = ${id}`,
  );
  const waitMin = (new Date(due!.next_run_at).getTime() - clock.now().getTime()) / 60_000;
  assert.ok(waitMin > 118 && waitMin <= 120, `runs again when they end (in ${waitMin} min)`);
  clock.advance(60 * 60_000);
  await run();
  assert.equal((await broadcastMessages(id)).length, 0, 'still quiet an hour later');
  clock.advance(61 * 60_000);
  await run();
  await waitForStatus(id, 'completed');
  assert.equal((await broadcastMessages(id)).length, 1);
  await request(server, 'PATCH', '/v1/settings/business-hours', { ...key(), body: { time_zone: 'UTC' } });
});

test('a template the provider paused (132015) pauses the broadcast with the reason; retry-failed sends the failed again as new messages', async () => {
  const db = server.container.database.db;
  await approvedTemplate(server, channelId, 'flash');
  await faults([{ fault: 'provider_error', to: '4930900011', answer: { code: 132015 }, times: 1 }]);
  const made = await create({
    audience: { phones: ['+4930900011', '+4930900012', '+4930900013'] },
    template: { name: 'flash', language: 'en_US', variables: ['{{contact.name|there}}'] },
    per_minute: 1,
  });
  const id = made.body.data.id as string;
  assert.equal((await request(server, 'POST', `/v1/broadcasts/${id}/retry-failed`, key())).status, 409, 'a draft has nothing to retry');
  assert.equal((await request(server, 'POST', `/v1/broadcasts/${id}/schedule`, key())).status, 200);
  await run();
  await eventually('the first message failed with 132015', async () => {
    const [failed] = await recipientsOf(id, 'failed');
    return failed?.error_code === '132015' ? true : undefined;
  });
  const [template] = await queryRows<{ status: string }>(
    db,
    sql`select status from templates where channel_id = ${channelId} and name = 'flash'`,
  );
  assert.equal(template!.status, 'paused', 'the dispatcher stored what the provider said');
  clock.advance(60_000);
  await run();
  const paused = await waitForStatus(id, 'paused');
  assert.match(paused.pause_reason, /^template_paused/);
  const event = (await eventsOf(server, 'broadcast.paused')).find((e) => e.payload.broadcast_id === id);
  assert.match(String(event!.payload.reason), /^template_paused/);
  assert.equal((await broadcastMessages(id)).length, 1, 'nothing more sent with the template paused');

  // The provider approves it again (its status webhook); a person resumes.
  await db.execute(sql`update templates set status = 'approved' where channel_id = ${channelId} and name = 'flash'`);
  const resumed = await request(server, 'POST', `/v1/broadcasts/${id}/resume`, key());
  assert.equal(resumed.body.data.pause_reason, null);
  for (let i = 0; i < 3 && (await request(server, 'GET', `/v1/broadcasts/${id}`, key())).body.data.status !== 'completed'; i++) {
    await run();
    clock.advance(60_000);
  }
  await waitForStatus(id, 'completed');
  assert.equal((await broadcastMessages(id)).length, 3);
  const firstMessage = (await recipientsOf(id, 'failed'))[0]!.message_id;

  const retried = await request(server, 'POST', `/v1/broadcasts/${id}/retry-failed`, key());
  assert.equal(retried.status, 200, retried.text);
  assert.equal(retried.body.data.status, 'sending');
  assert.equal(retried.body.data.retry_round, 1);
  assert.equal((await recipientsOf(id, 'failed')).length, 0, 'the failed recipient is pending again');
  await run();
  await waitForStatus(id, 'completed');
  assert.equal(await messagesTo(id, '4930900011'), 2, 'a new message for the failed recipient');
  assert.equal((await broadcastMessages(id)).length, 4, 'the others are not sent again');
  const [again] = (await recipientsOf(id)).filter((r) => r.phone === '+4930900011');
  assert.notEqual(again!.message_id, firstMessage);
  assert.notEqual(again!.status, 'failed');
  const keys = await queryRows<{ key: string }>(
    db,
    sql`select key from idempotency_keys where key like ${`broadcast:${id}:%`} order by key`,
  );
  assert.equal(keys.length, 4);
  assert.equal(keys.filter((k) => k.key.endsWith(':1')).length, 1, 'the retry round has its own key');
  const report = await request(server, 'GET', `/v1/broadcasts/${id}/report`, key());
  assert.equal(report.body.data.by_status.failed, 0);
  assert.equal(report.body.data.recipients, 3);
  assert.equal((await request(server, 'POST', `/v1/broadcasts/${id}/retry-failed`, key())).status, 409, 'no failed recipient left');
});

test('the per-user marketing limit (131049): skipped as marketing_limit, sent once more retry_marketing_limit_days later', async () => {
  await faults([{ fault: 'provider_error', to: '4930910011', answer: { code: 131049 }, times: 1 }]);
  const made = await create({ audience: { phones: ['+4930910011', '+4930910012'] }, retry_marketing_limit_days: 2 });
  assert.equal(made.body.data.retry_marketing_limit_days, 2);
  const id = made.body.data.id as string;
  assert.equal((await request(server, 'POST', `/v1/broadcasts/${id}/schedule`, key())).status, 200);
  await run();
  await waitForStatus(id, 'completed');
  const skipped = await eventually('the refusal read as skipped', async () => {
    const [r] = await recipientsOf(id, 'skipped');
    return r;
  });
  assert.equal(skipped.reason, 'marketing_limit');
  assert.equal(skipped.error_code, '131049');
  assert.equal((await request(server, 'GET', `/v1/broadcasts/${id}/report`, key())).body.data.skipped.marketing_limit, 1);
  await run(); // notes when it is due
  clock.advance(86_400_000);
  await run();
  assert.equal(await messagesTo(id, '4930910011'), 1, 'not before its days');
  clock.advance(86_400_000 + 120_000);
  await run();
  assert.equal(await messagesTo(id, '4930910011'), 2, 'sent once more');
  const [after] = (await recipientsOf(id)).filter((r) => r.phone === '+4930910011');
  assert.notEqual(after!.status, 'skipped');
  clock.advance(3 * 86_400_000);
  await run();
  assert.equal(await messagesTo(id, '4930910011'), 2, 'once only');
  assert.equal(await messagesTo(id, '4930910012'), 1);
});

test('messaging tier: business-initiated conversations of the moving 24 hours counted; recipients over it deferred, then sent', async () => {
  const db = server.container.database.db;
  const tiered = (await officialChannel(server, 'Tiered')).id;
  await approvedTemplate(server, tiered, 'promo');
  await checkChannelHealth({ ...channelDeps(server.container), logger: server.container.logger }); // the watchdog's check
  const shown = await request(server, 'GET', `/v1/channels/${tiered}`, key());
  assert.equal(shown.body.data.limits.messaging_tier, 'unlimited', 'read from the provider');
  assert.equal(shown.body.data.limits.messaging_tier_source, 'provider');
  const bad = await request(server, 'PATCH', `/v1/channels/${tiered}`, { ...key(), body: { messaging_tier: '300' } });
  assert.equal(bad.status, 400, bad.text);
  const notLinked = await request(server, 'PATCH', `/v1/channels/${tiered}`, { ...key(), body: { daily_broadcast_cap: 10 } });
  assert.equal(notLinked.status, 400);
  assert.ok(
    notLinked.body.errors.some((e: any) => e.pointer === '/daily_broadcast_cap'),
    notLinked.text,
  );
  const set = await request(server, 'PATCH', `/v1/channels/${tiered}`, { ...key(), body: { messaging_tier: '250' } });
  assert.equal(set.status, 200, set.text);
  assert.deepEqual(set.body.data.limits, { messaging_tier: '250', messaging_tier_source: 'api', daily_broadcast_cap: null });

  const first = await create({ channel_id: tiered, audience: { phones: ['+4931000000'] } });
  assert.equal((await request(server, 'POST', `/v1/broadcasts/${first.body.data.id}/schedule`, key())).status, 200);
  await run();
  await waitForStatus(first.body.data.id, 'completed');
  // 248 more conversations opened today (as many templates to other numbers): 249 of 250.
  const columns = await queryRows<{ column_name: string }>(
    db,
    sql`select column_name from information_schema.columns
         where table_name = 'messages' and is_generated = 'NEVER' and column_name not in ('id', 'to_phone', 'provider_message_id')`,
  );
  const list = sql.raw(columns.map((c) => `"${c.column_name}"`).join(', '));
  await db.execute(sql`insert into messages (id, to_phone, provider_message_id, ${list})
    select gen_random_uuid(), '4932' || lpad(g::text, 6, '0'), null, ${list}
      from messages, generate_series(1, 248) g where messages.broadcast_id = ${first.body.data.id}`);

  const made = await create({ channel_id: tiered, audience: { phones: ['+4931000001', '+4931000002', '+4931000003'] } });
  const id = made.body.data.id as string;
  assert.equal((await request(server, 'POST', `/v1/broadcasts/${id}/schedule`, key())).status, 200);
  await run();
  await eventually('one sent', async () => ((await broadcastMessages(id)).length === 1 ? true : undefined));
  assert.deepEqual(
    (await recipientsOf(id, 'deferred')).map((r) => r.phone),
    ['+4931000002', '+4931000003'],
  );
  const report = await request(server, 'GET', `/v1/broadcasts/${id}/report`, key());
  assert.equal(report.body.data.by_status.deferred, 2);
  assert.equal(report.body.data.broadcast.status, 'sending', 'deferred, not failed');
  clock.advance(60 * 60_000);
  await run();
  assert.equal((await broadcastMessages(id)).length, 1, 'no room within the 24 hours');
  clock.advance(23 * 60 * 60_000 + 120_000);
  await run();
  await waitForStatus(id, 'completed');
  assert.equal((await broadcastMessages(id)).length, 3, 'sent when the window moved');
  assert.equal((await recipientsOf(id, 'deferred')).length, 0);
});

test('audience rules: marketing templates to +1 numbers are skipped (provider_restricted); open conversations with a person optionally', async () => {
  const db = server.container.database.db;
  await approvedTemplate(server, channelId, 'deal');
  await db.execute(sql`update templates set category = 'MARKETING' where channel_id = ${channelId} and name = 'deal'`);
  await customerWrites(server, channelId, '+4930920001');
  await db.execute(sql`update conversations set assignee_user_id = (select id from users order by created_at limit 1)
                        where channel_id = ${channelId} and peer_phone = '4930920001'`);
  const audience = { phones: ['+12025550123', '+4930920001', '+4930920002'] };
  const template = { name: 'deal', language: 'en_US', variables: ['x'] };
  const skipping = await create({ audience, template, skip_open_conversations: true });
  const counted = await request(server, 'GET', `/v1/broadcasts/${skipping.body.data.id}/audience-count`, key());
  assert.equal(counted.body.data.sendable, 1, counted.text);
  assert.equal(counted.body.data.skipped.provider_restricted, 1);
  assert.equal(counted.body.data.skipped.open_conversation, 1);
  const plain = await create({ audience, template });
  const all = await request(server, 'GET', `/v1/broadcasts/${plain.body.data.id}/audience-count`, key());
  assert.equal(all.body.data.sendable, 2, 'an open conversation is sent to unless asked');
  const utility = await create({ audience });
  assert.equal(
    (await request(server, 'GET', `/v1/broadcasts/${utility.body.data.id}/audience-count`, key())).body.data.skipped.provider_restricted,
    0,
    'a utility template goes to +1',
  );
});
