/**
 * Messages: accepted (validated, checked against the channel's matrix, the customer-service window
 * and the contact's consent), stored with their dispatch job in one transaction, read back, and
 * moved forward through their status lifecycle.
 */
import { and, asc, eq, gte, lt, lte, sql, type SQL } from 'drizzle-orm';
import type { Database, Db, Executor } from '../../db/client.ts';
import { afterCursor, newestFirst, toPage, type Page, type PageResult } from '../../db/paginate.ts';
import { idempotencyKeys, messages, messageStatusHistory } from '../../db/schema.ts';
import type { Queue } from '../../jobs/queue.ts';
import type { Clock } from '../../lib/clock.ts';
import { isUuid, uuidv7 } from '../../lib/ids.ts';
import { normalizePhone, phoneDigits } from '../../lib/phone.ts';
import type { Platform } from '../../providers/provider.ts';
import type { Actor } from '../actor.ts';
import { assertMessageType, capabilitiesOf, type MessageType } from '../channels/capabilities.ts';
import { loadChannel } from '../channels/channels.ts';
import { DomainError, invalid, notFound } from '../errors.ts';
import { recordEvent } from '../events/outbox.ts';
import { parseContent, previewOf } from './content.ts';
import { mediaOf } from './media.ts';

export type MessageRow = typeof messages.$inferSelect;

function isUniqueViolation(err: unknown): boolean {
  const e = err as { code?: string; cause?: { code?: string } };
  return e?.code === '23505' || e?.cause?.code === '23505';
}

/** The NOTIFY channel that wakes message dispatchers in other processes when a message is due. */
export const DISPATCH_CHANNEL = 'parley_dispatch';

/** Outbound: queued -> sent -> delivered -> read, or failed from any non-final state. Inbound: received. */
export const MESSAGE_STATUSES = ['queued', 'sent', 'delivered', 'read', 'failed', 'received'] as const;
export type MessageStatus = (typeof MESSAGE_STATUSES)[number];
const RANK: Record<string, number> = { queued: 0, sent: 1, delivered: 2, read: 3 };
const FINAL = new Set(['read', 'failed', 'received']);

/** Whether `to` is a forward move from `from` (late or out-of-order callbacks never move back). */
export function isForward(from: string, to: string): boolean {
  if (FINAL.has(from)) return false;
  if (to === 'failed') return true;
  return (RANK[to] ?? -1) > (RANK[from] ?? -1);
}

/**
 * The CRM's rules on sending (consent, suppression), as a query the accepting statement embeds:
 * it yields at most one row, the decisive refusal, which explain() puts in words.
 */
export type SendPolicy = {
  refusalQuery(organizationId: string, input: { phone: string; channelId: string; at: Date }): SQL;
  explain(row: never, isTemplate: boolean): { code: string; reason: string };
};

export type MessageDeps = {
  db: Db;
  /** Runs the accepting statement under a name (planned once per connection). */
  queryPrepared: Database['queryPrepared'];
  clock: Clock;
  queue: Queue;
  /** Channels as the accepting process last saw them; every accept checks the row still says so. */
  channels: ChannelCache;
  /** Consent and suppression rules of the CRM; absent means no rule refuses. */
  sendPolicy?: SendPolicy;
  /** Plain-http and private media URLs are allowed (development); sandbox channels always allow them. */
  allowPrivateTargets?: boolean;
  /**
   * Called after a message is accepted: wakes this process's dispatcher, or, in a process without
   * one, the dispatchers of the others (by a NOTIFY that many accepts share, outside their statements).
   */
  wakeDispatch(): void;
};

export type MessageRecord = {
  id: string;
  channel_id: string;
  conversation_id: string;
  contact_id: string | null;
  direction: 'inbound' | 'outbound';
  to: string;
  to_phone: string;
  from_phone: string | null;
  type: string;
  content: Record<string, unknown>;
  status: MessageStatus;
  provider_message_id: string | null;
  error: { code: string; title: string; message: string | null } | null;
  created_at: string;
  updated_at: string;
};

