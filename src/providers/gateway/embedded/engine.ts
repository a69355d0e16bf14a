/**
 * The embedded engine: a linked-device session per unofficial channel, inside Parley.
 *
 * Any process (api or worker) can start a session, read its QR and health, and ask for what only the
 * socket can do (a pairing code, a lookup, a logout) through a durable command the holder runs. The
 * worker role runs the session manager: it claims wanted sessions nobody holds under a live lease,
 * opens their sockets, renews its leases, closes a socket at once when its lease is lost, and hands
 * every session back at shutdown. What a socket sees (status changes, messages, acks) is reported
 * through the normal inbound pipeline (`report`, injected by the container).
 */
import { createLeaseLoop } from '../../../lib/lease-loop.ts';
import type { HealthCheck, PairingCode, ProviderProfile, QrCode, Result } from '../../provider.ts';
import { askHolder } from './engine/ask.ts';
import { COMMAND_ASKED, type EmbeddedEngineOptions, type EngineContext } from './engine/context.ts';
import type { ChatRequest } from './chats.ts';
import type { GroupRequest } from './groups.ts';
import type { LabelRequest } from './labels.ts';
import { letGo } from './engine/hold.ts';
import { logout } from './engine/logout.ts';
import { managerPass } from './engine/manage.ts';
import { getQr, requestPairingCode, startPairing } from './engine/pairing.ts';
import { remember } from './engine/remember.ts';
import { renewHeld } from './engine/renew.ts';
import type { OutboundContext } from './outbound.ts';
import type { ProfileOp, ProfileOpAnswers, ProfileOpInputs } from './profiles.ts';
import { sentOf, sessionMessage } from './session-messages.ts';
import { SESSION_WANTED, readSession, releaseSessions } from './sessions.ts';
import type { EngineSocket } from './socket.ts';
import { createNotifyWaiters } from './waiters.ts';

export type { EmbeddedEngineOptions } from './engine/context.ts';

export type EmbeddedEngine = {
  startPairing(channelId: string): Promise<Result<{ status: string }>>;
  getQr(channelId: string): Promise<Result<QrCode>>;
  requestPairingCode(channelId: string, phone: string): Promise<Result<PairingCode>>;
  lookupProfile(channelId: string, phone: string): Promise<Result<ProviderProfile>>;
  logout(channelId: string): Promise<Result<{ status: string }>>;
  /** A group request, run by the session's holder (groups.ts); the answer is JSON. */
  group(channelId: string, request: GroupRequest): Promise<Result<unknown>>;
  /** A chat request (archive, pin, mute, read, delete, history), run by the session's holder (chats.ts). */
  chat(channelId: string, request: ChatRequest): Promise<Result<unknown>>;
  subscribePresence(channelId: string, phone: string): Promise<Result<{ subscribed: true }>>;
  /** A label or status request, run by the session's holder (labels.ts); the answer is JSON. */
  label(channelId: string, request: LabelRequest): Promise<Result<unknown>>;
  /** The channel's settings changed: its holder reads them again before this resolves (or within its command timeout). */
  settingsChanged(channelId: string): Promise<void>;
  /** Contacts, profiles and calls (profiles.ts), run by the session's holder. */
  profiles<K extends ProfileOp>(channelId: string, op: K, input: ProfileOpInputs[K]): Promise<Result<ProfileOpAnswers[K]>>;
  checkHealth(channelId: string): Promise<HealthCheck>;
  /** The open socket of a session this process holds under a live lease; undefined elsewhere. */
  socketOf(channelId: string): EngineSocket | undefined;
  /** What sending on a session this process holds needs beside the socket: the paired account, the poll key, message statuses. */
  sendContextOf(channelId: string): Omit<OutboundContext, 'targets'>;
  /** The session manager (worker role). */
  start(): Promise<void>;
  stop(options: { timeoutMs: number }): Promise<void>;
  wake(): void;
};

