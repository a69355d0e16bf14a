/**
 * What the embedded engine's socket reports, normalized into Parley's inbound events (the same ones
 * the other engines produce; docs/channels.md, "Embedded engine: message mapping"). Pure: the engine
 * hands each library event here with what it knows of the paired account, and stores the result.
 *
 * - `messages.upsert` carries every message, the customer's and the business's own (`key.fromMe`: sent
 *   from the phone or another linked device, or Parley's own send coming back), including reactions,
 *   poll votes, edits and deletions (protocol messages). The library's derived events for the same
 *   messages (`messages.reaction`, `messages.update` with a message, `messages.delete`) are not used:
 *   they would report each twice, and without the message's own id.
 * - `messages.update` with a status, and `message-receipt.update` (groups), are the acks of our sends.
 * - Senders come as privacy ids (`<lid>@lid`) with the phone beside them (`key.remoteJidAlt`,
 *   `key.participantAlt`), or the other way round; a sender with no phone is skipped (a contact needs one).
 */
import type { proto, WAMessage, WAMessageKey } from 'baileys';
import type { InboundEvent, InboundMedia } from '../../provider.ts';
import { missedCallEvent, MISSED_CALL_STUBS } from './calls.ts';
import { library } from './library.ts';
import { lidOfJid, parleyMessageIdOf, phoneOfJid, pollSecret, serverOf, userOf } from './ids.ts';
import type { SocketEvents } from './socket.ts';

export type SocketEvent = { [K in keyof SocketEvents]: { event: K; data: SocketEvents[K] } }[keyof SocketEvents];
export type InboundContext = {
  self?: { phone?: string; lid?: string };
  /** Keep messages of groups (settings.group_messages). */
  groups: boolean;
  /** Keep contacts' status posts (settings.status_messages). */
  statuses?: boolean;
  /** The engine's poll key (outbound.ts OutboundContext.pollKey): votes on polls Parley sent with it are read. */
  pollKey?: Uint8Array;
};

/** The name the engine knew this context by. */
export type NormalizeContext = InboundContext;

type Json = Record<string, unknown>;
type Message = proto.IMessage;

export function normalizeSocketEvent(ref: string, input: SocketEvent, context: InboundContext): InboundEvent[] {
  switch (input.event) {
    case 'messages.upsert':
      return input.data.messages.flatMap((m) => messageEvents(ref, m, context));
    case 'messages.update':
      return input.data.flatMap(({ key, update }): InboundEvent[] => {
        // A message starred or unstarred on the phone (app-state sync: chat-utils' starAction), ours or theirs.
        if (key?.id && typeof update?.starred === 'boolean')
          return [{ kind: 'message.starred', ref, providerMessageId: key.id, starred: update.starred, timestamp: new Date() }];
        if (!key?.fromMe || !key.id || typeof update?.status !== 'number' || !isAckChat(key.remoteJid, context)) return [];
        const status = statusOf(update.status);
        if (!status) return [];
        // An ack of Parley's own send names its message (ids.ts): it settles a send whose answer was lost.
        const own = parleyMessageIdOf(key.id);
        return [
          {
            kind: 'message.status',
            ref,
            providerMessageId: key.id,
            status,
            timestamp: new Date(),
            ...(status === 'failed' ? { error: ackError(update.messageStubParameters) } : {}),
            ...(own ? { callbackData: own } : {}),
          },
        ];
      });
    case 'message-receipt.update':
      return input.data.flatMap(({ key, receipt }): InboundEvent[] => {
        if (!key?.fromMe || !key.id || !isAckChat(key.remoteJid, context)) return [];
        const read = seconds(receipt.readTimestamp) ?? seconds(receipt.playedTimestamp);
        const delivered = seconds(receipt.receiptTimestamp);
        const own = parleyMessageIdOf(key.id);
        const named = own ? { callbackData: own } : {};
        if (read) return [{ kind: 'message.status', ref, providerMessageId: key.id, status: 'read', timestamp: read, ...named }];
        if (delivered)
          return [{ kind: 'message.status', ref, providerMessageId: key.id, status: 'delivered', timestamp: delivered, ...named }];
        return [];
      });
    case 'connection.update':
    case 'creds.update':
    case 'messages.reaction':
    case 'messages.delete':
    case 'messaging-history.set':
    case 'groups.upsert':
    case 'groups.update':
    case 'group-participants.update':
    case 'presence.update':
    case 'call':
    case 'labels.edit':
    case 'labels.association':
    case 'chats.update':
    case 'chats.delete':
      // History chunks are history.ts's; group and presence events group-events.ts's; calls are calls.ts's; labels labels.ts's; chats chats.ts's.
      return [];
    default:
      return input satisfies never;
  }
}

