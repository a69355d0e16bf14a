/**
 * Merging a duplicate contact into another through the API: the preview (what would move, counted per
 * kind; the conflicts and the side kept) changes nothing; the merge moves every kind to the survivor
 * (deal links among them), fills its empty fields, deletes the duplicate with crm.record.deleted and
 * contact.merged; contacts of two organizations never merge; a contact is not merged into itself.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { checkAuthCases } from '../auth-cases.ts';
import { assertCodeError, eventsSince, insertChannel, insertMessage, outboxMark, postContact } from '../contacts-fixtures.ts';
import { created } from '../crm-helpers.ts';
import { createOtherOrganization, request, startTestServer, type TestServer } from '../harness.ts';

let server: TestServer;
let other: Awaited<ReturnType<typeof createOtherOrganization>>;

before(async () => {
  server = await startTestServer();
  other = await createOtherOrganization(server, 'merge');
});
after(() => server.close());

const call = (method: string, path: string, body?: unknown, key = server.apiKey) => request(server, method, path, { key, body });
const ok = async (method: string, path: string, body?: unknown) => {
  const res = await call(method, path, body);
  assert.ok(res.status < 300, `${method} ${path}: ${res.status} ${res.text}`);
  return res.body;
};

test('the preview counts what would move and names the conflicts, changing nothing; the merge moves it all, deals included', async () => {
  const keep = await postContact(server, { phone_number: '+4915112700001', name: 'Ana Souza', custom_fields: { plan: 'pro' } });
  const dup = await postContact(server, {
    phone_number: '+4915112700002',
    name: 'Ana S.',
    email: 'ana-merge@example.com',
    custom_fields: { plan: 'basic', city: 'Lisbon' },
  });
  await ok('POST', `/v1/contacts/${dup.id}/tags`, { tag: 'newsletter' });
  await ok('POST', `/v1/contacts/${keep.id}/tags`, { tag: 'vip' });
  await ok('POST', `/v1/contacts/${dup.id}/tags`, { tag: 'vip' });
  await ok('PUT', `/v1/contacts/${keep.id}/consent/all`, { state: 'granted', recorded_at: '2025-01-01T00:00:00Z' });
  await ok('PUT', `/v1/contacts/${dup.id}/consent/all`, { state: 'revoked', recorded_at: '2025-02-01T00:00:00Z' });
  await ok('POST', `/v1/contacts/${dup.id}/notes`, { body: 'met at the fair' });
  const shared = await created(server, '/v1/deals', { name: 'Both on it', contact_ids: [keep.id, dup.id] });
  const own = await created(server, '/v1/deals', { name: 'Only the duplicate', contact_ids: [dup.id] });
  const task = await created(server, '/v1/tasks', { title: 'Call Ana', targets: [{ kind: 'contact', id: dup.id }] });
  const channel = await insertChannel(server, server.organizationId);
  const { conversationId } = await insertMessage(server, server.organizationId, dup.id, channel);

  const preview = await call('POST', `/v1/contacts/${keep.id}/merge/preview`, { duplicate_id: dup.id });
  assert.equal(preview.status, 200, preview.text);
  const p = preview.body.data;
  assert.equal(p.survivor.id, keep.id);
  assert.equal(p.duplicate.id, dup.id);
  assert.deepEqual(
    { name: p.result.name, email: p.result.email, phone: p.result.phone_number, fields: p.result.custom_fields, tags: p.result.tags },
    {
      name: 'Ana Souza',
      email: 'ana-merge@example.com',
      phone: '+4915112700001',
      fields: { plan: 'pro', city: 'Lisbon' },
      tags: ['newsletter', 'vip'],
    },
  );
  assert.deepEqual(p.moves, {
    identities: 2, // the duplicate's phone and email
    comments: 1,
    tags: 1, // vip is the survivor's already
    consents: 1, // the later statement
    suppressions: 0,
    conversations: 1,
    messages: 1,
    deals: 1, // the shared deal lists the survivor already
    tasks: 1,
    relationships: 0,
  });
  assert.deepEqual(p.conflicts, [
    { kind: 'field', name: 'name', survivor: ['Ana Souza'], duplicate: ['Ana S.'], resolution: 'survivor_kept' },
    { kind: 'field', name: 'phone_number', survivor: ['+4915112700001'], duplicate: ['+4915112700002'], resolution: 'survivor_kept' },
    { kind: 'custom_field', name: 'plan', survivor: ['"pro"'], duplicate: ['"basic"'], resolution: 'survivor_kept' },
    { kind: 'identity', name: 'phone', survivor: ['+4915112700001'], duplicate: ['+4915112700002'], resolution: 'both_kept' },
    { kind: 'consent', name: 'all', survivor: ['granted'], duplicate: ['revoked'], resolution: 'duplicate_kept' },
  ]);
  assert.equal((await call('GET', `/v1/contacts/${dup.id}`)).status, 200, 'the preview changed nothing');

  const mark = await outboxMark(server);
  const merged = await call('POST', `/v1/contacts/${keep.id}/merge`, { duplicate_id: dup.id });
  assert.equal(merged.status, 200, merged.text);
  const { updated_at: _updatedAt, ...mergedRest } = merged.body.data;
  const { updated_at: _previewAt, ...previewRest } = p.result;
  assert.deepEqual(mergedRest, previewRest, 'the merge did what the preview said');
  assertCodeError(await call('GET', `/v1/contacts/${dup.id}`), 404, 'not_found');

  const dealContacts = async (id: string) => (await ok('GET', `/v1/deals/${id}`)).data.contact_ids;
  assert.deepEqual(await dealContacts(shared.id), [keep.id]);
  assert.deepEqual(await dealContacts(own.id), [keep.id]);
  assert.deepEqual(
    (await ok('GET', `/v1/tasks/${task.id}`)).data.targets.map((t: { id: string }) => t.id),
    [keep.id],
  );
  assert.deepEqual(
    (await ok('GET', `/v1/contacts/${keep.id}/notes`)).data.map((n: { body: string }) => n.body),
    ['met at the fair'],
  );
  assert.deepEqual(
    (await ok('GET', `/v1/contacts/${keep.id}/identities`)).data.map((i: { type: string; value: string }) => `${i.type}:${i.value}`).sort(),
    ['email:ana-merge@example.com', 'phone:+4915112700001', 'phone:+4915112700002'],
  );
  assert.deepEqual(
    (await ok('GET', `/v1/contacts/${keep.id}/consents`)).data.map((c: { channel: string; state: string }) => [c.channel, c.state]),
    [['all', 'revoked']],
  );
  assert.equal((await ok('GET', `/v1/conversations/${conversationId}`)).data.contact_id, keep.id);

  const events = await eventsSince(server, mark);
  assert.deepEqual(
    events.map((e) => e.type),
    ['crm.record.deleted', 'contact.merged', 'contact.updated', 'crm.record.updated'],
  );
  assert.deepEqual(events[1]!.payload, { contact_id: keep.id, merged_contact_id: dup.id, organization_id: server.organizationId });
  assert.equal(events[0]!.payload.record_id, dup.id);
});

test('contacts of two organizations never merge; a contact is not merged into itself; the body is checked', async () => {
  const mine = await postContact(server, { phone_number: '+4915112700011', name: 'Mine' });
  const theirs = await postContact(server, { phone_number: '+4915112700012', name: 'Theirs' }, other.apiKey);
  for (const path of [`/v1/contacts/${mine.id}/merge`, `/v1/contacts/${mine.id}/merge/preview`]) {
    const res = await call('POST', path, { duplicate_id: theirs.id });
    assertCodeError(res, 400, 'invalid', /duplicate_id/);
    assertCodeError(await call('POST', path, { duplicate_id: mine.id }), 400, 'invalid', /duplicate_id/);
    assertCodeError(await call('POST', path, {}), 400, 'invalid', /duplicate_id/);
    assertCodeError(await call('POST', path, { duplicate_id: 'nope' }), 400, 'invalid', /duplicate_id/);
  }
  for (const suffix of ['merge', 'merge/preview'])
    assertCodeError(await call('POST', `/v1/contacts/${theirs.id}/${suffix}`, { duplicate_id: mine.id }), 404, 'not_found');
  assert.equal((await call('GET', `/v1/contacts/${theirs.id}`, undefined, other.apiKey)).status, 200, 'theirs is untouched');
  assert.equal((await call('GET', `/v1/contacts/${mine.id}`)).status, 200, 'mine is untouched');
});

test('the merge routes need contacts:write and contacts:read', async () => {
  const a = await postContact(server, { phone_number: '+4915112700021' });
  const b = await postContact(server, { phone_number: '+4915112700022' });
  await checkAuthCases(server, [
    { method: 'POST', path: `/v1/contacts/${a.id}/merge/preview`, body: { duplicate_id: b.id }, permission: 'contacts:read' },
    { method: 'POST', path: `/v1/contacts/${a.id}/merge`, body: { duplicate_id: b.id }, permission: 'contacts:write' },
  ]);
});
