/**
 * Messages: accepted (validated, checked against the channel's matrix, the customer-service window
 * and the contact's consent), stored with their dispatch job in one transaction, read back, and
 * moved forward through their status lifecycle.
 */
import { and, asc, eq, gte, lte, sql } from 'drizzle-orm';
import type { Db, Executor } from '../../db/client.ts';
import { afterCursor, newestFirst, toPage, type Page, type PageResult } from '../../db/paginate.ts';
import { conversations, idempotencyKeys, messages, messageStatusHistory } from '../../db/schema.ts';
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
import { ensureConversation } from './conversations.ts';

export type MessageRow = typeof messages.$inferSelect;

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

export type SendPolicy = (
  tx: Executor,
  organizationId: string,
  input: { phone: string; channelId: string; isTemplate: boolean; at: Date },
) => Promise<{ allowed: true } | { allowed: false; code: string; reason: string }>;

export type MessageDeps = {
  db: Db;
  clock: Clock;
  queue: Queue;
  /** Consent and suppression rules of the CRM; absent means no rule refuses. */
  sendPolicy?: SendPolicy;
  /** Plain-http and private media URLs are allowed (development); sandbox channels always allow them. */
  allowPrivateTargets?: boolean;
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
export async function findIdempotentAnswer(db: Executor, actor: Actor, key: string, requestHash: string, clock: Clock) {
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

/**
 * Accepts a message for sending: one transaction writes the message, its first status, its
 * conversation and its dispatch job (and the Idempotency-Key answer). Returns it `queued`.
 */
export async function acceptMessage(deps: MessageDeps, actor: Actor, input: SendInput): Promise<MessageRow> {
  const channel = await loadChannel(deps.db, actor, input.channelId).catch((err: unknown) => {
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
  const to = phoneDigits(phone);
  const now = deps.clock.now();

  const row = await deps.db.transaction(async (tx) => {
    const conversation = await ensureConversation(tx, actor.organizationId, channel.id, to, input.conversationId, now);
    const windowHours = capabilitiesOf(platform).customer_service_window_hours;
    if (windowHours !== null && input.type !== 'template' && input.type !== 'mark_as_read') {
      const since = now.getTime() - windowHours * 3_600_000;
      if (!conversation.lastInboundAt || conversation.lastInboundAt.getTime() < since) {
        throw new DomainError(
          'window_closed',
          `the ${windowHours}-hour customer service window is closed: no message from ${phone} in the last ${windowHours} hours, so only a template message can be sent (type template)`,
          { extra: { last_inbound_at: conversation.lastInboundAt?.toISOString() ?? null } },
        );
      }
    }
    if (deps.sendPolicy && input.type !== 'mark_as_read') {
      const verdict = await deps.sendPolicy(tx, actor.organizationId, { phone, channelId: channel.id, isTemplate: input.type === 'template', at: now });
      if (!verdict.allowed) throw new DomainError('send_refused', verdict.reason, { extra: { reason: verdict.code } });
    }
    const id = uuidv7();
    const [created] = await tx
      .insert(messages)
      .values({
        id,
        organizationId: actor.organizationId,
        channelId: channel.id,
        conversationId: conversation.id,
        contactId: conversation.contactId,
        direction: 'outbound',
        toPhone: to,
        fromPhone: channel.displayPhoneNumber ? phoneDigits(channel.displayPhoneNumber) : null,
        type: input.type,
        content,
        status: 'queued',
        createdAt: now,
        updatedAt: now,
      })
      .returning();
    await tx.insert(messageStatusHistory).values({ id: uuidv7(), messageId: id, status: 'queued', occurredAt: now, createdAt: now });
    await tx
      .update(conversations)
      .set({ lastMessageAt: now, lastMessagePreview: previewOf(input.type, content), updatedAt: now })
      .where(eq(conversations.id, conversation.id));
    await deps.queue.enqueue(tx, 'message.dispatch', { message_id: id });
    if (input.idempotency) {
      await tx.insert(idempotencyKeys).values({
        organizationId: actor.organizationId,
        key: input.idempotency.key,
        requestHash: input.idempotency.requestHash,
        responseStatus: 201,
        responseBody: { data: presentMessage(created!) },
        createdAt: now,
      });
    }
    return created!;
  });
  deps.queue.wake('message.dispatch');
  return row;
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
