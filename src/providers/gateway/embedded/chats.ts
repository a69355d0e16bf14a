/**
 * Chats on the embedded engine (capabilities `chats.manage`, `chats.history`), run by the session's holder
 * on its socket through the library's chatModify (archive, pin, mute, markRead, delete: app-state patches
 * the phone and every linked device apply) and fetchMessageHistory (the phone's history on demand: the
 * messages come later as a history sync of type ON_DEMAND). The socket's chats.update and chats.delete (the
 * phone's own changes, and ours coming back) become Parley's chat.update events (chatSocketEvents).
 */
import type { AnyMessageContent, ChatModification, WAMessage, WAMessageKey } from 'baileys';
import type { ChatChange, InboundEvent, ProviderError, Result } from '../../provider.ts';
import { chatJidOf, GROUP_JID, jidOfPhone, phoneOfJid } from './ids.ts';
import type { SocketEvents } from './socket.ts';

/** A message reference as JSON (a command's input). */
export type MessageRefJson = { id: string; fromMe: boolean; participant?: string; timestamp: string };

/** What a chat command asks the holder (ask.ts → commands.ts). */
export type ChatRequest =
  | {
      op: 'modify';
      chat: string;
      change: Omit<ChatChange, 'mutedUntil'> & { mutedUntil?: string | null };
      last: MessageRefJson | null;
    }
  | { op: 'delete'; chat: string; last: MessageRefJson | null }
  | { op: 'history'; chat: string; oldest: MessageRefJson; count: number }
  | { op: 'star'; chat: string; message: MessageRefJson; starred: boolean }
  | { op: 'pin'; chat: string; message: MessageRefJson; pinned: boolean; seconds: number };

/** What the holder needs of the socket: the library's own calls. */
export type ChatSocket = {
  chatModify(mod: ChatModification, jid: string): Promise<void>;
  sendMessage(jid: string, content: AnyMessageContent): Promise<WAMessage | undefined>;
  fetchMessageHistory(count: number, oldestMsgKey: WAMessageKey, oldestMsgTimestamp: number): Promise<string>;
  onWhatsApp(...phoneNumbers: string[]): Promise<Array<{ jid: string; exists: boolean }> | undefined>;
};

const keyOf = (jid: string, ref: MessageRefJson): WAMessageKey => ({
  remoteJid: jid,
  id: ref.id,
  fromMe: ref.fromMe,
  ...(ref.participant && GROUP_JID.test(jid) && !ref.fromMe ? { participant: jidOfPhone(ref.participant) } : {}),
});

/** The chat's range for archive, read and delete: its newest message (none: an empty range). */
const lastMessagesOf = (jid: string, last: MessageRefJson | null) =>
  last ? [{ key: keyOf(jid, last), messageTimestamp: Math.floor(new Date(last.timestamp).getTime() / 1000) }] : [];

function refusalOf(err: unknown, what: string): ProviderError {
  const e = err as { data?: unknown; output?: { statusCode?: unknown }; message?: unknown } | undefined;
  const code = typeof e?.data === 'number' ? e.data : typeof e?.output?.statusCode === 'number' ? e.output.statusCode : undefined;
  const detail = typeof e?.message === 'string' ? e.message : 'the chat network refused';
  return {
    code: code ? `chat_error_${code}` : 'chat_error',
    title: `could not ${what}: ${detail}${code ? ` (${code})` : ''}`,
    retryable: code === undefined || code === 408 || code === 428 || code === 429 || code >= 500,
  };
}

