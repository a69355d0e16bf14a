/**
 * resolveInboundContact, the function the messages module calls for every inbound message, against
 * the database: find, create, attach identities, merge.
 */
// stores: both
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { eq, sql } from 'drizzle-orm';
import { queryRows, type Database } from '../../src/db/client.ts';
import { migrate } from '../../src/db/migrate.ts';
import { contacts, conversations, messages } from '../../src/db/schema.ts';
import type { Actor } from '../../src/domain/actor.ts';
import { putConsent, listConsents, listSuppressions, upsertSuppression } from '../../src/domain/contacts/consents.ts';
import { getContact, lookupContact, upsertContact } from '../../src/domain/contacts/contacts.ts';
import { identitiesOf } from '../../src/domain/contacts/identities.ts';
import { resolveInboundContact } from '../../src/domain/contacts/inbound.ts';
import { createNote, listNotes } from '../../src/domain/contacts/notes.ts';
import { addContactTag, listContactTags } from '../../src/domain/contacts/tags.ts';
import { createOrganization } from '../../src/domain/organizations/organizations.ts';
import { PERMISSIONS } from '../../src/domain/permissions.ts';
import { uuidv7 } from '../../src/lib/ids.ts';
import { createTestDatabase, movableClock, type TestDatabase } from '../harness.ts';

let testDb: TestDatabase;
let database: Database;
let actor: Actor;
let otherActor: Actor;
/** Moved forward by hand where a contact must be older than the next. */
const clock = movableClock();
const deps = () => ({ db: database.db, clock });

async function organization(name: string): Promise<Actor> {
  const { organizationId } = await createOrganization(deps(), {
    name,
    owner: { email: `${name}-${uuidv7().slice(-8)}@example.com`, name, password: 'correct horse battery staple' },
  });
  return { kind: 'system', organizationId, permissions: new Set(PERMISSIONS) };
}

before(async () => {
  testDb = await createTestDatabase();
  database = testDb.database;
  await migrate(database);
  actor = await organization('inbound');
  otherActor = await organization('elsewhere');
});
after(() => testDb.drop());

const resolve = (
  input: { phone: string; profileName?: string; identities?: Array<{ type: string; value: string }> },
  org = actor.organizationId,
) => database.db.transaction((tx) => resolveInboundContact(tx, org, { identities: [], at: clock.now(), ...input }));

async function events(mark: number, org = actor.organizationId) {
  const rows = await queryRows<{ type: string; payload: any }>(
    database.db,
    sql`select type, payload from events where organization_id = ${org} and seq > ${mark} order by seq`,
  );
  return rows.map((r) => ({ type: r.type, payload: typeof r.payload === 'string' ? JSON.parse(r.payload) : r.payload }));
}
async function mark() {
  const [row] = await queryRows<{ seq: string | null }>(database.db, sql`select max(seq) as seq from events`);
  return Number(row?.seq ?? 0);
}

