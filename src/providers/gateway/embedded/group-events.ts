/**
 * The socket's group and presence events as Parley's inbound events (pure; docs/channels.md, "Groups"
 * and "Presence"): a group created with the number in it (groups.upsert), what changed in one
 * (groups.update: subject, description, settings), its members added, removed, promoted or demoted
 * (group-participants.update), and contacts' presence (presence.update). The library also emits
 * groups.update with the whole metadata of every group when they are all fetched (listing them): that
 * is no change, and is not reported.
 */
import type { GroupParticipant } from 'baileys';
import type { InboundEvent, Presence } from '../../provider.ts';
import { PRESENCES } from '../../provider.ts';
import { lidOfJid, phoneOfJid, serverOf } from './ids.ts';
import type { SocketEvents } from './socket.ts';

type Json = Record<string, unknown>;
export type GroupSocketEvent =
  | { event: 'groups.upsert'; data: SocketEvents['groups.upsert'] }
  | { event: 'groups.update'; data: SocketEvents['groups.update'] }
  | { event: 'group-participants.update'; data: SocketEvents['group-participants.update'] }
  | { event: 'presence.update'; data: SocketEvents['presence.update'] };

/** The change's name for each participant action, and the list its participants go to (group.updated). */
const PARTICIPANT_CHANGES = {
  add: ['group_add_participants', 'added_participants'],
  remove: ['group_remove_participants', 'removed_participants'],
  promote: ['group_promote_participants', 'promoted_participants'],
  demote: ['group_demote_participants', 'demoted_participants'],
} as const;

/** Who made a change: the phone of its author, where the library knows it. */
const authorOf = (update: { author?: string | null; authorPn?: string | null }) =>
  phoneOfJid(update.authorPn) ?? phoneOfJid(update.author) ?? undefined;

/** The privacy-id jids an event names (whose phones the engine asks the library's store for: `phones`). */
export function lidsOf(input: GroupSocketEvent): string[] {
  switch (input.event) {
    case 'group-participants.update':
      return input.data.participants.flatMap((p) =>
        phoneOfJid(p.phoneNumber) ? [] : [p.lid, p.id].filter((j): j is string => Boolean(lidOfJid(j))),
      );
    case 'presence.update':
      return Object.keys(input.data.presences).filter((jid) => lidOfJid(jid));
    default:
      return [];
  }
}

/**
 * The events of one socket event. `phones` maps the privacy-id jids it names to phone jids where the
 * library's store knows them (a participant or contact without a phone is left out: Parley names people by phone).
 */
export function groupSocketEvents(
  ref: string,
  input: GroupSocketEvent,
  context: { now: Date; self?: { phone?: string; lid?: string }; phones?: ReadonlyMap<string, string> },
): InboundEvent[] {
  const { now, self = {}, phones = new Map<string, string>() } = context;
  const participantRef = (p: Pick<GroupParticipant, 'id' | 'phoneNumber' | 'lid'>) => {
    const lidJid = [p.lid, p.id].find((j) => lidOfJid(j));
    const phone = phoneOfJid(p.phoneNumber) ?? phoneOfJid(p.id) ?? (lidJid ? phoneOfJid(phones.get(lidJid)) : undefined);
    const lid = lidOfJid(lidJid);
    return phone ? [{ wa_id: phone, ...(lid ? { lid } : {}) }] : [];
  };
  const group = (groupId: string, change: string, details: Json): InboundEvent => ({
    kind: 'group.update',
    ref,
    field: 'group',
    groupId,
    change,
    details,
    timestamp: now,
  });
  switch (input.event) {
    case 'groups.upsert':
      return input.data.map((g) => {
        const author = authorOf(g);
        return group(g.id, 'group_join', {
          subject: g.subject,
          ...(g.desc ? { description: g.desc } : {}),
          ...(author ? { author } : {}),
        });
      });
    case 'groups.update':
      return input.data.flatMap((u) => {
        // The whole metadata of a listing, not a change.
        if (!u.id || Array.isArray(u.participants)) return [];
        const settings: Json = {
          ...(u.announce !== undefined ? { announcement: u.announce } : {}),
          ...(u.restrict !== undefined ? { locked: u.restrict } : {}),
          ...(u.memberAddMode !== undefined ? { members_can_add: u.memberAddMode } : {}),
          ...(u.joinApprovalMode !== undefined ? { join_approval: u.joinApprovalMode } : {}),
        };
        const details: Json = {
          ...(typeof u.subject === 'string' ? { subject: u.subject } : {}),
          ...(typeof u.desc === 'string' ? { description: u.desc } : {}),
          ...(Object.keys(settings).length > 0 ? { settings } : {}),
        };
        // An invite link reset alone says nothing a webhook reader needs (the link is read on demand).
        if (Object.keys(details).length === 0) return [];
        const author = authorOf(u);
        return [group(u.id, 'group_settings_update', { ...details, ...(author ? { author } : {}) })];
      });
    case 'group-participants.update': {
      const u = input.data;
      if (u.action === 'modify') return [];
      const participants = u.participants.flatMap(participantRef);
      // The number itself added (or joining by link) or removed (or leaving): it is now in the group, or no longer.
      const itself = participants.some((p) => (self.phone && p.wa_id === self.phone) || (self.lid && p.lid === self.lid));
      const [change, list] =
        itself && u.action === 'add'
          ? (['group_join', 'added_participants'] as const)
          : itself && u.action === 'remove'
            ? (['group_leave', 'removed_participants'] as const)
            : PARTICIPANT_CHANGES[u.action];
      const author = authorOf(u);
      return [group(u.id, change, { [list]: participants, ...(author ? { author } : {}) })];
    }
    case 'presence.update': {
      const chat = serverOf(input.data.id) === 'g.us' ? input.data.id : undefined;
      return Object.entries(input.data.presences).flatMap(([jid, data]): InboundEvent[] => {
        const phone = phoneOfJid(jid) ?? phoneOfJid(phones.get(jid));
        if (!phone || !(PRESENCES as readonly string[]).includes(data.lastKnownPresence)) return [];
        const lid = lidOfJid(jid);
        return [
          {
            kind: 'presence.update',
            ref,
            phone,
            ...(lid ? { lid } : {}),
            ...(chat ? { chat } : {}),
            presence: data.lastKnownPresence as Presence,
            ...(data.lastSeen ? { lastSeen: new Date(data.lastSeen * 1000) } : {}),
            timestamp: now,
          },
        ];
      });
    }
    default:
      return input satisfies never;
  }
}
