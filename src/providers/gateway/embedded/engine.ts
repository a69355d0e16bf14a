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
import type { WAMessage } from 'baileys';
import { and, eq, inArray } from 'drizzle-orm';
import type { Database } from '../../../db/client.ts';
import { channelSessionCommands } from '../../../db/schema.ts';
import type { Clock } from '../../../lib/clock.ts';
import type { Sealer } from '../../../lib/crypto.ts';
import { uuidv7 } from '../../../lib/ids.ts';
import { createLeaseLoop } from '../../../lib/lease-loop.ts';
import { isDatabaseUnavailable } from '../../../db/errors.ts';
import type { Logger } from '../../../lib/logger.ts';
import type { HealthCheck, InboundEvent, PairingCode, ProviderError, ProviderProfile, QrCode, Result } from '../../provider.ts';
import { LeaseLostError, clearAuthState, loadCreds, usePostgresAuthState, type PostgresAuthState } from './auth-state.ts';
import { lidOfJid, phoneOfJid } from './ids.ts';
import { normalizeSocketEvent, type SocketEvent } from './inbound.ts';
import {
  SESSION_CHANGED,
  SESSION_WANTED,
  assertHeld,
  claimSessions,
  hasLiveOwner,
  notify,
  readSession,
  releaseSessions,
  renewLeases,
  stopUnheldSession,
  updateHeldSession,
  wantSession,
  type SessionRow,
} from './sessions.ts';
import type { EngineSocket, SocketEvents, SocketFactory } from './socket.ts';
import { createNotifyWaiters } from './waiters.ts';

/** NOTIFY channels of the commands: one was asked (payload: channel id), one was answered (payload: command id). */
const COMMAND_ASKED = 'channel_session_command';
const COMMAND_DONE = 'channel_session_command_done';

/** The first QR of a socket lasts a minute, the ones after it 20 s (the library's own timings). */
const FIRST_QR_MS = 60_000;
const NEXT_QR_MS = 20_000;
/** Sessions one worker process holds at most. */
const MAX_SESSIONS = 500;

/** Storing a session event while the database is unreachable is tried again after these waits (doubling). */
const REPORT_RETRY_BASE_MS = 250;
const REPORT_RETRY_MAX_MS = 5_000;

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
    if (lidOfJid(key.participant) && !key.participantAlt) key.participantAlt = await socket.phoneJidOfLid(key.participant!).catch(() => undefined);
  }
}

export type EmbeddedEngineOptions = {
  database: Pick<Database, 'db' | 'listen' | 'availability'>;
  sealer: Sealer;
  clock: Clock;
  logger: Logger;
  /** This process's id (made at boot): the owner written on the sessions it holds. */
  processId: string;
  lease: { ttlMs: number; renewMs: number; pollMs: number };
  /** Reconnects after a lost connection wait base * 2^(attempt-1), at most max, with jitter. */
  reconnect: { baseMs: number; maxMs: number };
  /** How long getQr waits for a session's first QR. */
  qrWaitMs: number;
  /** How long a command waits for the session's holder to answer. */
  commandTimeoutMs: number;
  /** Makes the sockets; without it this process holds no sessions (it still asks the holders). */
  socketFactory?: SocketFactory;
  /** Stores events of a channel through the inbound pipeline; a deliveryId stores a redelivered one once. */
  report(channelId: string, events: InboundEvent[], deliveryId?: string): Promise<void>;
  /** The status Parley holds for one of a channel's messages by its provider id (message_status_query, quotes). */
  statusOf(channelId: string, providerMessageId: string): Promise<string | undefined>;
  /** The engine's poll key (32 bytes, the same after a restart): votes on polls Parley sent are read with it. */
  pollKey: Uint8Array;
};