test('an unknown sender becomes a contact with its identities, recording contact.updated and crm.record.created', async () => {
  const m = await mark();
  const first = await resolve({
    phone: '+447700900001',
    profileName: 'Priya',
    identities: [
      { type: 'chatapp_id', value: '447700900001' },
      { type: 'business_scoped_user_id', value: 'GB.priya' },
    ],
  });
  assert.equal(first.created, true);
  const record = await getContact(deps(), actor, { contactId: first.contactId });
  assert.equal(record.phoneNumber, '+447700900001');
  assert.equal(record.name, 'Priya');
  const ids = (await identitiesOf(database.db, first.contactId)).map((i) => `${i.type}:${i.value}`).sort();
  assert.deepEqual(ids, ['business_scoped_user_id:GB.priya', 'chatapp_id:447700900001', 'phone:+447700900001']);
  assert.deepEqual(await events(m), [
    { type: 'contact.updated', payload: { contact_id: first.contactId, name: 'Priya', organization_id: actor.organizationId } },
    {
      type: 'crm.record.created',
      payload: { object_kind: 'contact', record_id: first.contactId, display_name: 'Priya', organization_id: actor.organizationId },
    },
  ]);

  // The next message finds it by any identity, records nothing, and attaches what is new.
  const m2 = await mark();
  const again = await resolve({
    phone: '+447700900001',
    profileName: 'Priya P.',
    identities: [{ type: 'chatapp_id', value: '447700900001' }],
  });
  assert.deepEqual(again, { contactId: first.contactId, created: false });
  const byBsuid = await resolve({
    phone: '+447700900001',
    identities: [
      { type: 'business_scoped_user_id', value: 'GB.priya' },
      { type: 'username', value: '@Priya_P' },
    ],
  });
  assert.deepEqual(byBsuid, { contactId: first.contactId, created: false });
  assert.deepEqual(await events(m2), [], 'finding a contact and attaching an identity records nothing');
  assert.equal((await getContact(deps(), actor, { contactId: first.contactId })).name, 'Priya', 'a name already set is kept');
  assert.ok((await identitiesOf(database.db, first.contactId)).some((i) => i.type === 'username' && i.value === 'priya_p'));
  assert.equal((await lookupContact(deps(), actor, { identifiers: [{ type: 'chatapp_id', value: 'GB.priya' }] })).id, first.contactId);

  // Unknown identity types and values that are no identity are skipped, not fatal.
  const skipped = await resolve({
    phone: '+447700900001',
    identities: [
      { type: 'fax', value: '1' },
      { type: 'email', value: 'not-an-email' },
      { type: 'external_id', value: 'x' },
    ],
  });
  assert.equal(skipped.contactId, first.contactId);

  // The same sender in another organization is another contact.
  const elsewhere = await resolve(
    { phone: '+447700900001', identities: [{ type: 'chatapp_id', value: '447700900001' }] },
    otherActor.organizationId,
  );
  assert.equal(elsewhere.created, true);
  assert.notEqual(elsewhere.contactId, first.contactId);
});

test('an inbound message fills an imported contact: it is found by phone and given a name and its chat-app ids', async () => {
  const imported = await upsertContact(deps(), actor, { phoneNumber: '+447700900002', email: 'sam@example.com' });
  const m = await mark();
  const found = await resolve({ phone: '+447700900002', profileName: 'Sam', identities: [{ type: 'chatapp_id', value: '447700900002' }] });
  assert.deepEqual(found, { contactId: imported.contact.id, created: false });
  assert.equal((await getContact(deps(), actor, { contactId: found.contactId })).name, 'Sam');
  assert.deepEqual(
    (await events(m)).map((e) => e.type),
    ['contact.updated', 'crm.record.updated'],
  );
});

