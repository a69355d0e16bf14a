/**
 * How a send names another message: the chat key of a message to quote, react to or mark read, and
 * the quoted message's content. The key is the one the session kept (session-messages.ts: a message
 * of a privacy-id chat or a group has another address than the customer's phone, and a group message
 * a participant), else one made from what Parley holds (a group message's group and sender), else
 * the customer's chat. A quote carries the content Parley holds: what the session sent, as the library
 * built it, or the stored message's content in the library's shapes.
 */
import type { proto, WAMessage, WAMessageKey } from 'baileys';
import { chatJidOf, jidOfPhone, serverOf } from './ids.ts';
import type { SessionMessage } from './session-messages.ts';

/** What Parley holds of one of the channel's messages (the messages table). */
export type StoredMessage = {
  status: string;
  direction: string;
  type: string;
  content: Record<string, unknown>;
  fromPhone: string | null;
  toPhone: string;
};

/** What naming a message needs: Parley's record of it and the session's (OutboundContext's lookups). */
export type KeyLookups = {
  statusOf?(providerMessageId: string): Promise<string | undefined>;
  messageOf?(providerMessageId: string): Promise<StoredMessage | undefined>;
  sessionMessageOf?(providerMessageId: string): Promise<SessionMessage | undefined>;
};

type Json = Record<string, unknown>;

/** A key naming a message of the chat `to` (the customer's phone, or a group) by its provider id. */
export const keyOf = (to: string, id: string, fromMe: boolean, participant?: string): WAMessageKey => ({
  remoteJid: chatJidOf(to),
  id,
  fromMe,
  ...(participant ? { participant } : {}),
});

/** Whether a provider message id names a message the business sent (by the status Parley holds for it); undefined when Parley does not know it. */
export async function isOurs(lookups: KeyLookups, providerMessageId: string): Promise<boolean | undefined> {
  const status = await lookups.statusOf?.(providerMessageId);
  if (status === undefined) return undefined;
  return status !== 'received';
}

const isGroup = (jid: string | null | undefined) => serverOf(jid) === 'g.us';

/**
 * The chat key of a message: as the session kept it, else made from Parley's record of it (a group
 * message's group and sender), else in the customer's chat (`fromMe` as given, or as Parley knows it).
 */
export async function chatKeyOf(
  lookups: KeyLookups,
  to: string,
  id: string,
  fallback: { fromMe?: boolean; participant?: string } = {},
): Promise<{ key: WAMessageKey; kept?: SessionMessage; stored?: StoredMessage }> {
  const [kept, stored] = await Promise.all([lookups.sessionMessageOf?.(id), lookups.messageOf?.(id)]);
  if (kept?.key.remoteJid) return { key: { ...kept.key }, kept, stored };
  const fromMe = stored ? stored.direction === 'outbound' : ((await isOurs(lookups, id)) ?? fallback.fromMe ?? false);
  const group = (stored?.content.group as { id?: unknown } | undefined)?.id;
  if (typeof group === 'string' && isGroup(group)) {
    const participant = !fromMe && stored?.fromPhone ? jidOfPhone(stored.fromPhone) : fallback.participant;
    return { key: { remoteJid: group, id, fromMe, ...(participant ? { participant } : {}) }, stored };
  }
  return { key: keyOf(to, id, fromMe, fallback.participant), stored };
}

/**
 * The message a reply quotes, for the library's `quoted` option: its key in the chat the reply goes to
 * (`chat`), the sender named as participant where the chat's address is not theirs, and its content.
 */
export async function quotedOf(lookups: KeyLookups, chat: string, replyTo: unknown): Promise<WAMessage | undefined> {
  if (!replyTo || typeof replyTo !== 'object') return undefined;
  const r = replyTo as { id?: unknown; participant?: unknown };
  if (typeof r.id !== 'string') return undefined;
  const participant = typeof r.participant === 'string' ? r.participant : undefined;
  const { key, kept, stored } = await chatKeyOf(lookups, chat, r.id, { participant });
  // In a one-to-one chat the quote is of this chat: a privacy-id address of the customer's becomes the participant.
  const quotedKey =
    isGroup(key.remoteJid) || key.remoteJid === chat
      ? key
      : { remoteJid: chat, id: r.id, fromMe: key.fromMe, ...(key.fromMe ? {} : { participant: key.participant ?? key.remoteJid }) };
  const message = kept?.message ?? (stored ? quotedContentOf(stored.type, stored.content) : { conversation: '' });
  return { key: quotedKey, message };
}

const str = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined);

/** A stored message's content in the library's shapes, as much as a quote shows (its text, a media's kind and caption, ...). */
export function quotedContentOf(type: string, c: Json): proto.IMessage {
  const caption = str(c.caption);
  const mimetype = str(c.mime_type) ?? str(c.media_type);
  switch (type) {
    case 'text':
      return { conversation: str(c.body) ?? '' };
    case 'image':
      return { imageMessage: { caption, mimetype } };
    case 'video':
      return { videoMessage: { caption, mimetype } };
    case 'audio':
      return { audioMessage: { mimetype, ptt: c.voice === true } };
    case 'document':
      return { documentMessage: { caption, mimetype, fileName: str(c.file_name) } };
    case 'sticker':
      return { stickerMessage: { mimetype: 'image/webp', isAnimated: c.animated === true } };
    case 'location':
      return {
        locationMessage: {
          degreesLatitude: Number(c.latitude),
          degreesLongitude: Number(c.longitude),
          name: str(c.name),
          address: str(c.address),
        },
      };
    case 'contact': {
      // Sent: {full_name}; received: {contacts: [{name: {formatted_name}}]}.
      const first = (c.contacts as Array<{ name?: { formatted_name?: unknown } }> | undefined)?.[0];
      return { contactMessage: { displayName: str(c.full_name) ?? str(first?.name?.formatted_name) ?? '' } };
    }
    case 'poll':
      return {
        pollCreationMessage: {
          name: str(c.question) ?? '',
          options: ((c.options as unknown[] | undefined) ?? []).map((o) => ({ optionName: String(o) })),
          selectableOptionsCount: c.multiple_answers === true ? 0 : 1,
        },
      };
    default: {
      const text = str(c.body) ?? str(c.caption) ?? str(c.title) ?? `[${type}]`;
      return { conversation: text };
    }
  }
}