export type EmbeddedEngine = {
  startPairing(channelId: string): Promise<Result<{ status: string }>>;
  getQr(channelId: string): Promise<Result<QrCode>>;
  requestPairingCode(channelId: string, phone: string): Promise<Result<PairingCode>>;
  lookupProfile(channelId: string, phone: string): Promise<Result<ProviderProfile>>;
  logout(channelId: string): Promise<Result<{ status: string }>>;
  checkHealth(channelId: string): Promise<HealthCheck>;
  /** The open socket of a session this process holds under a live lease; undefined elsewhere. */
  socketOf(channelId: string): EngineSocket | undefined;
  /** What sending on a session this process holds needs beside the socket: the paired account, the poll key, message statuses. */
  sendContextOf(channelId: string): { self?: { phone: string }; pollKey: Uint8Array; statusOf(providerMessageId: string): Promise<string | undefined> };
  /** The session manager (worker role). */
  start(): Promise<void>;
  stop(options: { timeoutMs: number }): Promise<void>;
  wake(): void;
};

type CommandKind = 'pairing_code' | 'lookup' | 'logout';

/** A session this process holds. */
type Held = {
  channelId: string;
  ref: string;
  groups: boolean;
  leaseUntil: Date;
  socket?: EngineSocket;
  auth?: PostgresAuthState;
  /** Bumped with every socket and when the session is let go: events of an older socket are ignored. */
  generation: number;
  opening: boolean;
  /**
   * A socket's end is being handled (its close, or a logout): no socket is opened meanwhile, or a
   * session logged out or replaced elsewhere would be opened again before its end is written.
   */
  closing: boolean;
  /** When to open the next socket; null: at once. */
  nextReconnectAt: Date | null;
  reconnectAttempts: number;
  /** QRs the current socket issued, and when the last lapses. */
  qrs: number;
  qrExpiresAt?: Date;
  paired: boolean;
  phone?: string;
  lid?: string;
  /** Socket events and writes of this session, one at a time and in order. */
  chain: Promise<void>;
};

const MESSAGE_EVENTS = ['messages.upsert', 'messages.update', 'message-receipt.update', 'messages.reaction', 'messages.delete'] as const satisfies ReadonlyArray<keyof SocketEvents>;

const notRunning = (title: string): { ok: false; error: ProviderError } => ({ ok: false, error: { code: 'session_not_running', title, retryable: true } });

/** The disconnect reason's status code (the library's errors carry a Boom-like `output.statusCode`). */
function statusCodeOf(error: unknown): number | undefined {
  const code = (error as { output?: { statusCode?: unknown } } | undefined)?.output?.statusCode;
  return typeof code === 'number' ? code : undefined;
}

/** Where a closed connection leaves the session, by the library's DisconnectReason. */
type CloseOutcome = 'logged_out' | 'replaced' | 'forbidden' | 'refused' | 'restart' | 'pairing_ended' | 'lost';

function closeOutcome(code: number | undefined, paired: boolean): CloseOutcome {
  switch (code) {
    case 401:
      return 'logged_out';
    case 440:
      return 'replaced';
    case 403:
      return 'forbidden';
    case 500:
    case 411:
      return 'refused';
    case 515:
      return 'restart';
    case 408:
      // An unpaired session times out when its QRs ran out: nobody scanned.
      return paired ? 'lost' : 'pairing_ended';
    default:
      return 'lost';
  }
}

/** The inbound pipeline's delivery id of an event: the library delivers some twice, and they are stored once. */
function deliveryIdOf(event: InboundEvent): string | undefined {
  switch (event.kind) {
    case 'message.inbound':
    case 'message.echo':
      return `msg:${event.providerMessageId}`;
    case 'message.status':
      return `ack:${event.providerMessageId}:${event.status}`;
    case 'message.edited':
      return `edit:${event.providerMessageId}:${event.timestamp.getTime()}`;
    case 'message.deleted':
      return `del:${event.providerMessageId}`;
    default:
      return undefined;
  }
}

