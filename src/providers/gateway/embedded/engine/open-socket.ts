/**
 * Opening a held session's socket: its auth state fenced by the lease, what the library asks of the
 * engine (the content of a sent message for a retry, cached group metadata, which history syncs to
 * process), its events fed to the session's queue in order.
 */
import { LeaseLostError, usePostgresAuthState } from '../auth-state.ts';
import { normalizeSocketEvent, type SocketEvent } from '../inbound.ts';
import { assertHeld } from '../sessions.ts';
import type { SocketEvents } from '../socket.ts';
import { callEvents, withCallerPhones } from '../calls.ts';
import { chatSocketEvents } from '../chats.ts';
import { lidOfJid } from '../ids.ts';
import { rememberCall, rememberPushNames } from '../profiles.ts';
import { onConnection } from './connection.ts';
import { profileMemoryOf, type EngineContext, type Held } from './context.ts';
import { createGroupCache } from '../group-cache.ts';
import { shouldSyncHistory } from '../history.ts';
import { pruneSessionMessages, sentContent } from '../session-messages.ts';
import { enqueue, letGo } from './hold.ts';
import { onHistory } from './history.ts';
import { withSenderPhones } from './sender-phones.ts';
import { remember } from './remember.ts';
import { report } from './report.ts';
import { groupSocketEvents, lidsOf, type GroupSocketEvent } from '../group-events.ts';
import { sendReadReceipts } from './settings.ts';
import { labelLidsOf, labelSocketEvents, type LabelSocketEvent } from '../labels.ts';

const MESSAGE_EVENTS = [
  'messages.upsert',
  'messages.update',
  'message-receipt.update',
  'messages.reaction',
  'messages.delete',
] as const satisfies ReadonlyArray<keyof SocketEvents>;

/** The socket's group and presence events: group.updated and presence.updated (group-events.ts). */
const GROUP_EVENTS = ['groups.upsert', 'groups.update', 'group-participants.update', 'presence.update'] as const satisfies ReadonlyArray<
  keyof SocketEvents
>;

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
    held.groupCache ??= createGroupCache({
      now: () => clock.now().getTime(),
      onError: (err, jid) => logger.debug({ err, channel_id: held.channelId, group: jid }, 'embedded engine: group metadata not fetched'),
    });
    const socket = await factory({
      channelId: held.channelId,
      auth: auth.state,
      getMessage: (key) => sentContent({ db, sealer }, held.channelId, key),
      cachedGroupMetadata: held.groupCache.cachedGroupMetadata,
      shouldSyncHistoryMessage: shouldSyncHistory,
      markOnlineOnConnect: held.settings.alwaysOnline,
    });
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
    held.groupCache.attach(socket, () => ({ phone: held.phone, lid: held.lid }));
    void enqueue(engine, held, () => pruneSessionMessages(db, held.channelId, clock.now()));
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
          if (event === 'messages.upsert') {
            const { messages } = data as SocketEvents['messages.upsert'];
            await withSenderPhones(socket, messages);
            rememberPushNames(profileMemoryOf(held), messages);
            await remember(
              engine,
              held,
              messages.map((m) => ({ key: m.key })),
            );
          }
          const events = normalizeSocketEvent(held.ref, { event, data } as SocketEvent, {
            self: { phone: held.phone, lid: held.lid },
            groups: held.settings.groups,
            statuses: held.settings.statuses,
            pollKey: options.pollKey,
          });
          await report(engine, held, events);
          if (event === 'messages.upsert') await sendReadReceipts(engine, held, socket, data as SocketEvents['messages.upsert'], events);
        });
      });
    }
    for (const event of GROUP_EVENTS) {
      socket.ev.on(event, (data: SocketEvents[typeof event]) => {
        if (!live()) return;
        void enqueue(engine, held, async () => {
          const input = { event, data } as GroupSocketEvent;
          const phones = new Map<string, string>();
          for (const lid of lidsOf(input)) {
            const phone = await socket.phoneJidOfLid?.(lid).catch(() => undefined);
            if (phone) phones.set(lid, phone);
          }
          await report(
            engine,
            held,
            groupSocketEvents(held.ref, input, { now: clock.now(), self: { phone: held.phone, lid: held.lid }, phones }),
          );
        });
      });
    }
    // Labels made, changed or put on chats (the phone's, another device's and our own): kept by Parley.
    for (const event of ['labels.edit', 'labels.association'] as const) {
      socket.ev.on(event, (data: SocketEvents[typeof event]) => {
        if (!live()) return;
        void enqueue(engine, held, async () => {
          const input = { event, data } as LabelSocketEvent;
          const phones = new Map<string, string>();
          for (const lid of labelLidsOf(input)) {
            const phone = await socket.phoneJidOfLid?.(lid).catch(() => undefined);
            if (phone) phones.set(lid, phone);
          }
          await report(engine, held, labelSocketEvents(held.ref, input, { now: clock.now(), phones }));
        });
      });
    }
    // The phone's chat changes (and ours, coming back): chat.update (chats.ts); a chat named by privacy id by its phone where known.
    for (const event of ['chats.update', 'chats.delete'] as const) {
      socket.ev.on(event, (data: SocketEvents[typeof event]) => {
        if (!live()) return;
        void enqueue(engine, held, async () => {
          const phoneJid = async (jid: string | null | undefined) =>
            jid && lidOfJid(jid) ? ((await socket.phoneJidOfLid?.(jid).catch(() => undefined)) ?? jid) : jid;
          const input =
            event === 'chats.delete'
              ? { event, data: await Promise.all((data as string[]).map(async (jid) => (await phoneJid(jid)) ?? jid)) }
              : {
                  event,
                  data: await Promise.all(
                    (data as SocketEvents['chats.update']).map(async (u) => ({ ...u, id: (await phoneJid(u.id)) ?? u.id })),
                  ),
                };
          await report(engine, held, chatSocketEvents(held.ref, input as Parameters<typeof chatSocketEvents>[1], clock.now()));
        });
      });
    }
    // Calls: where each rang from (a reject names it), then Parley's call events.
    socket.ev.on('call', (calls) => {
      if (!live()) return;
      void enqueue(engine, held, async () => {
        await withCallerPhones(socket, calls);
        for (const call of calls)
          if (call.status === 'offer') rememberCall(profileMemoryOf(held), call.id, call.from, clock.now().getTime());
        await report(
          engine,
          held,
          callEvents(held.ref, calls, { self: { phone: held.phone, lid: held.lid }, groups: held.settings.groups }),
        );
      });
    });
    socket.ev.on('messaging-history.set', (chunk) => {
      if (live()) void enqueue(engine, held, () => onHistory(engine, held, socket, chunk));
    });
    logger.info({ channel_id: held.channelId, paired: held.paired }, 'embedded engine: session socket opened');
  } finally {
    held.opening = false;
  }
}
