/** The phone behind a privacy id, for messages that name their sender by it alone (the library's store maps them). */
import type { WAMessage } from 'baileys';
import { lidOfJid } from '../ids.ts';
import type { EngineSocket } from '../socket.ts';

/**
 * Messages that name their sender (or a group participant) by privacy id only get the phone the
 * library's store maps it to, where it knows one, so the sender becomes a contact by phone with the
 * privacy id linked (a message with neither cannot be routed to a contact and is skipped).
 */
export async function withSenderPhones(socket: EngineSocket, messages: WAMessage[]): Promise<void> {
  if (!socket.phoneJidOfLid) return;
  for (const m of messages) {
    const key = m.key;
    if (!key) continue;
    if (lidOfJid(key.remoteJid) && !key.remoteJidAlt) key.remoteJidAlt = await socket.phoneJidOfLid(key.remoteJid!).catch(() => undefined);
    if (lidOfJid(key.participant) && !key.participantAlt)
      key.participantAlt = await socket.phoneJidOfLid(key.participant!).catch(() => undefined);
  }
}