/** An ack's status as Parley's; PENDING is no news. */
function statusOf(status: number): 'sent' | 'delivered' | 'read' | 'failed' | undefined {
  const Status = library().proto.WebMessageInfo.Status;
  switch (status) {
    case Status.SERVER_ACK:
      return 'sent';
    case Status.DELIVERY_ACK:
      return 'delivered';
    case Status.READ:
    case Status.PLAYED:
      return 'read';
    case Status.ERROR:
      return 'failed';
    default:
      return undefined;
  }
}

/** Error codes the service puts in a refused message's ack (the library passes them in messageStubParameters). */
const ACK_ERRORS: Record<string, string> = {
  '463': 'the account may not start new chats (restricted): the service refused the message',
  '479': 'the service rejected the message (stale device session or bad addressing)',
  '421': 'the service refused the message (rate limited)',
};

function ackError(parameters: unknown): { code: string; title: string; message?: string } {
  const params = Array.isArray(parameters) ? parameters.map(String) : [];
  const code = params[0] || 'error';
  return {
    code,
    title: ACK_ERRORS[code] ?? `the service refused the message (error ${code})`,
    ...(params[1] ? { message: params[1] } : {}),
  };
}

/** Where contacts' status posts (stories) come from. */
export const STATUS_BROADCAST = 'status@broadcast';

/**
 * Chats Parley keeps: one-to-one chats, groups when the channel takes them, contacts' status posts
 * when it takes those. Other broadcasts and channels (newsletters) never.
 */
function isChat(jid: string | null | undefined, context: InboundContext): boolean {
  const server = serverOf(jid);
  if (server === 'g.us') return context.groups;
  if (jid === STATUS_BROADCAST) return context.statuses === true;
  return server === 's.whatsapp.net' || server === 'c.us' || server === 'lid' || server === 'hosted' || server === 'hosted.lid';
}

/** Acks of our sends: any chat Parley sends to, groups included whether or not their messages are kept. */
const isAckChat = (jid: string | null | undefined, context: InboundContext) => serverOf(jid) === 'g.us' || isChat(jid, context);

/** The other person of a message: phone digits and privacy id, from the jid and its alternate (never our own). */
function personOf(
  jid: string | null | undefined,
  alt: string | null | undefined,
  context: InboundContext,
): { phone?: string; lid?: string } {
  const self = context.self ?? {};
  const phone = phoneOfJid(jid) ?? phoneOfJid(alt);
  const lid = lidOfJid(jid) ?? lidOfJid(alt);
  return { phone: phone && phone !== self.phone ? phone : undefined, lid: lid && lid !== self.lid ? lid : undefined };
}

function seconds(value: unknown): Date | undefined {
  const n =
    typeof value === 'number'
      ? value
      : value && typeof (value as { toNumber?: unknown }).toNumber === 'function'
        ? (value as { toNumber(): number }).toNumber()
        : Number(value);
  return Number.isFinite(n) && n > 0 ? new Date(n * 1000) : undefined;
}

const base64 = (bytes: Uint8Array | null | undefined) => (bytes && bytes.length ? Buffer.from(bytes).toString('base64') : undefined);
const hex = (bytes: Uint8Array | null | undefined) => (bytes && bytes.length ? Buffer.from(bytes).toString('hex') : undefined);
const text = (value: string | null | undefined) => (typeof value === 'string' && value !== '' ? value : undefined);
const num = (value: unknown): number | undefined => {
  const n =
    typeof value === 'number'
      ? value
      : value && typeof (value as { toNumber?: unknown }).toNumber === 'function'
        ? (value as { toNumber(): number }).toNumber()
        : undefined;
  return n !== undefined && Number.isFinite(n) ? n : undefined;
};
/** Only the fields that have a value. */
const defined = (o: Json): Json => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined && v !== null));

