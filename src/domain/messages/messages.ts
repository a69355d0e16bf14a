/**
 * Messages: their record, reading them back, and moving them forward through their status
 * lifecycle. Accepting them is accept.ts; sending them, dispatcher.ts and dispatch.ts.
 */
import { and, eq, gte, inArray, lte, sql, type SQLWrapper } from 'drizzle-orm';
import { queryRows, type Executor } from '../../db/client.ts';
import { preparedOn } from '../../db/prepared.ts';
import { emptyPage, equalWhereGiven, given, listPage, mapPage, newestFirstBy } from '../../db/list-query.ts';
import type { Page, PageResult } from '../../db/paginate.ts';
import { cursorKey } from '../paging.ts';
import { messageMedia, messages, type StatusHistoryEntry } from '../../db/schema.ts';
import { isUuid, uuidv7 } from '../../lib/ids.ts';
import { normalizePhone, phoneDigits } from '../../lib/phone.ts';
import type { Actor } from '../actor.ts';
import { invalid, notFound } from '../errors.ts';
import { EVENTS_CHANNEL, type EventType } from '../events/outbox.ts';
import { batchIds, batchRows } from '../../db/batch-rows.ts';
import type { StatusConversation, StatusPricing } from '../../providers/provider.ts';

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
  if (
    (input.channelId !== undefined && !isUuid(input.channelId)) ||
    (input.conversationId !== undefined && !isUuid(input.conversationId))
  ) {
    return emptyPage();
  }
  const to = input.to ? normalizePhone(input.to) : undefined;
  if (input.to && !to) throw invalid('to is not a valid phone number', [{ pointer: '/to', message: 'not a valid phone number' }]);
  const rows = await listPage(
    deps.db.select(VIEW).from(messages).leftJoin(messageMedia, eq(messageMedia.messageId, messages.id)).$dynamic(),
    {
      where: [
        eq(messages.organizationId, actor.organizationId),
        ...equalWhereGiven([
          [messages.channelId, input.channelId],
          [messages.conversationId, input.conversationId],
          [messages.status, input.status],
          [messages.direction, input.direction],
        ]),
        given(to, (phone) => eq(messages.toPhone, phoneDigits(phone))),
        given(input.createdAfter, (after) => gte(messages.createdAt, after)),
        given(input.createdBefore, (before) => lte(messages.createdAt, before)),
      ],
      order: newestFirstBy(messages.createdAt, messages.id),
      after: cursorKey(input.cursor),
      limit: input.limit,
      keyOf: (row) => ({ t: row.message.createdAt, id: row.message.id }),
    },
  );
  return mapPage(rows, toView);
}

/** A status the message reached, as the API reads it. */
export type StatusHistoryRow = {
  id: string;
  status: string;
  errorCode: string | null;
  errorTitle: string | null;
  pricing: Record<string, unknown> | null;
  conversation: Record<string, unknown> | null;
  occurredAt: Date;
  createdAt: Date;
};

/** A new message's history: its first status. */
export function firstStatus(status: string, occurredAt: Date, at: Date): StatusHistoryEntry[] {
  return [
    {
      id: uuidv7(),
      status,
      error_code: null,
      error_title: null,
      pricing: null,
      conversation: null,
      occurred_at: occurredAt.toISOString(),
      created_at: at.toISOString(),
    },
  ];
}

/** A message and its status history, in the order the reports arrived (as its row keeps it). */
export async function messageStatus(
  deps: { db: Executor },
  actor: Actor,
  messageId: string,
): Promise<{ message: MessageView; history: StatusHistoryRow[] }> {
  const message = await loadMessage(deps, actor, messageId);
  const history = message.statusHistory.map((h) => ({
    id: h.id,
    status: h.status,
    errorCode: h.error_code ?? null,
    errorTitle: h.error_title ?? null,
    pricing: h.pricing ?? null,
    conversation: h.conversation ?? null,
    occurredAt: new Date(h.occurred_at),
    createdAt: new Date(h.created_at),
  }));
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

/** What a status report said about billing, as the provider sent it (kept on the status's history row and in its event). */
export type StatusBilling = { pricing?: StatusPricing; conversation?: StatusConversation };

/** One status report for a message: where it moves it, when the provider says it happened, what it adds. */
export type StatusMove = {
  row: MessageRow;
  to: 'sent' | 'delivered' | 'read' | 'failed';
  occurredAt: Date;
  providerMessageId?: string;
  error?: MessageError;
  billing?: StatusBilling;
};

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
  const [moved] = await advanceStatuses(tx, [{ row, to, occurredAt, ...extra }], now);
  return moved!;
}

/**
 * advanceStatus for many reports at once (the statuses of one provider delivery, the sends of a
 * batch): one statement locks the messages in id order and writes every change, history row and
 * event, whatever the number of reports. The reports are planned on the rows as the caller read
 * them; the statement writes a message only if it is still in the status planned from, and the
 * messages a report moved meanwhile (reports of one message run concurrently) are read again and
 * planned anew, so a report is always judged against the newest status. Reports of the same message
 * apply in the order given. Resolves to whether each report moved its message. Atomic on its own; a
 * transaction passed in holds the locks until it ends.
 */
