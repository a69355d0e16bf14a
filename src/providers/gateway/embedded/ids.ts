/**
 * The embedded engine's addresses and ids: chat addresses (jids) from phone digits and back, the
 * library message id Parley gives each send (made from Parley's own message id), and the secret a
 * poll's votes are encrypted with.
 */
import { createHmac } from 'node:crypto';
import { GROUP_RECIPIENT } from '../../capabilities.ts';

/**
 * The library's message id of a message Parley sends, made from Parley's own id: `3EB0` (the prefix
 * the library's ids carry) and the message's UUID in upper-case hex, 36 characters. It is given to the
 * library's sendMessage (options.messageId), so it is the provider_message_id, and it reads back: an ack
 * for a send whose answer was lost (the process died mid-call), or the library's echo of the send, still
 * names Parley's message.
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

/** The jid a message to a phone (international digits) goes to: `<digits>@s.whatsapp.net`. */
export const jidOfPhone = (phone: string) => `${phone.replace(/\D/g, '')}@s.whatsapp.net`;

/** A group's jid as `to` names it: `<digits>@g.us` (or the older `<digits>-<digits>@g.us`). */
export const GROUP_JID = GROUP_RECIPIENT;

/** The chat a message to `to` goes to: a group by its jid, a phone (international digits) by its. */
export const chatJidOf = (to: string) => (GROUP_JID.test(to) ? to : jidOfPhone(to));

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

/**
 * The international digits of a phone-number jid (`491701234567:12@s.whatsapp.net` -> `491701234567`;
 * also `@c.us` and `@hosted`); undefined for any other kind (a privacy id, a group).
 */
export function phoneOfJid(jid: string | null | undefined): string | undefined {
  const server = serverOf(jid);
  if (server !== 's.whatsapp.net' && server !== 'c.us' && server !== 'hosted') return undefined;
  const user = userOf(jid);
  return user && /^\d+$/.test(user) ? user : undefined;
}

/** The privacy id of a `…@lid` jid (`…@hosted.lid` too). */
export function lidOfJid(jid: string | null | undefined): string | undefined {
  const server = serverOf(jid);
  if (server !== 'lid' && server !== 'hosted.lid') return undefined;
  return userOf(jid);
}

/**
 * The 32-byte secret of a poll Parley sends (the library's messageSecret, which encrypts the votes):
 * derived from the engine's poll key and the poll's message id, so a vote can be read later without
 * storing anything per poll.
 */
export function pollSecret(pollKey: Uint8Array, pollMessageId: string): Buffer {
  return createHmac('sha256', pollKey).update(`poll:${pollMessageId}`).digest();
}
