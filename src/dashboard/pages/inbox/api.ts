/** The inbox's calls on the public API and their wire types. */
import type { ChannelView } from '../../../http/v1/channels.ts';
import type { MessageRecord } from '../../../http/v1/messages.ts';
import { useQuery } from '@tanstack/react-query';
import { call, type Page } from '../../api.ts';
import { orgKey } from '../../query.ts';

export type Message = MessageRecord;

/** A conversation as GET /v1/conversations presents it (with its contact, channel and assignee embedded). */
export type Conversation = {
  id: string;
  channel_id: string;
  contact_id: string | null;
  peer_phone: string;
  status: 'open' | 'closed';
  assignee_user_id: string | null;
  last_message_at: string | null;
  last_inbound_at: string | null;
  window_expires_at: string | null;
  last_message_preview: string | null;
  unread_count: number;
  last_read_at: string | null;
  contact: { id: string; name: string | null; phone: string | null } | null;
  channel: { id: string; name: string; platform: string } | null;
  assignee: { id: string; name: string } | null;
  created_at: string;
  updated_at: string;
};

export type Template = {
  id: string;
  channel_id: string;
  name: string;
  language: string;
  category: string;
  components: unknown[];
  status: string;
};

export type Member = { user_id: string; name: string; email: string; role: string };

export type Capabilities = { customer_service_window_hours: number | null; message_types: string[] };

/** The list's filters, as they stand in the URL. */
export type ConversationFilters = { status?: string; channel_id?: string; assignee?: string; unread?: string; q?: string };

export type SendInput = { channel_id: string; to: string; conversation_id: string; type: string; content: Record<string, unknown> };

const id = encodeURIComponent;

export const inboxApi = {
  conversations: (filters: ConversationFilters, cursor?: string) => call<Page<Conversation>>('GET', '/v1/conversations', { query: { ...filters, cursor } }),
  conversation: (conversationId: string) => call<{ data: Conversation }>('GET', `/v1/conversations/${id(conversationId)}`).then((r) => r.data),
  update: (conversationId: string, body: { status?: 'open' | 'closed'; assignee_user_id?: string | null }) =>
    call<{ data: Conversation }>('PATCH', `/v1/conversations/${id(conversationId)}`, { body }).then((r) => r.data),
  markRead: (conversationId: string) => call<unknown>('POST', `/v1/conversations/${id(conversationId)}/read`),
  messages: (conversationId: string, cursor?: string) => call<Page<Message>>('GET', `/v1/conversations/${id(conversationId)}/messages`, { query: { cursor } }),
  send: (input: SendInput) => call<{ data: Message }>('POST', '/v1/messages', { body: input }).then((r) => r.data),
  approvedTemplates: (channelId: string) =>
    call<Page<Template>>('GET', '/v1/templates', { query: { channel_id: channelId, status: 'approved', limit: '100' } }).then((r) => r.data),
  members: (organizationId: string) => call<{ data: Member[] }>('GET', `/v1/organizations/${id(organizationId)}/members`).then((r) => r.data),
  capabilities: (channelId: string) => call<{ data: Capabilities }>('GET', `/v1/channels/${id(channelId)}/capabilities`).then((r) => r.data),
  channels: () => call<Page<ChannelView>>('GET', '/v1/channels', { query: { limit: '100' } }).then((r) => r.data),
};

/** The organization's channels (first page), for the channel filter and names. */
export function useChannels() {
  return useQuery({ queryKey: orgKey('channels', 'first-page'), queryFn: inboxApi.channels, staleTime: 60_000 });
}

/** The conversation's channel name: embedded in the record, else looked up among the channels. */
export function useChannelName(c: Conversation): string | undefined {
  const channels = useChannels();
  return c.channel?.name ?? channels.data?.find((ch) => ch.id === c.channel_id)?.name;
}

/** Who the conversation is with: the contact's name, else the number. */
export function conversationTitle(c: Conversation): string {
  return c.contact?.name?.trim() || `+${c.peer_phone}`;
}
