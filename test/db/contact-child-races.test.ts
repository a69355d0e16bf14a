/**
 * Tagging a contact (or adding a note, a consent, a suppression) while another request deletes it
 * answers not_found, never a 500: the contact is read locked (FOR KEY SHARE), so the deletion under way
 * is waited for, where before the insert met the deletion in its foreign-key check (seen once in the
 * fuzzer: POST /v1/contacts/{id}/tags, 500).
 * And the assignment is an upsert returning its row, so one removed between a conflict and a read can
 * no longer be missed. PostgreSQL only: it needs a second connection holding the deletion.
 */
// stores: postgres
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { queryRows } from '../../src/db/client.ts';
import { migrate } from '../../src/db/migrate.ts';
import { putConsent, upsertSuppression } from '../../src/domain/contacts/consents.ts';
import { createNote } from '../../src/domain/contacts/notes.ts';
import { addContactTag } from '../../src/domain/contacts/tags.ts';
import { DomainError } from '../../src/domain/errors.ts';
import type { Actor } from '../../src/domain/actor.ts';
import { uuidv7 } from '../../src/lib/ids.ts';
import { createTestDatabase, usingPostgres } from '../harness.ts';
import { eventually } from '../eventually.ts';

const skip = !usingPostgres && 'PostgreSQL only (a second connection holds the deletion)';
let testDb: Awaited<ReturnType<typeof createTestDatabase>> | undefined;
const org = uuidv7();
const actor: Actor = { kind: 'system', organizationId: org, permissions: new Set() };
const clock = { now: () => new Date() };

before(async () => {
  if (!usingPostgres) return;
  testDb = await createTestDatabase();
  await migrate(testDb.database);
  await testDb.database.db.execute(sql`insert into organizations (id, name) values (${org}, 'Tags')`);
});
after(() => testDb?.drop());

const newContact = async () => {
  const id = uuidv7();
  await testDb!.database.db.execute(
    sql`insert into contacts (id, organization_id, phone_number, name, created_at, updated_at) values (${id}, ${org}, ${`+4930${Date.now() % 10_000_000}`}, 'Tagged', now(), now())`,
  );
  return id;
};

/** Every write that points a new row at a contact (the fuzzer found the tags; the others have the same shape). */
const childWrites: Array<[string, (contactId: string) => Promise<unknown>]> = [
  ['a tag', (contactId) => addContactTag({ db: testDb!.database.db, clock }, actor, { contactId, tag: 'vip' })],
  ['a note', (contactId) => createNote({ db: testDb!.database.db, clock }, actor, { contactId, body: 'called back' })],
  ['a consent', (contactId) => putConsent({ db: testDb!.database.db, clock }, actor, { contactId, channel: 'all', state: 'granted' })],
  [
    'a suppression',
    (contactId) => upsertSuppression({ db: testDb!.database.db, clock }, actor, { contactId, channel: 'chatapp', reason: 'asked' }),
  ],
];

for (const [what, write] of childWrites) {
  test(`${what} added while the contact is being deleted is not_found, not a foreign-key failure`, { skip }, async () => {
    const { db } = testDb!.database;
    const contactId = await newContact();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let deleting = false;
    const deletion = db.transaction(async (tx) => {
      await tx.execute(sql`delete from contacts where id = ${contactId}`);
      deleting = true;
      await gate;
    });
    await eventually('the deletion under way', async () => (deleting ? true : undefined));
    const adding = write(contactId).then(
      () => 'added',
      (err: unknown) => err,
    );
    await eventually(`${what} waiting for the deletion`, async () => {
      const [row] = await queryRows<{ n: number }>(
        db,
        sql`select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`,
      );
      return row!.n > 0 ? true : undefined;
    });
    release();
    await deletion;
    const outcome = await adding;
    assert.ok(outcome instanceof DomainError, `a domain error, not ${String(outcome)}`);
    assert.equal(outcome.code, 'not_found');
  });
}

test('adding a tag twice answers the first assignment, created once, with one event', { skip }, async () => {
  const { db } = testDb!.database;
  const contactId = await newContact();
  const first = await addContactTag({ db, clock }, actor, { contactId, tag: 'Gold' });
  const again = await addContactTag({ db, clock }, actor, { contactId, tag: 'gold' });
  assert.equal(first.created, true);
  assert.equal(again.created, false);
  assert.equal(again.tag.name, 'Gold');
  assert.equal(again.tag.assignedAt.getTime(), first.tag.assignedAt.getTime());
  const [events] = await queryRows<{ n: number }>(
    db,
    sql`select count(*)::int as n from events where type = 'crm.list.entry_added' and payload->>'record_id' = ${contactId}`,
  );
  assert.equal(events!.n, 1);
});
