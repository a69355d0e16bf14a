/** Pairing, from any process: starting a session, its QR, a pairing code (asked of the holder). */
import type { PairingCode, QrCode, Result } from '../../../provider.ts';
import { loadCreds } from '../auth-state.ts';
import { SESSION_CHANGED, readSession, wantSession, type SessionRow } from '../sessions.ts';
import { askHolder } from './ask.ts';
import { notRunning, type EngineContext } from './context.ts';

export async function startPairing(engine: EngineContext, channelId: string): Promise<Result<{ status: string }>> {
  const { db, waiters, loop, options } = engine;
  const { sealer, clock } = options;
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
}

export async function getQr(engine: EngineContext, channelId: string): Promise<Result<QrCode>> {
  const { qrWaitMs } = engine.options;
  const found = await engine.waiters.wait(
    SESSION_CHANGED,
    channelId,
    async () => currentQr(engine, await readSession(engine.db, channelId)),
    qrWaitMs,
  );
  return found ?? notRunning(`the session has not shown a QR code within ${Math.round(qrWaitMs / 1000)} s; try again shortly`);
}

function currentQr(engine: EngineContext, row: SessionRow | undefined): Result<QrCode> | undefined {
  const { sealer, clock } = engine.options;
  if (!row?.wanted)
    return {
      ok: false,
      error: { code: 'session_stopped', title: 'the session is not started: connect the channel first', retryable: false },
    };
  if (row.state === 'WORKING')
    return { ok: false, error: { code: 'already_paired', title: 'the session is paired already', retryable: false } };
  const retryIn = row.state === 'STOPPED' && row.nextReconnectAt ? row.nextReconnectAt.getTime() - clock.now().getTime() : 0;
  // Waiting to try again (the network kept the socket from the service, or it lost the connection): say why, and when.
  if (retryIn > 0)
    return {
      ok: false,
      error: {
        code: row.disconnectCause ?? 'session_reconnecting',
        title: `no QR code: ${row.disconnectReason ?? 'the connection closed'}; the engine tries again at ${row.nextReconnectAt!.toISOString()}`,
        retryable: true,
        retryAfterSeconds: Math.ceil(retryIn / 1000),
      },
    };
  if (row.qrSealed && row.qrExpiresAt && row.qrExpiresAt.getTime() > clock.now().getTime())
    return { ok: true, value: { qr: sealer.open(row.qrSealed), expiresAt: row.qrExpiresAt } };
  return undefined;
}

export async function requestPairingCode(engine: EngineContext, channelId: string, phone: string): Promise<Result<PairingCode>> {
  const result = await askHolder(engine, channelId, 'pairing_code', { phone });
  if (!result.ok) return result;
  const value = result.value as { code: string; expiresAt: string };
  return { ok: true, value: { code: value.code, expiresAt: new Date(value.expiresAt) } };
}
