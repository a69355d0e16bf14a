/**
 * Chats of a linked phone for both engines of unofficial channels (capabilities `chats.manage`,
 * `chats.history`): an HTTP gateway through the protocol's chat calls (docs/gateway-protocol.md, "Chats"),
 * the embedded engine through a command its session's holder runs (embedded/chats.ts: the library's
 * chatModify and fetchMessageHistory).
 */
import type { ChannelConnection, ChatCalls, ChatChange, ChatMessageRef, Result } from '../provider.ts';
import { NO_ENGINE, type GatewayAccess } from './access.ts';
import type { ChatRequest, MessageRefJson } from './embedded/chats.ts';

const refJson = (ref: ChatMessageRef): MessageRefJson => ({ ...ref, timestamp: ref.timestamp.toISOString() });

/** A message as the protocol names it: `{id, from_me, participant?, timestamp}`. */
const refWire = (ref: ChatMessageRef) => ({
  id: ref.id,
  from_me: ref.fromMe,
  ...(ref.participant ? { participant: ref.participant } : {}),
  timestamp: ref.timestamp.toISOString(),
});

const changeWire = (change: ChatChange) => ({
  ...(change.archived !== undefined ? { archived: change.archived } : {}),
  ...(change.pinned !== undefined ? { pinned: change.pinned } : {}),
  ...(change.mutedUntil !== undefined ? { muted_until: change.mutedUntil?.toISOString() ?? null } : {}),
  ...(change.unread !== undefined ? { unread: change.unread } : {}),
});

export function createChatCalls(access: GatewayAccess): ChatCalls {
  const chatPath = (connection: ChannelConnection, chat: string, rest = '') =>
    `sessions/${access.session(connection)}/chats/${encodeURIComponent(chat)}${rest}`;

  /** Runs a request on the embedded engine, or answers undefined for an HTTP gateway. */
  const onEmbedded = async <T>(connection: ChannelConnection, request: ChatRequest, value: T): Promise<Result<T> | undefined> => {
    const engine = access.embedded(connection);
    if (engine === undefined) return undefined;
    if (engine === null) return { ok: false, error: NO_ENGINE };
    const answer = await engine.chat(connection.channelId, request);
    return answer.ok ? { ok: true, value } : answer;
  };

  return {
    async modify(connection, chat, change, last) {
      const embedded = await onEmbedded(
        connection,
        {
          op: 'modify',
          chat,
          change: { ...change, mutedUntil: change.mutedUntil === undefined ? undefined : (change.mutedUntil?.toISOString() ?? null) },
          last: last ? refJson(last) : null,
        },
        { changed: true as const },
      );
      if (embedded) return embedded;
      const result = await access
        .client(connection)
        .call('PATCH', chatPath(connection, chat), { ...changeWire(change), ...(last ? { last_message: refWire(last) } : {}) });
      return result.ok ? { ok: true, value: { changed: true } } : result;
    },

    async remove(connection, chat, last) {
      const embedded = await onEmbedded(connection, { op: 'delete', chat, last: last ? refJson(last) : null }, { deleted: true as const });
      if (embedded) return embedded;
      const result = await access.client(connection).call('DELETE', chatPath(connection, chat));
      return result.ok ? { ok: true, value: { deleted: true } } : result;
    },

    async history(connection, chat, oldest, count) {
      const embedded = await onEmbedded(connection, { op: 'history', chat, oldest: refJson(oldest), count }, { requested: true as const });
      if (embedded) return embedded;
      const result = await access
        .client(connection)
        .call('POST', chatPath(connection, chat, '/history'), { before: refWire(oldest), count });
      return result.ok ? { ok: true, value: { requested: true } } : result;
    },

    async star(connection, chat, message, starred) {
      const embedded = await onEmbedded(connection, { op: 'star', chat, message: refJson(message), starred }, { changed: true as const });
      if (embedded) return embedded;
      const result = await access
        .client(connection)
        .call('POST', chatPath(connection, chat, `/messages/${encodeURIComponent(message.id)}/star`), { ...refWire(message), starred });
      return result.ok ? { ok: true, value: { changed: true } } : result;
    },

    async pin(connection, chat, message, pin) {
      const embedded = await onEmbedded(connection, { op: 'pin', chat, message: refJson(message), ...pin }, { changed: true as const });
      if (embedded) return embedded;
      const result = await access
        .client(connection)
        .call('POST', chatPath(connection, chat, `/messages/${encodeURIComponent(message.id)}/pin`), { ...refWire(message), ...pin });
      return result.ok ? { ok: true, value: { changed: true } } : result;
    },
  };
}
