/**
 * Gateway callbacks: verify X-Gateway-Signature over the raw body with the channel's callback
 * secret first, then normalize into Parley's inbound events (routed by session id).
 */
import { GROUP_RECIPIENT } from '../capabilities.ts';
import { PRESENCES, type InboundEvent, type InboundMedia, type Presence, type ProviderInbound } from '../provider.ts';
import { verifyBodySignature } from '../signature.ts';
import { channelStatusOf } from './mapping.ts';

export const SIGNATURE_HEADER = 'x-gateway-signature';
export const EVENT_ID_HEADER = 'x-gateway-event-id';

export function verifyGatewaySignature(rawBody: Buffer, header: string | undefined, secret: string): boolean {
  return verifyBodySignature(rawBody, header, [secret]);
}

type Json = Record<string, any>;

/** Contacts' status posts come from this chat (a gateway delivers them when the channel keeps them). */
const STATUS_BROADCAST = 'status@broadcast';

/** A label id as engines write them (the chat app's: small numbers). */
const LABEL_ID = /^[A-Za-z0-9_-]{1,64}$/;

/** A labelled chat: a contact's phone (international digits, `+` allowed) or a group id; anything else is none. */
function labelChatOf(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  if (GROUP_RECIPIENT.test(value)) return value;
  const digits = value.replace(/^\+/, '');
  return /^\d{5,20}$/.test(digits) ? digits : undefined;
}

/** Message types whose content names a media the gateway holds (docs/gateway-protocol.md). */
const MEDIA_TYPES = new Set(['image', 'video', 'audio', 'document', 'sticker']);

