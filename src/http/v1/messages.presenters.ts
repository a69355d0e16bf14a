/** The message routes' records (messages.ts): the presenters that turn the domain's rows into them, typed from the response schemas. */
import type { z } from 'zod';
import type { MessageMediaRow, MessageRow, StatusHistoryRow } from '../../domain/messages/messages.ts';
import type { StatusConversation, StatusPricing } from '../../providers/provider.ts';
import type { MessageMediaSchema, MessageSchema, MessageStatusSchema } from './messages.ts';

export type MessageRecord = z.infer<typeof MessageSchema>;

export function presentMedia(messageId: string, media: MessageMediaRow): z.infer<typeof MessageMediaSchema> {
  const stored = media.status === 'stored';
  return {
    status: media.status as 'pending' | 'stored' | 'failed',
    url: `/v1/messages/${messageId}/media`,
    content_type: stored ? media.contentType : null,
    size: stored ? media.size : null,
    sha256: stored ? media.sha256 : null,
    file_name: media.fileName,
    error: media.errorCode ? { code: media.errorCode, title: media.errorTitle ?? media.errorCode } : null,
  };
}

/** A message record; `media` is read with the message (MessageView), absent for a message just accepted (outbound ones carry none). */
export function presentMessage(row: MessageRow & { media?: MessageMediaRow | null }): MessageRecord {
  return {
    id: row.id,
    channel_id: row.channelId,
    conversation_id: row.conversationId,
    contact_id: row.contactId,
    broadcast_id: row.broadcastId,
    direction: row.direction as MessageRecord['direction'],
    to: row.toPhone,
    to_phone: row.toPhone,
    from_phone: row.fromPhone,
    type: row.type,
    content: row.content,
    status: row.status as MessageRecord['status'],
    provider_message_id: row.providerMessageId,
    error:
      row.status === 'failed' && row.errorCode
        ? {
            code: row.errorCode,
            title: row.errorTitle ?? row.errorCode,
            message: row.errorMessage,
            user_title: row.errorUserTitle,
            user_message: row.errorUserMessage,
          }
        : null,
    edited_at: row.editedAt?.toISOString() ?? null,
    deleted_at: row.deletedAt?.toISOString() ?? null,
    starred: row.starred,
    pinned_until: row.pinnedUntil?.toISOString() ?? null,
    media: row.media ? presentMedia(row.id, row.media) : null,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

export function presentStatus(view: {
  message: MessageRow & { media?: MessageMediaRow | null };
  history: StatusHistoryRow[];
}): z.infer<typeof MessageStatusSchema> {
  const record = presentMessage(view.message);
  return {
    message_id: record.id,
    status: record.status,
    provider_message_id: record.provider_message_id,
    error: record.error,
    history: view.history.map((h) => ({
      status: h.status,
      at: h.occurredAt.toISOString(),
      error: h.errorCode ? { code: h.errorCode, title: h.errorTitle ?? h.errorCode } : null,
      pricing: (h.pricing as StatusPricing | null) ?? null,
      conversation: (h.conversation as StatusConversation | null) ?? null,
    })),
    updated_at: record.updated_at,
  };
}

/** Why the window refused a send, and what to do: a template, or (a sandbox channel) the customer writing first. */
export function windowClosedDetail(refused: { windowHours: number; phone: string; sandbox: boolean }): string {
  const hours = refused.windowHours;
  const closed = `the ${hours}-hour customer service window is closed: no message from ${refused.phone} in the last ${hours} hours`;
  const template = 'send a template message (type template) to start the conversation';
  if (!refused.sandbox) return `${closed}; ${template}`;
  return `${closed}; ${template}, or play the customer writing first with POST /sandbox/inbound {channel_id, from, type: "text", content: {body}} (docs/sandbox.md)`;
}