function messageEvents(ref: string, m: WAMessage, context: InboundContext): InboundEvent[] {
  const key = m.key as WAMessageKey | undefined;
  if (!key?.id || !key.remoteJid) return [];
  if (!isChat(key.remoteJid, context)) return [];
  const { normalizeMessageContent, proto: messages } = library();
  const ProtocolType = messages.Message.ProtocolMessage.Type;
  const group = serverOf(key.remoteJid) === 'g.us';
  const status = key.remoteJid === STATUS_BROADCAST;
  const timestamp = seconds(m.messageTimestamp) ?? new Date();
  if (m.messageStubType) return status ? [] : stubEvents(ref, m, key, group, timestamp, context);
  const message = normalizeMessageContent(m.message);
  if (!message) return [];
  // The library's note of a group call ringing: the call's own events report it (calls.ts).
  if (message.call) return [];

  // Edits and deletions, by whoever made them (the customer, or the business on any of its devices).
  const protocol = message.protocolMessage;
  if (protocol) {
    const target = protocol.key?.id;
    if (!target) return [];
    if (protocol.type === ProtocolType.REVOKE) return [{ kind: 'message.deleted', ref, providerMessageId: target, timestamp }];
    if (protocol.type === ProtocolType.MESSAGE_EDIT && protocol.editedMessage) {
      const edited = contentOf(normalizeMessageContent(protocol.editedMessage) ?? {});
      if (!edited) return [];
      return [
        {
          kind: 'message.edited',
          ref,
          providerMessageId: target,
          content: edited.content,
          timestamp: seconds(protocol.timestampMs ? num(protocol.timestampMs)! / 1000 : undefined) ?? timestamp,
        },
      ];
    }
    return [];
  }

  const shared = group || status;
  const person = shared ? personOf(key.participant, key.participantAlt, context) : personOf(key.remoteJid, key.remoteJidAlt, context);
  if (!person.phone) return [];

  if (key.fromMe) {
    // The business wrote from its phone or another linked device (or this is Parley's own send coming back).
    if (shared) return [];
    const found = message.pollUpdateMessage ? undefined : contentOf(message);
    if (!found) return [];
    const mapped = withMarks(found, m.message, message);
    const own = parleyMessageIdOf(key.id);
    return [
      {
        kind: 'message.echo',
        ref,
        providerMessageId: key.id,
        to: person.phone,
        timestamp,
        type: mapped.type,
        content: mapped.content,
        ...(mapped.replyTo ? { replyTo: mapped.replyTo } : {}),
        ...(mapped.media ? { media: mapped.media } : {}),
        // Parley's own send coming back names its message (ids.ts libraryMessageId).
        ...(own ? { callbackData: own } : {}),
      },
    ];
  }

  const found = message.pollUpdateMessage ? voteOf(message.pollUpdateMessage, key, context) : contentOf(message);
  if (!found) return [];
  const mapped = withMarks(found, m.message, message);
  return [
    {
      kind: 'message.inbound',
      ref,
      providerMessageId: key.id,
      from: person.phone,
      ...(text(m.pushName) ? { profileName: m.pushName! } : {}),
      identities: [{ type: 'chatapp_id', value: person.phone }, ...(person.lid ? [{ type: 'linked_id', value: person.lid }] : [])],
      timestamp,
      type: mapped.type,
      content: sharedContent(mapped.content, key.remoteJid, person.phone),
      ...(shared ? { chat: key.remoteJid } : {}),
      ...(mapped.replyTo ? { replyTo: mapped.replyTo } : {}),
      ...(mapped.media ? { media: mapped.media } : {}),
    },
  ];
}

/**
 * What the library's wrappers and context say beside the content: a view-once message (its wrapper, or the
 * media's own flag) is `view_once: true`, the people a message mentions (contextInfo.mentionedJid) are
 * `mentions` (their phones; privacy ids the library cannot map are left out), a forwarded one `forwarded: true`.
 */
