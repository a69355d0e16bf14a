import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { resolveInboundContact } from '../../src/domain/contacts/inbound.ts';
import { assertCodeError, eventsSince, insertChannel, outboxMark, postContact } from '../contacts-fixtures.ts';
import { loginCookie, request, startTestServer, type TestServer } from '../harness.ts';

let server: TestServer;
/** The server's clock runs this far ahead of the real one (to let suppressions lapse). */
let offset = 0;
let channelId: string;
let otherChannelId: string;
before(async () => {
  server = await startTestServer({ clock: { now: () => new Date(Date.now() + offset) } });
  channelId = await insertChannel(server, server.organizationId, 'Support');
  otherChannelId = await insertChannel(server, server.organizationId, 'Sales');
});
after(() => server.close());

const key = () => ({ key: server.apiKey });

test('identities list the record and channel ids; changing the phone replaces its identity', async () => {
  const c = await postContact(server, {
    phone_number: '+39 06 1234 5678',
    email: 'Luca@Example.com',
    external_source: 'erp',
    external_id: 'L-1',
  });
  await server.container.database.db.transaction((tx) =>
    resolveInboundContact(tx, server.organizationId, {
      phone: '+390612345678',
      identities: [
        { type: 'chatapp_id', value: '390612345678' },
        { type: 'business_scoped_user_id', value: 'IT.123' },
      ],
      at: new Date(),
    }),
  );
  const res = await request(server, 'GET', `/v1/contacts/${c.id}/identities`, key());
  assert.equal(res.status, 200, res.text);
  assert.equal(res.body.meta.next_cursor, null);
  const pairs = (body: any) =>
    body.data.map((i: { type: string; value: string; source: string | null }) => `${i.type}:${i.source ?? ''}:${i.value}`).sort();
  assert.deepEqual(pairs(res.body), [
    'business_scoped_user_id::IT.123',
    'chatapp_id::390612345678',
    'email::luca@example.com',
    'external_id:erp:L-1',
    'phone::+390612345678',
  ]);
  assert.ok(res.body.data.every((i: { created_at: string }) => !Number.isNaN(Date.parse(i.created_at))));

  await request(server, 'PATCH', `/v1/contacts/${c.id}`, {
    ...key(),
    body: { phone_number: '+39 06 8765 4321', external_source: null, external_id: null },
  });
  const after = await request(server, 'GET', `/v1/contacts/${c.id}/identities`, key());
  assert.deepEqual(pairs(after.body), [
    'business_scoped_user_id::IT.123',
    'chatapp_id::390612345678',
    'email::luca@example.com',
    'phone::+390687654321',
  ]);
});

