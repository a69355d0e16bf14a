/**
 * Migration 0040 (pipeline_writes): the status history stored a row per status in
 * message_status_history; it moves into each message's row (messages.status_history), in the order
 * the reports arrived, and GET /v1/messages/{id}/status answers the same. A status write after the
 * move appends to it and keeps the first report of a status (billing filled in, never a second entry).
 */
import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { after, before, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { queryRows } from '../../src/db/client.ts';
import { channels, conversations, messages, messageStatusHistory, organizations } from '../../src/db/schema.ts';
import type { Actor } from '../../src/domain/actor.ts';
import { advanceStatuses, messageStatus } from '../../src/domain/messages/messages.ts';
import { uuidv7 } from '../../src/lib/ids.ts';
import { createTestDatabase, type TestDatabase } from '../harness.ts';

let testDb: TestDatabase;
before(async () => {
  testDb = await createTestDatabase();
});
after(() => testDb.drop());

const MIGRATIONS = new URL('../../src/db/migrations/', import.meta.url);

/** The migration's statements that move the stored history (the UPDATE of messages and the table emptied). */
async function moves(): Promise<string[]> {
  const file = (await readdir(MIGRATIONS)).find((f) => f.endsWith('_pipeline_writes.sql'));
  assert.ok(file, 'the migration is there');
  const statements = (await readFile(new URL(file, MIGRATIONS), 'utf8')).split('--> statement-breakpoint');
  const moving = statements.filter((s) => /UPDATE "messages" m SET "status_history"|DELETE FROM "message_status_history"/.test(s));
  assert.equal(moving.length, 2);
  return moving;
}

test('the stored history moves into the message rows in arrival order; the status route and later writes read it the same', async () => {
  const { db } = testDb.database;
  const organizationId = uuidv7();
  const channelId = uuidv7();
  const conversationId = uuidv7();
  await db.insert(organizations).values({ id: organizationId, name: 'History' });
  await db.insert(channels).values({ id: channelId, organizationId, platform: 'chatapp_official', name: 'Main', status: 'connected' });
  await db.insert(conversations).values({ id: conversationId, organizationId, channelId, peerPhone: '4915100000001' });
  const at = (second: number) => new Date(Date.UTC(2025, 5, 2, 9, 0, second));
  const id = uuidv7();
  const untouched = uuidv7();
  for (const messageId of [id, untouched]) {
    await db.insert(messages).values({
      id: messageId,
      organizationId,
      channelId,
      conversationId,
      direction: 'outbound',
      toPhone: '4915100000001',
      type: 'text',
      content: { body: 'hi' },
      status: messageId === id ? 'delivered' : 'queued',
      createdAt: at(0),
      updatedAt: at(0),
    });
  }
  // As an earlier version stored it: a row per status, `delivered` reported (provider time) before `sent`
  // but arriving after it; the arrival order (created_at) is the history's order.
  const pricing = { billable: true, pricing_model: 'CBP', category: 'utility' };
  await db.insert(messageStatusHistory).values([
    { id: uuidv7(), messageId: id, status: 'queued', occurredAt: at(0), createdAt: at(0) },
    { id: uuidv7(), messageId: id, status: 'sent', occurredAt: at(5), createdAt: at(6) },
    { id: uuidv7(), messageId: id, status: 'delivered', occurredAt: at(4), createdAt: at(7), pricing },
  ]);
  const actor: Actor = { kind: 'system', organizationId, permissions: new Set() };
  const before = await db.select().from(messageStatusHistory).where(sql`${messageStatusHistory.messageId} = ${id}`);
  assert.equal(before.length, 3);

  for (const statement of await moves()) await db.execute(sql.raw(statement));

  const [emptied] = await queryRows<{ n: number }>(db, sql`select count(*)::int as n from message_status_history`);
  assert.equal(emptied!.n, 0, 'the table is emptied');
  const { history } = await messageStatus({ db }, actor, id);
  assert.deepEqual(
    history.map((h) => [h.status, h.occurredAt.toISOString(), h.createdAt.toISOString(), h.pricing, h.errorCode]),
    [
      ['queued', at(0).toISOString(), at(0).toISOString(), null, null],
      ['sent', at(5).toISOString(), at(6).toISOString(), null, null],
      ['delivered', at(4).toISOString(), at(7).toISOString(), pricing, null],
    ],
  );
  assert.deepEqual(before.map((h) => h.id).sort(), history.map((h) => h.id).sort(), 'each entry keeps its id');
  assert.deepEqual((await messageStatus({ db }, actor, untouched)).history, [], 'a message with no stored history has none');

  // After the move: a late `sent` with billing fills the entry without a second one; `read` is appended.
  const [row] = await db.select().from(messages).where(sql`${messages.id} = ${id}`);
  const conversation = { id: 'billing-1', origin: { type: 'utility' } };
  const moved = await advanceStatuses(
    db,
    [
      { row: row!, to: 'sent', occurredAt: at(8), billing: { conversation } },
      { row: row!, to: 'read', occurredAt: at(9) },
    ],
    at(10),
  );
  assert.deepEqual(moved, [false, true]);
  const after = (await messageStatus({ db }, actor, id)).history;
  assert.deepEqual(
    after.map((h) => [h.status, h.occurredAt.toISOString(), h.conversation]),
    [
      ['queued', at(0).toISOString(), null],
      ['sent', at(5).toISOString(), conversation],
      ['delivered', at(4).toISOString(), null],
      ['read', at(9).toISOString(), null],
    ],
  );
  const log = await queryRows<{ status: string }>(db, sql`select status from message_status_log where message_id = ${id}`);
  assert.equal(log.length, 4, 'the view lists every entry');
});
