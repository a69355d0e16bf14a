/** The channels and templates calls of the dashboard, typed with the server's wire records. */
import type {
  ChannelCapabilitiesRecord,
  ChannelStatusView,
  ChannelView,
  ConnectView,
  QrView,
} from '../../../http/v1/channels.presenters.ts';
import type { CreateChannelRequest, UpdateChannelRequest } from '../../../http/v1/channels.ts';
import type { GroupRecord } from '../../../http/v1/groups.presenters.ts';
import type { CreateGroupRequest } from '../../../http/v1/groups.ts';
import type { ChatLabelRecord, StatusPostRecord } from '../../../http/v1/labels.presenters.ts';
import type { CreateChatLabelRequest, PostStatusRequest } from '../../../http/v1/labels.ts';
import type { ChannelProfileRecord, PrivacySettingsRecord } from '../../../http/v1/channel-profiles.presenters.ts';
import type { TemplateRecord, TemplateSyncRecord } from '../../../http/v1/templates.presenters.ts';
import type { CreateTemplateRequest } from '../../../http/v1/templates.ts';
import { call, type Page } from '../../api.ts';

export type {
  ChatLabelRecord,
  CreateChatLabelRequest,
  PostStatusRequest,
  StatusPostRecord,
  CreateGroupRequest,
  GroupRecord,
  UpdateChannelRequest,
  ChannelProfileRecord,
  PrivacySettingsRecord,
  ChannelCapabilitiesRecord,
  ChannelStatusView,
  ChannelView,
  ConnectView,
  CreateChannelRequest,
  CreateTemplateRequest,
  QrView,
  TemplateRecord,
  TemplateSyncRecord,
};

export type Platform = ChannelView['platform'];
export type TemplateStatus = TemplateRecord['status'];

const path = (id: string) => `/v1/channels/${encodeURIComponent(id)}`;

export type ChannelFilters = { status?: string; platform?: string };

export type TemplateFilters = { channel_id?: string; status?: string; language?: string; category?: string };

export const channelsApi = {
  list: (cursor?: string, filters: ChannelFilters = {}) =>
    call<Page<ChannelView>>('GET', '/v1/channels', { query: { ...filters, cursor } }),
  get: (id: string) => call<{ data: ChannelView }>('GET', path(id)).then((r) => r.data),
  create: (input: CreateChannelRequest) => call<{ data: ChannelView }>('POST', '/v1/channels', { body: input }).then((r) => r.data),
  update: (id: string, input: UpdateChannelRequest) => call<{ data: ChannelView }>('PATCH', path(id), { body: input }).then((r) => r.data),
  remove: (id: string) => call<void>('DELETE', path(id)),
  status: (id: string) => call<{ data: ChannelStatusView }>('GET', `${path(id)}/status`).then((r) => r.data),
  capabilities: (id: string) => call<{ data: ChannelCapabilitiesRecord }>('GET', `${path(id)}/capabilities`).then((r) => r.data),
  /** Starts pairing; with a phone number the answer also carries the code that phone can type. */
  connect: (id: string, phoneNumber?: string) =>
    call<{ data: ConnectView }>('POST', `${path(id)}/connect`, {
      body: phoneNumber === undefined ? undefined : { phone_number: phoneNumber },
    }).then((r) => r.data),
  qr: (id: string) => call<{ data: QrView }>('GET', `${path(id)}/qr`).then((r) => r.data),
  disconnect: (id: string) => call<{ data: ChannelView }>('POST', `${path(id)}/disconnect`).then((r) => r.data),
};

const groupPath = (channelId: string, groupId: string) => `${path(channelId)}/groups/${encodeURIComponent(groupId)}`;

/** The groups of an unofficial channel's number (docs/channels.md, "Groups"). */
export const groupsApi = {
  list: (channelId: string) => call<{ data: GroupRecord[] }>('GET', `${path(channelId)}/groups`).then((r) => r.data),
  get: (channelId: string, groupId: string) => call<{ data: GroupRecord }>('GET', groupPath(channelId, groupId)).then((r) => r.data),
  create: (channelId: string, input: CreateGroupRequest) =>
    call<{ data: GroupRecord }>('POST', `${path(channelId)}/groups`, { body: input }).then((r) => r.data),
  invite: (channelId: string, groupId: string) =>
    call<{ data: { code: string; url: string } }>('GET', `${groupPath(channelId, groupId)}/invite`).then((r) => r.data),
  resetInvite: (channelId: string, groupId: string) =>
    call<{ data: { code: string; url: string } }>('POST', `${groupPath(channelId, groupId)}/invite/revoke`).then((r) => r.data),
};

const labelPath = (channelId: string, labelId: string) => `${path(channelId)}/labels/${encodeURIComponent(labelId)}`;

/** The business labels of an unofficial channel's number and their chats (docs/channels.md, "Labels"). */
export const labelsApi = {
  list: (channelId: string) => call<{ data: ChatLabelRecord[] }>('GET', `${path(channelId)}/labels`).then((r) => r.data),
  create: (channelId: string, input: CreateChatLabelRequest) =>
    call<{ data: ChatLabelRecord }>('POST', `${path(channelId)}/labels`, { body: input }).then((r) => r.data),
  remove: (channelId: string, labelId: string) => call<void>('DELETE', labelPath(channelId, labelId)),
  assign: (channelId: string, labelId: string, chat: string) =>
    call<{ data: ChatLabelRecord }>('POST', `${labelPath(channelId, labelId)}/chats`, { body: { chat } }).then((r) => r.data),
  unassign: (channelId: string, labelId: string, chat: string) =>
    call<{ data: ChatLabelRecord }>('DELETE', `${labelPath(channelId, labelId)}/chats/${encodeURIComponent(chat)}`).then((r) => r.data),
};

