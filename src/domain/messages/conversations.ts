/**
 * Conversations: one per channel and customer number. They hold the customer-service window (the
 * last inbound message), status (open, pending, snoozed, resolved; `closed` is accepted on input for
 * resolved), priority, assignee, labels and the unread count (inbound messages since the team last read
 * it); changes record conversation.updated, and conversation.status_changed / conversation.assigned
 * beside it (docs/inbox.md). The inbox lists them by last activity.
 */
import { and, asc, desc, eq, gt, ilike, inArray, isNotNull, isNull, like, or, sql, type SQL } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import type { Db, Executor } from '../../db/client.ts';
import type { Clock } from '../../lib/clock.ts';
import { equalWhereGiven, given, listPage, mapPage, type ListOrder } from '../../db/list-query.ts';
import type { Page, PageResult } from '../../db/paginate.ts';
import { cursorKey } from '../paging.ts';
import {
  channels,
  contacts,
  conversationLabelLinks,
  conversationLabels,
  conversations,
  memberships,
  teamMembers,
  teams,
  users,
} from '../../db/schema.ts';
import { isUuid, uuidv7 } from '../../lib/ids.ts';
import type { Actor } from '../actor.ts';
import { invalid, notFound } from '../errors.ts';
import { recordEvent, recordEvents, type EventBodies, type NewEvent } from '../events/outbox.ts';
import { humanTookOver } from '../bots/sessions.ts';

export type ConversationRow = typeof conversations.$inferSelect;

export const CONVERSATION_STATUSES = ['open', 'pending', 'snoozed', 'resolved'] as const;
export type ConversationStatus = (typeof CONVERSATION_STATUSES)[number];
/** What a client may send: the statuses, and `closed`, the old name of resolved. */
export const CONVERSATION_STATUS_INPUTS = [...CONVERSATION_STATUSES, 'closed'] as const;
export type ConversationStatusInput = (typeof CONVERSATION_STATUS_INPUTS)[number];
export const statusOf = (input: ConversationStatusInput): ConversationStatus => (input === 'closed' ? 'resolved' : input);
export const CONVERSATION_PRIORITIES = ['none', 'low', 'medium', 'high', 'urgent'] as const;
export type ConversationPriority = (typeof CONVERSATION_PRIORITIES)[number];
export type LabelRef = { id: string; name: string; color: string };

/**
 * Enqueues the assignment of these teams' queues (domain/teams/assignment.ts): given to the writes
 * that can let a queue move (a conversation entering one, an assignee's capacity freed).
 */
export type QueueTrigger = (tx: Executor, teamIds: string[]) => Promise<void>;

/** The labels of these conversations, by name. */
export async function labelsOf(db: Executor, conversationIds: string[]): Promise<Map<string, LabelRef[]>> {
  const byConversation = new Map<string, LabelRef[]>();
  if (conversationIds.length === 0) return byConversation;
  const rows = await db
    .select({
      conversationId: conversationLabelLinks.conversationId,
      id: conversationLabels.id,
      name: conversationLabels.name,
      color: conversationLabels.color,
    })
    .from(conversationLabelLinks)
    .innerJoin(conversationLabels, eq(conversationLabels.id, conversationLabelLinks.labelId))
    .where(inArray(conversationLabelLinks.conversationId, conversationIds))
    .orderBy(asc(conversationLabels.name), asc(conversationLabels.id));
  for (const r of rows)
    byConversation.set(r.conversationId, [...(byConversation.get(r.conversationId) ?? []), { id: r.id, name: r.name, color: r.color }]);
  return byConversation;
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
  team: { id: string; name: string } | null;
  labels: LabelRef[];
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
      team: { id: teams.id, name: teams.name },
    })
    .from(conversations)
    .leftJoin(contacts, and(eq(contacts.id, conversations.contactId), eq(contacts.organizationId, conversations.organizationId)))
    .leftJoin(channels, and(eq(channels.id, conversations.channelId), eq(channels.organizationId, conversations.organizationId)))
    .leftJoin(users, eq(users.id, conversations.assigneeUserId))
    .leftJoin(teams, eq(teams.id, conversations.teamId));
}

type ViewRow = Awaited<ReturnType<ReturnType<typeof selectViews>['execute']>>[number];
const toView = (row: ViewRow, labels: LabelRef[] = []): ConversationView => ({
  ...row.conversation,
  contact: row.contact,
  channel: row.channel,
  assignee: row.assignee,
  team: row.team,
  labels,
});

