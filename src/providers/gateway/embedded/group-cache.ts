/**
 * The session's group metadata cache, the library's `cachedGroupMetadata` (its README asks for one):
 * without it, every send to a group asks the service for the group's participants first. Filled from
 * the groups the socket reports (groups.upsert) and from a fetch when a group changes (groups.update,
 * group-participants.update) or is first sent to; bounded in entries and age, so a change missed while
 * the socket was down is seen within the age.
 */
import type { GroupMetadata } from 'baileys';
import type { EngineSocket, SocketEvents } from './socket.ts';

export const GROUP_CACHE_MAX = 1_000;
export const GROUP_CACHE_TTL_MS = 10 * 60_000;

export type GroupCache = {
  /** The library's cachedGroupMetadata: the cached metadata, or undefined (then the library fetches it itself). */
  cachedGroupMetadata(jid: string): Promise<GroupMetadata | undefined>;
  /** Fetches a group's metadata through the socket and keeps it (a send to a group not cached yet); the service's refusal is thrown. */
  fetch(jid: string): Promise<GroupMetadata | undefined>;
  /** Listens to a socket's group events (the socket the cache fetches through). */
  attach(socket: EngineSocket): void;
  size(): number;
};

export function createGroupCache(options: { now(): number; onError?(err: unknown, jid: string): void }): GroupCache {
  const entries = new Map<string, { metadata: GroupMetadata; at: number }>();
  let socket: EngineSocket | undefined;

  const keep = (metadata: GroupMetadata) => {
    entries.delete(metadata.id);
    if (entries.size >= GROUP_CACHE_MAX) entries.delete(entries.keys().next().value!);
    entries.set(metadata.id, { metadata, at: options.now() });
  };

  const fetch = async (jid: string) => {
    if (!socket?.groupMetadata) return undefined;
    const metadata = await socket.groupMetadata(jid);
    keep(metadata);
    return metadata;
  };
  const refresh = async (jid: string) => {
    try {
      return await fetch(jid);
    } catch (err) {
      // A group the account left, or the connection dropped: the library asks for it itself when it sends.
      entries.delete(jid);
      options.onError?.(err, jid);
      return undefined;
    }
  };

  return {
    async cachedGroupMetadata(jid) {
      const entry = entries.get(jid);
      if (!entry) return undefined;
      if (options.now() - entry.at > GROUP_CACHE_TTL_MS) {
        entries.delete(jid);
        return undefined;
      }
      return entry.metadata;
    },
    fetch,
    attach(attached) {
      socket = attached;
      attached.ev.on('groups.upsert', (groups: SocketEvents['groups.upsert']) => {
        for (const group of groups) keep(group);
      });
      attached.ev.on('groups.update', (updates: SocketEvents['groups.update']) => {
        for (const update of updates) if (update.id) void refresh(update.id);
      });
      attached.ev.on('group-participants.update', (update: SocketEvents['group-participants.update']) => {
        void refresh(update.id);
      });
    },
    size: () => entries.size,
  };
}