test('notes: created with author and time, listed newest first by cursor, deleted; events for both', async () => {
  const c = await postContact(server, { phone_number: '+39 06 2222 3333', name: 'Noted' });
  const base = `/v1/contacts/${c.id}/notes`;
  const keys = await request(server, 'GET', '/v1/api-keys?limit=200', key());
  const keyId = keys.body.data.find((k: { name: string }) => k.name === 'Bootstrap key').id;
  const cookie = await loginCookie(server);
  const userId = (await request(server, 'GET', '/v1/auth/session', { cookie })).body.data.user.id;

  const mark = await outboxMark(server);
  const first = await request(server, 'POST', base, { ...key(), body: { body: '  Called, no answer.  ' } });
  assert.equal(first.status, 201, first.text);
  assert.equal(first.body.data.body, 'Called, no answer.');
  assert.equal(first.body.data.contact_id, c.id);
  assert.deepEqual(first.body.data.author, { type: 'api_key', id: keyId });
  assert.ok(Math.abs(Date.parse(first.body.data.created_at) - Date.now()) < 60_000);
  const second = await request(server, 'POST', base, {
    cookie,
    headers: { origin: server.baseUrl },
    body: { body: 'Wants the pro plan. Ünïcødé ✓' },
  });
  assert.equal(second.status, 201, second.text);
  assert.deepEqual(second.body.data.author, { type: 'user', id: userId });
  for (let i = 0; i < 3; i++) await request(server, 'POST', base, { ...key(), body: { body: `note ${i}` } });

  const all = await request(server, 'GET', `${base}?limit=200`, key());
  assert.deepEqual(
    all.body.data.map((n: { body: string }) => n.body),
    ['note 2', 'note 1', 'note 0', 'Wants the pro plan. Ünïcødé ✓', 'Called, no answer.'],
  );
  const page1 = await request(server, 'GET', `${base}?limit=2`, key());
  const page2 = await request(server, 'GET', `${base}?limit=2&cursor=${encodeURIComponent(page1.body.meta.next_cursor)}`, key());
  const page3 = await request(server, 'GET', `${base}?limit=2&cursor=${encodeURIComponent(page2.body.meta.next_cursor)}`, key());
  assert.deepEqual(
    [...page1.body.data, ...page2.body.data, ...page3.body.data].map((n: { id: string }) => n.id),
    all.body.data.map((n: { id: string }) => n.id),
  );
  assert.equal(page3.body.meta.next_cursor, null);

  const gone = await request(server, 'DELETE', `${base}/${first.body.data.id}`, key());
  assert.equal(gone.status, 204);
  assertCodeError(await request(server, 'DELETE', `${base}/${first.body.data.id}`, key()), 404, 'not_found', 'note not found');
  assertCodeError(await request(server, 'DELETE', `${base}/nope`, key()), 404, 'not_found', 'note not found');

  const events = await eventsSince(server, mark, 'crm.comment');
  const body = (id: string) => ({ comment_id: id, record_id: c.id, object_kind: 'contact', organization_id: server.organizationId });
  assert.equal(events.length, 6);
  assert.deepEqual(events[0], { type: 'crm.comment.created', payload: body(first.body.data.id) });
  assert.deepEqual(events[1], { type: 'crm.comment.created', payload: body(second.body.data.id) });
  assert.deepEqual(events[5], { type: 'crm.comment.deleted', payload: body(first.body.data.id) });

  // A note on one contact cannot be deleted through another.
  const other = await postContact(server, { phone_number: '+39 06 2222 4444' });
  assertCodeError(await request(server, 'DELETE', `/v1/contacts/${other.id}/notes/${second.body.data.id}`, key()), 404, 'not_found');
  assert.equal((await request(server, 'GET', `${base}?limit=200`, key())).body.data.length, 4);

  for (const bad of [{ body: '' }, { body: '   ' }, { body: 'x'.repeat(10_001) }, {}]) {
    const res = await request(server, 'POST', base, { ...key(), body: bad });
    assertCodeError(res, 400, 'invalid');
    assert.equal(res.body.errors[0].pointer, '/body');
  }
});

