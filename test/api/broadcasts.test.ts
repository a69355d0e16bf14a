/**
 * Broadcasts end to end on the sandbox's official channel with an approved template: a segment and
 * numbers as the audience (a suppressed contact, a contact without a number and a number given twice
 * skipped with their reasons), its count before sending, each message accepted once with broadcast_id
 * and its variables filled, the recipients by status and the report; the per-minute pace by the
 * injected clock, pause and resume; the refusals naming the field; the auth cases.
 */
// stores: both
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { queryRows } from '../../src/db/client.ts';
import { runDueBroadcasts } from '../../src/domain/broadcasts/runner.ts';
import { messageDeps } from '../../src/container.ts';
import { checkAuthCases } from '../auth-cases.ts';
import { postContact } from '../contacts-fixtures.ts';
import { eventually } from '../eventually.ts';
import { movableClock, request, startTestServer, type TestServer } from '../harness.ts';
import { approvedTemplate, eventsOf, officialChannel } from '../messages-helpers.ts';

let server: TestServer;
const clock = movableClock();
const key = () => ({ key: server.apiKey });
let channelId: string;
let segmentId: string;
const c: Record<string, Record<string, any>> = {};

before(async () => {
  server = await startTestServer({ worker: true, clock });
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