test('identities that belong to two contacts merge them into the older; everything moves and lookups find the survivor', async () => {
  const channelId = uuidv7();
  const older = await upsertContact(deps(), actor, {
    phoneNumber: '+447700900010',
    email: 'olu@example.com',
    customFields: { tier: 'gold', region: 'north' },
  });
  clock.advance(5);
  // A second contact, known only by a privacy id and another number (the provider did not tell us they were one person).
  const younger = await resolve({
    phone: '+447700900011',
    profileName: 'Olu',
    identities: [
      { type: 'business_scoped_user_id', value: 'GB.olu' },
      { type: 'linked_id', value: '555000111@lid' },
    ],
  });
  const olderId = older.contact.id;
  const youngerId = younger.contactId;
  await upsertContact(deps(), actor, { email: 'x@example.com' }); // unrelated

  await createNote(deps(), actor, { contactId: youngerId, body: 'from the younger' });
  await createNote(deps(), actor, { contactId: olderId, body: 'from the older' });
  await addContactTag(deps(), actor, { contactId: youngerId, tag: 'lead' });
  await addContactTag(deps(), actor, { contactId: youngerId, tag: 'shared' });
  await addContactTag(deps(), actor, { contactId: olderId, tag: 'shared' });
  await putConsent(deps(), actor, { contactId: olderId, channel: 'all', state: 'granted', at: new Date('2025-01-01T00:00:00Z') });
  await putConsent(deps(), actor, {
    contactId: youngerId,
    channel: 'all',
    state: 'revoked',
    source: 'STOP',
    at: new Date('2025-02-01T00:00:00Z'),
  });
  await putConsent(deps(), actor, { contactId: youngerId, channel: 'chatapp', state: 'granted', at: new Date('2025-02-01T00:00:00Z') });
  await upsertSuppression(deps(), actor, {
    contactId: olderId,
    channel: 'chatapp',
    reason: 'short',
    expiresAt: new Date(clock.now().getTime() + 3_600_000),
  });
  await upsertSuppression(deps(), actor, { contactId: youngerId, channel: 'chatapp', reason: 'forever' });
  await database.db
    .insert(conversations)
    .values({ id: uuidv7(), organizationId: actor.organizationId, channelId, peerPhone: '447700900011', contactId: youngerId });
  const [conversation] = await database.db.select().from(conversations).where(eq(conversations.contactId, youngerId));
  const messageId = uuidv7();
  await database.db.insert(messages).values({
    id: messageId,
    organizationId: actor.organizationId,
    channelId,
    conversationId: conversation!.id,
    contactId: youngerId,
    direction: 'inbound',
    toPhone: '447700900099',
    fromPhone: '447700900011',
    type: 'text',
    content: { body: 'hi' },
    status: 'received',
  });

  // The provider now reports the older contact's number with the younger one's privacy id.
  const m = await mark();
  const merged = await resolve({
    phone: '+447700900010',
    identities: [
      { type: 'business_scoped_user_id', value: 'GB.olu' },
      { type: 'chatapp_id', value: '447700900010' },
    ],
  });
  assert.deepEqual(merged, { contactId: olderId, created: false });

  const survivor = await getContact(deps(), actor, { contactId: olderId });
  assert.equal(survivor.phoneNumber, '+447700900010', "the survivor's own fields stay");
  assert.equal(survivor.email, 'olu@example.com');
  assert.equal(survivor.name, 'Olu', 'empty fields are filled from the merged contact');
  assert.deepEqual(survivor.customFields, { tier: 'gold', region: 'north' });
  await assert.rejects(getContact(deps(), actor, { contactId: youngerId }), /contact not found/);

  const ids = (await identitiesOf(database.db, olderId)).map((i) => `${i.type}:${i.value}`).sort();
  assert.deepEqual(ids, [
    'business_scoped_user_id:GB.olu',
    'chatapp_id:447700900010',
    'email:olu@example.com',
    'linked_id:555000111',
    'phone:+447700900010',
    'phone:+447700900011',
  ]);
  for (const identifier of [
    { type: 'phone', value: '+447700900011' },
    { type: 'chatapp', value: '555000111@lid' },
    { type: 'chatapp_id', value: 'GB.olu' },
    { type: 'email', value: 'OLU@example.com' },
  ]) {
    assert.equal((await lookupContact(deps(), actor, { identifiers: [identifier] })).id, olderId, JSON.stringify(identifier));
  }
  assert.deepEqual((await listNotes(deps(), actor, { contactId: olderId, limit: 50 })).items.map((n) => n.body).sort(), [
    'from the older',
    'from the younger',
  ]);
  assert.deepEqual(
    (await listContactTags(deps(), actor, { contactId: olderId })).map((t) => t.name),
    ['lead', 'shared'],
  );
  const consents = Object.fromEntries((await listConsents(deps(), actor, { contactId: olderId })).map((k) => [k.channel, k.state]));
  assert.deepEqual(consents, { all: 'revoked', chatapp: 'granted' }, 'per scope, the latest statement wins');
  const suppressions = await listSuppressions(deps(), actor, { contactId: olderId });
  assert.deepEqual(
    suppressions.map((s) => [s.channel, s.reason, s.expiresAt]),
    [['chatapp', 'forever', null]],
    'per scope, the longer suppression wins',
  );
  const [message] = await database.db.select().from(messages).where(eq(messages.id, messageId));
  assert.equal(message!.contactId, olderId, 'messages move to the survivor');
  const [moved] = await database.db.select().from(conversations).where(eq(conversations.id, conversation!.id));
  assert.equal(moved!.contactId, olderId, 'conversations move to the survivor');
  const [left] = await queryRows<{ n: number }>(
    database.db,
    sql`select (select count(*) from contact_tags where contact_id = ${youngerId}) + (select count(*) from contact_consents where contact_id = ${youngerId})
             + (select count(*) from contact_suppressions where contact_id = ${youngerId}) + (select count(*) from contact_identities where contact_id = ${youngerId})
             + (select count(*) from comments where contact_id = ${youngerId}) as n`,
  );
  assert.equal(Number(left!.n), 0, 'nothing is left on the merged contact');
  assert.equal((await database.db.select().from(contacts).where(eq(contacts.id, youngerId))).length, 0);

  const recorded = await events(m);
  const record = (id: string, name: string | null) => ({
    object_kind: 'contact',
    record_id: id,
    display_name: name,
    organization_id: actor.organizationId,
  });
  assert.deepEqual(
    recorded.filter((e) => e.type.startsWith('crm.')),
    [
      { type: 'crm.record.deleted', payload: record(youngerId, 'Olu') },
      { type: 'crm.record.updated', payload: record(olderId, 'Olu') },
    ],
  );
  assert.deepEqual(
    recorded.filter((e) => e.type === 'contact.updated'),
    [{ type: 'contact.updated', payload: { contact_id: olderId, name: 'Olu', organization_id: actor.organizationId } }],
  );

  // And the next message from either finds the survivor without merging again.
  const m2 = await mark();
  assert.deepEqual(await resolve({ phone: '+447700900011', identities: [{ type: 'linked_id', value: '555000111' }] }), {
    contactId: olderId,
    created: false,
  });
  assert.deepEqual(await events(m2), []);
});