export async function advanceStatuses(tx: Executor, moves: StatusMove[], now: Date): Promise<boolean[]> {
  const result: boolean[] = moves.map(() => false);
  let pending = moves.map((move, i) => ({ move, i }));
  // A message's reports are planned from one row: the first the caller gave for it.
  let current = new Map<string, MessageRow>();
  for (const { row } of moves) if (!current.has(row.id)) current.set(row.id, row);
  while (pending.length > 0) {
    const plan = planMoves(pending, current);
    for (const [i, moved] of plan.moved) result[i] = moved;
    const conflicted = await writeMoves(tx, plan, now);
    pending = pending.filter((p) => conflicted.has(p.move.row.id));
    if (pending.length > 0)
      current = new Map(
        (
          await tx
            .select()
            .from(messages)
            .where(inArray(messages.id, batchIds([...conflicted])))
        ).map((r) => [r.id, r]),
      );
  }
  return result;
}

type Plan = {
  /** Per message: the status it was read in and the one it ends in, with the columns that change. */
  rows: Array<{ id: string; from: string; status: string; provider_message_id: string | null; error: MessageError | null }>;
  history: Array<{
    id: string;
    message_id: string;
    status: string;
    error_code: string | null;
    error_title: string | null;
    pricing: StatusPricing | null;
    conversation: StatusConversation | null;
    occurred_at: string;
  }>;
  events: Array<{ n: number; id: string; message_id: string; organization_id: string; type: string; payload: Record<string, unknown> }>;
  moved: Map<number, boolean>;
};

/** The writes the reports make, in order, on the rows as locked (the forward rule, skipped steps, events). */
function planMoves(pending: Array<{ move: StatusMove; i: number }>, current: Map<string, MessageRow>): Plan {
  const plan: Plan = { rows: [], history: [], events: [], moved: new Map() };
  const state = new Map<string, Plan['rows'][number]>();
  const historyAt = new Map<string, number>();
  // One row per status: a status reported again (the provider's own `sent` after the dispatcher
  // wrote it, a duplicate or late callback) keeps the row of its first report, and adds only the
  // billing the first did not carry.
  const history = (
    messageId: string,
    status: string,
    occurredAt: Date,
    error?: { code: string; title: string },
    billing?: StatusBilling,
  ) => {
    const key = `${messageId}\u0000${status}`;
    const at = historyAt.get(key);
    if (at !== undefined) {
      const first = plan.history[at]!;
      first.pricing ??= billing?.pricing ?? null;
      first.conversation ??= billing?.conversation ?? null;
      return;
    }
    historyAt.set(key, plan.history.length);
    plan.history.push({
      id: uuidv7(),
      message_id: messageId,
      status,
      error_code: error?.code ?? null,
      error_title: error?.title ?? null,
      pricing: billing?.pricing ?? null,
      conversation: billing?.conversation ?? null,
      occurred_at: occurredAt.toISOString(),
    });
  };
  for (const { move, i } of pending) {
    const row = current.get(move.row.id);
    if (!row) {
      plan.moved.set(i, false);
      continue;
    }
    let entry = state.get(row.id);
    if (!entry) {
      entry = { id: row.id, from: row.status, status: row.status, provider_message_id: row.providerMessageId, error: null };
      state.set(row.id, entry);
      plan.rows.push(entry);
    }
    if (!isForward(entry.status, move.to)) {
      history(row.id, move.to, move.occurredAt, move.error, move.billing);
      plan.moved.set(i, false);
      continue;
    }
    const from = entry.status;
    const steps = [...skippedSteps(from, move.to), move.to];
    for (const step of steps)
      history(row.id, step, move.occurredAt, step === move.to ? move.error : undefined, step === move.to ? move.billing : undefined);
    entry.status = move.to;
    if (move.providerMessageId && !entry.provider_message_id) entry.provider_message_id = move.providerMessageId;
    if (move.error) entry.error = move.error;
    const event = (type: EventType, payload: Record<string, unknown>) =>
      plan.events.push({ n: plan.events.length, id: uuidv7(), message_id: row.id, organization_id: row.organizationId, type, payload });
    if (from === 'queued' && move.to !== 'failed')
      event('message.sent', { conversation_id: row.conversationId, message_id: row.id, channel_id: row.channelId });
    for (const step of steps)
      event('message.status_update', {
        message_id: row.id,
        status: step,
        conversation_id: row.conversationId,
        organization_id: row.organizationId,
        ...(step === move.to && move.billing?.pricing ? { pricing: move.billing.pricing } : {}),
        ...(step === move.to && move.billing?.conversation ? { conversation: move.billing.conversation } : {}),
      });
    plan.moved.set(i, true);
  }
  return plan;
}