test('tags: assigned once per name (case-insensitive), listed, removed; events for both', async () => {
  const c = await postContact(server, { phone_number: '+39 06 3333 4444', name: 'Tagged' });
  const d = await postContact(server, { phone_number: '+39 06 3333 5555', name: 'Also' });
  const base = `/v1/contacts/${c.id}/tags`;
  const mark = await outboxMark(server);
  const vip = await request(server, 'POST', base, { ...key(), body: { tag: 'VIP' } });
  assert.equal(vip.status, 201, vip.text);
  assert.equal(vip.body.data.name, 'VIP');
  const again = await request(server, 'POST', base, { ...key(), body: { tag: ' vip ' } });
  assert.equal(again.status, 200);
  assert.deepEqual(again.body.data, vip.body.data, 'already assigned: the same assignment');
  assert.equal((await request(server, 'POST', base, { ...key(), body: { tag: 'Früh  Kunde' } })).status, 201);
  assert.equal((await request(server, 'POST', base, { ...key(), body: { tag: 'a/b & c?' } })).status, 201);
  const onD = await request(server, 'POST', `/v1/contacts/${d.id}/tags`, { ...key(), body: { tag: 'vip' } });
  assert.equal(onD.status, 201);
  assert.equal(onD.body.data.name, 'VIP', 'an existing tag name is reused as first written');

  const list = await request(server, 'GET', base, key());
  assert.equal(list.status, 200);
  assert.deepEqual(
    list.body.data.map((t: { name: string }) => t.name),
    ['a/b & c?', 'Früh Kunde', 'VIP'],
  );
  assert.equal(list.body.meta.next_cursor, null);
  assert.deepEqual((await request(server, 'GET', `/v1/contacts/${c.id}`, key())).body.data.tags, ['a/b & c?', 'Früh Kunde', 'VIP']);

  assert.equal((await request(server, 'DELETE', `${base}/${encodeURIComponent('a/b & c?')}`, key())).status, 204);
  assert.equal((await request(server, 'DELETE', `${base}/vIp`, key())).status, 204);
  assertCodeError(await request(server, 'DELETE', `${base}/vip`, key()), 404, 'not_found', 'tag assignment not found');
  assertCodeError(await request(server, 'DELETE', `${base}/never`, key()), 404, 'not_found');
  assert.deepEqual(
    (await request(server, 'GET', base, key())).body.data.map((t: { name: string }) => t.name),
    ['Früh Kunde'],
  );
  assert.deepEqual(
    (await request(server, 'GET', `/v1/contacts/${d.id}/tags`, key())).body.data.map((t: { name: string }) => t.name),
    ['VIP'],
    "the other contact's assignment stays",
  );

  const events = await eventsSince(server, mark, 'crm.list');
  const entry = (type: string, list: string, id = c.id) => ({
    type,
    payload: { list, list_id: null, record_id: id, object_kind: 'contact', organization_id: server.organizationId },
  });
  assert.deepEqual(events, [
    entry('crm.list.entry_added', 'VIP'),
    entry('crm.list.entry_added', 'Früh Kunde'),
    entry('crm.list.entry_added', 'a/b & c?'),
    entry('crm.list.entry_added', 'VIP', d.id),
    entry('crm.list.entry_removed', 'a/b & c?'),
    entry('crm.list.entry_removed', 'VIP'),
  ]);
  for (const bad of [{ tag: '' }, { tag: '   ' }, { tag: 'x'.repeat(101) }, { tag: 'bell\u0007' }, {}]) {
    const res = await request(server, 'POST', base, { ...key(), body: bad });
    assertCodeError(res, 400, 'invalid');
  }
});

test('consent per channel scope: created, replaced, listed; unknown channels refused', async () => {
  const c = await postContact(server, { phone_number: '+39 06 4444 5555' });
  const base = `/v1/contacts/${c.id}`;
  const granted = await request(server, 'PUT', `${base}/consent/${channelId}`, {
    ...key(),
    body: { state: 'granted', source: 'signup form', at: '2025-01-02T03:04:05Z' },
  });
  assert.equal(granted.status, 201, granted.text);
  assert.equal(granted.body.data.channel, channelId);
  assert.equal(granted.body.data.state, 'granted');
  assert.equal(granted.body.data.source, 'signup form');
  assert.equal(granted.body.data.recorded_at, '2025-01-02T03:04:05.000Z');
  const revoked = await request(server, 'PUT', `${base}/consent/${channelId.toUpperCase()}`, {
    ...key(),
    body: { state: 'revoked', source: 'replied STOP' },
  });
  assert.equal(revoked.status, 200, 'one consent per scope: replaced');
  assert.equal(revoked.body.data.state, 'revoked');
  assert.ok(Math.abs(Date.parse(revoked.body.data.recorded_at) - Date.now()) < 60_000, 'at defaults to now');
  assert.equal((await request(server, 'PUT', `${base}/consent/ChatApp`, { ...key(), body: { state: 'granted' } })).status, 201);
  assert.equal((await request(server, 'PUT', `${base}/consent/all`, { ...key(), body: { state: 'granted' } })).status, 201);

  const list = await request(server, 'GET', `${base}/consents`, key());
  assert.equal(list.status, 200);
  assert.deepEqual(
    list.body.data.map((k: { channel: string; state: string; source: string | null }) => [k.channel, k.state, k.source]),
    [
      [channelId, 'revoked', 'replied STOP'],
      ['chatapp', 'granted', null],
      ['all', 'granted', null],
    ],
  );

  assertCodeError(
    await request(server, 'PUT', `${base}/consent/sms`, { ...key(), body: { state: 'granted' } }),
    404,
    'not_found',
    'channel not found',
  );
  assertCodeError(
    await request(server, 'PUT', `${base}/consent/0196a0e2-7c1e-7a59-9a4c-2f5d3f3b8a10`, { ...key(), body: { state: 'granted' } }),
    404,
    'not_found',
    'channel not found',
  );
  const badState = await request(server, 'PUT', `${base}/consent/all`, { ...key(), body: { state: 'maybe' } });
  assertCodeError(badState, 400, 'invalid');
  assert.equal(badState.body.errors[0].pointer, '/state');
  const future = await request(server, 'PUT', `${base}/consent/all`, {
    ...key(),
    body: { state: 'granted', at: new Date(Date.now() + 86_400_000).toISOString() },
  });
  assertCodeError(future, 400, 'invalid');
  assert.equal(future.body.errors[0].pointer, '/at');
});

