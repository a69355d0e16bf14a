/** Opening a held session's socket: its auth state fenced by the lease, its events fed to the session's queue in order. */
import type { WAMessage } from 'baileys';
import { LeaseLostError, usePostgresAuthState } from '../auth-state.ts';
import { lidOfJid } from '../ids.ts';
import { normalizeSocketEvent, type SocketEvent } from '../inbound.ts';
import { assertHeld } from '../sessions.ts';
import type { EngineSocket, SocketEvents } from '../socket.ts';
import { onConnection } from './connection.ts';
import type { EngineContext, Held } from './context.ts';
import { enqueue, letGo } from './hold.ts';
import { report } from './report.ts';

const MESSAGE_EVENTS = [
  'messages.upsert',
  'messages.update',
  'message-receipt.update',
  'messages.reaction',
  'messages.delete',
] as const satisfies ReadonlyArray<keyof SocketEvents>;

export async function openSocket(engine: EngineContext, held: Held): Promise<void> {
  const { options, sessions, db, owner } = engine;
  const { sealer, clock, logger } = options;
  const factory = options.socketFactory;
  if (!factory || held.socket || held.opening || held.closing) return;
  held.opening = true;
  try {
    const fence = async (tx: Parameters<typeof assertHeld>[0]) => {
      try {
        await assertHeld(tx, { channelId: held.channelId, owner, now: clock.now() });
      } catch (err) {
        if (err instanceof LeaseLostError) letGo(engine, held, 'lease lost');
        throw err;
      }
    };
    const auth = await usePostgresAuthState({ db, sealer, fence }, held.channelId);
    if (sessions.get(held.channelId) !== held) return;
    const socket = await factory({ channelId: held.channelId, auth: auth.state });
    // Let go of while the library loaded: the socket is closed unused.
    if (sessions.get(held.channelId) !== held) {
      void Promise.resolve(socket.end(undefined)).catch(() => undefined);
      return;
    }
    const generation = ++held.generation;
    Object.assign(held, {
      socket,
      auth,
      qrs: 0,
      nextReconnectAt: null,
      paired: Boolean(auth.state.creds.registered || auth.state.creds.me),
    });
    const live = () => held.generation === generation && held.socket === socket;
    socket.ev.on('creds.update', () => {
      if (live()) void enqueue(engine, held, () => auth.saveCreds());
    });
    socket.ev.on('connection.update', (update) => {
      if (live()) void enqueue(engine, held, () => onConnection(engine, held, socket, update));
    });
    for (const event of MESSAGE_EVENTS) {
      socket.ev.on(event, (data: SocketEvents[typeof event]) => {
        if (!live()) return;
        void enqueue(engine, held, async () => {
          if (event === 'messages.upsert') await withSenderPhones(socket, (data as SocketEvents['messages.upsert']).messages);
          await report(
            engine,
            held,
            normalizeSocketEvent(held.ref, { event, data } as SocketEvent, {
              self: { phone: held.phone, lid: held.lid },
              groups: held.groups,
              pollKey: options.pollKey,
            }),
          );
        });
      });
    }
    logger.info({ channel_id: held.channelId, paired: held.paired }, 'embedded engine: session socket opened');
  } finally {
    held.opening = false;
  }
}

/**
 * Messages that name their sender (or a group participant) by privacy id only get the phone the
 * library's store maps it to, where it knows one, so the sender becomes a contact by phone with the
 * privacy id linked (a message with neither cannot be routed to a contact and is skipped).
 */
async function withSenderPhones(socket: EngineSocket, messages: WAMessage[]): Promise<void> {
  if (!socket.phoneJidOfLid) return;
  for (const m of messages) {
    const key = m.key;
    if (!key) continue;
    if (lidOfJid(key.remoteJid) && !key.remoteJidAlt) key.remoteJidAlt = await socket.phoneJidOfLid(key.remoteJid!).catch(() => undefined);
    if (lidOfJid(key.participant) && !key.participantAlt)
      key.participantAlt = await socket.phoneJidOfLid(key.participant!).catch(() => undefined);
  }
}
