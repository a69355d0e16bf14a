/** The chat routes' records (chats.ts), typed from their response schemas. */
import type { z } from 'zod';
import { chatIdOf } from '../../domain/channels/chats.ts';
import type { ConversationView } from '../../domain/messages/conversations.ts';
import type { ChatHistoryRequestSchema, ChatSchema } from './chats.ts';

export type ChatRecord = z.infer<typeof ChatSchema>;
export type ChatHistoryRequestRecord = z.infer<typeof ChatHistoryRequestSchema>;

const GROUP = /@g\.us$/;

export function presentChat(row: ConversationView): ChatRecord {
  return {
    id: chatIdOf(row.peerPhone),
    kind: GROUP.test(row.peerPhone) ? 'group' : 'person',
    channel_id: row.channelId,
    conversation_id: row.id,
    contact_id: row.contactId,
    name: row.contact?.name ?? null,
    last_message_preview: row.lastMessagePreview,
    last_message_at: row.lastMessageAt?.toISOString() ?? null,
    unread_count: row.unreadCount,
    unread: row.unreadCount > 0 || row.markedUnread,
    archived: row.archived,
    pinned: row.pinnedAt !== null,
    pinned_at: row.pinnedAt?.toISOString() ?? null,
    muted_until: row.mutedUntil?.toISOString() ?? null,
  };
}

export function presentHistoryRequest(request: {
  chatId: string;
  count: number;
  before: { providerMessageId: string; at: Date };
}): ChatHistoryRequestRecord {
  return {
    chat_id: request.chatId,
    count: request.count,
    before: { provider_message_id: request.before.providerMessageId, at: request.before.at.toISOString() },
    status: 'requested',
  };
}
