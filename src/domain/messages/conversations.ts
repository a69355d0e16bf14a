/**
 * Conversations: one per channel and customer number. They hold the customer-service window (the
 * last inbound message), status (open, closed), assignee and the unread count (inbound messages since
 * the team last read it); changes record conversation.updated. The inbox lists them by last activity.
 */
import { and, desc, eq, gt, ilike, isNotNull, isNull, like, or, sql, type SQL } from 'drizzle-orm';
import type { Db, Executor } from '../../db/client.ts';
import type { Clock } from '../../lib/clock.ts';
import { equalWhereGiven, given, listPage, mapPage, type ListOrder } from '../../db/list-query.ts';
import type { Page, PageResult } from '../../db/paginate.ts';
import { cursorKey } from '../paging.ts';
import { channels, contacts, conversations, memberships, users } from '../../db/schema.ts';
import { isUuid, uuidv7 } from '../../lib/ids.ts';
import type { Actor } from '../actor.ts';
import { invalid, notFound } from '../errors.ts';
import { recordEvent, type EventBodies } from '../events/outbox.ts';

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

/** What an inbox row shows beside the conversation: its contact, channel and assignee (null when there is none, or it was deleted). */
export type ConversationView = ConversationRow & {
  contact: { id: string; name: string | null; phone: string | null } | null;
  channel: { id: string; name: string; platform: string } | null;
  assignee: { id: string; name: string } | null;
};

/**
 * The inbox's order: most recent activity first, the last message's time (a conversation without any
 * yet counts from its creation), then id. The indexes on conversations hold exactly this expression.
 */
const activity = sql`coalesce(${conversations.lastMessageAt}, ${conversations.createdAt})`;
const activityOf = (row: ConversationRow) => row.lastMessageAt ?? row.createdAt;

/** Conversations with what an inbox row shows, in one statement (left joins: a deleted contact or channel leaves null). */
function selectViews(db: Executor) {
  return db
    .select({
      conversation: conversations,
      contact: { id: contacts.id, name: contacts.name, phone: contacts.phoneNumber },
      channel: { id: channels.id, name: channels.name, platform: channels.platform },
      assignee: { id: users.id, name: users.name },
    })
    .from(conversations)
    .leftJoin(contacts, and(eq(contacts.id, conversations.contactId), eq(contacts.organizationId, conversations.organizationId)))
    .leftJoin(channels, and(eq(channels.id, conversations.channelId), eq(channels.organizationId, conversations.organizationId)))
    .leftJoin(users, eq(users.id, conversations.assigneeUserId));
}

type ViewRow = Awaited<ReturnType<ReturnType<typeof selectViews>['execute']>>[number];
const toView = (row: ViewRow): ConversationView => ({
  ...row.conversation,
  contact: row.contact,
  channel: row.channel,
  assignee: row.assignee,
});

/** A conversation of the actor's organization with its contact, channel and assignee. */
export async function loadConversationView(deps: { db: Executor }, actor: Actor, conversationId: string): Promise<ConversationView> {
  if (!isUuid(conversationId)) throw notFound('conversation');
  const [row] = await selectViews(deps.db)
    .where(and(eq(conversations.id, conversationId), eq(conversations.organizationId, actor.organizationId)))
    .limit(1);
  if (!row) throw notFound('conversation');
  return toView(row);
}

/** Longest search text: the inbox searches names, numbers and previews, never whole documents. */
export const CONVERSATION_SEARCH_MAX = 100;

export type ConversationListQuery = Page & {
  status?: string;
  channelId?: string;
  contactId?: string;
  /** `me` (the acting user), `none` (unassigned) or a user id. */
  assignee?: string;
  /** true: only conversations with unread messages; false: only those without. */
  unread?: boolean;
  /** Case-insensitive part of the contact's name, the customer's number or the last message's preview. */
  q?: string;
  /** The chat's state on the linked phone (chats.manage). */
  archived?: boolean;
  pinned?: boolean;
  /** Only chats the phone still has: a conversation whose chat was deleted there (and has no newer message) is left out. */
  chats?: boolean;
};

const escapeLike = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

