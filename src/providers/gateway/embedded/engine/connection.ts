/** A held socket's connection updates: a QR to show, the pairing done (open), the connection closed (close.ts). */
import { phoneOfJid } from '../ids.ts';
import type { EngineSocket, SocketEvents } from '../socket.ts';
import { onClose } from './close.ts';
import { FIRST_QR_MS, NEXT_QR_MS, type EngineContext, type Held } from './context.ts';
import { writeHeld } from './hold.ts';
import { report, statusEvent } from './report.ts';
import { showPresence } from './settings.ts';

export async function onConnection(
  engine: EngineContext,
  held: Held,
  socket: EngineSocket,
  update: SocketEvents['connection.update'],
): Promise<void> {
  const { clock, sealer } = engine.options;
  const now = clock.now();
  if (update.qr) {
    held.qrs++;
    held.qrExpiresAt = new Date(now.getTime() + (held.qrs === 1 ? FIRST_QR_MS : NEXT_QR_MS));
    await writeHeld(engine, held, { state: 'SCAN_QR', qrSealed: sealer.seal(update.qr), qrExpiresAt: held.qrExpiresAt });
    if (held.qrs === 1)
      await report(engine, held, [
        statusEvent(engine, held, 'pairing', 'waiting for the phone to scan the QR code or type the pairing code', 'SCAN_QR'),
      ]);
  }
  if (update.connection === 'open') {
    const phone = phoneOfJid(socket.user?.id) ?? held.auth?.state.creds.me?.id.split(/[:@]/)[0] ?? '';
    const name = socket.user?.name ?? held.auth?.state.creds.me?.name;
    Object.assign(held, { paired: true, phone, lid: socket.user?.lid, reconnectAttempts: 0, nextReconnectAt: null });
    await writeHeld(engine, held, {
      state: 'WORKING',
      qrSealed: null,
      qrExpiresAt: null,
      phone,
      pushName: name ?? null,
      reconnectAttempts: 0,
      nextReconnectAt: null,
      disconnectReason: null,
      disconnectCode: null,
      disconnectCause: null,
    });
    await report(engine, held, [
      statusEvent(engine, held, 'connected', `paired with +${phone}${name ? ` (${name})` : ''}`, 'WORKING', { phone }),
    ]);
    if (held.settings.alwaysOnline) await showPresence(engine, held);
  }
  if (update.connection === 'close' && held.socket === socket) {
    held.socket = undefined;
    held.closing = true;
    try {
      await onClose(engine, held, update.lastDisconnect?.error);
    } finally {
      held.closing = false;
    }
  }
}