export function normalizeGatewayCallback(body: unknown): InboundEvent[] {
  const b = body as Json;
  const ref = String(b?.session ?? '');
  const p = (b?.payload ?? {}) as Json;
  const timestamp = b?.timestamp ? new Date(b.timestamp) : new Date();
  switch (b?.event) {
    case 'session.status':
      return [
        {
          kind: 'channel.status',
          ref,
          status: channelStatusOf(String(p.status)),
          reason: p.reason ? String(p.reason) : `gateway session ${String(p.status).toLowerCase()}`,
          reasonCode: String(p.status),
          phone: p.me?.phone ? String(p.me.phone) : undefined,
          ...(b?.timestamp && !Number.isNaN(timestamp.getTime()) ? { timestamp } : {}),
        },
      ];
    case 'message.status': {
      const event = statusEvent(ref, p, timestamp);
      return event ? [event] : [];
    }
    // Many statuses in one callback (gateway-protocol.md): `{statuses: [{id, status, error?}, ...]}`.
    case 'message.statuses':
      return (Array.isArray(p.statuses) ? (p.statuses as Json[]) : []).flatMap((one) => {
        const event = one && typeof one === 'object' ? statusEvent(ref, one, timestamp) : undefined;
        return event ? [event] : [];
      });
    case 'message': {
      const given = (p.content ?? {}) as Json;
      // The people it mentions, as Parley's records name people: E.164.
      const content = Array.isArray(given.mentions)
        ? {
            ...given,
            mentions: (given.mentions as unknown[]).flatMap((m) => {
              const digits = String(m ?? '').replace(/^\+/, '');
              return /^\d{5,20}$/.test(digits) ? [`+${digits}`] : [];
            }),
          }
        : given;
      const type = String(p.type ?? 'text');
      const media = mediaOf(type, content);
      // A group's message names its group (content.group.id): the conversation is the group's.
      const group = (content.group as Json | undefined)?.id;
      const from = String(p.from ?? '').replace(/^\+/, '');
      return [
        {
          kind: 'message.inbound',
          ref,
          providerMessageId: String(p.id),
          from,
          profileName: p.from_name ? String(p.from_name) : undefined,
          identities: identitiesOf(from, p.from_lid),
          timestamp,
          type,
          content,
          replyTo: p.reply_to ? String(p.reply_to) : undefined,
          ...(media ? { media } : {}),
          ...(p.history === true ? { history: true as const } : {}),
          ...(typeof group === 'string' && GROUP_RECIPIENT.test(group)
            ? { chat: group }
            : p.chat === STATUS_BROADCAST
              ? { chat: STATUS_BROADCAST, content: { ...content, status_post: true } }
              : {}),
        },
      ];
    }
    case 'group.update':
      return groupEvent(ref, p, timestamp);
    // Business labels (gateway-protocol.md, "Labels"): `{id, name, color, deleted?}` and `{label_id, chat, message_id?, action}`.
    case 'label.edit': {
      if (typeof p.id !== 'string' || !LABEL_ID.test(p.id)) return [];
      const color = Number.isInteger(p.color) && p.color >= 0 && p.color < 20 ? (p.color as number) : 0;
      return [
        {
          kind: 'label.edit',
          ref,
          labelId: p.id,
          name: typeof p.name === 'string' ? p.name.slice(0, 100) : '',
          color,
          deleted: p.deleted === true,
          timestamp,
        },
      ];
    }
    case 'label.association': {
      const chat = labelChatOf(p.chat);
      if (typeof p.label_id !== 'string' || !LABEL_ID.test(p.label_id) || !chat || (p.action !== 'add' && p.action !== 'remove')) return [];
      return [
        {
          kind: 'label.association',
          ref,
          labelId: p.label_id,
          chat,
          ...(typeof p.message_id === 'string' && p.message_id ? { messageId: p.message_id.slice(0, 128) } : {}),
          action: p.action,
          timestamp,
        },
      ];
    }
    case 'chat.update':
      return chatEvent(ref, p, timestamp);
    // A message starred on the phone: `{id, starred}`.
    case 'message.starred':
      if (!p.id || typeof p.starred !== 'boolean') return [];
      return [{ kind: 'message.starred', ref, providerMessageId: String(p.id), starred: p.starred, timestamp }];
    case 'presence': {
      const phone = String(p.phone ?? '').replace(/^\+/, '');
      if (!/^\d{5,20}$/.test(phone) || !(PRESENCES as readonly string[]).includes(String(p.presence))) return [];
      const lastSeen = p.last_seen ? new Date(p.last_seen) : undefined;
      return [
        {
          kind: 'presence.update',
          ref,
          phone,
          ...(typeof p.lid === 'string' && p.lid ? { lid: p.lid } : {}),
          ...(typeof p.chat === 'string' && GROUP_RECIPIENT.test(p.chat) ? { chat: p.chat } : {}),
          presence: String(p.presence) as Presence,
          ...(lastSeen && !Number.isNaN(lastSeen.getTime()) ? { lastSeen } : {}),
          timestamp,
        },
      ];
    }
    // The business's own activity on its phone and the senders' edits and deletions (gateway-protocol.md).
    case 'message.echo': {
      const to = String(p.to ?? '').replace(/^\+/, '');
      if (!p.id || !/^\d{5,20}$/.test(to)) return [];
      const type = String(p.type ?? 'text');
      const content = (p.content && typeof p.content === 'object' ? p.content : {}) as Json;
      const media = mediaOf(type, content);
      return [
        {
          kind: 'message.echo',
          ref,
          providerMessageId: String(p.id),
          to,
          timestamp,
          type,
          content,
          ...(p.reply_to ? { replyTo: String(p.reply_to) } : {}),
          ...(media ? { media } : {}),
          ...(p.history === true ? { history: true as const } : {}),
        },
      ];
    }
    case 'message.edited':
      if (!p.id || !p.content || typeof p.content !== 'object') return [];
      return [{ kind: 'message.edited', ref, providerMessageId: String(p.id), content: p.content as Json, timestamp }];
    case 'message.deleted':
      if (!p.id) return [];
      return [{ kind: 'message.deleted', ref, providerMessageId: String(p.id), timestamp }];
    // A call to the session's number and what became of it: `{id, from, from_lid?, from_name?, status, video?, group?}`.
    case 'call': {
      const from = String(p.from ?? '').replace(/^\+/, '');
      const status = String(p.status);
      if (!p.id || !/^\d{5,20}$/.test(from) || !CALL_STATUSES.has(status)) return [];
      return [
        {
          kind: 'call',
          ref,
          callId: String(p.id),
          from,
          ...(p.from_name ? { profileName: String(p.from_name) } : {}),
          identities: identitiesOf(from, p.from_lid),
          status: status as Extract<InboundEvent, { kind: 'call' }>['status'],
          video: p.video === true,
          ...(typeof p.group === 'string' && GROUP_RECIPIENT.test(p.group) ? { group: p.group } : {}),
          timestamp,
        },
      ];
    }
    default:
      return [];
  }
}

/** A chat's change on the phone: `{chat, archived?, pinned?, muted_until?, unread?, deleted?}` (docs/gateway-protocol.md). */
function chatEvent(ref: string, p: Json, timestamp: Date): InboundEvent[] {
  const raw = String(p.chat ?? '').replace(/^\+/, '');
  if (!GROUP_RECIPIENT.test(raw) && !/^\d{5,20}$/.test(raw)) return [];
  const event: Extract<InboundEvent, { kind: 'chat.update' }> = { kind: 'chat.update', ref, chat: raw, timestamp };
  if (p.deleted === true) return [{ ...event, deleted: true }];
  if (typeof p.archived === 'boolean') event.archived = p.archived;
  if (typeof p.pinned === 'boolean') event.pinned = p.pinned;
  if (typeof p.unread === 'boolean') event.unread = p.unread;
  if (p.muted_until === null) event.mutedUntil = null;
  else if (typeof p.muted_until === 'string' && !Number.isNaN(new Date(p.muted_until).getTime()))
    event.mutedUntil = new Date(p.muted_until);
  return Object.keys(event).length > 4 ? [event] : [];
}

