/**
 * The library's message id of a message Parley sends, made from Parley's own id: `3EB0` (the prefix
 * the library's ids carry) and the message's UUID in upper-case hex, 36 characters. It is given to the
 * library's sendMessage (options.messageId), so it is the provider_message_id, and it reads back: an ack
 * for a send whose answer was lost (the process died mid-call) still names Parley's message.
 */
const PREFIX = '3EB0';
const OURS = /^3EB0([0-9A-F]{32})$/;

export function libraryMessageId(messageId: string): string {
  return PREFIX + messageId.replaceAll('-', '').toUpperCase();
}

/** Parley's message id inside a library message id made by libraryMessageId; undefined for any other id. */
export function parleyMessageIdOf(libraryId: string | null | undefined): string | undefined {
  const hex = OURS.exec(libraryId ?? '')?.[1]?.toLowerCase();
  if (!hex) return undefined;
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** The international digits of a user jid (`491701234567:12@s.whatsapp.net` -> `491701234567`). */
export function phoneOfJid(jid: string | null | undefined): string | undefined {
  const user = /^(\d+)(?::\d+)?@s\.whatsapp\.net$/.exec(jid ?? '')?.[1];
  return user;
}

/** The jid a message to a phone (international digits) goes to. */
export const jidOfPhone = (phone: string) => `${phone.replace(/\D/g, '')}@s.whatsapp.net`;
