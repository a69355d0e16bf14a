/**
 * The CRM's send rules (refusalQuery, which the accepting statement joins to every message; run here
 * alone through checkSendPolicy) against the database: suppressions and revoked consents refuse, by
 * channel, `chatapp` and `all`, until they lapse.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Database } from '../../src/db/client.ts';
import { migrate } from '../../src/db/migrate.ts';
import { channels } from '../../src/db/schema.ts';
import type { Actor } from '../../src/domain/actor.ts';
import { deleteSuppression, putConsent, upsertSuppression } from '../../src/domain/contacts/consents.ts';
import { deleteContact, upsertContact } from '../../src/domain/contacts/contacts.ts';
import { resolveInboundContact } from '../../src/domain/contacts/inbound.ts';
import { checkSendPolicy } from '../../src/domain/contacts/policy.ts';
import { createOrganization } from '../../src/domain/organizations/organizations.ts';
import { PERMISSIONS } from '../../src/domain/permissions.ts';
import { systemClock } from '../../src/lib/clock.ts';
import { uuidv7 } from '../../src/lib/ids.ts';
import { createTestDatabase, type TestDatabase } from '../harness.ts';

let testDb: TestDatabase;
let database: Database;
let actor: Actor;
let other: Actor;
let support: string;
let sales: string;
const clock = systemClock;
const deps = () => ({ db: database.db, clock });

async function organization(name: string): Promise<Actor> {
  const { organizationId } = await createOrganization(deps(), {
    name,
    owner: { email: `${name}-${uuidv7().slice(-8)}@example.com`, name, password: 'correct horse battery staple' },
  });
  return { kind: 'system', organizationId, permissions: new Set(PERMISSIONS) };
}

async function channel(org: Actor, name: string): Promise<string> {
  const id = uuidv7();
  await database.db
    .insert(channels)
    .values({ id, organizationId: org.organizationId, platform: 'chatapp_official', name, status: 'connected' });
  return id;
}

before(async () => {
  testDb = await createTestDatabase();
  database = testDb.database;
  await migrate(database);
  actor = await organization('policy');
  other = await organization('policy-other');
  support = await channel(actor, 'Support');
  sales = await channel(actor, 'Sales');
});
after(() => testDb.drop());

const check = (phone: string, channelId: string, options: { isTemplate?: boolean; at?: Date; org?: string } = {}) =>
  database.db.transaction((tx) =>
    checkSendPolicy(tx, options.org ?? actor.organizationId, {
      phone,
      channelId,
      isTemplate: options.isTemplate ?? false,
      at: options.at ?? new Date(),
    }),
  );

async function contactWith(phone: string): Promise<string> {
  return (await upsertContact(deps(), actor, { phoneNumber: phone })).contact.id;
}

test('a number with no contact, or a contact with nothing recorded, may be messaged', async () => {
  assert.deepEqual(await check('+15550000001', support), { allowed: true });
  await contactWith('+15550000002');
  assert.deepEqual(await check('+15550000002', support), { allowed: true });
  assert.deepEqual(await check('+15550000002', support, { isTemplate: true }), { allowed: true });
});

test('a suppression refuses its channel only; `chatapp` and `all` refuse every channel; a lapsed one no longer does', async () => {
  const id = await contactWith('+15550000010');
  await upsertSuppression(deps(), actor, { contactId: id, channel: support, reason: 'asked us to stop on support' });
  const refused = await check('+15550000010', support);
  assert.equal(refused.allowed, false);
  assert.equal(refused.allowed === false && refused.code, 'suppressed');
  assert.match(refused.allowed === false ? refused.reason : '', /suppressed on this channel: asked us to stop on support/);
  assert.deepEqual(await check('+15550000010', sales), { allowed: true }, 'another channel is not suppressed');
  assert.equal((await check('+15550000010', support, { isTemplate: true })).allowed, false, 'templates too');

  const until = new Date(Date.now() + 3_600_000);
  const id2 = await contactWith('+15550000011');
  await upsertSuppression(deps(), actor, { contactId: id2, channel: 'chatapp', reason: 'cooling off', expiresAt: until });
  for (const ch of [support, sales]) {
    const result = await check('+15550000011', ch);
    assert.equal(result.allowed === false && result.code, 'suppressed');
    assert.match(
      result.allowed === false ? result.reason : '',
      new RegExp(`every chat-app channel until ${until.toISOString()}: cooling off`),
    );
  }
  assert.deepEqual(await check('+15550000011', support, { at: new Date(until.getTime() + 1) }), { allowed: true }, 'lapsed');

  const id3 = await contactWith('+15550000012');
  await upsertSuppression(deps(), actor, { contactId: id3, channel: 'all', reason: 'legal hold' });
  assert.equal((await check('+15550000012', sales)).allowed, false);
  await deleteSuppression(deps(), actor, { contactId: id3, channel: 'all' });
  assert.deepEqual(await check('+15550000012', sales), { allowed: true }, 'lifted');
});

test('a revoked consent refuses its scope, templates included; the latest statement among the scopes decides', async () => {
  const id = await contactWith('+15550000020');
  await putConsent(deps(), actor, {
    contactId: id,
    channel: support,
    state: 'revoked',
    source: 'replied STOP',
    at: new Date('2025-03-01T00:00:00Z'),
  });
  const refused = await check('+15550000020', support, { isTemplate: true });
  assert.deepEqual(refused, {
    allowed: false,
    code: 'consent_revoked',
    reason: 'the contact revoked consent for this channel at 2025-03-01T00:00:00.000Z (source: replied STOP); templates are refused too',
  });
  assert.equal((await check('+15550000020', support)).allowed, false, 'session messages too');
  assert.deepEqual(await check('+15550000020', sales), { allowed: true });

  // A later grant on `all` overrides the older channel revocation...
  await putConsent(deps(), actor, { contactId: id, channel: 'all', state: 'granted', at: new Date('2025-04-01T00:00:00Z') });
  assert.deepEqual(await check('+15550000020', support), { allowed: true });
  // ...and a later revocation on `chatapp` covers every channel again.
  await putConsent(deps(), actor, { contactId: id, channel: 'chatapp', state: 'revoked', at: new Date('2025-05-01T00:00:00Z') });
  const again = await check('+15550000020', sales);
  assert.equal(again.allowed === false && again.code, 'consent_revoked');
  assert.match(again.allowed === false ? again.reason : '', /every chat-app channel at 2025-05-01/);
  await putConsent(deps(), actor, { contactId: id, channel: sales, state: 'granted', at: new Date('2025-06-01T00:00:00Z') });
  assert.deepEqual(await check('+15550000020', sales), { allowed: true }, 'a newer grant on the channel itself');
  assert.equal((await check('+15550000020', support)).allowed, false);

  // A suppression is reported before a revoked consent.
  await upsertSuppression(deps(), actor, { contactId: id, channel: support, reason: 'bounced' });
  const both = await check('+15550000020', support);
  assert.equal(both.allowed === false && both.code, 'suppressed');
});

test('the number is matched through any contact holding it, as phone or chat-app id; other organizations do not count', async () => {
  // A contact known by its chat-app id (digits) only through an identity.
  const viaInbound = await database.db.transaction((tx) =>
    resolveInboundContact(tx, actor.organizationId, {
      phone: '+15550000030',
      identities: [{ type: 'chatapp_id', value: '15550000031' }],
      at: new Date(),
    }),
  );
  await upsertSuppression(deps(), actor, { contactId: viaInbound.contactId, channel: 'all', reason: 'spam complaint' });
  assert.equal((await check('+15550000031', support)).allowed, false, 'matched by chat-app id');
  assert.equal((await check('+15550000030', support)).allowed, false, 'matched by phone');

  assert.deepEqual(
    await check('+15550000030', support, { org: other.organizationId }),
    { allowed: true },
    "another organization's suppression is not ours",
  );
  const theirs = (await upsertContact(deps(), other, { phoneNumber: '+15550000040' })).contact.id;
  await upsertSuppression(deps(), other, { contactId: theirs, channel: 'all', reason: 'theirs' });
  assert.deepEqual(await check('+15550000040', support), { allowed: true });

  // Deleting the contact deletes its suppressions with it.
  await deleteContact(deps(), actor, { contactId: viaInbound.contactId });
  assert.deepEqual(await check('+15550000030', support), { allowed: true });
});