test('suppressions per channel scope: created, updated, listed with their lapse, lifted; unknown channels refused', async () => {
  const c = await postContact(server, { phone_number: '+39 06 5555 6666' });
  const base = `/v1/contacts/${c.id}/suppressions`;
  const soon = new Date(Date.now() + 3_600_000).toISOString();
  const first = await request(server, 'POST', base, {
    ...key(),
    body: { channel: otherChannelId, reason: 'complained', expires_at: soon },
  });
  assert.equal(first.status, 201, first.text);
  assert.deepEqual(
    {
      channel: first.body.data.channel,
      reason: first.body.data.reason,
      expires_at: first.body.data.expires_at,
      active: first.body.data.active,
    },
    { channel: otherChannelId, reason: 'complained', expires_at: new Date(soon).toISOString(), active: true },
  );
  const updated = await request(server, 'POST', base, { ...key(), body: { channel: otherChannelId, reason: 'complained twice' } });
  assert.equal(updated.status, 200);
  assert.equal(updated.body.data.reason, 'complained twice');
  assert.equal(updated.body.data.expires_at, null, 'no expiry: until lifted');
  assert.equal(
    (await request(server, 'POST', base, { ...key(), body: { channel: 'all', reason: 'legal hold', expires_at: soon } })).status,
    201,
  );

  const list = await request(server, 'GET', base, key());
  assert.deepEqual(
    list.body.data.map((s: { channel: string; active: boolean }) => [s.channel, s.active]),
    [
      [otherChannelId, true],
      ['all', true],
    ],
  );
  offset = 2 * 3_600_000;
  try {
    const later = await request(server, 'GET', base, key());
    assert.deepEqual(
      later.body.data.map((s: { channel: string; active: boolean }) => [s.channel, s.active]),
      [
        [otherChannelId, true],
        ['all', false],
      ],
      'a lapsed suppression is listed inactive',
    );
  } finally {
    offset = 0;
  }

  assert.equal((await request(server, 'DELETE', `${base}/all`, key())).status, 204);
  assertCodeError(await request(server, 'DELETE', `${base}/all`, key()), 404, 'not_found', 'suppression not found');
  assert.deepEqual(
    (await request(server, 'GET', base, key())).body.data.map((s: { channel: string }) => s.channel),
    [otherChannelId],
  );

  for (const [body, pointer] of [
    [{ channel: 'sms', reason: 'x' }, '/channel'],
    [{ channel: '0196a0e2-7c1e-7a59-9a4c-2f5d3f3b8a10', reason: 'x' }, '/channel'],
    [{ channel: 'all' }, '/reason'],
    [{ channel: 'all', reason: '' }, '/reason'],
    [{ channel: 'all', reason: 'x', expires_at: '2020-01-01T00:00:00Z' }, '/expires_at'],
    [{ channel: 'all', reason: 'x', expires_at: 'next week' }, '/expires_at'],
  ] as const) {
    const res = await request(server, 'POST', base, { ...key(), body });
    assertCodeError(res, 400, 'invalid');
    assert.equal(res.body.errors[0].pointer, pointer, JSON.stringify(body));
  }
});