/**
 * The steps, one file each under engine/. Any process: pairing.ts (start, QR, pairing code), logout.ts,
 * ask.ts (a command for the holder, and its answer). The holder (worker role): manage.ts (the manager's
 * pass: claim, open, commands), renew.ts (leases), open-socket.ts, connection.ts and close.ts (what a
 * socket reports), commands.ts (running what was asked), hold.ts (a held session's queue, writes, end),
 * report.ts (events into the inbound pipeline); context.ts holds the state they share.
 */
export function createEmbeddedEngine(options: EmbeddedEngineOptions): EmbeddedEngine {
  const { database, clock, logger, processId: owner } = options;
  const db = database.db;
  const engine: EngineContext = {
    options,
    db,
    owner,
    ttlMs: options.lease.ttlMs,
    sessions: new Map(),
    waiters: createNotifyWaiters(database, (err) => logger.warn({ err }, 'embedded engine: could not listen for session changes; polling')),
    loop: createLeaseLoop({
      name: 'embedded session manager',
      database,
      channels: [{ channel: SESSION_WANTED }, { channel: COMMAND_ASKED }],
      pollMs: options.lease.pollMs,
      logger,
      every: { ms: options.lease.renewMs, run: () => renewHeld(engine) },
      pass: () => managerPass(engine),
    }),
  };
  const { sessions, loop } = engine;

  return {
    startPairing: (channelId) => startPairing(engine, channelId),

    getQr: (channelId) => getQr(engine, channelId),

    requestPairingCode: (channelId, phone) => requestPairingCode(engine, channelId, phone),

    async lookupProfile(channelId, phone) {
      const result = await askHolder(engine, channelId, 'lookup', { phone });
      return result as Result<ProviderProfile>;
    },

    logout: (channelId) => logout(engine, channelId),

    group: (channelId, request) => askHolder(engine, channelId, 'group', request),

    label: (channelId, request) => askHolder(engine, channelId, 'label', request),
    chat: (channelId, request) => askHolder(engine, channelId, 'chat', request),

    async subscribePresence(channelId, phone) {
      return (await askHolder(engine, channelId, 'presence', { phone })) as Result<{ subscribed: true }>;
    },

    async settingsChanged(channelId) {
      // The holder reads them at once and answers; without one, the next holder reads them when it claims the session.
      await askHolder(engine, channelId, 'settings', {});
    },

    async profiles(channelId, op, input) {
      const result = await askHolder(engine, channelId, 'profile', { op, input });
      return result as Result<ProfileOpAnswers[typeof op]>;
    },

    async checkHealth(channelId) {
      const row = await readSession(db, channelId);
      return { ok: true, status: row?.state ?? 'STOPPED' };
    },

    socketOf(channelId) {
      const held = sessions.get(channelId);
      if (!held || held.leaseUntil.getTime() <= clock.now().getTime()) return undefined;
      return held.socket;
    },

    sendContextOf(channelId) {
      const held = sessions.get(channelId);
      const phone = held?.phone;
      const store = { db, sealer: options.sealer };
      return {
        ...(phone ? { self: { phone } } : {}),
        pollKey: options.pollKey,
        statusOf: (id) => options.statusOf(channelId, id),
        messageOf: (id) => options.messageOf(channelId, id),
        sessionMessageOf: (id) => sessionMessage(store, channelId, id),
        remember: async (sent) => {
          if (held) await remember(engine, held, [sentOf(sent)]);
        },
        warmGroup: async (jid) => {
          if (held?.groupCache && !(await held.groupCache.cachedGroupMetadata(jid))) await held.groupCache.fetch(jid);
        },
      };
    },

    start: () => loop.start(),

    async stop({ timeoutMs }) {
      await loop.stop({ timeoutMs });
      // Sockets first, then the rows: another worker opens the session only after this one closed it.
      for (const held of [...sessions.values()]) letGo(engine, held, 'shutting down');
      await releaseSessions(db, { owner }).catch((err: unknown) =>
        logger.warn({ err }, 'embedded engine: could not hand the sessions back; their leases will lapse'),
      );
    },

    wake: () => loop.wake(),
  };
}
