/**
 * One pass of the session manager (worker role): renews leases running short, claims wanted sessions
 * nobody holds, opens the sockets due, runs the commands asked of the sessions it holds.
 */
import { claimSessions } from '../sessions.ts';
import { MAX_SESSIONS, type EngineContext } from './context.ts';
import { runCommands } from './commands.ts';
import { openSocket } from './open-socket.ts';
import { renewHeld } from './renew.ts';
import { refreshSettings } from './settings.ts';

/** Resolves true when the claim took all the room there was (more sessions may be waiting). */
export async function managerPass(engine: EngineContext): Promise<boolean> {
  const { sessions, db, owner, ttlMs, loop } = engine;
  const { clock, logger, socketFactory } = engine.options;
  const now = clock.now();
  // A lease judged by a clock that moved on (or a renewal that came late) is renewed first.
  if ([...sessions.values()].some((h) => h.leaseUntil.getTime() - now.getTime() < ttlMs / 2)) await renewHeld(engine);
  const room = MAX_SESSIONS - sessions.size;
  const claimed = socketFactory ? await claimSessions(db, { owner, now, ttlMs, limit: room, held: [...sessions.keys()] }) : [];
  for (const row of claimed) {
    sessions.set(row.channelId, {
      channelId: row.channelId,
      ref: row.ref,
      settings: row.settings,
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
    loop.run(() => openSocket(engine, held));
  }
  await refreshSettings(engine);
  await runCommands(engine);
  return claimed.length > 0 && claimed.length === room;
}