function withMarks(mapped: Mapped, raw: Message | null | undefined, message: Message): Mapped {
  if (mapped.type === 'unsupported' || mapped.type === 'reaction' || mapped.type === 'poll_vote') return mapped;
  const part = Object.entries(message).find(
    ([k, v]) => (k.endsWith('Message') || k === 'extendedTextMessage') && !NOT_CONTENT.has(k) && v && typeof v === 'object',
  )?.[1] as { contextInfo?: proto.IContextInfo | null; viewOnce?: boolean | null } | undefined;
  const viewOnce = Boolean(raw?.viewOnceMessage || raw?.viewOnceMessageV2 || raw?.viewOnceMessageV2Extension || part?.viewOnce);
  const mentions = (part?.contextInfo?.mentionedJid ?? []).flatMap((jid) => {
    const phone = phoneOfJid(jid);
    return phone ? [`+${phone}`] : [];
  });
  const forwarded = part?.contextInfo?.isForwarded === true;
  if (!viewOnce && mentions.length === 0 && !forwarded) return mapped;
  return {
    ...mapped,
    content: {
      ...mapped.content,
      ...(viewOnce ? { view_once: true } : {}),
      ...(mentions.length > 0 ? { mentions } : {}),
      ...(forwarded ? { forwarded: true } : {}),
    },
  };
}

/** A message of a group names the group and its sender (`group: {id, participant}`); a status post says it is one. */
function sharedContent(content: Json, chat: string, participant: string): Json {
  if (serverOf(chat) === 'g.us') return { ...content, group: { id: chat, participant } };
  if (chat === STATUS_BROADCAST) return { ...content, status_post: true };
  return content;
}

/** The parameter the library gives a message that came without content (decode-wa-message.js NO_MESSAGE_FOUND_ERROR_TEXT). */
const NO_CONTENT = 'Message absent from node';

/**
 * A stub (messageStubType): a message the library could not decrypt (CIPHERTEXT, the error as its
 * parameter; the library asks the sender's phone to send it again, and the real message then arrives
 * under the same id and replaces this one), one that came without content (the phone is asked for it),
 * or a notice of another kind (a missed call, a group change, ...). Each is kept as an `unsupported`
 * message with the reason, so the owner knows something came that could not be read. Stubs of our own
 * devices are not: nobody wrote them to the business.
 */
function stubEvents(
  ref: string,
  m: WAMessage,
  key: WAMessageKey,
  group: boolean,
  timestamp: Date,
  context: InboundContext,
): InboundEvent[] {
  if (key.fromMe) return [];
  const person = group ? personOf(key.participant, key.participantAlt, context) : personOf(key.remoteJid, key.remoteJidAlt, context);
  if (!person.phone) return [];
  const StubType = library().proto.WebMessageInfo.StubType;
  const name = StubType[m.messageStubType!] ?? String(m.messageStubType);
  // A missed call (the library writes one when a call times out; history has them too): the call's record, not a stub.
  const missed = MISSED_CALL_STUBS[name];
  if (missed) {
    if (missed.group && !group) return [];
    return [
      missedCallEvent(ref, missed, {
        callId: key.id!,
        phone: person.phone,
        ...(person.lid ? { lid: person.lid } : {}),
        ...(text(m.pushName) ? { profileName: m.pushName! } : {}),
        timestamp,
        ...(group ? { group: key.remoteJid! } : {}),
      }),
    ];
  }
  // A group's other notices (members added, subject changed, …) are the library's group events: group.updated, not messages.
  if (group && m.messageStubType !== StubType.CIPHERTEXT) return [];
  const parameter = text(m.messageStubParameters?.[0] ?? undefined);
  const error =
    m.messageStubType !== StubType.CIPHERTEXT
      ? { code: 'stub_message', title: `the chat app reported ${name}, which the embedded engine does not read` }
      : parameter === NO_CONTENT
        ? { code: 'message_unavailable', title: 'the message arrived without its content; the phone is asked to send it' }
        : {
            code: 'decryption_failed',
            title: `the message could not be decrypted${parameter ? ` (${parameter.slice(0, 200)})` : ''}; the sender's phone is asked to send it again`,
          };
  // The real message may follow under the same id (a retry, the phone's resend): this one is its placeholder.
  const content: Json = { errors: [error], stub_type: name, ...(error.code === 'stub_message' ? {} : { placeholder: true }) };
  return [
    {
      kind: 'message.inbound',
      ref,
      providerMessageId: key.id!,
      from: person.phone,
      ...(text(m.pushName) ? { profileName: m.pushName! } : {}),
      identities: [{ type: 'chatapp_id', value: person.phone }, ...(person.lid ? [{ type: 'linked_id', value: person.lid }] : [])],
      timestamp,
      type: 'unsupported',
      content: sharedContent(content, key.remoteJid!, person.phone),
      ...(group ? { chat: key.remoteJid! } : {}),
    },
  ];
}

