/**
 * The session's group metadata cache, the library's `cachedGroupMetadata` (its README asks for one):
 * without it, every send to a group asks the service for the group's participants first. Also what
 * the group routes read (groups.ts): a group's metadata, and the list of every group the number is in.
 * Filled from the groups the socket reports (groups.upsert, and the whole metadata the library's
 * groupFetchAllParticipating emits as groups.update), from a fetch when a group is first sent to or
 * read, and kept current by the changes the socket reports (groups.update with what changed,
 * group-participants.update); bounded in entries and age, so a change missed while the socket was
 * down is seen within the age.
 */
import type { GroupMetadata, GroupParticipant } from 'baileys';
import { lidOfJid, phoneOfJid } from './ids.ts';
import type { EngineSocket, SocketEvents } from './socket.ts';

export const GROUP_CACHE_MAX = 1_000;
export const GROUP_CACHE_TTL_MS = 10 * 60_000;

export type GroupCache = {
  /** The library's cachedGroupMetadata: the cached metadata, or undefined (then the library fetches it itself). */
  cachedGroupMetadata(jid: string): Promise<GroupMetadata | undefined>;
  /** Fetches a group's metadata through the socket and keeps it (a send to a group not cached yet); the service's refusal is thrown. */
  fetch(jid: string): Promise<GroupMetadata | undefined>;
  keep(metadata: GroupMetadata): void;
  /** Forgets a group (changed, so read again next time; `left`: the number is no longer in it). */
  forget(jid: string, options?: { left?: boolean }): void;
  /** Every group the number is in, while a full listing is fresh and all of it still cached; else undefined. */
  listing(): GroupMetadata[] | undefined;
  /** Keeps a full listing (groupFetchAllParticipating). */
  keepListing(groups: GroupMetadata[]): void;
  /** Listens to a socket's group events (the socket the cache fetches through). */
  attach(socket: EngineSocket, self?: () => { phone?: string; lid?: string }): void;
  size(): number;
};

export function createGroupCache(options: { now(): number; onError?(err: unknown, jid: string): void }): GroupCache {
  const entries = new Map<string, { metadata: GroupMetadata; at: number }>();
  let listed: { ids: Set<string>; at: number } | undefined;
  let socket: EngineSocket | undefined;

  const fresh = (at: number) => options.now() - at <= GROUP_CACHE_TTL_MS;
  const keep = (metadata: GroupMetadata) => {
    entries.delete(metadata.id);
    if (entries.size >= GROUP_CACHE_MAX) entries.delete(entries.keys().next().value!);
    entries.set(metadata.id, { metadata, at: options.now() });
  };
  const forget = (jid: string, forgetOptions: { left?: boolean } = {}) => {
    entries.delete(jid);
    // A group left is no longer in the listing; one changed is read again, the listing with it.
    if (forgetOptions.left) listed?.ids.delete(jid);
    else listed = undefined;
  };
  /** A change the socket reported, applied to the cached metadata (an uncached group is read when needed). */
  const change = (jid: string, apply: (metadata: GroupMetadata) => GroupMetadata | undefined) => {
    const entry = entries.get(jid);
    if (!entry) return;
    const next = apply(entry.metadata);
    if (next) entries.set(jid, { metadata: next, at: entry.at });
    else forget(jid);
  };

  return {
    async cachedGroupMetadata(jid) {
      const entry = entries.get(jid);
      if (!entry) return undefined;
      if (!fresh(entry.at)) {
        entries.delete(jid);
        return undefined;
      }
      return entry.metadata;
    },
    async fetch(jid) {
      if (!socket?.groupMetadata) return undefined;
      const metadata = await socket.groupMetadata(jid);
      keep(metadata);
      return metadata;
    },
    keep,
    forget,
    listing() {
      if (!listed || !fresh(listed.at)) return undefined;
      const groups: GroupMetadata[] = [];
      for (const id of listed.ids) {
        const entry = entries.get(id);
        if (!entry || !fresh(entry.at)) return undefined;
        groups.push(entry.metadata);
      }
      return groups;
    },
    keepListing(groups) {
      for (const group of groups) keep(group);
      listed = groups.length <= GROUP_CACHE_MAX ? { ids: new Set(groups.map((g) => g.id)), at: options.now() } : undefined;
    },
    attach(attached, self) {
      socket = attached;
      const isSelf = (p: Pick<GroupParticipant, 'id' | 'phoneNumber' | 'lid'>) => {
        const me = self?.() ?? {};
        const phone = phoneOfJid(p.phoneNumber) ?? phoneOfJid(p.id);
        const lid = lidOfJid(p.lid) ?? lidOfJid(p.id);
        return Boolean((me.phone && phone === me.phone) || (me.lid && lid === me.lid));
      };
      attached.ev.on('groups.upsert', (groups: SocketEvents['groups.upsert']) => {
        for (const group of groups) {
          keep(group);
          listed?.ids.add(group.id);
        }
      });
      attached.ev.on('groups.update', (updates: SocketEvents['groups.update']) => {
        for (const update of updates) {
          if (!update.id) continue;
          // The whole metadata (the library's groupFetchAllParticipating emits it so): kept as it is.
          if (Array.isArray(update.participants) && typeof update.subject === 'string') {
            keep(update as GroupMetadata);
            continue;
          }
          const { author: _a, authorPn: _p, authorUsername: _u, ...changed } = update;
          change(update.id, (metadata) => ({
            ...metadata,
            ...Object.fromEntries(Object.entries(changed).filter(([, v]) => v !== undefined)),
          }));
        }
      });
      attached.ev.on('group-participants.update', (update: SocketEvents['group-participants.update']) => {
        const same = (a: GroupParticipant, b: GroupParticipant) =>
          a.id === b.id || Boolean(a.phoneNumber && a.phoneNumber === b.phoneNumber) || Boolean(a.lid && a.lid === b.lid);
        if (update.action === 'remove' && update.participants.some(isSelf)) return forget(update.id, { left: true });
        change(update.id, (metadata) => {
          const has = (p: GroupParticipant) => update.participants.some((q) => same(p, q));
          switch (update.action) {
            case 'add':
              return { ...metadata, participants: [...metadata.participants.filter((p) => !has(p)), ...update.participants] };
            case 'remove':
              return { ...metadata, participants: metadata.participants.filter((p) => !has(p)) };
            case 'promote':
            case 'demote':
              return {
                ...metadata,
                participants: metadata.participants.map((p) =>
                  has(p) ? { ...p, admin: update.action === 'promote' ? 'admin' : null } : p,
                ),
              };
            default:
              // A member's number changed: read the group again when needed.
              return undefined;
          }
        });
      });
    },
    size: () => entries.size,
  };
}