/** The changes a `group.update` callback may name (docs/gateway-protocol.md), and the list its participants go to. */
const GROUP_CHANGES: Record<string, string | null> = {
  group_join: 'added_participants',
  group_leave: 'removed_participants',
  group_settings_update: null,
  group_add_participants: 'added_participants',
  group_remove_participants: 'removed_participants',
  group_promote_participants: 'promoted_participants',
  group_demote_participants: 'demoted_participants',
};

/** A group's change, in group.updated's words: the participants by phone (`wa_id`) and privacy id, the settings that changed. */
function groupEvent(ref: string, p: Json, timestamp: Date): InboundEvent[] {
  const change = String(p.change ?? '');
  const groupId = String(p.group_id ?? '');
  if (!(change in GROUP_CHANGES) || !GROUP_RECIPIENT.test(groupId)) return [];
  const list = GROUP_CHANGES[change];
  const participants = (Array.isArray(p.participants) ? (p.participants as unknown[]) : []).flatMap((one) => {
    const phone = String((one as Json | null)?.phone ?? '').replace(/^\+/, '');
    const lid = (one as Json | null)?.lid;
    return /^\d{5,20}$/.test(phone) ? [{ wa_id: phone, ...(typeof lid === 'string' && lid ? { lid } : {}) }] : [];
  });
  const settings = p.settings && typeof p.settings === 'object' ? pickSettings(p.settings as Json) : undefined;
  const author = String(p.author ?? '').replace(/^\+/, '');
  return [
    {
      kind: 'group.update',
      ref,
      field: 'group',
      groupId,
      change,
      details: {
        ...(typeof p.subject === 'string' ? { subject: p.subject } : {}),
        ...(typeof p.description === 'string' ? { description: p.description } : {}),
        ...(settings && Object.keys(settings).length > 0 ? { settings } : {}),
        ...(list && participants.length > 0 ? { [list]: participants } : {}),
        ...(/^\d{5,20}$/.test(author) ? { author } : {}),
      },
      timestamp,
    },
  ];
}

const SETTING_KEYS = ['announcement', 'locked', 'members_can_add', 'join_approval'] as const;

function pickSettings(s: Json): Json {
  const out: Json = {};
  for (const key of SETTING_KEYS) if (typeof s[key] === 'boolean') out[key] = s[key];
  if (Number.isInteger(s.ephemeral_seconds) && (s.ephemeral_seconds as number) >= 0) out.ephemeral_seconds = s.ephemeral_seconds;
  return out;
}

const CALL_STATUSES = new Set(['offer', 'accept', 'reject', 'timeout', 'terminate']);

/** The sender's identities: the number, and the privacy id where the gateway gave it (`from_lid`: digits). */
function identitiesOf(from: string, lid: unknown): Array<{ type: string; value: string }> {
  const privacyId = typeof lid === 'string' ? /^(\d{5,25})(@lid)?$/.exec(lid)?.[1] : undefined;
  return [{ type: 'chatapp_id', value: from }, ...(privacyId ? [{ type: 'linked_id', value: privacyId }] : [])];
}

/** A media message's media, fetched later by its id with the protocol's media call. */
function mediaOf(type: string, content: Json): InboundMedia | undefined {
  if (!MEDIA_TYPES.has(type) || typeof content.media_id !== 'string' || content.media_id === '') return undefined;
  return {
    source: { media_id: content.media_id },
    ...(typeof content.mime_type === 'string' ? { mimeType: content.mime_type } : {}),
    ...(typeof content.file_name === 'string' ? { fileName: content.file_name } : {}),
  };
}

function statusEvent(ref: string, p: Json, timestamp: Date): InboundEvent | undefined {
  const s = String(p.status);
  if (s !== 'sent' && s !== 'delivered' && s !== 'read' && s !== 'failed') return undefined;
  return {
    kind: 'message.status',
    ref,
    providerMessageId: String(p.id),
    status: s,
    timestamp,
    ...(p.error ? { error: { code: String(p.error.code), title: String(p.error.message ?? p.error.code) } } : {}),
  };
}

export const gatewayInbound: ProviderInbound = {
  signatureHeader: SIGNATURE_HEADER,
  deliveryIdHeader: EVENT_ID_HEADER,
  verify: (rawBody, header, secrets) => verifyBodySignature(rawBody, header, secrets),
  normalize: normalizeGatewayCallback,
};
