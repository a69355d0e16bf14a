/**
 * The chats of a linked phone (unofficial channels; capabilities `chats.manage`, `chats.history`): Parley's
 * conversations of the channel are the chat list (one per number or group, with the unread count and the
 * last message they already keep), and a chat's state on the phone (archived, pinned, muted, marked unread)
 * is kept on its conversation. A change through the API is made on the phone first, through the channel's
 * engine (which every linked device then applies), and then on the conversation; the phone's own changes
 * come back as chat.update events (applyChatUpdate). A chat deleted on the phone leaves the channel's chat
 * list until a newer message, and its conversation keeps its history (docs/channels.md, "Chats").
 */
import { and, desc, eq, isNotNull, sql } from 'drizzle-orm';
import type { Executor } from '../../db/client.ts';
import { conversations, messages } from '../../db/schema.ts';
import { loadMessage, type MessageView } from '../messages/messages.ts';
import type { PageResult } from '../../db/paginate.ts';
import { GROUP_RECIPIENT, type MessageType } from '../../providers/capabilities.ts';
import type {
  ChannelConnection,
  ChatCalls,
  ChatChange,
  ChatMessageRef,
  InboundEvent,
  ProviderError,
  Result,
} from '../../providers/provider.ts';
import type { Actor } from '../actor.ts';
import { DomainError, invalid } from '../errors.ts';
import { recordEvent } from '../events/outbox.ts';
import {
  conversationUpdated,
  listConversations,
  loadConversationView,
  type ConversationRow,
  type ConversationView,
} from '../messages/conversations.ts';
import { assertOperation } from './capabilities.ts';
import { connectionOf, loadChannel, recordProviderFault, type ChannelRow } from './channels.ts';
import { lookupProviderProfile, providerRefusal, type ProviderCallDeps } from './pairing.ts';
import { acceptMessage, type MessageDeps, type SendOutcome } from '../messages/accept.ts';

export type ChatDeps = ProviderCallDeps;

/** Earlier messages asked of the phone at once, at most (the chat app's own page). */
export const CHAT_HISTORY_MAX = 50;

/** A chat id as a path gives it: a number (with or without `+`, spaces) or a group id; undefined for anything else. */
export function chatOfId(chatId: string): string | undefined {
  const id = chatId.trim();
  if (GROUP_RECIPIENT.test(id)) return id;
  const digits = id.replace(/^\+/, '').replace(/[\s()-]/g, '');
  return /^\d{5,20}$/.test(digits) ? digits : undefined;
}

/** How a chat is named to people: E.164 for a number, the id for a group. */
export const chatIdOf = (peer: string) => (/^\d+$/.test(peer) ? `+${peer}` : peer);

type Call = { row: ChannelRow; connection: ChannelConnection; calls: ChatCalls };

const notConnected = (row: ChannelRow, label: string) =>
  new DomainError(
    'conflict',
    `channel is ${row.status}${row.statusReason ? ` (${row.statusReason})` : ''}: ${label} need its phone paired and connected`,
  );

/** The channel, when its platform lists the operation (and, for a call to the phone, its phone is connected). */
async function channelFor(
  deps: ChatDeps,
  actor: Actor,
  channelId: string,
  operation: 'chats.manage' | 'chats.history' | 'messages.star' | 'messages.pin',
  label: string,
): Promise<Call> {
  const row = await loadChannel(deps.db, actor, channelId);
  assertOperation(row.platform, operation, label);
  if (row.status !== 'connected') throw notConnected(row, label);
  const calls = deps.providers.get(row.platform).chats;
  if (!calls) throw new Error(`platform ${row.platform} lists ${operation} without chat calls`);
  return { row, connection: connectionOf(row, deps.sealer), calls };
}

const chatNotFound = (chatId: string) =>
  new DomainError('not_found', `chat ${JSON.stringify(chatId.slice(0, 60))} not found on this channel`, {
    fieldErrors: [{ pointer: '/chatID', message: 'no chat of this channel has this number or group id' }],
  });

/** The chat's conversation on the channel; a chat deleted since its last message is not found. */
async function chatConversation(db: Executor, actor: Actor, channelId: string, chatId: string): Promise<ConversationRow> {
  const peer = chatOfId(chatId);
  if (!peer)
    throw invalid('chatID is not a phone number or group id', [
      { pointer: '/chatID', message: 'a phone number with its country code, or a group id <digits>@g.us' },
    ]);
  const [row] = await db
    .select()
    .from(conversations)
    .where(
      and(
        eq(conversations.organizationId, actor.organizationId),
        eq(conversations.channelId, channelId),
        eq(conversations.peerPhone, peer),
        sql`(${conversations.chatDeletedAt} is null or ${conversations.lastMessageAt} > ${conversations.chatDeletedAt})`,
      ),
    )
    .limit(1);
  if (!row) throw chatNotFound(chatId);
  return row;
}

