/**
 * Messages: their record, reading them back, and moving them forward through their status
 * lifecycle. Accepting them is accept.ts; sending them, dispatcher.ts and dispatch.ts.
 */
import { and, asc, eq, gte, lte, sql, type SQLWrapper } from 'drizzle-orm';
import type { Executor } from '../../db/client.ts';
import { preparedOn } from '../../db/prepared.ts';
import { afterCursor, newestFirst, toPage, type Page, type PageResult } from '../../db/paginate.ts';
import { messageMedia, messages, messageStatusHistory } from '../../db/schema.ts';
import { isUuid, uuidv7 } from '../../lib/ids.ts';
import { normalizePhone, phoneDigits } from '../../lib/phone.ts';
import type { Actor } from '../actor.ts';
import { invalid, notFound } from '../errors.ts';
import { recordEvent } from '../events/outbox.ts';

export type MessageRow = typeof messages.$inferSelect;
export type MessageMediaRow = typeof messageMedia.$inferSelect;

/** A message as it is read back: the row, and the media it carried (inbound, stored on arrival), if any. */
export type MessageView = MessageRow & { media: MessageMediaRow | null };

/** The columns a view is read with: the message's, and its media row's. */
const VIEW = { message: messages, media: messageMedia };
const toView = (row: { message: MessageRow; media: MessageMediaRow | null }): MessageView => ({ ...row.message, media: row.media });

/** The NOTIFY channel that wakes message dispatchers in other processes when a message is due. */
export const DISPATCH_CHANNEL = 'parley_dispatch';

/** Outbound: queued -> sent -> delivered -> read, or failed from any non-final state. Inbound: received. */
export const MESSAGE_STATUSES = ['queued', 'sent', 'delivered', 'read', 'failed', 'received'] as const;
const RANK: Record<string, number> = { queued: 0, sent: 1, delivered: 2, read: 3 };
const FINAL = new Set(['read', 'failed', 'received']);

/** Whether `to` is a forward move from `from` (late or out-of-order callbacks never move back). */
export function isForward(from: string, to: string): boolean {
  if (FINAL.has(from)) return false;
  if (to === 'failed') return true;
  return (RANK[to] ?? -1) > (RANK[from] ?? -1);
}

const selectMessageById = (db: Executor, id: string | SQLWrapper, org: string | SQLWrapper) =>
  db
    .select(VIEW)
    .from(messages)
    .leftJoin(messageMedia, eq(messageMedia.messageId, messages.id))
    .where(and(eq(messages.id, id), eq(messages.organizationId, org)))
    .limit(1);
/** The read of GET /v1/messages/{id}, prepared (db/prepared.ts). */
const messageByIdOf = preparedOn((db) => selectMessageById(db, sql.placeholder('id'), sql.placeholder('org')).prepare('messages_by_id'));

/** A message of the actor's organization; another organization's id is simply not found. */
export async function loadMessage(deps: { db: Executor }, actor: Actor, messageId: string): Promise<MessageView> {
  if (!isUuid(messageId)) throw notFound('message');
  const byId = messageByIdOf(deps.db);
  const [row] = byId
    ? await byId.execute({ id: messageId, org: actor.organizationId })
    : await selectMessageById(deps.db, messageId, actor.organizationId);
  if (!row) throw notFound('message');
  return toView(row);
}

export type MessageFilters = {
  channelId?: string;
  conversationId?: string;
  status?: string;
  direction?: string;
  to?: string;
  createdAfter?: Date;
  createdBefore?: Date;
};

/** Newest first; the cursor is the (created_at, id) of the last row, so new messages never shift pages. */
export async function listMessages(deps: { db: Executor }, actor: Actor, input: Page & MessageFilters): Promise<PageResult<MessageView>> {
  if ((input.channelId !== undefined && !isUuid(input.channelId)) || (input.conversationId !== undefined && !isUuid(input.conversationId))) {
    return { items: [], nextCursor: null };
  }
  const to = input.to ? normalizePhone(input.to) : undefined;
  if (input.to && !to) throw invalid('to is not a valid phone number', [{ pointer: '/to', message: 'not a valid phone number' }]);
  const rows = await deps.db
    .select(VIEW)
    .from(messages)
    .leftJoin(messageMedia, eq(messageMedia.messageId, messages.id))
    .where(
      and(
        eq(messages.organizationId, actor.organizationId),
        input.channelId ? eq(messages.channelId, input.channelId) : undefined,
        input.conversationId ? eq(messages.conversationId, input.conversationId) : undefined,
        input.status ? eq(messages.status, input.status) : undefined,
        input.direction ? eq(messages.direction, input.direction) : undefined,
        to ? eq(messages.toPhone, phoneDigits(to)) : undefined,
        input.createdAfter ? gte(messages.createdAt, input.createdAfter) : undefined,
        input.createdBefore ? lte(messages.createdAt, input.createdBefore) : undefined,
        afterCursor(messages.createdAt, messages.id, input.cursor),
      ),
    )
    .orderBy(...newestFirst(messages.createdAt, messages.id))
    .limit(input.limit + 1);
  return toPage(rows.map(toView), input.limit, (row) => row);
}

export type StatusHistoryRow = typeof messageStatusHistory.$inferSelect;