type Mapped = { type: string; content: Json; replyTo?: string; media?: InboundMedia };

const MEDIA_KINDS = [
  ['imageMessage', 'image'],
  ['videoMessage', 'video'],
  ['ptvMessage', 'video'],
  ['audioMessage', 'audio'],
  ['documentMessage', 'document'],
  ['stickerMessage', 'sticker'],
] as const;

/** Message parts that are not chat content: a message with nothing else is skipped. */
const NOT_CONTENT = new Set([
  'messageContextInfo',
  'senderKeyDistributionMessage',
  'keepInChatMessage',
  'pinInChatMessage',
  'encReactionMessage',
  'encEventResponseMessage',
]);

/** The quoted message an answer names (contextInfo.stanzaId). */
function replyOf(part: { contextInfo?: proto.IContextInfo | null } | null | undefined): string | undefined {
  return text(part?.contextInfo?.stanzaId);
}

/** One message's content in Parley's shape (as the official engine gives it), or undefined when it carries none. */
export function contentOf(message: Message): Mapped | undefined {
  if (typeof message.conversation === 'string') return { type: 'text', content: { body: message.conversation } };
  if (message.extendedTextMessage) {
    const t = message.extendedTextMessage;
    return { type: 'text', content: { body: t.text ?? '' }, replyTo: replyOf(t) };
  }
  for (const [field, type] of MEDIA_KINDS) {
    const media = message[field] as
      | (proto.Message.IImageMessage & proto.Message.IDocumentMessage & proto.Message.IAudioMessage & proto.Message.IStickerMessage)
      | null
      | undefined;
    if (media) return mediaOf(type, media);
  }
  if (message.locationMessage) {
    const l = message.locationMessage;
    return {
      type: 'location',
      content: defined({
        latitude: l.degreesLatitude,
        longitude: l.degreesLongitude,
        name: text(l.name),
        address: text(l.address),
        url: text(l.url),
      }),
      replyTo: replyOf(l),
    };
  }
  if (message.liveLocationMessage) {
    const l = message.liveLocationMessage;
    return {
      type: 'location',
      content: defined({ latitude: l.degreesLatitude, longitude: l.degreesLongitude, name: text(l.caption), live: true }),
      replyTo: replyOf(l),
    };
  }
  if (message.contactMessage)
    return { type: 'contact', content: { contacts: [contactOf(message.contactMessage)] }, replyTo: replyOf(message.contactMessage) };
  if (message.contactsArrayMessage) {
    return {
      type: 'contact',
      content: { contacts: (message.contactsArrayMessage.contacts ?? []).map(contactOf) },
      replyTo: replyOf(message.contactsArrayMessage),
    };
  }
  if (message.reactionMessage) {
    return {
      type: 'reaction',
      content: { message_id: message.reactionMessage.key?.id ?? '', reaction: message.reactionMessage.text ?? '' },
    };
  }
  const poll = message.pollCreationMessage ?? message.pollCreationMessageV2 ?? message.pollCreationMessageV3;
  if (poll) {
    return {
      type: 'poll',
      content: {
        question: poll.name ?? '',
        options: (poll.options ?? []).map((o) => o.optionName ?? ''),
        multiple_answers: poll.selectableOptionsCount !== 1,
      },
      replyTo: replyOf(poll),
    };
  }
  if (message.buttonsResponseMessage) {
    const b = message.buttonsResponseMessage;
    return {
      type: 'interactive',
      content: { type: 'button_reply', id: b.selectedButtonId ?? '', title: b.selectedDisplayText ?? '' },
      replyTo: replyOf(b),
    };
  }
  if (message.templateButtonReplyMessage) {
    const b = message.templateButtonReplyMessage;
    return {
      type: 'interactive',
      content: { type: 'button_reply', id: b.selectedId ?? '', title: b.selectedDisplayText ?? '' },
      replyTo: replyOf(b),
    };
  }
  if (message.listResponseMessage) {
    const l = message.listResponseMessage;
    return {
      type: 'interactive',
      content: defined({
        type: 'list_reply',
        id: l.singleSelectReply?.selectedRowId ?? '',
        title: l.title ?? '',
        description: text(l.description),
      }),
      replyTo: replyOf(l),
    };
  }
  if (message.interactiveResponseMessage) return interactiveOf(message.interactiveResponseMessage);
  const kind = Object.keys(message).find(
    (k) => (k === 'conversation' || k.endsWith('Message')) && !NOT_CONTENT.has(k) && message[k as keyof Message],
  );
  if (!kind) return undefined;
  return {
    type: 'unsupported',
    content: { errors: [{ code: 'unsupported_type', title: `the embedded engine does not read ${kind} messages` }] },
  };
}

