/** The inbox's calls on the public API; the wire types are the server's records. */
import type { ChannelCapabilitiesRecord } from '../../../http/v1/channels.presenters.ts';
import type { ConversationRecord } from '../../../http/v1/conversations.presenters.ts';
import type { UpdateConversationRequest } from '../../../http/v1/conversations.ts';
import type { ChatRecord } from '../../../http/v1/chats.presenters.ts';
import type { UpdateChatRequest } from '../../../http/v1/chats.ts';
import type { MessageRecord } from '../../../http/v1/messages.presenters.ts';
import type { SendMessageRequest } from '../../../http/v1/messages.ts';
import type { MemberRecord } from '../../../http/v1/organizations.presenters.ts';
import type { TeamRecord } from '../../../http/v1/teams.presenters.ts';
import type { TemplateRecord } from '../../../http/v1/templates.presenters.ts';
import { allPages, call, type Page } from '../../api.ts';
import { useAllChannels } from '../../channels.ts';

export type Message = MessageRecord;
export type { SendMessageRequest, UpdateChatRequest, UpdateConversationRequest };

/** The server's wire record: the list and the thread's header read it as the API sends it. */
export type Conversation = ConversationRecord;

/** A conversation's priorities, as the list's filter and the thread's select name them. */
export const PRIORITIES = [
  { value: 'none', label: 'No priority' },
  { value: 'low', label: 'Low' },
  { value: 'medium', label: 'Medium' },
  { value: 'high', label: 'High' },
  { value: 'urgent', label: 'Urgent' },
];

/** The list's filters, as they stand in the URL. */
export type ConversationFilters = {
  status?: string;
  priority?: string;
  label?: string;
  channel_id?: string;
  team_id?: string;
  assignee?: string;
  unread?: string;
  q?: string;
};

const id = encodeURIComponent;

export const inboxApi = {
  conversations: (filters: ConversationFilters, cursor?: string) =>
    call<Page<Conversation>>('GET', '/v1/conversations', { query: { ...filters, cursor } }),
  /** The conversation with a number on a channel (`to`: digits without +), or null when there is none yet. */
  conversationWith: (channelId: string, to: string) =>
    call<Page<Conversation>>('GET', '/v1/conversations', { query: { channel_id: channelId, q: to, limit: '100' } }).then(
      (r) => r.data.find((c) => c.peer_phone === to) ?? null,
    ),
  conversation: (conversationId: string) =>
    call<{ data: Conversation }>('GET', `/v1/conversations/${id(conversationId)}`).then((r) => r.data),
  update: (conversationId: string, body: UpdateConversationRequest) =>
    call<{ data: Conversation }>('PATCH', `/v1/conversations/${id(conversationId)}`, { body }).then((r) => r.data),
  /** The organization's teams (the list's team filter); a first page of 100 is plenty for a filter. */
  teams: () => call<Page<TeamRecord>>('GET', '/v1/teams', { query: { limit: '100' } }).then((r) => r.data),
  /** The organization's conversation labels (the list's label filter). */
  conversationLabels: () =>
    call<Page<{ id: string; name: string; color: string }>>('GET', '/v1/conversation-labels', { query: { limit: '100' } }).then(
      (r) => r.data,
    ),
  markRead: (conversationId: string) => call<{ data: Conversation }>('POST', `/v1/conversations/${id(conversationId)}/read`),
  messages: (conversationId: string, cursor?: string) =>
    call<Page<Message>>('GET', `/v1/conversations/${id(conversationId)}/messages`, { query: { cursor } }),
  send: (input: SendMessageRequest) => call<{ data: Message }>('POST', '/v1/messages', { body: input }).then((r) => r.data),
  approvedTemplates: (channelId: string) =>
    allPages((cursor) =>
      call<Page<TemplateRecord>>('GET', '/v1/templates', { query: { channel_id: channelId, status: 'approved', limit: '100', cursor } }),
    ),
  members: (organizationId: string) =>
    allPages((cursor) =>
      call<Page<MemberRecord>>('GET', `/v1/organizations/${id(organizationId)}/members`, { query: { limit: '100', cursor } }),
    ),
  /** A linked phone's chat (PATCH /v1/channels/{id}/chats/{chatID}): archive, pin, mute, mark unread. */
  updateChat: (conversation: Conversation, body: UpdateChatRequest) =>
    call<{ data: ChatRecord }>('PATCH', `/v1/channels/${id(conversation.channel_id)}/chats/${id(chatIdOf(conversation))}`, { body }).then(
      (r) => r.data,
    ),
  /** Earlier messages of a linked phone's chat, asked of the phone (they arrive as messages). */
  fetchHistory: (conversation: Conversation) =>
    call<unknown>('POST', `/v1/channels/${id(conversation.channel_id)}/chats/${id(chatIdOf(conversation))}/history`, {
      body: { count: 50 },
    }),
  star: (messageId: string, starred: boolean) =>
    call<{ data: Message }>('POST', `/v1/messages/${id(messageId)}/star`, { body: { starred } }).then((r) => r.data),
  pin: (messageId: string, pinned: boolean) =>
    call<{ data: Message }>('POST', `/v1/messages/${id(messageId)}/pin`, { body: { pinned } }).then((r) => r.data),
  forward: (messageId: string, to: string) =>
    call<{ data: Message }>('POST', `/v1/messages/${id(messageId)}/forward`, { body: { to } }).then((r) => r.data),
  capabilities: (channelId: string) =>
    call<{ data: ChannelCapabilitiesRecord }>('GET', `/v1/channels/${id(channelId)}/capabilities`).then((r) => r.data),
};

/** How the chat routes name a conversation's chat: E.164 for a number, the id for a group. */
export const chatIdOf = (c: Conversation) => (/^\d+$/.test(c.peer_phone) ? `+${c.peer_phone}` : c.peer_phone);

/** The organization's channels, for the channel filter and names. */
export const useChannels = useAllChannels;

/** The conversation's channel name: embedded in the record, else looked up among the channels. */
export function useChannelName(c: Conversation): string | undefined {
  const channels = useChannels();
  return c.channel?.name ?? channels.data?.find((ch) => ch.id === c.channel_id)?.name;
}

/** Who the conversation is with: the contact's name, else the number. */
export function conversationTitle(c: Conversation): string {
  return c.contact?.name?.trim() || `+${c.peer_phone}`;
}
