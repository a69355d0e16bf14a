/**
 * Conversations: one per channel and customer number. They hold the customer-service window (the
 * last inbound message), status (open, closed) and assignee; changes record conversation.updated.
 */
import { and, eq, sql } from 'drizzle-orm';
import type { Db, Executor } from '../../db/client.ts';
import type { Clock } from '../../lib/clock.ts';
import { afterCursor, newestFirst, toPage, type Page, type PageResult } from '../../db/paginate.ts';
import { conversations, memberships } from '../../db/schema.ts';
import { isUuid, uuidv7 } from '../../lib/ids.ts';
import type { Actor } from '../actor.ts';
import { invalid, notFound } from '../errors.ts';
import { recordEvent } from '../events/outbox.ts';

export type ConversationRow = typeof conversations.$inferSelect;

/**
 * The conversation for (channel, number): the existing one, or a new one (an inbound message's).
 * Concurrent callers get the same row (insert-or-nothing on the unique key, then read).
 */
export async function ensureConversation(
  tx: Executor,
  organizationId: string,
  channelId: string,
  peerPhone: string,
  now: Date,
  contactId?: string,
): Promise<ConversationRow> {
  await tx
    .insert(conversations)
    .values({ id: uuidv7(), organizationId, channelId, peerPhone, contactId: contactId ?? null, createdAt: now, updatedAt: now })
    .onConflictDoNothing();
  const [row] = await tx
    .select()
    .from(conversations)
    .where(and(eq(conversations.channelId, channelId), eq(conversations.peerPhone, peerPhone)))
    .limit(1);
  return row!;
}

/** A conversation of the actor's organization; another organization's id is simply not found. */
export async function loadConversation(deps: { db: Executor }, actor: Actor, conversationId: string): Promise<ConversationRow> {
  if (!isUuid(conversationId)) throw notFound('conversation');
  const [row] = await deps.db
    .select()
    .from(conversations)
    .where(and(eq(conversations.id, conversationId), eq(conversations.organizationId, actor.organizationId)))
    .limit(1);
  if (!row) throw notFound('conversation');
  return row;
}

export async function listConversations(
  deps: { db: Executor },
  actor: Actor,
  input: Page & { status?: string; channelId?: string; contactId?: string },
): Promise<PageResult<ConversationRow>> {
  if ((input.channelId && !isUuid(input.channelId)) || (input.contactId && !isUuid(input.contactId))) return { items: [], nextCursor: null };
  const rows = await deps.db
    .select()
    .from(conversations)
    .where(
      and(
        eq(conversations.organizationId, actor.organizationId),
        input.status ? eq(conversations.status, input.status) : undefined,
        input.channelId ? eq(conversations.channelId, input.channelId) : undefined,
        input.contactId ? eq(conversations.contactId, input.contactId) : undefined,
        afterCursor(conversations.createdAt, conversations.id, input.cursor),
      ),
    )
    .orderBy(...newestFirst(conversations.createdAt, conversations.id))
    .limit(input.limit + 1);
  return toPage(rows, input.limit, (row) => row);
}

export type ConversationPatch = { conversationId: string; status?: 'open' | 'closed'; assigneeUserId?: string | null };

/**
 * Changes status or assignee (a member of the organization, or null) and records
 * conversation.updated, in one transaction.
 */
export async function updateConversation(deps: { db: Db; clock: Clock }, actor: Actor, input: ConversationPatch): Promise<ConversationRow> {
  return deps.db.transaction(async (tx) => {
    const row = await loadConversation({ db: tx }, actor, input.conversationId);
    if (typeof input.assigneeUserId === 'string') {
      const [member] = isUuid(input.assigneeUserId)
        ? await tx
            .select({ userId: memberships.userId })
            .from(memberships)
            .where(and(eq(memberships.organizationId, actor.organizationId), eq(memberships.userId, input.assigneeUserId)))
            .limit(1)
        : [];
      if (!member) throw invalid('assignee_user_id is not a member of this organization', [{ pointer: '/assignee_user_id', message: 'not a member' }]);
    }
    const changed =
      (input.status !== undefined && input.status !== row.status) || (input.assigneeUserId !== undefined && input.assigneeUserId !== row.assigneeUserId);
    if (!changed) return row;
    const now = deps.clock.now();
    const [updated] = await tx
      .update(conversations)
      .set({
        ...(input.status !== undefined ? { status: input.status } : {}),
        ...(input.assigneeUserId !== undefined ? { assigneeUserId: input.assigneeUserId } : {}),
        updatedAt: now,
      })
      .where(eq(conversations.id, row.id))
      .returning();
    await recordEvent(tx, actor.organizationId, 'conversation.updated', { conversation_id: row.id, status: updated!.status }, now);
    return updated!;
  });
}

/** An inbound message reopens a closed conversation and opens the window. */
export async function touchInbound(tx: Executor, row: ConversationRow, at: Date, preview: string, contactId: string | null, now: Date): Promise<void> {
  await tx
    .update(conversations)
    .set({
      lastInboundAt: sql`greatest(${conversations.lastInboundAt}, ${at.toISOString()}::timestamptz)`,
      lastMessageAt: sql`greatest(${conversations.lastMessageAt}, ${at.toISOString()}::timestamptz)`,
      lastMessagePreview: preview,
      status: 'open',
      ...(contactId && !row.contactId ? { contactId } : {}),
      updatedAt: now,
    })
    .where(eq(conversations.id, row.id));
  if (row.status === 'closed') {
    await recordEvent(tx, row.organizationId, 'conversation.updated', { conversation_id: row.id, status: 'open' }, now);
  }
}
