/**
 * The embedded engine's addresses and ids: chat addresses (jids) from phone digits and back, the
 * message id Parley gives each send (derived from its own message id, so an echo of a send names the
 * Parley message it came from), and the secret a poll's votes are encrypted with.
 */
import { createHash, createHmac } from 'node:crypto';

/** A customer's chat address: `<digits>@s.whatsapp.net`. */
export function jidOf(phoneDigits: string): string {
  return `${phoneDigits.replace(/^\+/, '')}@s.whatsapp.net`;
}

/** The user part of a jid, without the device (`4915…:12@s.whatsapp.net` -> `4915…`). */
export function userOf(jid: string | null | undefined): string | undefined {
  if (!jid) return undefined;
  const at = jid.indexOf('@');
  if (at <= 0) return undefined;
  return jid.slice(0, at).split(':')[0] || undefined;
}

/** The server part of a jid (`s.whatsapp.net`, `lid`, `g.us`, `broadcast`, …). */
export function serverOf(jid: string | null | undefined): string | undefined {
  if (!jid) return undefined;
  const at = jid.indexOf('@');
  return at < 0 ? undefined : jid.slice(at + 1);
}

/** Phone digits of a phone-number jid (`…@s.whatsapp.net`, `…@c.us`, `…@hosted`); undefined for any other kind. */
export function phoneOfJid(jid: string | null | undefined): string | undefined {
  const server = serverOf(jid);
  if (server !== 's.whatsapp.net' && server !== 'c.us' && server !== 'hosted') return undefined;
  const user = userOf(jid);
  return user && /^\d{5,20}$/.test(user) ? user : undefined;
}

/** The privacy id of a `…@lid` jid (`…@hosted.lid` too). */
export function lidOfJid(jid: string | null | undefined): string | undefined {
  const server = serverOf(jid);
  if (server !== 'lid' && server !== 'hosted.lid') return undefined;
  return userOf(jid);
}

const check = (hex: string) => createHash('sha256').update(hex).digest('hex').slice(0, 4).toUpperCase();

/**
 * The library message id of Parley's message `messageId`: `3EB0`, the UUID's 32 hex digits and a
 * 4-digit check (40 characters, the library's classic id shape). The same message always gets the same
 * id, so a send made again after a lost answer is the same message to the recipient's phone, and the
 * echo the library reports of a send names the Parley message it came from.
 */
export function embeddedMessageId(messageId: string): string {
  const hex = messageId.replace(/-/g, '').toUpperCase();
  return `3EB0${hex}${check(hex)}`;
}

/** Parley's message id inside an id made by embeddedMessageId; undefined for any other id. */
export function parleyIdOf(providerMessageId: string): string | undefined {
  const m = /^3EB0([0-9A-F]{32})([0-9A-F]{4})$/.exec(providerMessageId);
  if (!m || check(m[1]!) !== m[2]) return undefined;
  const h = m[1]!.toLowerCase();
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/**
 * The 32-byte secret of a poll Parley sends (the library's messageSecret, which encrypts the votes):
 * derived from the engine's poll key and the poll's message id, so a vote can be read later without
 * storing anything per poll.
 */
export function pollSecret(pollKey: Uint8Array, pollMessageId: string): Buffer {
  return createHmac('sha256', pollKey).update(`poll:${pollMessageId}`).digest();
}