/** A message and its status history, in the order the reports arrived. */
export async function messageStatus(deps: { db: Executor }, actor: Actor, messageId: string): Promise<{ message: MessageView; history: StatusHistoryRow[] }> {
  const message = await loadMessage(deps, actor, messageId);
  const history = await deps.db
    .select()
    .from(messageStatusHistory)
    .where(eq(messageStatusHistory.messageId, message.id))
    // In the order the reports arrived (provider times have second precision and may arrive out of order).
    .orderBy(asc(messageStatusHistory.createdAt), asc(messageStatusHistory.id));
  return { message, history };
}

/** The outbound steps in order; a report may skip some (a lost callback, a provider that reports only the last). */
const STEPS = ['queued', 'sent', 'delivered', 'read'] as const;

/** The steps a forward move from `from` to `to` passes over (queued -> read: sent, delivered). */
export function skippedSteps(from: string, to: string): Array<'sent' | 'delivered'> {
  const start = STEPS.indexOf(from as (typeof STEPS)[number]);
  const end = STEPS.indexOf(to as (typeof STEPS)[number]);
  if (start < 0 || end <= start + 1) return [];
  return STEPS.slice(start + 1, end) as Array<'sent' | 'delivered'>;
}

/** Why a message failed: a code and title, with the provider's details and its wording for the end user where it gave them. */
export type MessageError = { code: string; title: string; message?: string; userTitle?: string; userMessage?: string };

/**
 * Moves a message's status forward (never back), keeping the first report of each status in its history,
 * and records message.status_update (and message.sent on acceptance) in the same transaction. A
 * report that skips steps (read on a message still `sent`) records the skipped ones first, in
 * order, with their events: subscribers waiting for `delivered` get it, and the history reads forward.
 */
export async function advanceStatus(
  tx: Executor,
  row: MessageRow,
  to: 'sent' | 'delivered' | 'read' | 'failed',
  occurredAt: Date,
  now: Date,
  extra: { providerMessageId?: string; error?: MessageError } = {},
): Promise<boolean> {
  // One row per status: a status reported again (the provider's own `sent` after the dispatcher
  // wrote it, a duplicate or late callback) keeps the row of its first report.
  const history = (status: string, error?: { code: string; title: string }) =>
    tx
      .insert(messageStatusHistory)
      .values({
        id: uuidv7(),
        messageId: row.id,
        status,
        errorCode: error?.code ?? null,
        errorTitle: error?.title ?? null,
        occurredAt,
        createdAt: now,
      })
      .onConflictDoNothing({ target: [messageStatusHistory.messageId, messageStatusHistory.status] });
  // Compare-and-set on the status last read: when another report moved it meanwhile (callbacks run
  // concurrently), read it again and move on from there if this one is still a step forward, so a
  // `delivered` committed first never keeps a later `read` out.
  let from = row;
  for (;;) {
    if (!isForward(from.status, to)) {
      await history(to, extra.error);
      return false;
    }
    const updated = await tx
      .update(messages)
      .set({
        status: to,
        updatedAt: now,
        ...(extra.providerMessageId && !from.providerMessageId ? { providerMessageId: extra.providerMessageId } : {}),
        ...(extra.error
          ? {
              errorCode: extra.error.code,
              errorTitle: extra.error.title,
              errorMessage: extra.error.message ?? null,
              errorUserTitle: extra.error.userTitle ?? null,
              errorUserMessage: extra.error.userMessage ?? null,
            }
          : {}),
      })
      .where(and(eq(messages.id, row.id), eq(messages.status, from.status)))
      .returning({ id: messages.id });
    if (updated.length > 0) break;
    const [fresh] = await tx.select().from(messages).where(eq(messages.id, row.id)).limit(1);
    if (!fresh) return false;
    from = fresh;
  }
  const steps = [...skippedSteps(from.status, to), to];
  for (const step of steps) await history(step, step === to ? extra.error : undefined);
  if (from.status === 'queued' && to !== 'failed') {
    await recordEvent(tx, row.organizationId, 'message.sent', { conversation_id: row.conversationId, message_id: row.id, channel_id: row.channelId }, now);
  }
  for (const step of steps) {
    await recordEvent(
      tx,
      row.organizationId,
      'message.status_update',
      { message_id: row.id, status: step, conversation_id: row.conversationId, organization_id: row.organizationId },
      now,
    );
  }
  return true;
}

/** Finds an outbound message of a channel by the provider's id, or by our own id echoed back. */
/** The status of one of a channel's messages by its provider id; undefined when Parley holds none. */
export async function messageStatusByProviderId(db: Executor, channelId: string, providerMessageId: string): Promise<string | undefined> {
  const [row] = await db
    .select({ status: messages.status })
    .from(messages)
    .where(and(eq(messages.channelId, channelId), eq(messages.providerMessageId, providerMessageId)))
    .limit(1);
  return row?.status;
}

export async function findByProviderId(tx: Executor, channelId: string, providerMessageId: string, ownId?: string): Promise<MessageRow | undefined> {
  const [row] = await tx
    .select()
    .from(messages)
    .where(and(eq(messages.channelId, channelId), eq(messages.providerMessageId, providerMessageId)))
    .limit(1);
  if (row || !ownId || !isUuid(ownId)) return row;
  const [byOwn] = await tx
    .select()
    .from(messages)
    .where(and(eq(messages.channelId, channelId), eq(messages.id, ownId), sql`${messages.providerMessageId} is null`))
    .limit(1);
  return byOwn;
}