/** The chat's newest (or oldest) message the provider knows, as the phone's chat actions name it. */
async function messageRef(db: Executor, conversation: ConversationRow, newest: boolean): Promise<ChatMessageRef | null> {
  const [m] = await db
    .select({ id: messages.providerMessageId, direction: messages.direction, from: messages.fromPhone, at: messages.createdAt })
    .from(messages)
    .where(and(eq(messages.conversationId, conversation.id), isNotNull(messages.providerMessageId)))
    .orderBy(newest ? desc(messages.createdAt) : messages.createdAt, newest ? desc(messages.id) : messages.id)
    .limit(1);
  if (!m?.id) return null;
  const fromMe = m.direction === 'outbound';
  return {
    id: m.id,
    fromMe,
    ...(!fromMe && GROUP_RECIPIENT.test(conversation.peerPhone) && m.from ? { participant: m.from } : {}),
    timestamp: m.at,
  };
}

/** The engine's refusal as the caller's: a chat the phone does not have is not found, a number with no account invalid (naming chatID). */
async function unwrap<T>(deps: ChatDeps, call: Call, chatId: string, result: Result<T>): Promise<T> {
  if (result.ok) return result.value;
  const error: ProviderError = result.error;
  switch (error.code) {
    case 'chat_not_found':
      throw chatNotFound(chatId);
    case 'not_on_network':
      throw invalid(error.title, [{ pointer: '/chatID', message: 'not on the chat network' }]);
    default:
      if (error.channelFault) await recordProviderFault(deps, call.row, error);
      throw providerRefusal(error);
  }
}

export type ChatListQuery = { channelId: string; archived?: boolean; pinned?: boolean; limit: number; cursor?: string };

/** The channel's chats, most recent activity first (the inbox's order); filters combine. */
export async function listChats(deps: Pick<ChatDeps, 'db'>, actor: Actor, input: ChatListQuery): Promise<PageResult<ConversationView>> {
  const row = await loadChannel(deps.db, actor, input.channelId);
  assertOperation(row.platform, 'chats.manage', 'chats');
  return listConversations(deps, actor, {
    channelId: row.id,
    archived: input.archived,
    pinned: input.pinned,
    chats: true,
    limit: input.limit,
    cursor: input.cursor,
  });
}

/** One chat of the channel. */
export async function getChat(deps: Pick<ChatDeps, 'db'>, actor: Actor, input: { channelId: string; chatId: string }) {
  const row = await loadChannel(deps.db, actor, input.channelId);
  assertOperation(row.platform, 'chats.manage', 'chats');
  const conversation = await chatConversation(deps.db, actor, row.id, input.chatId);
  return loadConversationView(deps, actor, conversation.id);
}

/** The conversation's columns a chat change sets (what the phone now shows). */
function chatColumns(change: ChatChange & { deleted?: boolean }, row: ConversationRow, at: Date): Partial<ConversationRow> {
  const set: Partial<ConversationRow> = {};
  if (change.deleted) {
    const deleted = row.chatDeletedAt && (!row.lastMessageAt || row.lastMessageAt <= row.chatDeletedAt);
    if (deleted) return {};
    // Past its last message, whatever the clocks say: the chat is out of the list until a newer one.
    const when = row.lastMessageAt && row.lastMessageAt > at ? row.lastMessageAt : at;
    return {
      archived: false,
      pinnedAt: null,
      mutedUntil: null,
      markedUnread: false,
      unreadCount: 0,
      chatDeletedAt: when,
      chatChangedAt: when,
    };
  }
  if (change.archived !== undefined && change.archived !== row.archived) set.archived = change.archived;
  if (change.pinned !== undefined && change.pinned !== (row.pinnedAt !== null)) set.pinnedAt = change.pinned ? at : null;
  if (change.mutedUntil !== undefined && (change.mutedUntil?.getTime() ?? null) !== (row.mutedUntil?.getTime() ?? null))
    set.mutedUntil = change.mutedUntil;
  // A mark older than the last read (the phone's echo of an earlier change, late) is history: the read stands.
  const staleMark = row.lastReadAt !== null && at.getTime() < row.lastReadAt.getTime();
  if (change.unread === true && !row.markedUnread && row.unreadCount === 0 && !staleMark) set.markedUnread = true;
  if (Object.keys(set).length > 0) set.chatChangedAt = at;
  if (change.unread === false && (row.markedUnread || row.unreadCount > 0)) {
    set.markedUnread = false;
    set.unreadCount = 0;
    set.lastReadAt = at;
  }
  return set;
}