test('three contacts merge at once into the oldest', async () => {
  const a = await resolve({ phone: '+447700900020', identities: [{ type: 'username', value: 'ann' }] });
  clock.advance(3);
  const b = await resolve({ phone: '+447700900021', identities: [{ type: 'linked_id', value: '777' }] });
  clock.advance(3);
  const c = await resolve({ phone: '+447700900022', identities: [{ type: 'business_scoped_user_id', value: 'GB.ann' }] });
  const m = await mark();
  const result = await resolve({
    phone: '+447700900022',
    identities: [
      { type: 'username', value: 'ANN' },
      { type: 'linked_id', value: '777@lid' },
    ],
  });
  assert.deepEqual(result, { contactId: a.contactId, created: false });
  const recorded = (await events(m)).filter((e) => e.type.startsWith('crm.'));
  assert.deepEqual(
    recorded.map((e) => [e.type, e.payload.record_id]).sort(),
    [
      ['crm.record.deleted', b.contactId],
      ['crm.record.deleted', c.contactId],
      ['crm.record.updated', a.contactId],
    ].sort(),
  );
  for (const phone of ['+447700900020', '+447700900021', '+447700900022']) {
    assert.equal((await lookupContact(deps(), actor, { identifiers: [{ type: 'phone', value: phone }] })).id, a.contactId);
  }
});

test('two messages from a new sender at once make one contact', async () => {
  const input = { phone: '+447700900030', profileName: 'Race', identities: [{ type: 'chatapp_id', value: '447700900030' }] };
  const results = await Promise.all([resolve(input), resolve(input), resolve(input)]);
  assert.equal(new Set(results.map((r) => r.contactId)).size, 1);
  assert.equal(results.filter((r) => r.created).length, 1);
  const [row] = await queryRows<{ n: number }>(
    database.db,
    sql`select count(*)::int as n from contact_identities where organization_id = ${actor.organizationId} and value = '+447700900030'`,
  );
  assert.equal(row!.n, 1);
});