/** A conversation of the actor's organization with its contact, channel and assignee. */
export async function loadConversationView(deps: { db: Executor }, actor: Actor, conversationId: string): Promise<ConversationView> {
  if (!isUuid(conversationId)) throw notFound('conversation');
  const [row] = await selectViews(deps.db)
    .where(and(eq(conversations.id, conversationId), eq(conversations.organizationId, actor.organizationId)))
    .limit(1);
  if (!row) throw notFound('conversation');
  const labels = await labelsOf(deps.db, [row.conversation.id]);
  return toView(row, labels.get(row.conversation.id));
}

/** Longest search text: the inbox searches names, numbers and previews, never whole documents. */
export const CONVERSATION_SEARCH_MAX = 100;

export type ConversationListQuery = Page & {
  status?: ConversationStatusInput;
  priority?: ConversationPriority;
  /** A conversation label's id: only conversations that carry it. */
  label?: string;
  channelId?: string;
  contactId?: string;
  /** `me` (the acting user), `none` or `unassigned` (unassigned) or a user id. */
  assignee?: string;
  /** A team's id: only its conversations (with assignee=unassigned and status=open: its queue). */
  teamId?: string;
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
  if (assignee === 'none' || assignee === 'unassigned') return isNull(conversations.assigneeUserId);
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
      ...equalWhereGiven([
        [conversations.status, input.status === undefined ? undefined : statusOf(input.status)],
        [conversations.priority, input.priority],
      ]),
      given(input.label, (id) =>
        isUuid(id)
          ? sql`exists (select 1 from ${conversationLabelLinks} l where l.conversation_id = ${conversations.id} and l.label_id = ${id.toLowerCase()}::uuid)`
          : sql`false`,
      ),
      // An id that is no UUID matches nothing.
      given(input.channelId, (id) => (isUuid(id) ? eq(conversations.channelId, id) : sql`false`)),
      given(input.contactId, (id) => (isUuid(id) ? eq(conversations.contactId, id) : sql`false`)),
      given(input.teamId, (id) => (isUuid(id) ? eq(conversations.teamId, id.toLowerCase()) : sql`false`)),
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
  const labels = await labelsOf(
    deps.db,
    rows.items.map((r) => r.conversation.id),
  );
  return mapPage(rows, (row) => toView(row, labels.get(row.conversation.id)));
}

/** The inbox's order: the last activity, then the id, newest first; the cursor's key compared as a row. */
const BY_ACTIVITY: ListOrder = {
  after(key) {
    if (key === undefined) return undefined;
    return sql`(${activity}, ${conversations.id}) < (${key.t.toISOString()}::timestamptz, ${key.id}::uuid)`;
  },
  by: [sql`${activity} desc`, desc(conversations.id)],
};

export type ConversationPatch = {
  conversationId: string;
  status?: ConversationStatusInput;
  /** With status snoozed: when it wakes; null (or not given) until the customer writes. */
  snoozedUntil?: Date | null;
  priority?: ConversationPriority;
  assigneeUserId?: string | null;
  /** A team of the organization, or null: the conversation's team (its queue while unassigned). */
  teamId?: string | null;
};

/** The body of conversation.updated: enough for an inbox to update its row without asking. */
export function conversationUpdated(row: ConversationRow): EventBodies['conversation.updated'] {
  return {
    conversation_id: row.id,
    status: row.status,
    assignee_user_id: row.assigneeUserId,
    team_id: row.teamId,
    unread_count: row.unreadCount,
    last_message_preview: row.lastMessagePreview,
    last_message_at: row.lastMessageAt?.toISOString() ?? null,
    archived: row.archived,
    pinned: row.pinnedAt !== null,
    muted_until: row.mutedUntil?.toISOString() ?? null,
    marked_unread: row.markedUnread,
    priority: row.priority,
    snoozed_until: row.snoozedUntil?.toISOString() ?? null,
  };
}

/** conversation.status_changed: the status (or the priority, or the snooze time) went from one value to another. */
export function statusChanged(before: ConversationRow, after: ConversationRow): NewEvent {
  return {
    type: 'conversation.status_changed',
    body: {
      conversation_id: after.id,
      status: after.status,
      previous_status: before.status,
      snoozed_until: after.snoozedUntil?.toISOString() ?? null,
      priority: after.priority,
      previous_priority: before.priority,
      organization_id: after.organizationId,
    },
  };
}

type Owned = { table: PgTable; organizationId: PgColumn; key: PgColumn };
const MEMBER: Owned = { table: memberships, organizationId: memberships.organizationId, key: memberships.userId };
const TEAM: Owned = { table: teams, organizationId: teams.organizationId, key: teams.id };

/** Refuses an id that names no row of the organization's (a member, a team), naming the field. */
async function checkOwned(tx: Executor, organizationId: string, id: string, pointer: string, owned: Owned, message: string, short: string) {
  const [row] = isUuid(id)
    ? await tx
        .select({ key: owned.key })
        .from(owned.table)
        .where(and(eq(owned.organizationId, organizationId), eq(owned.key, id.toLowerCase())))
        .limit(1)
    : [];
  if (!row) throw invalid(`${pointer.slice(1)} ${message}`, [{ pointer, message: short }]);
}