function mediaOf(
  type: 'image' | 'video' | 'audio' | 'document' | 'sticker',
  m: proto.Message.IImageMessage & proto.Message.IDocumentMessage & proto.Message.IAudioMessage & proto.Message.IStickerMessage,
): Mapped {
  const mimeType = text(m.mimetype);
  const fileName = type === 'document' ? text(m.fileName) : undefined;
  const size = num(m.fileLength);
  const content = defined({
    mime_type: mimeType,
    sha256: hex(m.fileSha256),
    caption: type === 'image' || type === 'video' || type === 'document' ? text(m.caption) : undefined,
    file_name: fileName,
    voice: type === 'audio' ? m.ptt === true : undefined,
    animated: type === 'sticker' ? m.isAnimated === true : undefined,
  });
  // What the download needs (media.ts downloadEmbeddedMedia): never shown, it holds the decryption key.
  const source = defined({
    mediaType: type,
    url: text(m.url),
    directPath: text(m.directPath),
    mediaKey: base64(m.mediaKey),
    fileEncSha256: base64(m.fileEncSha256),
    fileSha256: base64(m.fileSha256),
    fileLength: size,
    mimetype: mimeType,
  });
  return { type, content, replyTo: replyOf(m), media: defined({ source, mimeType, fileName, size }) as InboundMedia };
}

/** A button answer of a native-flow message (quick replies arrive so), or another flow's answer. */
function interactiveOf(r: proto.Message.IInteractiveResponseMessage): Mapped {
  const flow = r.nativeFlowResponseMessage;
  let params: unknown;
  try {
    params = flow?.paramsJson ? JSON.parse(flow.paramsJson) : undefined;
  } catch {
    params = undefined;
  }
  const p = params && typeof params === 'object' ? (params as Json) : undefined;
  if (p && typeof p.id === 'string') {
    return {
      type: 'interactive',
      content: { type: 'button_reply', id: p.id, title: String(p.display_text ?? r.body?.text ?? '') },
      replyTo: replyOf(r),
    };
  }
  return {
    type: 'interactive',
    content: defined({
      type: 'nfm_reply',
      name: text(flow?.name),
      body: text(r.body?.text),
      response_json: p ?? flow?.paramsJson ?? undefined,
    }),
    replyTo: replyOf(r),
  };
}

/** A shared contact as the official engine gives it: {name, phones, emails?, org?}. */
function contactOf(c: proto.Message.IContactMessage): Json {
  const card = parseVcard(c.vcard ?? '');
  const formatted = card.fn ?? text(c.displayName) ?? '';
  return defined({
    name: defined({ formatted_name: formatted, first_name: card.given, last_name: card.family }),
    phones: card.phones,
    emails: card.emails.length ? card.emails : undefined,
    org: card.org ? { company: card.org } : undefined,
  });
}