/** Part of the contact's name or the last preview; a number-like text ("+49 151", "0049151") also matches the customer's number. */
function searchCondition(q: string): SQL | undefined {
  const pattern = `%${escapeLike(q)}%`;
  const alternatives = [ilike(contacts.name, pattern), ilike(conversations.lastMessagePreview, pattern)];
  if (/^[+(]?[\d\s().-]+$/.test(q) && /\d/.test(q)) {
    let digits = q.replace(/\D/g, '');
    if (!q.startsWith('+') && digits.startsWith('00')) digits = digits.slice(2);
    if (digits) alternatives.push(like(conversations.peerPhone, `%${digits}%`));
  }
  return or(...alternatives);
}

function assigneeCondition(actor: Actor, assignee: string | undefined): SQL | undefined {
  if (assignee === undefined) return undefined;
  if (assignee === 'none') return isNull(conversations.assigneeUserId);
  if (assignee === 'me') {
    if (actor.kind !== 'user' && actor.kind !== 'oauth') {
      throw invalid('assignee=me needs a signed-in user', [
        { pointer: '/assignee', message: 'me means the signed-in user; an API key is no user: give a user id' },
      ]);
    }
    return eq(conversations.assigneeUserId, actor.userId);
  }
  return isUuid(assignee) ? eq(conversations.assigneeUserId, assignee) : sql`false`;
}

/**
 * The inbox: most recent activity first (then id), each with its contact, channel and assignee.
 * Filters combine. The cursor holds the last row's activity time and id; a conversation that gets a
 * message while someone pages moves to the top, where a refreshed first page shows it.
 */
export async function listConversations(
  deps: { db: Executor },
  actor: Actor,
  input: ConversationListQuery,
): Promise<PageResult<ConversationView>> {
  const assigned = assigneeCondition(actor, input.assignee);
  const q = input.q?.trim();
  const rows = await listPage(selectViews(deps.db).$dynamic(), {
    where: [
      eq(conversations.organizationId, actor.organizationId),
      ...equalWhereGiven([[conversations.status, input.status]]),
      // An id that is no UUID matches nothing.
      given(input.channelId, (id) => (isUuid(id) ? eq(conversations.channelId, id) : sql`false`)),
      given(input.contactId, (id) => (isUuid(id) ? eq(conversations.contactId, id) : sql`false`)),
      assigned,
      input.unread === undefined ? undefined : input.unread ? gt(conversations.unreadCount, 0) : eq(conversations.unreadCount, 0),
      q ? searchCondition(q) : undefined,
      input.archived === undefined ? undefined : eq(conversations.archived, input.archived),
      input.pinned === undefined ? undefined : input.pinned ? isNotNull(conversations.pinnedAt) : isNull(conversations.pinnedAt),
      // Status posts (status@broadcast) are no chat of the phone's list.
      input.chats
        ? sql`(${conversations.chatDeletedAt} is null or ${conversations.lastMessageAt} > ${conversations.chatDeletedAt}) and ${conversations.peerPhone} not like '%@broadcast'`
        : undefined,
    ],
    order: BY_ACTIVITY,
    after: cursorKey(input.cursor),
    limit: input.limit,
    keyOf: (row) => ({ t: activityOf(row.conversation), id: row.conversation.id }),
  });
  return mapPage(rows, toView);
}

/** The inbox's order: the last activity, then the id, newest first; the cursor's key compared as a row. */
const BY_ACTIVITY: ListOrder = {
  after(key) {
    if (key === undefined) return undefined;
    return sql`(${activity}, ${conversations.id}) < (${key.t.toISOString()}::timestamptz, ${key.id}::uuid)`;
  },
  by: [sql`${activity} desc`, desc(conversations.id)],
};

export type ConversationPatch = { conversationId: string; status?: 'open' | 'closed'; assigneeUserId?: string | null };

/** The body of conversation.updated: enough for an inbox to update its row without asking. */
export function conversationUpdated(row: ConversationRow): EventBodies['conversation.updated'] {
  return {
    conversation_id: row.id,
    status: row.status,
    assignee_user_id: row.assigneeUserId,
    unread_count: row.unreadCount,
    last_message_preview: row.lastMessagePreview,
    last_message_at: row.lastMessageAt?.toISOString() ?? null,
    archived: row.archived,
    pinned: row.pinnedAt !== null,
    muted_until: row.mutedUntil?.toISOString() ?? null,
    marked_unread: row.markedUnread,
  };
}

/**
 * Changes status or assignee (a member of the organization, or null) and records
 * conversation.updated, in one transaction.
 */
export async function updateConversation(
  deps: { db: Db; clock: Clock },
  actor: Actor,
  input: ConversationPatch,
): Promise<ConversationView> {
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
      if (!member)
        throw invalid('assignee_user_id is not a member of this organization', [{ pointer: '/assignee_user_id', message: 'not a member' }]);
    }
    const changed =
      (input.status !== undefined && input.status !== row.status) ||
      (input.assigneeUserId !== undefined && input.assigneeUserId !== row.assigneeUserId);
    if (changed) {
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
      await recordEvent(tx, actor.organizationId, 'conversation.updated', conversationUpdated(updated!), now);
    }
    return loadConversationView({ db: tx }, actor, row.id);
  });
}

