/**
 * Migration 0016 (template_quality_status_billing) repairs the templates an earlier version left in a status of the provider's own (a
 * template report it did not know, lower-cased), which made every template list of the organization
 * answer 500: each takes the status its report means, the report kept as the template's note.
 */
import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { after, before, test } from 'node:test';
import { eq, sql } from 'drizzle-orm';
import { channels, organizations, templates } from '../../src/db/schema.ts';
import { uuidv7 } from '../../src/lib/ids.ts';
import { createTestDatabase, type TestDatabase } from '../harness.ts';

let testDb: TestDatabase;
before(async () => {
  testDb = await createTestDatabase();
});
after(() => testDb.drop());

const MIGRATIONS = new URL('../../src/db/migrations/', import.meta.url);

/** The migration's repair: its last statement (found by its name, whatever number it was given). */
async function repair(): Promise<string> {
  const file = (await readdir(MIGRATIONS)).find((f) => f.endsWith('_template_quality_status_billing.sql'));
  assert.ok(file, 'the migration is there');
  const text = await readFile(new URL(file, MIGRATIONS), 'utf8');
  return text.split('--> statement-breakpoint').at(-1)!;
}

test('templates left in a provider status take the status it means, with the report kept as their note', async () => {
  const { db } = testDb.database;
  const organizationId = uuidv7();
  const channelId = uuidv7();
  await db.insert(organizations).values({ id: organizationId, name: 'Repair' });
  await db.insert(channels).values({ id: channelId, organizationId, platform: 'chatapp_official', name: 'Official', status: 'connected' });
  const at = new Date('2025-06-02T09:15:00.000Z');
  const made: Record<string, string> = {};
  for (const [name, status, reason] of [
    ['was_flagged', 'flagged', 'negative feedback'],
    ['was_reinstated', 'reinstated', null],
    ['was_archived', 'archived', null],
    ['was_locked', 'locked', null],
    ['fine', 'approved', null],
    ['draft_one', 'draft', null],
  ] as const) {
    const id = uuidv7();
    made[name] = id;
    await db.insert(templates).values({
      id,
      organizationId,
      channelId,
      name,
      language: 'en_US',
      category: 'UTILITY',
      status,
      rejectionReason: reason,
      createdAt: at,
      updatedAt: at,
    });
  }
  await db.execute(sql.raw(await repair()));
  const row = async (name: string) => (await db.select().from(templates).where(eq(templates.id, made[name]!)))[0]!;

  const flagged = await row('was_flagged');
  assert.equal(flagged.status, 'approved');
  assert.equal(flagged.rejectionReason, null);
  assert.deepEqual(flagged.quality, { score: null, flagged: true, reason: 'negative feedback', updated_at: at.toISOString() });
  assert.deepEqual(flagged.providerNote, { event: 'FLAGGED', reason: 'negative feedback', received_at: at.toISOString() });
  assert.equal((await row('was_reinstated')).status, 'approved');
  assert.equal((await row('was_archived')).status, 'disabled');
  const locked = await row('was_locked');
  assert.equal(locked.status, 'pending', 'a report that says nothing of the status leaves it for the next sync');
  assert.equal(locked.providerNote?.event, 'LOCKED');
  for (const untouched of ['fine', 'draft_one']) {
    const r = await row(untouched);
    assert.equal(r.providerNote, null, untouched);
    assert.equal(r.quality, null, untouched);
  }
  assert.equal((await row('fine')).status, 'approved');
  assert.equal((await row('draft_one')).status, 'draft');
});
