/**
 * Conversations: one per channel and customer number. They hold the customer-service window (the
 * last inbound message), status (open, closed) and assignee; changes record conversation.updated.
 */
import { and, eq, sql } from 'drizzle-orm';
import type { Executor } from '../../db/client.ts';
import { afterCursor, newestFirst, toPage, type Page, type PageResult } from '../../db/paginate.ts';
import { conversations, memberships } from '../../db/schema.ts';
import { isUuid, uuidv7 } from '../../lib/ids.ts';
import type { Actor } from '../actor.ts';
import { invalid, notFound } from '../errors.ts';
import { recordEvent } from '../events/outbox.ts';

export type ConversationRow = typeof conversations.$inferSelect;

export type ConversationRecord = {
  id: string;
  channel_id: string;
  contact_id: string | null;
  peer_phone: string;
  status: 'open' | 'closed';
  assignee_user_id: string | null;
  last_message_at: string | null;
  last_inbound_at: string | null;
  /** When the customer-service window closes (official channels), from the last inbound message. */
  window_expires_at: string | null;
  last_message_preview: string | null;
  created_at: string;
  updated_at: string;
};

export function presentConversation(row: ConversationRow): ConversationRecord {
  return {
    id: row.id,
    channel_id: row.channelId,
    contact_id: row.contactId,
    peer_phone: row.peerPhone,
    status: row.status as 'open' | 'closed',
    assignee_user_id: row.assigneeUserId,
    last_message_at: row.lastMessageAt?.toISOString() ?? null,
    last_inbound_at: row.lastInboundAt?.toISOString() ?? null,
    window_expires_at: row.lastInboundAt ? new Date(row.lastInboundAt.getTime() + 24 * 3_600_000).toISOString() : null,
    last_message_preview: row.lastMessagePreview,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

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

export async function loadConversation(db: Executor, actor: Actor, id: string): Promise<ConversationRow> {
  if (!isUuid(id)) throw notFound('conversation');
  const [row] = await db.select().from(conversations).where(and(eq(conversations.id, id), eq(conversations.organizationId, actor.organizationId))).limit(1);
  if (!row) throw notFound('conversation');
  return row;
}

export async function listConversations(
  db: Executor,
  actor: Actor,
  page: Page & { status?: string; channelId?: string; contactId?: string },
): Promise<PageResult<ConversationRecord>> {
  if ((page.channelId && !isUuid(page.channelId)) || (page.contactId && !isUuid(page.contactId))) return { items: [], nextCursor: null };
  const rows = await db
    .select()
    .from(conversations)
    .where(
      and(
        eq(conversations.organizationId, actor.organizationId),
        page.status ? eq(conversations.status, page.status) : undefined,
        page.channelId ? eq(conversations.channelId, page.channelId) : undefined,
        page.contactId ? eq(conversations.contactId, page.contactId) : undefined,
        afterCursor(conversations.createdAt, conversations.id, page.cursor),
      ),
    )
    .orderBy(...newestFirst(conversations.createdAt, conversations.id))
    .limit(page.limit + 1);
  return toPage(rows, page.limit, presentConversation);
}

/** Changes status or assignee (a member of the organization, or null); records conversation.updated. */
export async function updateConversation(
  db: Executor,
  actor: Actor,
  id: string,
  patch: { status?: 'open' | 'closed'; assigneeUserId?: string | null },
  now: Date,
): Promise<ConversationRow> {
  const row = await loadConversation(db, actor, id);
  if (typeof patch.assigneeUserId === 'string') {
    const [member] = isUuid(patch.assigneeUserId)
      ? await db
          .select({ userId: memberships.userId })
          .from(memberships)
          .where(and(eq(memberships.organizationId, actor.organizationId), eq(memberships.userId, patch.assigneeUserId)))
          .limit(1)
      : [];
    if (!member) throw invalid('assignee_user_id is not a member of this organization', [{ pointer: '/assignee_user_id', location: 'body', message: 'not a member' }]);
  }
  const changed =
    (patch.status !== undefined && patch.status !== row.status) || (patch.assigneeUserId !== undefined && patch.assigneeUserId !== row.assigneeUserId);
  if (!changed) return row;
  const [updated] = await db
    .update(conversations)
    .set({
      ...(patch.status !== undefined ? { status: patch.status } : {}),
      ...(patch.assigneeUserId !== undefined ? { assigneeUserId: patch.assigneeUserId } : {}),
      updatedAt: now,
    })
    .where(eq(conversations.id, row.id))
    .returning();
  await recordEvent(db, actor.organizationId, 'conversation.updated', { conversation_id: row.id, status: updated!.status }, now);
  return updated!;
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