/** Writes a chat change on the conversation and records conversation.updated when something changed; answers the row. */
async function applyColumns(
  tx: Executor,
  row: ConversationRow,
  change: ChatChange & { deleted?: boolean },
  at: Date,
): Promise<ConversationRow> {
  const set = chatColumns(change, row, at);
  if (Object.keys(set).length === 0) return row;
  const [updated] = await tx
    .update(conversations)
    .set({ ...set, updatedAt: at })
    .where(eq(conversations.id, row.id))
    .returning();
  await recordEvent(tx, row.organizationId, 'conversation.updated', conversationUpdated(updated!), at);
  return updated!;
}

/**
 * Archives, pins, mutes or marks a chat (un)read: on the phone first (its engine), then on the
 * conversation, which records conversation.updated when it changed. Answers the chat as it now is.
 */
export async function updateChat(
  deps: ChatDeps,
  actor: Actor,
  input: { channelId: string; chatId: string; change: ChatChange },
): Promise<ConversationView> {
  if (Object.values(input.change).every((v) => v === undefined))
    throw invalid('nothing to change: give archived, pinned, muted_until or unread', [{ pointer: '', message: 'no field to change' }]);
  const now = deps.clock.now();
  if (input.change.mutedUntil && input.change.mutedUntil.getTime() <= now.getTime())
    throw invalid('muted_until must be in the future (null unmutes)', [
      { pointer: '/muted_until', message: 'a time in the future, or null' },
    ]);
  const call = await channelFor(deps, actor, input.channelId, 'chats.manage', 'chats');
  const conversation = await chatConversation(deps.db, actor, call.row.id, input.chatId);
  const last = await messageRef(deps.db, conversation, true);
  await unwrap(deps, call, input.chatId, await call.calls.modify(call.connection, conversation.peerPhone, input.change, last));
  return deps.db.transaction(async (tx) => {
    const [row] = await tx.select().from(conversations).where(eq(conversations.id, conversation.id)).for('update').limit(1);
    await applyColumns(tx, row!, input.change, deps.clock.now());
    return loadConversationView({ db: tx }, actor, conversation.id);
  });
}

/** Deletes a chat on the phone; the conversation leaves the chat list (until a newer message) and keeps its history. */
export async function deleteChat(deps: ChatDeps, actor: Actor, input: { channelId: string; chatId: string }): Promise<void> {
  const call = await channelFor(deps, actor, input.channelId, 'chats.manage', 'chats');
  const conversation = await chatConversation(deps.db, actor, call.row.id, input.chatId);
  const last = await messageRef(deps.db, conversation, true);
  await unwrap(deps, call, input.chatId, await call.calls.remove(call.connection, conversation.peerPhone, last));
  await deps.db.transaction(async (tx) => {
    const [row] = await tx.select().from(conversations).where(eq(conversations.id, conversation.id)).for('update').limit(1);
    await applyColumns(tx, row!, { deleted: true }, deps.clock.now());
  });
}

/**
 * Asks the phone for up to `count` messages of the chat before the oldest one Parley holds (chats.history).
 * They arrive later, as the chat's messages (inbound messages and echoes, stored once by id); the phone
 * answers when it is online. A chat Parley holds no message of yet has nothing to go back from (409).
 */
export async function fetchChatHistory(
  deps: ChatDeps,
  actor: Actor,
  input: { channelId: string; chatId: string; count: number },
): Promise<{ chatId: string; count: number; before: { providerMessageId: string; at: Date } }> {
  if (!Number.isInteger(input.count) || input.count < 1 || input.count > CHAT_HISTORY_MAX)
    throw invalid(`count must be 1 to ${CHAT_HISTORY_MAX}`, [{ pointer: '/count', message: `an integer from 1 to ${CHAT_HISTORY_MAX}` }]);
  const call = await channelFor(deps, actor, input.channelId, 'chats.history', 'chat history');
  const conversation = await chatConversation(deps.db, actor, call.row.id, input.chatId);
  const oldest = await messageRef(deps.db, conversation, false);
  if (!oldest)
    throw new DomainError('conflict', 'the chat has no message yet that the phone knows: there is nothing to fetch history before');
  await unwrap(deps, call, input.chatId, await call.calls.history(call.connection, conversation.peerPhone, oldest, input.count));
  return { chatId: chatIdOf(conversation.peerPhone), count: input.count, before: { providerMessageId: oldest.id, at: oldest.timestamp } };
}