/** Status posts (stories) of an unofficial channel's number (docs/channels.md, "Status posts"). */
export const statusApi = {
  post: (channelId: string, input: PostStatusRequest) =>
    call<{ data: StatusPostRecord }>('POST', `${path(channelId)}/status`, { body: input }).then((r) => r.data),
};

/** The chat app's label colors (0-19), approximately, for the swatches beside a label's name. */
export const LABEL_COLORS = [
  '#ff9485',
  '#64c4ff',
  '#ffd429',
  '#dfaef0',
  '#99b6c1',
  '#55ccb3',
  '#ff9dff',
  '#d3a91d',
  '#6d7cce',
  '#d7e752',
  '#00d0e2',
  '#ffc5c7',
  '#93ceac',
  '#f74848',
  '#00a0f2',
  '#83e422',
  '#ffaf04',
  '#b5ebff',
  '#9ba6ff',
  '#9368cf',
] as const;

/** The channel's own profile and privacy settings (unofficial channels: profile.update, privacy.settings). */
export const profileApi = {
  get: (id: string) => call<{ data: ChannelProfileRecord }>('GET', `${path(id)}/profile`).then((r) => r.data),
  update: (id: string, changes: { name?: string; about?: string }) =>
    call<{ data: ChannelProfileRecord }>('PATCH', `${path(id)}/profile`, { body: changes }).then((r) => r.data),
  setPicture: (id: string, url: string) =>
    call<{ data: ChannelProfileRecord }>('PUT', `${path(id)}/profile/picture`, { body: { url } }).then((r) => r.data),
  removePicture: (id: string) => call<{ data: ChannelProfileRecord }>('DELETE', `${path(id)}/profile/picture`).then((r) => r.data),
  privacy: (id: string) => call<{ data: PrivacySettingsRecord }>('GET', `${path(id)}/privacy`).then((r) => r.data),
  updatePrivacy: (id: string, changes: Partial<Record<keyof PrivacySettingsRecord, string>>) =>
    call<{ data: PrivacySettingsRecord }>('PATCH', `${path(id)}/privacy`, { body: changes }).then((r) => r.data),
};

/**
 * The built-in sandbox's control routes, called with the session like any route (they are outside /v1
 * and the OpenAPI document: the sandbox's own doors, docs/sandbox.md). Playing a customer needs
 * messages:send and a sandbox channel of the organization; a scan is the sandbox phone's side, open
 * to whoever holds the QR (it is only on the channel's page).
 */
export const sandboxApi = {
  /** A customer writes a text to the channel; the sandbox delivers it through the provider's own callback. */
  customerWrites: (input: { channel_id: string; from: string; name?: string; body: string }) =>
    call<{ provider_message_id: string }>('POST', '/sandbox/inbound', {
      body: {
        channel_id: input.channel_id,
        from: input.from,
        type: 'text',
        content: { body: input.body },
        ...(input.name ? { name: input.name } : {}),
      },
    }),
  /** The sandbox's phone scans the QR shown for a channel: its session pairs. */
  scan: (qr: string) => call<unknown>('POST', '/sandbox/gateway/scan', { body: { qr }, organization: null }),
};

export const templatesApi = {
  list: (filters: TemplateFilters, cursor?: string) =>
    call<Page<TemplateRecord>>('GET', '/v1/templates', { query: { ...filters, cursor } }),
  create: (input: CreateTemplateRequest) => call<{ data: TemplateRecord }>('POST', '/v1/templates', { body: input }).then((r) => r.data),
  submit: (id: string) => call<{ data: TemplateRecord }>('POST', `/v1/templates/${encodeURIComponent(id)}/submit`).then((r) => r.data),
  sync: (channelId: string) =>
    call<{ data: TemplateSyncRecord }>('POST', '/v1/templates/sync', { body: { channel_id: channelId } }).then((r) => r.data),
};

/** The platforms a person picks from, in words (which engine serves a channel is its own: ENGINE_LABELS). */
export const PLATFORM_LABELS: Record<Platform, string> = {
  chatapp_official: 'ChatApp (official API)',
  chatapp_unofficial: 'ChatApp (linked device)',
};

export function platformLabel(platform: string): string {
  return Object.hasOwn(PLATFORM_LABELS, platform) ? PLATFORM_LABELS[platform as Platform] : platform;
}

export type Engine = ChannelView['engine'];

/** What serves a channel, in words. */
export const ENGINE_LABELS: Record<Engine, string> = {
  official: "The provider's official business API",
  embedded: 'Embedded: a phone paired with Parley itself (linked device)',
  http_gateway: 'HTTP gateway of your own',
  sandbox: 'The built-in sandbox (simulated, for trying things out)',
};

/** A channel's engine in words, with the gateway's address where it names one. */
export function engineLabel(channel: Pick<ChannelView, 'engine' | 'settings'>): string {
  const label = Object.hasOwn(ENGINE_LABELS, channel.engine) ? ENGINE_LABELS[channel.engine] : channel.engine;
  const base = channel.settings.gateway_base;
  return channel.engine === 'http_gateway' && typeof base === 'string' ? `${label}, at ${base}` : label;
}

export const CHANNEL_STATUS_OPTIONS = [
  'pending',
  'pairing',
  'connected',
  'disconnected',
  'error',
] as const satisfies readonly ChannelView['status'][];

export const TEMPLATE_STATUS_OPTIONS = [
  'draft',
  'pending',
  'approved',
  'rejected',
  'paused',
  'disabled',
] as const satisfies readonly TemplateStatus[];
export const TEMPLATE_CATEGORY_OPTIONS = [
  'MARKETING',
  'UTILITY',
  'AUTHENTICATION',
] as const satisfies readonly CreateTemplateRequest['category'][];
