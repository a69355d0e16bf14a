/**
 * A held socket's connection closed: where that leaves the session, by what kept it from the service
 * (network-failures.ts: the network's errors hide behind the library's status codes) or else by the
 * library's DisconnectReason.
 */
import { networkFailureOf } from '../network-failures.ts';
import type { EngineContext, Held } from './context.ts';
import { endSession, writeHeld } from './hold.ts';
import { report, statusEvent } from './report.ts';

/** The disconnect reason's status code (the library's errors carry a Boom-like `output.statusCode`). */
function statusCodeOf(error: unknown): number | undefined {
  const code = (error as { output?: { statusCode?: unknown } } | undefined)?.output?.statusCode;
  return typeof code === 'number' ? code : undefined;
}

/** Where a closed connection leaves the session: the network kept it from the service, or the library's DisconnectReason says. */
type CloseOutcome = 'unreachable' | 'logged_out' | 'replaced' | 'forbidden' | 'refused' | 'restart' | 'pairing_ended' | 'lost';

function closeOutcome(code: number | undefined, paired: boolean): CloseOutcome {
  switch (code) {
    case 401:
      return 'logged_out';
    case 440:
      return 'replaced';
    case 403:
      return 'forbidden';
    // Logged out in another way: the multi-device credentials are not accepted (the library's multideviceMismatch).
    case 411:
      return 'refused';
    // 500 (badSession) is also what the library makes of any stream error without a known reason
    // (Utils/generics.js getErrorCodeFromStreamError) and of a failure node without one: a passing
    // fault, so it reconnects with the credentials kept (below, as any other lost connection).
    case 515:
      return 'restart';
    case 408:
      // An unpaired session times out when its QRs ran out: nobody scanned.
      return paired ? 'lost' : 'pairing_ended';
    default:
      return 'lost';
  }
}

export async function onClose(engine: EngineContext, held: Held, error: unknown): Promise<void> {
  const { logger } = engine.options;
  const code = statusCodeOf(error);
  const detail = `${(error as Error | undefined)?.message ?? 'connection closed'}${code ? ` (${code})` : ''}`;
  const disconnect = (cause: string) => ({ disconnectReason: detail.slice(0, 500), disconnectCode: code ?? null, disconnectCause: cause });
  // Before the status code: a network error is 408 (as when the QRs ran out) or 500 (as a stream error) to the library.
  const network = networkFailureOf(error);
  const outcome = network ? 'unreachable' : closeOutcome(code, held.paired);
  if (network) logger.warn({ channel_id: held.channelId, code, outcome, cause: network.cause }, `embedded engine: ${network.explanation}`);
  else logger.info({ channel_id: held.channelId, code, outcome }, 'embedded engine: connection closed');
  switch (outcome) {
    case 'unreachable':
      return reconnectLater(engine, held, { reason: network!.explanation, cause: network!.cause, code });
    case 'logged_out':
      await held.auth?.clear();
      await endSession(engine, held, { state: 'STOPPED', ...disconnect('logged_out') }, 'logged out on the phone');
      return report(engine, held, [
        statusEvent(
          engine,
          held,
          'disconnected',
          'logged out on the phone; the credentials were dropped: connect to pair again',
          'logged_out',
        ),
      ]);
    case 'replaced':
      await endSession(engine, held, { state: 'STOPPED', ...disconnect('connection_replaced') }, 'replaced by another session');
      return report(engine, held, [
        statusEvent(
          engine,
          held,
          'disconnected',
          'replaced by another session of this account (opened elsewhere); connect to take it back',
          'connection_replaced',
        ),
      ]);
    case 'forbidden':
      await endSession(engine, held, { state: 'FAILED', ...disconnect('forbidden') }, 'forbidden');
      return report(engine, held, [
        statusEvent(engine, held, 'error', `the account is banned or not allowed to connect: ${detail}`, 'forbidden'),
      ]);
    case 'refused':
      await held.auth?.clear();
      await endSession(engine, held, { state: 'FAILED', ...disconnect('credentials_refused') }, 'credentials refused');
      return report(engine, held, [
        statusEvent(
          engine,
          held,
          'error',
          `the service does not accept this linked device's credentials (${detail}); they were dropped: connect to pair again`,
          'credentials_refused',
        ),
      ]);
    case 'pairing_ended':
      await endSession(engine, held, { state: 'STOPPED', ...disconnect('pairing_timed_out') }, 'pairing timed out');
      return report(engine, held, [
        statusEvent(engine, held, 'disconnected', 'no phone scanned the QR code in time; connect to try again', 'pairing_timed_out'),
      ]);
    case 'restart':
      // Normal right after pairing: the library asks for a new connection with the new creds.
      held.nextReconnectAt = null;
      engine.loop.wake();
      return;
    case 'lost':
      return reconnectLater(engine, held, { reason: `connection lost: ${detail}`, cause: 'connection_lost', code });
    default:
      return outcome satisfies never;
  }
}

/**
 * The session stays wanted and the holder opens a new socket after a wait: base * 2^(attempt-1), at
 * most max. The channel shows why, the attempt and its time (status reason, health).
 */
async function reconnectLater(
  engine: EngineContext,
  held: Held,
  close: { reason: string; cause: string; code: number | undefined },
): Promise<void> {
  const { clock, reconnect } = engine.options;
  const attempt = held.reconnectAttempts + 1;
  const cap = Math.min(reconnect.maxMs, reconnect.baseMs * 2 ** Math.min(attempt - 1, 30));
  // Full jitter over the upper half: sessions dropped together do not come back together.
  const delayMs = Math.round(cap / 2 + (Math.random() * cap) / 2);
  const next = new Date(clock.now().getTime() + delayMs);
  held.reconnectAttempts = attempt;
  held.nextReconnectAt = next;
  await writeHeld(engine, held, {
    state: 'STOPPED',
    reconnectAttempts: attempt,
    nextReconnectAt: next,
    disconnectReason: close.reason.slice(0, 500),
    disconnectCode: close.code ?? null,
    disconnectCause: close.cause,
  });
  return report(engine, held, [
    statusEvent(engine, held, 'disconnected', `${close.reason}; reconnect attempt ${attempt} at ${next.toISOString()}`, close.cause, {
      reconnectAttempts: attempt,
      nextRetryAt: next,
    }),
  ]);
}