/** Refuses an assignee that is no member of the organization, naming the field. */
export const checkMember = (tx: Executor, organizationId: string, userId: string, pointer: string) =>
  checkOwned(tx, organizationId, userId, pointer, MEMBER, 'is not a member of this organization', 'not a member');

/** Refuses a team that is no team of the organization, naming the field. */
export const checkTeam = (tx: Executor, organizationId: string, teamId: string, pointer: string) =>
  checkOwned(tx, organizationId, teamId, pointer, TEAM, 'is no team of this organization', 'no such team');

/** conversation.assigned: the assignee or the team changed. */
export function assignedEvent(before: ConversationRow, after: ConversationRow): NewEvent {
  return {
    type: 'conversation.assigned',
    body: {
      conversation_id: after.id,
      assignee_user_id: after.assigneeUserId,
      previous_assignee_user_id: before.assigneeUserId,
      team_id: after.teamId,
      previous_team_id: before.teamId,
      organization_id: after.organizationId,
    },
  };
}

const inQueue = (row: ConversationRow) => row.status === 'open' && row.assigneeUserId === null && row.teamId !== null;
const holdsCapacity = (row: ConversationRow) => row.status === 'open' && row.assigneeUserId !== null;

/**
 * The teams whose queue a change may let move: the conversation's, when it entered the queue, and
 * every team of an assignee whose open conversation it no longer is (resolved, moved, unassigned).
 */
export async function teamsToAssign(tx: Executor, before: ConversationRow, after: ConversationRow): Promise<string[]> {
  const found = new Set<string>();
  if (inQueue(after) && (!inQueue(before) || before.teamId !== after.teamId)) found.add(after.teamId!);
  if (holdsCapacity(before) && !(holdsCapacity(after) && after.assigneeUserId === before.assigneeUserId)) {
    const rows = await tx
      .select({ teamId: teamMembers.teamId })
      .from(teamMembers)
      .where(and(eq(teamMembers.organizationId, before.organizationId), eq(teamMembers.userId, before.assigneeUserId!)));
    for (const r of rows) found.add(r.teamId);
  }
  return [...found];
}

/**
 * What other parts of Parley do in the transaction that changes a conversation (wired by the container):
 * `onResolved` when it becomes resolved (the satisfaction survey, domain/csat); `queue`: where a change
 * that lets a team's queue move enqueues its assignment (domain/teams/assignment.ts).
 */
export type ConversationHooks = {
  onResolved?: (tx: Executor, row: ConversationRow, now: Date) => Promise<void>;
  queue?: QueueTrigger;
};

/**
 * Applies a change to a loaded conversation (the caller's transaction) and records its events:
 * conversation.status_changed (status, snooze time or priority), conversation.assigned (assignee), and
 * conversation.updated beside them for the clients that follow that one. Answers the row as it now is.
 * A snooze time needs status snoozed and lies in the future; leaving snoozed clears it.
 */
export async function applyConversationChange(
  tx: Executor,
  row: ConversationRow,
  change: Omit<ConversationPatch, 'conversationId'>,
  now: Date,
  hooks: ConversationHooks = {},
): Promise<ConversationRow> {
  const status = change.status === undefined ? row.status : statusOf(change.status);
  if (change.snoozedUntil !== undefined && change.snoozedUntil !== null) {
    if (status !== 'snoozed')
      throw invalid('snoozed_until needs status snoozed', [{ pointer: '/snoozed_until', message: 'only with status snoozed' }]);
    if (change.snoozedUntil.getTime() <= now.getTime())
      throw invalid('snoozed_until must be in the future', [{ pointer: '/snoozed_until', message: 'in the past' }]);
  }
  const snoozedUntil =
    status !== 'snoozed'
      ? null
      : change.snoozedUntil !== undefined || change.status !== undefined
        ? (change.snoozedUntil ?? null)
        : row.snoozedUntil;
  const next = {
    status,
    snoozedUntil,
    priority: change.priority ?? row.priority,
    assigneeUserId: change.assigneeUserId === undefined ? row.assigneeUserId : (change.assigneeUserId?.toLowerCase() ?? null),
    teamId: change.teamId === undefined ? row.teamId : (change.teamId?.toLowerCase() ?? null),
  };
  const statusMoved =
    next.status !== row.status ||
    next.priority !== row.priority ||
    (next.snoozedUntil?.getTime() ?? null) !== (row.snoozedUntil?.getTime() ?? null);
  const assigned = next.assigneeUserId !== row.assigneeUserId || next.teamId !== row.teamId;
  if (!statusMoved && !assigned) return row;
  const [updated] = await tx
    .update(conversations)
    // Resolved: the conversation is no longer people's to keep from bots (the next customer message may start one).
    .set({ ...next, ...(next.status === 'resolved' && row.status !== 'resolved' ? { botPausedAt: null } : {}), updatedAt: now })
    .where(eq(conversations.id, row.id))
    .returning();
  // Assigned to a member: people own it, and its bot stops.
  if (assigned && next.assigneeUserId !== null) await humanTookOver(tx, row.organizationId, row.id, now);
  const list: NewEvent[] = [];
  if (statusMoved) list.push(statusChanged(row, updated!));
  if (assigned) list.push(assignedEvent(row, updated!));
  list.push({ type: 'conversation.updated', body: conversationUpdated(updated!) });
  await recordEvents(tx, row.organizationId, list, now);
  if (hooks.queue) await hooks.queue(tx, await teamsToAssign(tx, row, updated!));
  if (updated!.status === 'resolved' && row.status !== 'resolved') await hooks.onResolved?.(tx, updated!, now);
  return updated!;
}