/**
 * Writes a plan in one statement: locks its messages in id order (transactions writing overlapping
 * sets wait for each other instead of deadlocking), then writes the messages that move (each only
 * from the status it was planned on: a locked row is read as last committed) with their history
 * entries appended to their row, the history a report adds to a message it does not move (a late or
 * repeated report: only a status the row lacks, or billing an entry lacks), and the events (with the
 * NOTIFY that wakes the webhook engine). A message no longer in the status it was planned on (moved
 * by a report meanwhile) is not moved; its id is returned, to be planned again.
 */
async function writeMoves(tx: Executor, plan: Plan, now: Date): Promise<Set<string>> {
  if (plan.rows.length === 0) return new Set();
  const at = now.toISOString();
  const [result] = await queryRows<{ conflicted: string[] | null }>(
    tx,
    sql`
      with r as (
        select * from ${batchRows(JSON.stringify(plan.rows), 'r', `id uuid, "from" text, status text, provider_message_id text, error json`)}
      ),
      locked as (select id from messages where id in (select id from r) order by id for update),
      -- The history entries and events decoded once: joined inline, the planner (taking a CTE for one row)
      -- decoded every event again for each message moved, most of the statement's time (DECISIONS 62).
      hd as materialized (
        select * from ${batchRows(JSON.stringify(plan.history.map((h, n) => ({ ...h, n }))), 'h', `n int, id uuid, message_id uuid, status text, error_code text, error_title text, pricing jsonb, conversation jsonb, occurred_at timestamptz`)}
      ),
      -- Each message's new entries, in the order planned.
      h as materialized (
        select hd.message_id, jsonb_agg(jsonb_build_object('id', hd.id, 'status', hd.status, 'error_code', hd.error_code, 'error_title', hd.error_title,
                 'pricing', hd.pricing, 'conversation', hd.conversation, 'occurred_at', hd.occurred_at, 'created_at', ${at}::timestamptz) order by hd.n) as entries
          from hd group by hd.message_id
      ),
      e as materialized (
        select * from ${batchRows(JSON.stringify(plan.events), 'e', `n int, id uuid, message_id uuid, organization_id uuid, type text, payload jsonb`)}
      ),
      written as (
        update messages m set
          status = case when r.moves then r.status else m.status end,
          -- A message that leaves queued is never due again: its dispatch lease (if any) ends here.
          dispatch_at = case when r.moves then null else m.dispatch_at end,
          updated_at = case when r.moves then ${at}::timestamptz else m.updated_at end,
          provider_message_id = case when r.moves then r.provider_message_id else m.provider_message_id end,
          error_code = case when r.moves and r.error is not null then r.error->>'code' else m.error_code end,
          error_title = case when r.moves and r.error is not null then r.error->>'title' else m.error_title end,
          error_message = case when r.moves and r.error is not null then r.error->>'message' else m.error_message end,
          error_user_title = case when r.moves and r.error is not null then r.error->>'userTitle' else m.error_user_title end,
          error_user_message = case when r.moves and r.error is not null then r.error->>'userMessage' else m.error_user_message end,
          status_history = parley_status_history_merge(m.status_history, h.entries)
        from (select r.*, r.status <> r."from" as moves from r) r left join h on h.message_id = r.id
        where m.id = r.id and m.id in (select id from locked)
          and case when r.moves then m.status = r."from"
                   -- A report that moves nothing writes only what it adds to the history.
                   else h.entries is not null and parley_status_history_merge(m.status_history, h.entries) <> m.status_history end
        returning m.id, r.moves
      ),
      moved as (select id from written where moves),
      inserted as (
        insert into events (id, organization_id, type, payload, created_at)
        select e.id, e.organization_id, e.type, e.payload, ${at}::timestamptz
          from e
         where e.message_id in (select id from moved)
         order by e.n
        returning 1
      ),
      notified as (select pg_notify(${EVENTS_CHANNEL}, '') from (select 1 from inserted limit 1) one)
      select (select array_agg(r.id::text) from r where r.status <> r."from" and r.id not in (select id from moved)) as conflicted,
             (select count(*) from notified) as notified`,
  );
  return new Set(result?.conflicted ?? []);
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

/** What a provider's engine needs of one of a channel's messages by provider id (a quote's content, a group message's sender). */
export async function storedMessageByProviderId(db: Executor, channelId: string, providerMessageId: string) {
  const [row] = await db
    .select({
      status: messages.status,
      direction: messages.direction,
      type: messages.type,
      content: messages.content,
      fromPhone: messages.fromPhone,
      toPhone: messages.toPhone,
    })
    .from(messages)
    .where(and(eq(messages.channelId, channelId), eq(messages.providerMessageId, providerMessageId)))
    .limit(1);
  return row;
}

export async function findByProviderId(
  tx: Executor,
  channelId: string,
  providerMessageId: string,
  ownId?: string,
): Promise<MessageRow | undefined> {
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
