/**
 * Migration 0025 (group_conversations_sandbox_groups): a group is one conversation keyed by the group's
 * id. Inbound group messages an earlier version filed under their sender's conversation move to the
 * group's (made when missing, or the one sends to the group made), each keeping its sender; both sides'
 * last message, preview and unread count follow.
 */
import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { after, before, test } from 'node:test';
import { and, eq, sql } from 'drizzle-orm';
import { channels, conversations, messages, organizations } from '../../src/db/schema.ts';
import { uuidv7 } from '../../src/lib/ids.ts';
import { createTestDatabase, type TestDatabase } from '../harness.ts';

let testDb: TestDatabase;
before(async () => {
  testDb = await createTestDatabase();
});
after(() => testDb.drop());

const MIGRATIONS = new URL('../../src/db/migrations/', import.meta.url);

/** The migration's data statements: those after the sandbox tables' (from the temporary table on). */
async function moves(): Promise<string[]> {
  const file = (await readdir(MIGRATIONS)).find((f) => f.endsWith('_group_conversations_sandbox_groups.sql'));
  assert.ok(file, 'the migration is there');
  const statements = (await readFile(new URL(file, MIGRATIONS), 'utf8')).split('--> statement-breakpoint');
  return statements.slice(statements.findIndex((s) => s.includes('CREATE TEMP TABLE')));
}

test('inbound group messages move from their senders’ conversations to the group’s, with the counts and previews', async () => {
  const { db } = testDb.database;
  const organizationId = uuidv7();
  const channelId = uuidv7();
  await db.insert(organizations).values({ id: organizationId, name: 'Groups' });
  await db.insert(channels).values({ id: channelId, organizationId, platform: 'chatapp_unofficial', name: 'Phone', status: 'connected' });
  const GROUP = '120363025246125486@g.us';
  const SENT_TO = '120363000000000777@g.us';
  const at = (minute: number) => new Date(Date.UTC(2025, 5, 2, 9, minute));
  const conversation = async (peer: string, fields: Partial<typeof conversations.$inferInsert> = {}) => {
    const id = uuidv7();
    await db
      .insert(conversations)
      .values({ id, organizationId, channelId, peerPhone: peer, createdAt: at(0), updatedAt: at(0), ...fields });
    return id;
  };
  // Ana's conversation holds her own message and two she wrote in GROUP (one read, one not); Ben's only a group message.
  const ana = await conversation('4915100000001', {
    unreadCount: 2,
    lastReadAt: at(2),
    lastMessageAt: at(4),
    lastMessagePreview: 'in the group, later',
  });
  const ben = await conversation('4915100000002', { unreadCount: 1, lastMessageAt: at(5), lastMessagePreview: 'ben in the other' });
  // A group the business sent to already has its conversation.
  const sent = await conversation(SENT_TO, { lastMessageAt: at(1), lastMessagePreview: 'hello group' });
  const message = async (conversationId: string, minute: number, content: Record<string, unknown>, direction = 'inbound') => {
    const id = uuidv7();
    await db.insert(messages).values({
      id,
      organizationId,
      channelId,
      conversationId,
      direction,
      toPhone: '4915199999999',
      fromPhone: direction === 'inbound' ? '4915100000001' : null,
      type: 'text',
      content,
      status: direction === 'inbound' ? 'received' : 'sent',
      createdAt: at(minute),
      updatedAt: at(minute),
    });
    return id;
  };
  const own = await message(ana, 3, { body: 'just to you' });
  const early = await message(ana, 1, { body: 'in the group', group: { id: GROUP } });
  const late = await message(ana, 4, { body: 'in the group, later', group: { id: GROUP } });
  const other = await message(ben, 5, { body: 'ben in the other', group: { id: SENT_TO } });
  await message(sent, 1, { body: 'hello group' }, 'outbound');

  for (const statement of await moves()) await db.execute(sql.raw(statement));

  const row = async (id: string) => (await db.select().from(conversations).where(eq(conversations.id, id)))[0]!;
  const conversationOf = async (id: string) => (await db.select().from(messages).where(eq(messages.id, id)))[0]!;
  const [group] = await db
    .select()
    .from(conversations)
    .where(and(eq(conversations.channelId, channelId), eq(conversations.peerPhone, GROUP)));
  assert.ok(group, 'the group has a conversation now');
  assert.equal(group.contactId, null, 'no one contact of its own');
  assert.equal((await conversationOf(early)).conversationId, group.id);
  assert.equal((await conversationOf(late)).conversationId, group.id);
  assert.equal((await conversationOf(late)).fromPhone, '4915100000001', 'the sender stays the message’s');
  assert.equal((await conversationOf(own)).conversationId, ana, 'a message to the business stays in its sender’s');
  assert.equal((await conversationOf(other)).conversationId, sent, 'into the conversation sends to the group made');

  const anaNow = await row(ana);
  assert.equal(anaNow.unreadCount, 1, 'the unread group message left with it');
  assert.equal(anaNow.lastMessagePreview, 'just to you');
  assert.equal(anaNow.lastMessageAt?.toISOString(), at(3).toISOString());
  assert.equal(group.unreadCount, 1);
  assert.equal(group.lastMessagePreview, 'in the group, later');
  assert.equal(group.lastMessageAt?.toISOString(), at(4).toISOString());
  const benNow = await row(ben);
  assert.deepEqual([benNow.unreadCount, benNow.lastMessageAt, benNow.lastMessagePreview], [0, null, null], 'nothing left in it');
  const sentNow = await row(sent);
  assert.equal(sentNow.unreadCount, 1);
  assert.equal(sentNow.lastMessagePreview, 'ben in the other');

  // Run again: nothing left to move.
  for (const statement of await moves()) await db.execute(sql.raw(statement));
  assert.equal((await row(ana)).unreadCount, 1);
});
