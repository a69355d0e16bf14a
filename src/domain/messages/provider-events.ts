/**
 * What provider webhooks do to messages: status callbacks move outbound messages forward, inbound
 * messages are stored (once), attach to their contact and conversation, open the window and record
 * message.new; the media they carry is recorded pending with its download job (inbound-media.ts).
 */
import { and, eq } from 'drizzle-orm';
import type { Executor } from '../../db/client.ts';
import { messages, messageStatusHistory } from '../../db/schema.ts';
import { uuidv7 } from '../../lib/ids.ts';
import type { InboundEvent } from '../../providers/provider.ts';
import { recordChannelFault, type ChannelRow } from '../channels/channels.ts';
import { holdTemplate } from '../templates/templates.ts';
import { recordEvent } from '../events/outbox.ts';
import { previewOf } from './content.ts';
import { ensureConversation, touchInbound } from './conversations.ts';
import { recordInboundMedia, type MediaRecordDeps } from './inbound-media.ts';
import { advanceStatus, findByProviderId, type MessageRow } from './messages.ts';

/** A status for a message not (yet) known: the send may not have committed; the caller retries. */
export class UnknownMessageError extends Error {}

export type InboundContactResolver = (
  tx: Executor,
  organizationId: string,
  input: { phone: string; profileName?: string; identities: Array<{ type: string; value: string }>; at: Date },
) => Promise<{ contactId: string; created: boolean }>;

export type MessageEvent = Extract<InboundEvent, { kind: 'message.status' | 'message.inbound' | 'message.echo' | 'message.edited' | 'message.deleted' }>;

/** Applies one message event of a channel, in the caller's transaction, at `at` (now). */
export type MessageApplier = (tx: Executor, channel: ChannelRow, event: MessageEvent, at: Date) => Promise<void>;

export type MessageApplierDeps = {
  resolveContact: InboundContactResolver;
  /** Where an inbound message's media download is enqueued (inbound-media.ts). */
  media: MediaRecordDeps;
};

/** The message applier; inbound senders become contacts through `resolveContact` (the CRM's rule). */
export function createMessageApplier(deps: MessageApplierDeps): MessageApplier {
  return async (tx, channel, event, at) => {
    switch (event.kind) {
      case 'message.status':
        return applyStatus(tx, channel, event, at);
      case 'message.inbound':
        return applyInbound(tx, channel, event, at, deps);
      case 'message.echo':
      case 'message.edited':
      case 'message.deleted':
        // TODO(embedded engine): applied by the embedded engine's branch (no engine reports these yet).
        return;
      default:
        return event satisfies never;
    }
  };
}

type StatusEvent = Extract<InboundEvent, { kind: 'message.status' }>;

async function applyStatus(tx: Executor, channel: ChannelRow, event: StatusEvent, now: Date) {
  const row = await findByProviderId(tx, channel.id, event.providerMessageId, event.callbackData);
  if (!row) throw new UnknownMessageError(`no message ${event.providerMessageId} on channel ${channel.id}`);
  const moved = await advanceStatus(tx, row, event.status, event.timestamp, now, {
    providerMessageId: event.providerMessageId,
    ...(event.status === 'failed' ? { error: event.error ?? { code: 'failed', title: 'the provider reported the message failed' } } : {}),
  });
  if (moved && event.status === 'failed' && event.error) await applyFailureScope(tx, channel, row, event.error, now);
}

/**
 * A failure reported later by status, about more than this message, has the consequences a refused send
 * has (dispatch.ts): the channel's own fault marks it `error` with its health; a template the provider
 * holds back takes that status. (A recipient hold lasts seconds and lives in the dispatching process.)
 */
async function applyFailureScope(tx: Executor, channel: ChannelRow, row: MessageRow, error: NonNullable<StatusEvent['error']>, now: Date) {
  if (error.scope === 'channel') await recordChannelFault(tx, channel, error, now);
  if (error.scope === 'template' && error.templateStatus) {
    const template = row.content.template as { name?: unknown; language?: { code?: unknown } } | undefined;
    if (typeof template?.name === 'string' && typeof template.language?.code === 'string') {
      await holdTemplate(tx, channel, { name: template.name, language: template.language.code }, error.templateStatus, error.message ?? error.title, now);
    }
  }
}

async function applyInbound(
  tx: Executor,
  channel: ChannelRow,
  event: Extract<InboundEvent, { kind: 'message.inbound' }>,
  at: Date,
  deps: MessageApplierDeps,
) {
  const [existing] = await tx
    .select({ id: messages.id })
    .from(messages)
    .where(and(eq(messages.channelId, channel.id), eq(messages.providerMessageId, event.providerMessageId)))
    .limit(1);
  if (existing) return;
  const from = event.from.replace(/^\+/, '');
  const contact = await deps.resolveContact(tx, channel.organizationId, { phone: `+${from}`, profileName: event.profileName, identities: event.identities ?? [], at });
  const conversation = await ensureConversation(tx, channel.organizationId, channel.id, from, at, contact.contactId);
  const id = uuidv7();
  const content = { ...event.content, ...(event.replyTo ? { reply_to: { id: event.replyTo } } : {}) };
  const inserted = await tx
    .insert(messages)
    .values({
      id,
      organizationId: channel.organizationId,
      channelId: channel.id,
      conversationId: conversation.id,
      contactId: contact.contactId,
      direction: 'inbound',
      toPhone: (channel.displayPhoneNumber ?? '').replace(/\D/g, ''),
      fromPhone: from,
      type: event.type,
      content,
      status: 'received',
      providerMessageId: event.providerMessageId,
      // Receipt time, not the provider's: list cursors stay stable while messages arrive.
      createdAt: at,
      updatedAt: at,
    })
    .onConflictDoNothing()
    .returning({ id: messages.id });
  if (inserted.length === 0) return;
  if (event.media) await recordInboundMedia(deps.media, tx, { id, organizationId: channel.organizationId }, event.media, at);
  await tx.insert(messageStatusHistory).values({ id: uuidv7(), messageId: id, status: 'received', occurredAt: event.timestamp, createdAt: at });
  await touchInbound(tx, conversation, event.timestamp, previewOf(event.type, event.content), contact.contactId, at);
  await recordEvent(
    tx,
    channel.organizationId,
    'message.new',
    {
      message_id: id,
      conversation_id: conversation.id,
      contact_id: contact.contactId,
      channel_id: channel.id,
      direction: 'inbound',
      from_phone: from,
      msg_type: event.type,
    },
    at,
  );
}