type Vcard = { fn?: string; given?: string; family?: string; org?: string; phones: Json[]; emails: Json[] };

/** The parts of a vCard (2.1, 3.0 or 4.0) a contact card shows: name, phones (with the chat id), emails, organization. */
export function parseVcard(vcard: string): Vcard {
  const card: Vcard = { phones: [], emails: [] };
  // Unfold continuation lines (RFC 6350 3.2), then read `[group.]NAME[;params]:value`.
  const lines = vcard
    .replace(/\r\n/g, '\n')
    .replace(/\n[ \t]/g, '')
    .split('\n');
  const unescape = (s: string) => s.replace(/\\n/gi, '\n').replace(/\\([,;\\])/g, '$1');
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon < 0) continue;
    const [rawName, ...params] = line.slice(0, colon).split(';');
    const name = rawName!.replace(/^[^.]*\./, '').toUpperCase();
    const value = line.slice(colon + 1);
    const types = params
      .flatMap((p) => {
        const [k, v] = p.split('=');
        if (v === undefined) return [k!];
        return k!.toLowerCase() === 'type' ? v.split(',') : [];
      })
      .map((t) => t.toUpperCase())
      .filter((t) => t && t !== 'VOICE' && t !== 'PREF' && t !== 'INTERNET');
    switch (name) {
      case 'FN':
        card.fn = unescape(value).trim() || undefined;
        break;
      case 'N': {
        const [family, given] = value.split(/(?<!\\);/).map(unescape);
        card.family = family?.trim() || undefined;
        card.given = given?.trim() || undefined;
        break;
      }
      case 'ORG':
        card.org = unescape(value.split(/(?<!\\);/)[0] ?? '').trim() || undefined;
        break;
      case 'TEL': {
        const waid = params.map((p) => /^waid=(\d+)$/i.exec(p)?.[1]).find(Boolean);
        const phone = value.replace(/^tel:/i, '').trim();
        if (phone || waid) card.phones.push(defined({ phone: phone || `+${waid}`, wa_id: waid, type: types[0] }));
        break;
      }
      case 'EMAIL':
        if (value.trim()) card.emails.push(defined({ email: value.trim(), type: types[0] }));
        break;
      default:
        break;
    }
  }
  return card;
}

/**
 * A poll vote, read with the poll's secret: only votes on polls Parley sent with the engine's poll key
 * can be read (the secret of any other poll is only in that poll's message). The options come as
 * SHA-256 hashes of their text; the message applier names them from the stored poll.
 */
function voteOf(update: proto.Message.IPollUpdateMessage, key: WAMessageKey, context: InboundContext): Mapped | undefined {
  const poll = update.pollCreationMessageKey;
  if (!poll?.id || !poll.fromMe || !context.pollKey || !update.vote?.encPayload || !update.vote.encIv) return undefined;
  const secret = pollSecret(context.pollKey, poll.id);
  const self = context.self ?? {};
  const creators = [self.phone ? `${self.phone}@s.whatsapp.net` : undefined, self.lid ? `${self.lid}@lid` : undefined].filter(
    (j): j is string => !!j,
  );
  const voters = [key.participant, key.participantAlt, key.remoteJid, key.remoteJidAlt]
    .filter((j): j is string => typeof j === 'string' && serverOf(j) !== 'g.us')
    .map((j) => `${userOf(j)}@${serverOf(j)}`);
  // Which form of each address the voter's phone signed with is not said: try each (a wrong one fails authentication).
  for (const pollCreatorJid of creators) {
    for (const voterJid of new Set(voters)) {
      try {
        const vote = library().decryptPollVote(update.vote, { pollCreatorJid, pollMsgId: poll.id, pollEncKey: secret, voterJid });
        return {
          type: 'poll_vote',
          content: { poll_id: poll.id, selected_option_hashes: (vote.selectedOptions ?? []).map((o) => Buffer.from(o).toString('hex')) },
        };
      } catch {
        // Not this pair.
      }
    }
  }
  return undefined;
}