/**
 * Marks the conversation read up to now, for the whole team: no unread messages left, last_read_at
 * now. Records conversation.updated when there were unread messages; otherwise changes nothing.
 */
export async function markConversationRead(
  deps: { db: Db; clock: Clock },
  actor: Actor,
  conversationId: string,
): Promise<ConversationView> {
  if (!isUuid(conversationId)) throw notFound('conversation');
  return deps.db.transaction(async (tx) => {
    const now = deps.clock.now();
    const [updated] = await tx
      .update(conversations)
      .set({ unreadCount: 0, markedUnread: false, lastReadAt: now, chatChangedAt: now, updatedAt: now })
      .where(
        and(
          eq(conversations.id, conversationId),
          eq(conversations.organizationId, actor.organizationId),
          or(gt(conversations.unreadCount, 0), eq(conversations.markedUnread, true)),
        ),
      )
      .returning();
    if (updated) await recordEvent(tx, actor.organizationId, 'conversation.updated', conversationUpdated(updated), now);
    return loadConversationView({ db: tx }, actor, conversationId);
  });
}

/** An inbound message reopens a closed conversation, opens the window and counts as unread. */
export async function touchInbound(
  tx: Executor,
  row: ConversationRow,
  at: Date,
  preview: string,
  contactId: string | null,
  now: Date,
): Promise<void> {
  const [updated] = await tx
    .update(conversations)
    .set({
      lastInboundAt: sql`greatest(${conversations.lastInboundAt}, ${at.toISOString()}::timestamptz)`,
      lastMessageAt: sql`greatest(${conversations.lastMessageAt}, ${at.toISOString()}::timestamptz)`,
      lastMessagePreview: preview,
      status: 'open',
      unreadCount: sql`${conversations.unreadCount} + 1`,
      ...(contactId && !row.contactId ? { contactId } : {}),
      updatedAt: now,
    })
    .where(eq(conversations.id, row.id))
    .returning();
  if (row.status === 'closed') {
    await recordEvent(tx, row.organizationId, 'conversation.updated', conversationUpdated(updated!), now);
  }
}

/**
 * A message the business sent outside Parley (an echo from its phone): the conversation's last message
 * moves forward; nothing is unread and the customer-service window stays as it is.
 */
export async function touchOutbound(
  tx: Executor,
  row: ConversationRow,
  at: Date,
  preview: string,
  contactId: string | null,
  now: Date,
): Promise<void> {
  await tx
    .update(conversations)
    .set({
      lastMessagePreview: sql`case when ${conversations.lastMessageAt} > ${at.toISOString()}::timestamptz then ${conversations.lastMessagePreview} else ${preview} end`,
      lastMessageAt: sql`greatest(${conversations.lastMessageAt}, ${at.toISOString()}::timestamptz)`,
      ...(contactId && !row.contactId ? { contactId } : {}),
      updatedAt: now,
    })
    .where(eq(conversations.id, row.id));
}

/**
 * A message's content changed in place (a placeholder completed): the conversation's preview follows
 * when that message is still its last one (no message of the conversation came after it).
 */
export async function refreshPreviewOf(
  tx: Executor,
  message: { id: string; conversationId: string; createdAt: Date },
  preview: string,
): Promise<void> {
  await tx
    .update(conversations)
    .set({ lastMessagePreview: preview })
    .where(
      and(
        eq(conversations.id, message.conversationId),
        sql`not exists (select 1 from messages m where m.conversation_id = ${message.conversationId}
              and (m.created_at, m.id) > (${message.createdAt.toISOString()}::timestamptz, ${message.id}))`,
      ),
    );
}