/**
 * A chat's change the engine reported (the phone's own, or ours coming back): applied to the chat's
 * conversation, conversation.updated when it changed; a chat Parley has no conversation for is ignored.
 */
export async function applyChatUpdate(tx: Executor, channel: ChannelRow, event: Extract<InboundEvent, { kind: 'chat.update' }>, at: Date) {
  const [row] = await tx
    .select()
    .from(conversations)
    .where(and(eq(conversations.channelId, channel.id), eq(conversations.peerPhone, event.chat)))
    .for('update')
    .limit(1);
  if (!row) return;
  // The newest change wins: a report older than the chat's last change (our own change coming back late,
  // after a newer one, or a deletion's echo after a new message brought the chat back) is history.
  const when = event.timestamp.getTime() > at.getTime() ? at : event.timestamp;
  if (row.chatChangedAt && when.getTime() < row.chatChangedAt.getTime()) return;
  await applyColumns(
    tx,
    row,
    {
      archived: event.archived,
      pinned: event.pinned,
      mutedUntil: event.mutedUntil,
      unread: event.unread,
      deleted: event.deleted,
    },
    when,
  );
}

/** How long a message stays pinned (seconds): a day, a week, 30 days, as the chat app offers. */
export const PIN_SECONDS = [86_400, 604_800, 2_592_000] as const;

/** A message's chat and its reference as the phone names it, for a star or a pin (it must have reached the phone). */
async function messageOnPhone(deps: ChatDeps, actor: Actor, messageId: string, operation: 'messages.star' | 'messages.pin') {
  const message = await loadMessage(deps, actor, messageId);
  const call = await channelFor(
    deps,
    actor,
    message.channelId,
    operation,
    operation === 'messages.star' ? 'starring messages' : 'pinning messages',
  );
  if (!message.providerMessageId)
    throw new DomainError('conflict', 'the message has not reached the chat network yet: it has no provider id to name it by');
  const [conversation] = await deps.db.select().from(conversations).where(eq(conversations.id, message.conversationId)).limit(1);
  if (!conversation) throw new DomainError('not_found', 'message not found');
  const fromMe = message.direction === 'outbound';
  const ref: ChatMessageRef = {
    id: message.providerMessageId,
    fromMe,
    ...(!fromMe && GROUP_RECIPIENT.test(conversation.peerPhone) && message.fromPhone ? { participant: message.fromPhone } : {}),
    timestamp: message.createdAt,
  };
  return { call, message, chat: conversation.peerPhone, ref };
}

/** Stars or unstars a message on the phone (messages.star); the message record says so. */
export async function starMessage(deps: ChatDeps, actor: Actor, input: { messageId: string; starred: boolean }): Promise<MessageView> {
  const { call, message, chat, ref } = await messageOnPhone(deps, actor, input.messageId, 'messages.star');
  await unwrapMessage(deps, call, await call.calls.star(call.connection, chat, ref, input.starred));
  await deps.db.update(messages).set({ starred: input.starred, updatedAt: deps.clock.now() }).where(eq(messages.id, message.id));
  return loadMessage(deps, actor, message.id);
}

/** Pins a message in its chat for everyone (a day, a week or 30 days), or unpins it (messages.pin). */
export async function pinMessage(
  deps: ChatDeps,
  actor: Actor,
  input: { messageId: string; pinned: boolean; seconds?: number },
): Promise<MessageView> {
  const seconds = input.seconds ?? PIN_SECONDS[1];
  if (!(PIN_SECONDS as readonly number[]).includes(seconds))
    throw invalid(`duration_seconds must be one of ${PIN_SECONDS.join(', ')}`, [
      { pointer: '/duration_seconds', message: `one of ${PIN_SECONDS.join(', ')} (a day, a week, 30 days)` },
    ]);
  const { call, message, chat, ref } = await messageOnPhone(deps, actor, input.messageId, 'messages.pin');
  await unwrapMessage(deps, call, await call.calls.pin(call.connection, chat, ref, { pinned: input.pinned, seconds }));
  const now = deps.clock.now();
  await deps.db
    .update(messages)
    .set({ pinnedUntil: input.pinned ? new Date(now.getTime() + seconds * 1000) : null, updatedAt: now })
    .where(eq(messages.id, message.id));
  return loadMessage(deps, actor, message.id);
}