/** Runs one chat request on the holder's socket. A number with no account is `not_on_network` (asked first). */
export async function runChatRequest(socket: ChatSocket, request: ChatRequest): Promise<Result<unknown>> {
  const jid = chatJidOf(request.chat);
  if (!GROUP_JID.test(request.chat)) {
    const [found] = (await socket.onWhatsApp(request.chat)) ?? [];
    if (found && !found.exists)
      return {
        ok: false,
        error: { code: 'not_on_network', title: `+${request.chat} is not on the chat network`, retryable: false },
      };
  }
  const what =
    request.op === 'history' ? 'ask the phone for earlier messages' : request.op === 'delete' ? 'delete the chat' : 'change the chat';
  try {
    if (request.op === 'history') {
      const oldest = request.oldest;
      await socket.fetchMessageHistory(Math.max(1, Math.min(50, request.count)), keyOf(jid, oldest), new Date(oldest.timestamp).getTime());
      return { ok: true, value: { requested: true } };
    }
    if (request.op === 'star') {
      await socket.chatModify(
        { star: { messages: [{ id: request.message.id, fromMe: request.message.fromMe }], star: request.starred } },
        jid,
      );
      return { ok: true, value: { changed: true } };
    }
    if (request.op === 'pin') {
      // The library's pin message: PIN_FOR_ALL (1) or UNPIN_FOR_ALL (2), with how long it stays pinned.
      await socket.sendMessage(jid, {
        pin: keyOf(jid, request.message),
        type: request.pinned ? 1 : 2,
        ...(request.pinned ? { time: request.seconds as 86400 | 604800 | 2592000 } : {}),
      });
      return { ok: true, value: { changed: true } };
    }
    const lastMessages = lastMessagesOf(jid, request.last);
    if (request.op === 'delete') {
      await socket.chatModify({ delete: true, lastMessages }, jid);
      return { ok: true, value: { deleted: true } };
    }
    const { archived, pinned, mutedUntil, unread } = request.change;
    if (archived !== undefined) await socket.chatModify({ archive: archived, lastMessages }, jid);
    if (pinned !== undefined) await socket.chatModify({ pin: pinned }, jid);
    if (mutedUntil !== undefined) await socket.chatModify({ mute: mutedUntil === null ? null : new Date(mutedUntil).getTime() }, jid);
    if (unread !== undefined) await socket.chatModify({ markRead: !unread, lastMessages }, jid);
    return { ok: true, value: { changed: true } };
  } catch (err) {
    return { ok: false, error: refusalOf(err, what) };
  }
}

/** The chat a jid names, as Parley names chats: a number's digits, or the group's id; undefined for anything else. */
function chatOf(jid: string | null | undefined): string | undefined {
  if (!jid) return undefined;
  return GROUP_JID.test(jid) ? jid : phoneOfJid(jid);
}

/** A mute's end as the library gives it (milliseconds; -1: for good). */
const FOREVER = new Date('9999-12-31T00:00:00.000Z');
function mutedUntilOf(value: unknown): Date | null | undefined {
  if (value === undefined) return undefined;
  if (value === null) return null;
  const ms = typeof value === 'number' ? value : Number(value);
  if (!Number.isFinite(ms)) return undefined;
  if (ms < 0) return FOREVER;
  return ms === 0 ? null : new Date(ms);
}

/**
 * The socket's chat changes as chat.update events: chats.update (archived, pinned, muteEndTime, and the
 * unread count a read (0) or a "mark as unread" (-1) sets; a count a new message raises is no change of
 * the chat's state) and chats.delete. Chats named by privacy id are left out (Parley names chats by number).
 */
export function chatSocketEvents(
  ref: string,
  input: { event: 'chats.update'; data: SocketEvents['chats.update'] } | { event: 'chats.delete'; data: SocketEvents['chats.delete'] },
  now: Date,
): InboundEvent[] {
  if (input.event === 'chats.delete')
    return input.data.flatMap((jid) => {
      const chat = chatOf(jid);
      return chat ? [{ kind: 'chat.update' as const, ref, chat, deleted: true as const, timestamp: now }] : [];
    });
  return input.data.flatMap((update) => {
    const chat = chatOf(update.id);
    if (!chat) return [];
    const event: Extract<InboundEvent, { kind: 'chat.update' }> = { kind: 'chat.update', ref, chat, timestamp: now };
    if (typeof update.archived === 'boolean') event.archived = update.archived;
    if ('pinned' in update && update.pinned !== undefined) event.pinned = Boolean(update.pinned);
    if ('muteEndTime' in update) {
      const muted = mutedUntilOf(update.muteEndTime);
      if (muted !== undefined) event.mutedUntil = muted;
    }
    if (update.unreadCount === 0) event.unread = false;
    else if (update.unreadCount === -1 || update.markedAsUnread === true) event.unread = true;
    const changed = ['archived', 'pinned', 'mutedUntil', 'unread'].some((k) => k in event);
    return changed ? [event] : [];
  });
}