/**
 * Changes status (with the snooze time), priority, assignee (a member of the organization, or null) or
 * team, and records the events of applyConversationChange, in one transaction; a queue the change lets
 * move is handed to `hooks.queue`.
 */
export async function updateConversation(
  deps: { db: Db; clock: Clock; hooks?: ConversationHooks },
  actor: Actor,
  input: ConversationPatch,
): Promise<ConversationView> {
  return deps.db.transaction(async (tx) => {
    const row = await loadConversation({ db: tx }, actor, input.conversationId);
    if (typeof input.assigneeUserId === 'string') await checkMember(tx, actor.organizationId, input.assigneeUserId, '/assignee_user_id');
    if (typeof input.teamId === 'string') await checkTeam(tx, actor.organizationId, input.teamId, '/team_id');
    await applyConversationChange(tx, row, input, deps.clock.now(), deps.hooks);
    return loadConversationView({ db: tx }, actor, row.id);
  });
}

/**
 * Wakes the snoozed conversations whose time has passed by the clock: open again, each with
 * conversation.status_changed and conversation.updated, once (the update that opens it is the mark).
 * The conversations.wake job runs this every minute. Answers how many woke.
 */
export async function wakeSnoozedConversations({ db, clock }: { db: Db; clock: Clock }): Promise<number> {
  const now = clock.now();
  return db.transaction(async (tx) => {
    const before = await tx
      .select()
      .from(conversations)
      .where(
        and(
          eq(conversations.status, 'snoozed'),
          isNotNull(conversations.snoozedUntil),
          sql`${conversations.snoozedUntil} <= ${now.toISOString()}::timestamptz`,
        ),
      )
      .orderBy(asc(conversations.snoozedUntil), asc(conversations.id))
      .limit(500)
      .for('update', { skipLocked: true });
    for (const row of before) {
      const [updated] = await tx
        .update(conversations)
        .set({ status: 'open', snoozedUntil: null, updatedAt: now })
        .where(and(eq(conversations.id, row.id), eq(conversations.status, 'snoozed')))
        .returning();
      if (!updated) continue;
      await recordEvents(
        tx,
        row.organizationId,
        [statusChanged(row, updated), { type: 'conversation.updated', body: conversationUpdated(updated) }],
        now,
      );
    }
    return before.length;
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

/**
 * An inbound message opens a pending, snoozed or resolved conversation (un-snoozes it), opens the window
 * and counts as unread. `answer`: it answered the team's own question (a satisfaction rating): the
 * window opens, but the status stays and nothing is unread.
 */
export async function touchInbound(
  tx: Executor,
  row: ConversationRow,
  at: Date,
  preview: string,
  contactId: string | null,
  now: Date,
  options: { answer?: boolean } = {},
): Promise<void> {
  const [updated] = await tx
    .update(conversations)
    .set({
      lastInboundAt: sql`greatest(${conversations.lastInboundAt}, ${at.toISOString()}::timestamptz)`,
      lastMessageAt: sql`greatest(${conversations.lastMessageAt}, ${at.toISOString()}::timestamptz)`,
      lastMessagePreview: preview,
      ...(options.answer ? {} : { status: 'open', snoozedUntil: null, unreadCount: sql`${conversations.unreadCount} + 1` }),
      ...(contactId && !row.contactId ? { contactId } : {}),
      updatedAt: now,
    })
    .where(eq(conversations.id, row.id))
    .returning();
  if (row.status !== 'open' && !options.answer) {
    await recordEvents(
      tx,
      row.organizationId,
      [statusChanged(row, updated!), { type: 'conversation.updated', body: conversationUpdated(updated!) }],
      now,
    );
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