export function createEmbeddedEngine(options: EmbeddedEngineOptions): EmbeddedEngine {
  const { database, sealer, clock, logger, processId: owner } = options;
  const db = database.db;
  const ttlMs = options.lease.ttlMs;
  const sessions = new Map<string, Held>();
  const waiters = createNotifyWaiters(database, (err) => logger.warn({ err }, 'embedded engine: could not listen for session changes; polling'));

  // ---- the holder's side ----

  /**
   * Stores a session's events in order. The library has already acknowledged them to the service, so
   * while the database is unreachable they are kept and tried again (the session's later events wait
   * behind them) for as long as this process holds the session; other errors are logged.
   */
  const report = async (held: Held, events: InboundEvent[]) => {
    for (const event of events) {
      for (let attempt = 1; ; attempt++) {
        try {
          await options.report(held.channelId, [event], deliveryIdOf(event));
          break;
        } catch (err) {
          if (!isDatabaseUnavailable(err) || sessions.get(held.channelId) !== held) {
            logger.error({ err, channel_id: held.channelId, kind: event.kind }, 'embedded engine: could not store a session event');
            break;
          }
          if (attempt === 1) logger.warn({ err, channel_id: held.channelId, kind: event.kind }, 'embedded engine: database unreachable; keeping the session event to store it when it is back');
          await untilAvailableOr(Math.min(REPORT_RETRY_MAX_MS, REPORT_RETRY_BASE_MS * 2 ** (attempt - 1)));
        }
      }
    }
  };

  /** Waits until the database is reported back, or at most `ms` (it may be back before anyone notices). */
  const untilAvailableOr = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(done, ms);
      const unsubscribe = database.availability.onAvailable(done);
      function done() {
        clearTimeout(timer);
        unsubscribe();
        resolve();
      }
    });

  /** Closes a session's socket at once and forgets it (its lease is lost, or it is handed back): no more writes. */
  const letGo = (held: Held, why: string) => {
    if (sessions.get(held.channelId) !== held) return;
    sessions.delete(held.channelId);
    held.generation++;
    const socket = held.socket;
    held.socket = undefined;
    logger.info({ channel_id: held.channelId, why }, 'embedded engine: session socket closed');
    if (socket) void Promise.resolve(socket.end(undefined)).catch(() => undefined);
  };

  const enqueue = (held: Held, work: () => Promise<void>): Promise<void> => {
    const next = held.chain.then(work).catch((err: unknown) => {
      if (err instanceof LeaseLostError) return letGo(held, 'lease lost');
      logger.error({ err, channel_id: held.channelId }, 'embedded engine: session event failed');
    });
    held.chain = next;
    return next;
  };

  /** The holder's fenced write of its session row. */
  const write = (held: Held, set: Parameters<typeof updateHeldSession>[2]) => updateHeldSession(db, { channelId: held.channelId, owner, now: clock.now() }, set);

  /** A session that ends (not wanted any more): row written, handed back, socket closed. */
  const end = async (held: Held, set: Parameters<typeof updateHeldSession>[2], why: string) => {
    await write(held, { wanted: false, qrSealed: null, qrExpiresAt: null, nextReconnectAt: null, ...set });
    letGo(held, why);
    await releaseSessions(db, { owner, channelIds: [held.channelId] });
  };

  const status = (held: Held, status: 'connected' | 'disconnected' | 'pairing' | 'error', reason: string, reasonCode: string, extra: Partial<Extract<InboundEvent, { kind: 'channel.status' }>> = {}): InboundEvent => ({
    kind: 'channel.status',
    ref: held.ref,
    status,
    reason,
    reasonCode,
    timestamp: clock.now(),
    ...extra,
  });

  const onConnection = async (held: Held, socket: EngineSocket, update: SocketEvents['connection.update']) => {
    const now = clock.now();
    if (update.qr) {
      held.qrs++;
      held.qrExpiresAt = new Date(now.getTime() + (held.qrs === 1 ? FIRST_QR_MS : NEXT_QR_MS));
      await write(held, { state: 'SCAN_QR', qrSealed: sealer.seal(update.qr), qrExpiresAt: held.qrExpiresAt });
      if (held.qrs === 1) await report(held, [status(held, 'pairing', 'waiting for the phone to scan the QR code or type the pairing code', 'SCAN_QR')]);
    }
    if (update.connection === 'open') {
      const phone = phoneOfJid(socket.user?.id) ?? held.auth?.state.creds.me?.id.split(/[:@]/)[0] ?? '';
      const name = socket.user?.name ?? held.auth?.state.creds.me?.name;
      Object.assign(held, { paired: true, phone, lid: socket.user?.lid, reconnectAttempts: 0, nextReconnectAt: null });
      await write(held, { state: 'WORKING', qrSealed: null, qrExpiresAt: null, phone, pushName: name ?? null, reconnectAttempts: 0, nextReconnectAt: null, disconnectReason: null, disconnectCode: null });
      await report(held, [status(held, 'connected', `paired with +${phone}${name ? ` (${name})` : ''}`, 'WORKING', { phone })]);
    }
    if (update.connection === 'close' && held.socket === socket) {
      held.socket = undefined;
      held.closing = true;
      try {
        await onClose(held, update.lastDisconnect?.error);
      } finally {
        held.closing = false;
      }
    }
  };

  const onClose = async (held: Held, error: unknown) => {
    const code = statusCodeOf(error);
    const detail = `${(error as Error | undefined)?.message ?? 'connection closed'}${code ? ` (${code})` : ''}`;
    const disconnect = { disconnectReason: detail.slice(0, 500), disconnectCode: code ?? null };
    const outcome = closeOutcome(code, held.paired);
    logger.info({ channel_id: held.channelId, code, outcome }, 'embedded engine: connection closed');
    switch (outcome) {
      case 'logged_out':
        await held.auth?.clear();
        await end(held, { state: 'STOPPED', ...disconnect }, 'logged out on the phone');
        return report(held, [status(held, 'disconnected', 'logged out on the phone; the credentials were dropped: connect to pair again', 'logged_out')]);
      case 'replaced':
        await end(held, { state: 'STOPPED', ...disconnect }, 'replaced by another session');
        return report(held, [status(held, 'disconnected', 'replaced by another session of this account (opened elsewhere); connect to take it back', 'connection_replaced')]);
      case 'forbidden':
        await end(held, { state: 'FAILED', ...disconnect }, 'forbidden');
        return report(held, [status(held, 'error', `the account is banned or not allowed to connect: ${detail}`, 'forbidden')]);
      case 'refused':
        await held.auth?.clear();
        await end(held, { state: 'FAILED', ...disconnect }, 'credentials refused');
        return report(held, [status(held, 'error', `the service refused the session's credentials (${detail}); they were dropped: connect to pair again`, 'credentials_refused')]);
      case 'pairing_ended':
        await end(held, { state: 'STOPPED', ...disconnect }, 'pairing timed out');
        return report(held, [status(held, 'disconnected', 'no phone scanned the QR code in time; connect to try again', 'pairing_timed_out')]);
      case 'restart':
        // Normal right after pairing: the library asks for a new connection with the new creds.
        held.nextReconnectAt = null;
        loop.wake();
        return;
      case 'lost': {
        const attempt = held.reconnectAttempts + 1;
        const cap = Math.min(options.reconnect.maxMs, options.reconnect.baseMs * 2 ** Math.min(attempt - 1, 30));
        // Full jitter over the upper half: sessions dropped together do not come back together.
        const delayMs = Math.round(cap / 2 + (Math.random() * cap) / 2);
        const next = new Date(clock.now().getTime() + delayMs);
        held.reconnectAttempts = attempt;
        held.nextReconnectAt = next;
        await write(held, { state: 'STOPPED', reconnectAttempts: attempt, nextReconnectAt: next, ...disconnect });
        return report(held, [
          status(held, 'disconnected', `connection lost: ${detail}; reconnect attempt ${attempt} at ${next.toISOString()}`, 'connection_lost', { reconnectAttempts: attempt }),
        ]);
      }
      default:
        return outcome satisfies never;
    }
  };

  const openSocket = async (held: Held) => {
    const factory = options.socketFactory;
    if (!factory || held.socket || held.opening || held.closing) return;
    held.opening = true;
    try {
      const fence = async (tx: Parameters<typeof assertHeld>[0]) => {
        try {
          await assertHeld(tx, { channelId: held.channelId, owner, now: clock.now() });
        } catch (err) {
          if (err instanceof LeaseLostError) letGo(held, 'lease lost');
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
      Object.assign(held, { socket, auth, qrs: 0, nextReconnectAt: null, paired: Boolean(auth.state.creds.registered || auth.state.creds.me) });
      const live = () => held.generation === generation && held.socket === socket;
      socket.ev.on('creds.update', () => {
        if (live()) void enqueue(held, () => auth.saveCreds());
      });
      socket.ev.on('connection.update', (update) => {
        if (live()) void enqueue(held, () => onConnection(held, socket, update));
      });
      for (const event of MESSAGE_EVENTS) {
        socket.ev.on(event, (data: SocketEvents[typeof event]) => {
          if (!live()) return;
          void enqueue(held, async () => {
            if (event === 'messages.upsert') await withSenderPhones(socket, (data as SocketEvents['messages.upsert']).messages);
            await report(held, normalizeSocketEvent(held.ref, { event, data } as SocketEvent, { self: { phone: held.phone, lid: held.lid }, groups: held.groups, pollKey: options.pollKey }));
          });
        });
      }
      logger.info({ channel_id: held.channelId, paired: held.paired }, 'embedded engine: session socket opened');
    } finally {
      held.opening = false;
    }
  };

  const renew = async () => {
    const ids = [...sessions.keys()];
    if (ids.length === 0) return;
    const now = clock.now();
    let kept: Array<{ channelId: string; wanted: boolean }>;
    try {
      kept = await renewLeases(db, { owner, now, ttlMs, held: ids });
    } catch (err) {
      logger.warn({ err }, 'embedded engine: could not renew the session leases');
      // Unable to prove it still holds them: a lease past its end is another process's to take.
      for (const id of ids) {
        const held = sessions.get(id);
        if (held && held.leaseUntil.getTime() <= clock.now().getTime()) letGo(held, 'lease lapsed while it could not be renewed');
      }
      return;
    }
    const byId = new Map(kept.map((k) => [k.channelId, k.wanted]));
    const unwanted: string[] = [];
    for (const id of ids) {
      const held = sessions.get(id);
      if (!held) continue;
      if (!byId.has(id)) letGo(held, 'lease lost to another process (or the channel is gone)');
      else if (byId.get(id) === false) {
        letGo(held, 'no longer wanted');
        unwanted.push(id);
      } else held.leaseUntil = new Date(now.getTime() + ttlMs);
    }
    if (unwanted.length) await releaseSessions(db, { owner, channelIds: unwanted }).catch((err: unknown) => logger.warn({ err }, 'embedded engine: could not hand sessions back'));
  };

  const runCommand = async (command: typeof channelSessionCommands.$inferSelect) => {
    let result: Result<unknown>;
    try {
      const input = JSON.parse(sealer.open(command.inputSealed)) as { phone?: string };
      result = await execute(command.kind as CommandKind, sessions.get(command.channelId), input);
    } catch (err) {
      logger.error({ err, channel_id: command.channelId, kind: command.kind }, 'embedded engine: command failed');
      result = { ok: false, error: { code: 'session_error', title: `the session could not do it: ${(err as Error).message}`, retryable: true } };
    }
    await db.transaction(async (tx) => {
      await tx
        .update(channelSessionCommands)
        .set({ state: 'done', resultSealed: sealer.seal(JSON.stringify(result)), finishedAt: clock.now() })
        .where(eq(channelSessionCommands.id, command.id));
      await notify(tx, COMMAND_DONE, command.id);
    });
  };

  const execute = async (kind: CommandKind, held: Held | undefined, input: { phone?: string }): Promise<Result<unknown>> => {
    if (kind === 'logout') {
      if (!held) return notRunning('this process no longer holds the session');
      await enqueue(held, async () => {
        const socket = held.socket;
        // The close the logout causes is this command's, not news.
        held.generation++;
        held.socket = undefined;
        held.closing = true;
        try {
          if (socket) await socket.logout().catch((err: unknown) => logger.warn({ err, channel_id: held.channelId }, 'embedded engine: the logout was not confirmed; dropping the credentials anyway'));
          await held.auth?.clear();
          await end(held, { state: 'STOPPED', disconnectReason: 'logged out by the user', disconnectCode: null }, 'logged out by the user');
        } finally {
          held.closing = false;
        }
      });
      return { ok: true, value: { status: 'STOPPED' } };
    }
    const socket = held?.socket;
    if (!held || !socket) return notRunning('the session is not connected right now (reconnecting, or not started)');
    if (kind === 'pairing_code') {
      if (held.paired) return { ok: false, error: { code: 'already_paired', title: 'the session is paired already', retryable: false } };
      const code = await socket.requestPairingCode(input.phone ?? '');
      const expiresAt = held.qrExpiresAt ?? new Date(clock.now().getTime() + FIRST_QR_MS);
      return { ok: true, value: { code, expiresAt: expiresAt.toISOString() } };
    }
    const [found] = (await socket.onWhatsApp(input.phone ?? '')) ?? [];
    return { ok: true, value: { exists: found?.exists === true, ...(found?.exists ? { chatappId: phoneOfJid(found.jid) ?? found.jid } : {}) } };
  };

  const runCommands = async () => {
    const ids = [...sessions.keys()];
    if (ids.length === 0) return;
    const pending = await db
      .update(channelSessionCommands)
      .set({ state: 'running' })
      .where(and(inArray(channelSessionCommands.channelId, ids), eq(channelSessionCommands.state, 'pending')))
      .returning();
    for (const command of pending) loop.run(() => runCommand(command));
  };

  const loop = createLeaseLoop({
    name: 'embedded session manager',
    database,
    channels: [{ channel: SESSION_WANTED }, { channel: COMMAND_ASKED }],
    pollMs: options.lease.pollMs,
    logger,
    every: { ms: options.lease.renewMs, run: renew },
    async pass() {
      const now = clock.now();
      // A lease judged by a clock that moved on (or a renewal that came late) is renewed first.
      if ([...sessions.values()].some((h) => h.leaseUntil.getTime() - now.getTime() < ttlMs / 2)) await renew();
      const room = MAX_SESSIONS - sessions.size;
      const claimed = options.socketFactory ? await claimSessions(db, { owner, now, ttlMs, limit: room, held: [...sessions.keys()] }) : [];
      for (const row of claimed) {
        sessions.set(row.channelId, {
          channelId: row.channelId,
          ref: row.ref,
          groups: row.groups,
          leaseUntil: row.leaseUntil ?? new Date(now.getTime() + ttlMs),
          generation: 0,
          opening: false,
          closing: false,
          nextReconnectAt: row.nextReconnectAt && row.nextReconnectAt.getTime() > now.getTime() ? row.nextReconnectAt : null,
          reconnectAttempts: row.reconnectAttempts,
          qrs: 0,
          paired: false,
          phone: row.phone ?? undefined,
          chain: Promise.resolve(),
        });
        logger.info({ channel_id: row.channelId }, 'embedded engine: session claimed');
      }
      for (const held of sessions.values()) {
        if (held.socket || held.opening || held.closing) continue;
        if (held.nextReconnectAt && held.nextReconnectAt.getTime() > now.getTime()) continue;
        loop.run(() => openSocket(held));
      }
      await runCommands();
      return claimed.length > 0 && claimed.length === room;
    },
  });

  // ---- any process ----

  const command = async (channelId: string, kind: CommandKind, input: Record<string, unknown>): Promise<Result<unknown>> => {
    const session = await readSession(db, channelId);
    if (!session?.wanted) return notRunning('the session is not started: connect the channel first');
    const id = uuidv7();
    await db.transaction(async (tx) => {
      await tx.insert(channelSessionCommands).values({ id, channelId, kind, inputSealed: sealer.seal(JSON.stringify(input)), createdAt: clock.now() });
      await notify(tx, COMMAND_ASKED, channelId);
    });
    try {
      const answer = await waiters.wait(
        COMMAND_DONE,
        id,
        async () => {
          const [row] = await db.select({ state: channelSessionCommands.state, result: channelSessionCommands.resultSealed }).from(channelSessionCommands).where(eq(channelSessionCommands.id, id));
          return row?.state === 'done' && row.result ? row.result : undefined;
        },
        options.commandTimeoutMs,
      );
      if (answer === undefined) return notRunning(`no worker holding the session answered within ${Math.round(options.commandTimeoutMs / 1000)} s`);
      return JSON.parse(sealer.open(answer)) as Result<unknown>;
    } finally {
      await db.delete(channelSessionCommands).where(eq(channelSessionCommands.id, id)).catch(() => undefined);
    }
  };

  const currentQr = (row: SessionRow | undefined): Result<QrCode> | undefined => {
    if (!row?.wanted) return { ok: false, error: { code: 'session_stopped', title: 'the session is not started: connect the channel first', retryable: false } };
    if (row.state === 'WORKING') return { ok: false, error: { code: 'already_paired', title: 'the session is paired already', retryable: false } };
    if (row.qrSealed && row.qrExpiresAt && row.qrExpiresAt.getTime() > clock.now().getTime()) return { ok: true, value: { qr: sealer.open(row.qrSealed), expiresAt: row.qrExpiresAt } };
    return undefined;
  };

  return {
    async startPairing(channelId) {
      const row = await wantSession(db, channelId, clock.now());
      if (options.socketFactory) loop.wake();
      if (row.state !== 'STARTING' || !(await loadCreds(db, sealer, channelId))?.me) return { ok: true, value: { status: row.state } };
      // Paired before (replaced, or stopped): it connects without a QR; answer how it went, as a gateway would.
      const settled = await waiters.wait(
        SESSION_CHANGED,
        channelId,
        async () => {
          const now = await readSession(db, channelId);
          return now && now.state !== 'STARTING' && now.state !== 'STOPPED' ? now.state : undefined;
        },
        options.qrWaitMs,
      );
      return { ok: true, value: { status: settled ?? 'STARTING' } };
    },

    async getQr(channelId) {
      const found = await waiters.wait(SESSION_CHANGED, channelId, async () => currentQr(await readSession(db, channelId)), options.qrWaitMs);
      return found ?? notRunning(`the session has not shown a QR code within ${Math.round(options.qrWaitMs / 1000)} s; try again shortly`);
    },

    async requestPairingCode(channelId, phone) {
      const result = await command(channelId, 'pairing_code', { phone });
      if (!result.ok) return result;
      const value = result.value as { code: string; expiresAt: string };
      return { ok: true, value: { code: value.code, expiresAt: new Date(value.expiresAt) } };
    },

    async lookupProfile(channelId, phone) {
      const result = await command(channelId, 'lookup', { phone });
      return result as Result<ProviderProfile>;
    },

    async logout(channelId) {
      const row = await readSession(db, channelId);
      if (row && hasLiveOwner(row, clock.now())) return (await command(channelId, 'logout', {})) as Result<{ status: string }>;
      // Nobody holds it: drop the credentials here, unless a holder claimed it meanwhile.
      const stopped = await db.transaction(async (tx) => {
        if (row && !(await stopUnheldSession(tx, channelId, clock.now()))) return false;
        await clearAuthState(tx, channelId);
        return true;
      });
      if (!stopped) return (await command(channelId, 'logout', {})) as Result<{ status: string }>;
      return { ok: true, value: { status: 'STOPPED' } };
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
      const phone = sessions.get(channelId)?.phone;
      return { ...(phone ? { self: { phone } } : {}), pollKey: options.pollKey, statusOf: (id) => options.statusOf(channelId, id) };
    },

    start: () => loop.start(),

    async stop({ timeoutMs }) {
      await loop.stop({ timeoutMs });
      // Sockets first, then the rows: another worker opens the session only after this one closed it.
      for (const held of [...sessions.values()]) letGo(held, 'shutting down');
      await releaseSessions(db, { owner }).catch((err: unknown) => logger.warn({ err }, 'embedded engine: could not hand the sessions back; their leases will lapse'));
    },

    wake: () => loop.wake(),
  };
}
