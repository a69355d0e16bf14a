/** The conversation routes' records (conversations.ts): the presenters that turn the domain's rows into them, typed from the response schemas. */
import type { z } from 'zod';
import type { ConversationView } from '../../domain/messages/conversations.ts';
import type { ConversationSchema } from './conversations.ts';

/** The customer-service window an inbound message opens, in hours. */
const WINDOW_HOURS = 24;

export type ConversationRecord = z.infer<typeof ConversationSchema>;

export function presentConversation(row: ConversationView): ConversationRecord {
  return {
    id: row.id,
    channel_id: row.channelId,
    contact_id: row.contactId,
    peer_phone: row.peerPhone,
    status: row.status as ConversationRecord['status'],
    snoozed_until: row.snoozedUntil?.toISOString() ?? null,
    priority: row.priority as ConversationRecord['priority'],
    labels: row.labels,
    assignee_user_id: row.assigneeUserId,
    team_id: row.teamId,
    last_message_at: row.lastMessageAt?.toISOString() ?? null,
    last_inbound_at: row.lastInboundAt?.toISOString() ?? null,
    window_expires_at: row.lastInboundAt ? new Date(row.lastInboundAt.getTime() + WINDOW_HOURS * 3_600_000).toISOString() : null,
    last_message_preview: row.lastMessagePreview,
    unread_count: row.unreadCount,
    last_read_at: row.lastReadAt?.toISOString() ?? null,
    archived: row.archived,
    pinned: row.pinnedAt !== null,
    muted_until: row.mutedUntil?.toISOString() ?? null,
    marked_unread: row.markedUnread,
    csat: row.csatRating !== null && row.csatAnsweredAt ? { rating: row.csatRating, answered_at: row.csatAnsweredAt.toISOString() } : null,
    contact: row.contact,
    channel: row.channel,
    assignee: row.assignee,
    team: row.team,
    bot_id: row.botId,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}