/** The engine's refusal of a message action: a message the phone does not have is not found; the rest as any provider refusal. */
async function unwrapMessage<T>(deps: ChatDeps, call: Call, result: Result<T>): Promise<T> {
  if (result.ok) return result.value;
  if (result.error.code === 'message_not_found' || result.error.code === 'chat_not_found')
    throw new DomainError('not_found', `the phone does not have this message: ${result.error.title}`);
  if (result.error.channelFault) await recordProviderFault(deps, call.row, result.error);
  throw providerRefusal(result.error);
}

/** The content fields a forward carries of each type it can forward (what a send of that type takes). */
const FORWARDABLE: Record<string, readonly string[]> = {
  text: ['body'],
  image: ['media_url', 'media_id', 'caption'],
  video: ['media_url', 'media_id', 'caption'],
  audio: ['media_url', 'media_id'],
  document: ['media_url', 'media_id', 'caption', 'file_name'],
  sticker: ['media_url', 'media_id'],
  location: ['latitude', 'longitude', 'name', 'address'],
};

/**
 * What a forward of the message sends (messages.forward): its type and content, marked forwarded. Text,
 * media Parley or the gateway can name (a URL or the provider's media id) and locations with a name and
 * address can be; a view-once message, a deleted one and other kinds cannot (409, saying why).
 */
async function forwardOf(
  deps: Pick<ChatDeps, 'db'>,
  actor: Actor,
  messageId: string,
): Promise<{ channelId: string; type: string; content: Record<string, unknown> }> {
  const message = await loadMessage(deps, actor, messageId);
  const channel = await loadChannel(deps.db, actor, message.channelId);
  assertOperation(channel.platform, 'messages.forward', 'forwarding messages');
  const fields = FORWARDABLE[message.type];
  const c = message.content;
  const refuse = (why: string) => new DomainError('conflict', `this message cannot be forwarded: ${why}`);
  if (!fields) throw refuse(`a ${message.type} message is not one the chat app forwards from Parley (text, media, locations)`);
  if (message.deletedAt) throw refuse('it was deleted for everyone');
  if (c.view_once === true) throw refuse('it is a view-once message');
  if (['image', 'video', 'audio', 'document', 'sticker'].includes(message.type) && c.media_url === undefined && c.media_id === undefined)
    throw refuse('its media has no address the chat network can fetch (a received file the engine holds no id of)');
  if (message.type === 'location' && (typeof c.name !== 'string' || typeof c.address !== 'string'))
    throw refuse('a location without a name and address (a live location, a bare pin) cannot be sent again');
  const content: Record<string, unknown> = { forwarded: true };
  for (const field of fields) if (c[field] !== undefined && c[field] !== null) content[field] = c[field];
  return { channelId: message.channelId, type: message.type, content };
}

/**
 * Forwards a message to another chat of its channel (a number or a group): its content is sent again,
 * marked forwarded, as a new outbound message accepted like any other. A number the chat network does not
 * know is refused before anything is accepted (400 naming `to`).
 */
export async function forwardMessage(
  deps: ChatDeps & { messages: MessageDeps },
  actor: Actor,
  input: { messageId: string; to: string },
): Promise<SendOutcome> {
  const forward = await forwardOf(deps, actor, input.messageId);
  if (!GROUP_RECIPIENT.test(input.to.trim())) {
    let found: { exists: boolean };
    try {
      found = await lookupProviderProfile(deps, actor, { channelId: forward.channelId, phone: input.to });
    } catch (err) {
      if (err instanceof DomainError && err.fieldErrors)
        throw invalid(err.message, [{ pointer: '/to', message: 'a phone number with its country code, or a group id <digits>@g.us' }]);
      throw err;
    }
    if (!found.exists) throw invalid(`${input.to} is not on the chat network`, [{ pointer: '/to', message: 'not on the chat network' }]);
  }
  return acceptMessage(deps.messages, actor, {
    channelId: forward.channelId,
    to: input.to,
    type: forward.type as MessageType,
    content: forward.content,
  });
}

/** A message starred or unstarred on the phone: kept on the message (one Parley does not hold is ignored). */
export async function applyMessageStarred(
  tx: Executor,
  channel: ChannelRow,
  event: Extract<InboundEvent, { kind: 'message.starred' }>,
  at: Date,
): Promise<void> {
  await tx
    .update(messages)
    .set({ starred: event.starred, updatedAt: at })
    .where(
      and(
        eq(messages.channelId, channel.id),
        eq(messages.providerMessageId, event.providerMessageId),
        sql`${messages.starred} is distinct from ${event.starred}`,
      ),
    );
}
