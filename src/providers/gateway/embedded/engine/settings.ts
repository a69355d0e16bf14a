/**
 * The channel settings a held session honours (docs/channels.md, "Channel settings"): read when the
 * session is claimed, at once when they change (a command from the process that changed them) and on
 * each pass of the manager, and applied: always online (the account's presence), read receipts for the
 * messages Parley keeps; which chats are kept (groups, status posts) is read by the mapping of each
 * event. Calls are refused by the calls domain (reject_calls: domain/calls/reject.ts), not here.
 */
import type { WAMessage } from 'baileys';
import type { InboundEvent } from '../../../provider.ts';
import { readSessionSettings } from '../sessions.ts';
import type { EngineSocket, SocketEvents } from '../socket.ts';
import type { EngineContext, Held } from './context.ts';
import { enqueue } from './hold.ts';

/** Reads the settings of the held sessions (every one, or those named; one query) and applies what changed. */
export async function refreshSettings(engine: EngineContext, only?: string[]): Promise<void> {
  const ids = only ?? [...engine.sessions.keys()];
  if (ids.length === 0) return;
  const found = await readSessionSettings(engine.db, ids);
  for (const [id, settings] of found) {
    const held = engine.sessions.get(id);
    if (!held) continue;
    const before = held.settings;
    held.settings = settings;
    if (before.alwaysOnline !== settings.alwaysOnline && held.socket && held.paired)
      void enqueue(engine, held, () => showPresence(engine, held));
  }
}

/** The account shows online while the channel asks for it, and offline once it no longer does. */
export async function showPresence(engine: EngineContext, held: Held): Promise<void> {
  const socket = held.socket;
  if (!socket) return;
  await socket
    .sendPresenceUpdate(held.settings.alwaysOnline ? 'available' : 'unavailable')
    .catch((err: unknown) =>
      engine.options.logger.warn({ err, channel_id: held.channelId }, 'embedded engine: could not set the presence'),
    );
}

/** Read receipts for the new messages Parley keeps (those that became inbound messages), when the channel sends them. */
export async function sendReadReceipts(
  engine: EngineContext,
  held: Held,
  socket: EngineSocket,
  upsert: SocketEvents['messages.upsert'],
  events: InboundEvent[],
): Promise<void> {
  if (!held.settings.readReceipts || upsert.type !== 'notify') return;
  const kept = new Set(events.flatMap((e) => (e.kind === 'message.inbound' && e.type !== 'unsupported' ? [e.providerMessageId] : [])));
  const keys = upsert.messages.filter((m: WAMessage) => m.key?.id && kept.has(m.key.id)).map((m) => m.key);
  if (keys.length === 0) return;
  await socket
    .readMessages(keys)
    .catch((err: unknown) =>
      engine.options.logger.warn({ err, channel_id: held.channelId }, 'embedded engine: could not send read receipts'),
    );
}
