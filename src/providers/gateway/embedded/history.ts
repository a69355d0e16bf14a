/**
 * History sync: what the phone sends a newly linked device (and later chunks of it). The library
 * needs it: the privacy-id (LID) ↔ phone mappings come with it, and the library stores them itself in
 * the auth state's `lid-mapping` keys (channel_session_keys) as it processes each chunk
 * (Utils/process-message.js), where phoneJidOfLid finds them. Disabling every sync type makes it warn
 * "DANGER: … PREVENTS BAILEYS FROM ACCESSING INITIAL LID MAPPINGS, LEADING TO INSTABILITY AND SESSION
 * ERRORS". So every type is processed but FULL (the whole history, which the engine never asks for:
 * syncFullHistory is off), as the library's own default does.
 *
 * What Parley takes of a chunk (`messaging-history.set`): the contacts (their phone, privacy id and
 * name, with the chunk's mappings), as profiles of contacts the CRM already has; the old messages only
 * when the channel's `import_history` setting says so (default off), as inbound messages and echoes.
 */
import type { proto } from 'baileys';
import type { InboundEvent } from '../../provider.ts';
import { lidOfJid, phoneOfJid } from './ids.ts';
import { normalizeSocketEvent, type InboundContext } from './inbound.ts';
import { library } from './library.ts';
import type { SocketEvents } from './socket.ts';

/** Profiles in one event at most (one stored delivery each). */
const PROFILES_PER_EVENT = 500;

/** The library's shouldSyncHistoryMessage: every sync type but FULL. */
export function shouldSyncHistory(notification: proto.Message.IHistorySyncNotification): boolean {
  return notification.syncType !== library().proto.HistorySync.HistorySyncType.FULL;
}

type HistoryChunk = SocketEvents['messaging-history.set'];

/** The contact profiles a chunk gives (phone, privacy id, the name on the phone or the one they set), ours left out. */
export function profilesOf(chunk: HistoryChunk, self: InboundContext['self'] = {}): Array<{ phone: string; lid?: string; name?: string }> {
  const byPhone = new Map<string, { phone: string; lid?: string; name?: string }>();
  const add = (phone: string | undefined, lid: string | undefined, name: string | undefined) => {
    if (!phone || phone === self.phone) return;
    const known = byPhone.get(phone) ?? { phone };
    if (lid && lid !== self.lid) known.lid ??= lid;
    const trimmed = name?.trim();
    if (trimmed) known.name ??= trimmed.slice(0, 200);
    byPhone.set(phone, known);
  };
  for (const m of chunk.lidPnMappings ?? []) add(phoneOfJid(m.pn), lidOfJid(m.lid), undefined);
  for (const c of chunk.contacts ?? []) {
    add(phoneOfJid(c.id) ?? phoneOfJid(c.phoneNumber), lidOfJid(c.id) ?? lidOfJid(c.lid), c.name ?? c.notify ?? c.verifiedName);
  }
  return [...byPhone.values()];
}

/**
 * A history chunk as inbound events: the contact profiles, in events of at most 500; with
 * `importHistory`, its messages as the socket's own would be (inbound messages and echoes).
 */
export function historyEvents(ref: string, chunk: HistoryChunk, context: InboundContext & { importHistory: boolean }): InboundEvent[] {
  const events: InboundEvent[] = [];
  const profiles = profilesOf(chunk, context.self);
  for (let i = 0; i < profiles.length; i += PROFILES_PER_EVENT)
    events.push({ kind: 'contact.profiles', ref, profiles: profiles.slice(i, i + PROFILES_PER_EVENT) });
  if (context.importHistory && chunk.messages.length > 0) {
    // Oldest first, as they happened (the chunk is newest first).
    const messages = [...chunk.messages].reverse();
    events.push(
      ...normalizeSocketEvent(ref, { event: 'messages.upsert', data: { messages, type: 'append' } }, context).map((event) =>
        event.kind === 'message.inbound' || event.kind === 'message.echo' ? { ...event, history: true as const } : event,
      ),
    );
  }
  return events;
}