export function presentMessage(row: MessageRow): MessageRecord {
  return {
    id: row.id,
    channel_id: row.channelId,
    conversation_id: row.conversationId,
    contact_id: row.contactId,
    direction: row.direction as 'inbound' | 'outbound',
    to: row.toPhone,
    to_phone: row.toPhone,
    from_phone: row.fromPhone,
    type: row.type,
    content: row.content,
    status: row.status as MessageStatus,
    provider_message_id: row.providerMessageId,
    error: row.status === 'failed' && row.errorCode ? { code: row.errorCode, title: row.errorTitle ?? row.errorCode, message: row.errorMessage } : null,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

export type SendInput = {
  channelId: string;
  to: string;
  conversationId?: string;
  type: MessageType;
  content: unknown;
  idempotency?: { key: string; requestHash: string };
};

export const IDEMPOTENCY_HOURS = 24;

/** The stored answer for an Idempotency-Key, or undefined; 409 when the key came with another body. */
async function findIdempotentAnswer(db: Executor, actor: Actor, key: string, requestHash: string, clock: Clock) {
  const [row] = await db
    .select()
    .from(idempotencyKeys)
    .where(
      and(
        eq(idempotencyKeys.organizationId, actor.organizationId),
        eq(idempotencyKeys.key, key),
        gte(idempotencyKeys.createdAt, new Date(clock.now().getTime() - IDEMPOTENCY_HOURS * 3_600_000)),
      ),
    )
    .limit(1);
  if (!row) return undefined;
  if (row.requestHash !== requestHash) throw new DomainError('conflict', 'Idempotency-Key was already used with a different request body');
  return { status: row.responseStatus, body: row.responseBody };
}

export type AcceptAnswer = { status: number; body: unknown; replayed: boolean };

/**
 * acceptMessage behind an Idempotency-Key: the key's live answer when there is one (409 for another
 * body), else the new message, whose answer is stored by the accepting statement itself. When two
 * requests race with one key, the second statement fails on the key and answers with the first's.
 */
export async function acceptMessageOnce(deps: MessageDeps, actor: Actor, input: SendInput): Promise<AcceptAnswer> {
  const idem = input.idempotency;
  if (!idem) return { status: 201, body: { data: presentMessage(await acceptMessage(deps, actor, input)) }, replayed: false };
  const previous = await findIdempotentAnswer(deps.db, actor, idem.key, idem.requestHash, deps.clock);
  if (previous) return { ...previous, replayed: true };
  for (let round = 0; ; round++) {
    try {
      return { status: 201, body: { data: presentMessage(await acceptMessage(deps, actor, input)) }, replayed: false };
    } catch (err) {
      if (!isUniqueViolation(err) || round > 0) throw err;
      const winner = await findIdempotentAnswer(deps.db, actor, idem.key, idem.requestHash, deps.clock);
      if (winner) return { ...winner, replayed: true };
      // The key's row is older than its 24 hours: it makes way for this request.
      await deps.db
        .delete(idempotencyKeys)
        .where(
          and(
            eq(idempotencyKeys.organizationId, actor.organizationId),
            eq(idempotencyKeys.key, idem.key),
            lt(idempotencyKeys.createdAt, new Date(deps.clock.now().getTime() - IDEMPOTENCY_HOURS * 3_600_000)),
          ),
        );
    }
  }
}

type ChannelRow = Awaited<ReturnType<typeof loadChannel>>;

/** The channels an accepting process has loaded, by id; a hint that each accept checks. */
export type ChannelCache = {
  get(db: Executor, actor: Actor, channelId: string): Promise<ChannelRow>;
  forget(channelId: string): void;
};

export function createChannelCache(options: { ttlMs: number; maxEntries?: number; now(): Date }): ChannelCache {
  const cache = new Map<string, { row: ChannelRow; at: number }>();
  return {
    async get(db, actor, channelId) {
      const hit = cache.get(channelId);
      if (hit && hit.row.organizationId === actor.organizationId && options.now().getTime() - hit.at < options.ttlMs) return hit.row;
      const row = await loadChannel(db, actor, channelId);
      if (cache.size >= (options.maxEntries ?? 10_000)) cache.clear();
      cache.set(channelId, { row, at: options.now().getTime() });
      return row;
    },
    forget(channelId) {
      cache.delete(channelId);
    },
  };
}

/** Why the accepting statement wrote nothing. */
type Refusal = 'channel_changed' | 'conversation_not_found' | 'conversation_mismatch' | 'window_closed' | 'policy';

type StatementAnswer = {
  refusal: Refusal | null;
  policy: Record<string, unknown> | null;
  last_inbound_at: string | null;
  message_id: string | null;
  conversation_id: string | null;
  contact_id: string | null;
};

/**
 * Accepts a message for sending. After validation (no database), one statement does the rest: it
 * checks the channel is as cached, resolves or creates the conversation, checks the 24-hour window
 * and the CRM's rules, and writes the message (which is its own dispatch job, due now), its first
 * status and the conversation's last message. A refusal writes nothing. Returns it `queued`.
 */
export async function acceptMessage(deps: MessageDeps, actor: Actor, input: SendInput): Promise<MessageRow> {
  for (let round = 0; ; round++) {
    const channel = await deps.channels.get(deps.db, actor, input.channelId).catch((err: unknown) => {
      if (err instanceof DomainError && err.code === 'not_found') {
        throw invalid('channel_id is not a channel of this organization', [{ pointer: '/channel_id', location: 'body', message: 'channel not found' }]);
      }
      throw err;
    });
    const platform = channel.platform as Platform;
    assertMessageType(platform, input.type);
    const content = parseContent(input.type, input.content);
    if (!channel.sandbox && !deps.allowPrivateTargets) assertHttpsMedia(input.type, content);
    const phone = normalizePhone(input.to);
    if (!phone) throw invalid(`to ${JSON.stringify(input.to)} is not a valid international phone number`, [{ pointer: '/to', location: 'body', message: 'not a valid international phone number' }]);
    if (channel.status !== 'connected') {
      throw new DomainError('conflict', `channel ${channel.id} is ${channel.status}; it must be connected to send`, { extra: { channel_status: channel.status } });
    }
    if (input.conversationId !== undefined && !isUuid(input.conversationId)) throw conversationNotFound();
    const now = deps.clock.now();
    const to = phoneDigits(phone);
    const windowHours = capabilitiesOf(platform).customer_service_window_hours;
    const needsWindow = windowHours !== null && input.type !== 'template' && input.type !== 'mark_as_read';
    const policy = deps.sendPolicy && input.type !== 'mark_as_read' ? deps.sendPolicy.refusalQuery(actor.organizationId, { phone, channelId: channel.id, at: now }) : sql`select 1 where false`;
    const id = uuidv7();
    // The message as accepted; the statement fills in its conversation (and that one's contact).
    const accepted: MessageRow = {
      id,
      organizationId: actor.organizationId,
      channelId: channel.id,
      conversationId: '',
      contactId: null,
      direction: 'outbound',
      toPhone: to,
      fromPhone: fromPhoneOf(channel),
      type: input.type,
      content,
      status: 'queued',
      providerMessageId: null,
      errorCode: null,
      errorTitle: null,
      errorMessage: null,
      attempts: 0,
      lastAttemptAt: null,
      dispatchAt: now,
      createdAt: now,
      updatedAt: now,
    };
    // Named by its shape: the parts that differ between calls are parameters.
    const name = `parley_accept_${input.conversationId === undefined ? 'peer' : 'given'}_${deps.sendPolicy && input.type !== 'mark_as_read' ? 'policy' : 'open'}`;
    const [answer] = await deps.queryPrepared<StatementAnswer>(
      name,
      acceptStatement({
        id,
        historyId: uuidv7(),
        newConversationId: uuidv7(),
        organizationId: actor.organizationId,
        channel,
        to,
        conversationId: input.conversationId,
        type: input.type,
        content,
        preview: previewOf(input.type, content),
        now,
        windowSince: needsWindow ? new Date(now.getTime() - windowHours! * 3_600_000) : null,
        policy,
        idempotency: input.idempotency && { ...input.idempotency, answer: { data: presentMessage(accepted) } },
      }),
    );
    const refusal = answer!.refusal;
    if (refusal === 'channel_changed' || (refusal === null && answer!.message_id === null)) {
      // The channel changed since it was cached, or another request made the conversation a moment
      // ago: look again (a second round is rare, a third rarer still).
      deps.channels.forget(channel.id);
      if (round < 3) continue;
      throw new DomainError('conflict', 'the channel or conversation kept changing while the message was accepted; try again');
    }
    if (refusal === 'conversation_not_found') throw conversationNotFound();
    if (refusal === 'conversation_mismatch') {
      throw invalid('conversation_id belongs to another channel or number', [{ pointer: '/conversation_id', location: 'body', message: 'does not match channel_id and to' }]);
    }
    if (refusal === 'window_closed') {
      throw new DomainError(
        'window_closed',
        `the ${windowHours}-hour customer service window is closed: no message from ${phone} in the last ${windowHours} hours, so only a template message can be sent (type template)`,
        { extra: { last_inbound_at: answer!.last_inbound_at ? new Date(answer!.last_inbound_at).toISOString() : null } },
      );
    }
    if (refusal === 'policy') {
      const verdict = deps.sendPolicy!.explain(answer!.policy as never, input.type === 'template');
      throw new DomainError('send_refused', verdict.reason, { extra: { reason: verdict.code } });
    }
    deps.wakeDispatch();
    return { ...accepted, conversationId: answer!.conversation_id!, contactId: answer!.contact_id };
  }
}

const conversationNotFound = () =>
  invalid('conversation_id is not a conversation of this organization', [{ pointer: '/conversation_id', location: 'body', message: 'conversation not found' }]);

function fromPhoneOf(channel: ChannelRow): string | null {
  return channel.displayPhoneNumber ? phoneDigits(channel.displayPhoneNumber) : null;
}

/**
 * The one statement of acceptMessage. Its parts run as one snapshot: `ch` checks that the channel
 * fields acceptMessage used (from its cache) are still so; `verdict` decides, and every write is
 * conditional on it, so a refusal writes nothing. A live Idempotency-Key row with the same key makes
 * the `remembered` insert fail, and so the whole statement. A new conversation is inserted with the
 * message's preview already (a part cannot see another part's writes); when a concurrent request
 * inserted it first, nothing is written and the caller runs the statement again.
 */
function acceptStatement(a: {
  id: string;
  historyId: string;
  newConversationId: string;
  organizationId: string;
  channel: ChannelRow;
  to: string;
  conversationId: string | undefined;
  type: string;
  content: Record<string, unknown>;
  preview: string;
  now: Date;
  windowSince: Date | null;
  policy: SQL;
  /** The key's answer, with the conversation and contact filled in by the statement. */
  idempotency?: { key: string; requestHash: string; answer: { data: MessageRecord } };
}): SQL {
  const now = sql`${a.now.toISOString()}::timestamptz`;
  const found =
    a.conversationId === undefined
      ? sql`select id, contact_id, last_inbound_at, channel_id, peer_phone from conversations where channel_id = ${a.channel.id} and peer_phone = ${a.to}`
      : sql`select id, contact_id, last_inbound_at, channel_id, peer_phone from conversations where id = ${a.conversationId} and organization_id = ${a.organizationId}`;
  return sql`with
    ch as (
      select 1 from channels
       where id = ${a.channel.id} and organization_id = ${a.organizationId}
         and status = ${a.channel.status} and sandbox = ${a.channel.sandbox} and platform = ${a.channel.platform}
         and display_phone_number is not distinct from ${a.channel.displayPhoneNumber}
    ),
    found as (${found}),
    policy as (${a.policy}),
    verdict as (
      select case
        when not exists (select 1 from ch) then 'channel_changed'
        when ${a.conversationId !== undefined} and not exists (select 1 from found) then 'conversation_not_found'
        when ${a.conversationId !== undefined} and not exists (select 1 from found where channel_id = ${a.channel.id} and peer_phone = ${a.to}) then 'conversation_mismatch'
        when ${a.windowSince !== null} and coalesce((select last_inbound_at from found), '-infinity'::timestamptz) < ${a.windowSince?.toISOString() ?? null}::timestamptz then 'window_closed'
        when exists (select 1 from policy) then 'policy'
      end as refusal
    ),
    created as (
      insert into conversations (id, organization_id, channel_id, peer_phone, status, last_message_at, last_message_preview, created_at, updated_at)
      select ${a.newConversationId}, ${a.organizationId}, ${a.channel.id}, ${a.to}, 'open', ${now}, ${a.preview}, ${now}, ${now}
       where not exists (select 1 from found) and (select refusal from verdict) is null
      on conflict (channel_id, peer_phone) do nothing
      returning id, contact_id
    ),
    conversation as (
      select id, contact_id from found where (select refusal from verdict) is null
      union all
      select id, contact_id from created
    ),
    message as (
      insert into messages (id, organization_id, channel_id, conversation_id, contact_id, direction, to_phone, from_phone, type, content, status, dispatch_at, created_at, updated_at)
      select ${a.id}, ${a.organizationId}, ${a.channel.id}, c.id, c.contact_id, 'outbound', ${a.to}, ${fromPhoneOf(a.channel)}, ${a.type}, ${JSON.stringify(a.content)}::jsonb, 'queued', ${now}, ${now}, ${now}
        from conversation c
      returning id, conversation_id, contact_id
    ),
    history as (
      insert into message_status_history (id, message_id, status, occurred_at, created_at)
      select ${a.historyId}, id, 'queued', ${now}, ${now} from message
    ),
    touched as (
      update conversations set last_message_at = ${now}, last_message_preview = ${a.preview}, updated_at = ${now}
       where id = (select id from found) and exists (select 1 from message)
    ),
    remembered as (
      insert into idempotency_keys (organization_id, key, request_hash, response_status, response_body, created_at)
      select ${a.organizationId}, ${a.idempotency?.key ?? null}, ${a.idempotency?.requestHash ?? null}, 201,
             jsonb_set(jsonb_set(${JSON.stringify(a.idempotency?.answer ?? {})}::jsonb,
               '{data,conversation_id}', to_jsonb(m.conversation_id::text)),
               '{data,contact_id}', coalesce(to_jsonb(m.contact_id::text), 'null'::jsonb)),
             ${now}
        from message m where ${a.idempotency !== undefined}
    )
    select (select refusal from verdict) as refusal,
           (select row_to_json(p) from policy p) as policy,
           (select last_inbound_at from found) as last_inbound_at,
           m.id as message_id, m.conversation_id, m.contact_id
      from (select 1) one left join message m on true`;
}

/** Media must be fetched over https (checked again, with the address, when the worker fetches it). */
function assertHttpsMedia(type: string, content: Record<string, unknown>): void {
  const bad = mediaOf(type, content)
    .map((m, i) => ({ ...m, i }))
    .filter((m) => !m.url.startsWith('https://'));
  if (bad.length === 0) return;
  throw invalid('media URLs must be https', bad.map((m) => ({
    pointer: type === 'media_carousel' ? `/content/cards/${m.i}/media_url` : '/content/media_url',
    location: 'body' as const,
    message: 'must be an https URL',
  })));
}

export async function loadMessage(db: Executor, actor: Actor, messageId: string): Promise<MessageRow> {
  if (!isUuid(messageId)) throw notFound('message');
  const [row] = await db
    .select()
    .from(messages)
    .where(and(eq(messages.id, messageId), eq(messages.organizationId, actor.organizationId)))
    .limit(1);
  if (!row) throw notFound('message');
  return row;
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
export async function listMessages(db: Executor, actor: Actor, page: Page, filters: MessageFilters): Promise<PageResult<MessageRecord>> {
  for (const [name, value] of [
    ['channel_id', filters.channelId],
    ['conversation_id', filters.conversationId],
  ] as const) {
    if (value !== undefined && !isUuid(value)) return { items: [], nextCursor: null };
    void name;
  }
  const to = filters.to ? normalizePhone(filters.to) : undefined;
  if (filters.to && !to) throw invalid('to is not a valid phone number', [{ pointer: '/to', location: 'query', message: 'not a valid phone number' }]);
  const rows = await db
    .select()
    .from(messages)
    .where(
      and(
        eq(messages.organizationId, actor.organizationId),
        filters.channelId ? eq(messages.channelId, filters.channelId) : undefined,
        filters.conversationId ? eq(messages.conversationId, filters.conversationId) : undefined,
        filters.status ? eq(messages.status, filters.status) : undefined,
        filters.direction ? eq(messages.direction, filters.direction) : undefined,
        to ? eq(messages.toPhone, phoneDigits(to)) : undefined,
        filters.createdAfter ? gte(messages.createdAt, filters.createdAfter) : undefined,
        filters.createdBefore ? lte(messages.createdAt, filters.createdBefore) : undefined,
        afterCursor(messages.createdAt, messages.id, page.cursor),
      ),
    )
    .orderBy(...newestFirst(messages.createdAt, messages.id))
    .limit(page.limit + 1);
  return toPage(rows, page.limit, presentMessage);
}

export type StatusView = {
  message_id: string;
  status: MessageStatus;
  provider_message_id: string | null;
  error: MessageRecord['error'];
  history: Array<{ status: string; at: string; error: { code: string; title: string } | null }>;
  updated_at: string;
};

export async function messageStatus(db: Executor, actor: Actor, messageId: string): Promise<StatusView> {
  const row = await loadMessage(db, actor, messageId);
  const history = await db
    .select()
    .from(messageStatusHistory)
    .where(eq(messageStatusHistory.messageId, row.id))
    // In the order the reports arrived (provider times have second precision and may arrive out of order).
    .orderBy(asc(messageStatusHistory.createdAt), asc(messageStatusHistory.id));
  const record = presentMessage(row);
  return {
    message_id: row.id,
    status: record.status,
    provider_message_id: row.providerMessageId,
    error: record.error,
    history: history.map((h) => ({ status: h.status, at: h.occurredAt.toISOString(), error: h.errorCode ? { code: h.errorCode, title: h.errorTitle ?? h.errorCode } : null })),
    updated_at: row.updatedAt.toISOString(),
  };
}

/**
 * Moves a message's status forward (never back), keeping every reported change in its history,
 * and records message.status_update (and message.sent on acceptance) in the same transaction.
 */
export async function advanceStatus(
  tx: Executor,
  row: MessageRow,
  to: 'sent' | 'delivered' | 'read' | 'failed',
  occurredAt: Date,
  now: Date,
  extra: { providerMessageId?: string; error?: { code: string; title: string; message?: string } } = {},
): Promise<boolean> {
  await tx.insert(messageStatusHistory).values({
    id: uuidv7(),
    messageId: row.id,
    status: to,
    errorCode: extra.error?.code ?? null,
    errorTitle: extra.error?.title ?? null,
    occurredAt,
    createdAt: now,
  });
  if (!isForward(row.status, to)) return false;
  // Compare-and-set on the old status: two callbacks racing cannot both move it.
  const updated = await tx
    .update(messages)
    .set({
      status: to,
      updatedAt: now,
      ...(extra.providerMessageId && !row.providerMessageId ? { providerMessageId: extra.providerMessageId } : {}),
      ...(extra.error ? { errorCode: extra.error.code, errorTitle: extra.error.title, errorMessage: extra.error.message ?? null } : {}),
    })
    .where(and(eq(messages.id, row.id), eq(messages.status, row.status)))
    .returning({ id: messages.id });
  if (updated.length === 0) return false;
  if (row.status === 'queued' && to !== 'failed') {
    await recordEvent(tx, row.organizationId, 'message.sent', { conversation_id: row.conversationId, message_id: row.id, channel_id: row.channelId }, now);
  }
  await recordEvent(
    tx,
    row.organizationId,
    'message.status_update',
    { message_id: row.id, status: to, conversation_id: row.conversationId, organization_id: row.organizationId },
    now,
  );
  return true;
}

/** Finds an outbound message of a channel by the provider's id, or by our own id echoed back. */
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
