/**
 * The embedded engine's state, shared by its steps (engine.ts puts them together): the options the
 * container passes, the sessions this process holds, and the session manager's loop.
 */
import type { Database } from '../../../../db/client.ts';
import type { Clock } from '../../../../lib/clock.ts';
import type { Sealer } from '../../../../lib/crypto.ts';
import type { LeaseLoop } from '../../../../lib/lease-loop.ts';
import type { Logger } from '../../../../lib/logger.ts';
import type { InboundEvent, ProviderError } from '../../../provider.ts';
import type { PostgresAuthState } from '../auth-state.ts';
import type { GroupCache } from '../group-cache.ts';
import type { ProfileMemory } from '../profiles.ts';
import type { StoredMessage } from '../outbound-keys.ts';
import type { EngineSocket, SocketFactory } from '../socket.ts';
import type { SessionSettings } from '../sessions.ts';
import type { NotifyWaiters } from '../waiters.ts';

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
  /** What Parley holds of one of a channel's messages by its provider id (a quote's content, a group message's sender). */
  messageOf(channelId: string, providerMessageId: string): Promise<StoredMessage | undefined>;
  /** The engine's poll key (32 bytes, the same after a restart): votes on polls Parley sent are read with it. */
  pollKey: Uint8Array;
};

/** NOTIFY channels of the commands: one was asked (payload: channel id), one was answered (payload: command id). */
export const COMMAND_ASKED = 'channel_session_command';
export const COMMAND_DONE = 'channel_session_command_done';

/** The first QR of a socket lasts a minute, the ones after it 20 s (the library's own timings). */
export const FIRST_QR_MS = 60_000;
export const NEXT_QR_MS = 20_000;
/** Sessions one worker process holds at most. */
export const MAX_SESSIONS = 500;

/** What only the session's holder can do, asked of it through a durable command (any process asks, ask.ts; the holder runs it, commands.ts). */
export type CommandKind = 'pairing_code' | 'lookup' | 'logout' | 'profile' | 'group' | 'presence' | 'settings' | 'label' | 'chat';

/** A session this process holds. */
export type Held = {
  channelId: string;
  ref: string;
  /** The channel's settings the engine honours: read when claimed, when they change (a command) and on each pass of the manager (settings.ts). */
  settings: SessionSettings;
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
  /** The library's group metadata cache of this session (group-cache.ts), kept across its sockets. */
  groupCache?: GroupCache;
  /** Messages kept (session-messages.ts) since the last prune. */
  remembered?: number;
  /** Push names and ringing calls the session saw (profiles.ts), kept across its sockets. */
  profile?: ProfileMemory;
};

/** The session's profile memory, made on first use. */
export const profileMemoryOf = (held: Held): ProfileMemory => (held.profile ??= { pushNames: new Map(), calls: new Map() });

export type EngineContext = {
  options: EmbeddedEngineOptions;
  db: EmbeddedEngineOptions['database']['db'];
  /** This process's id: the owner written on the sessions it holds. */
  owner: string;
  ttlMs: number;
  /** The sessions this process holds, by channel. */
  sessions: Map<string, Held>;
  waiters: NotifyWaiters;
  /** The session manager (worker role). */
  loop: LeaseLoop;
};

export const notRunning = (title: string): { ok: false; error: ProviderError } => ({
  ok: false,
  error: { code: 'session_not_running', title, retryable: true },
});
