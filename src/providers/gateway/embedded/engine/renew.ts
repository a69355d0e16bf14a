/** Renewing the leases of the sessions this process holds; one lost or no longer wanted is let go at once. */
import { releaseSessions, renewLeases } from '../sessions.ts';
import type { EngineContext } from './context.ts';
import { letGo } from './hold.ts';

export async function renewHeld(engine: EngineContext): Promise<void> {
  const { sessions, db, owner, ttlMs } = engine;
  const { clock, logger } = engine.options;
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
      if (held && held.leaseUntil.getTime() <= clock.now().getTime()) letGo(engine, held, 'lease lapsed while it could not be renewed');
    }
    return;
  }
  const byId = new Map(kept.map((k) => [k.channelId, k.wanted]));
  const unwanted: string[] = [];
  for (const id of ids) {
    const held = sessions.get(id);
    if (!held) continue;
    if (!byId.has(id)) letGo(engine, held, 'lease lost to another process (or the channel is gone)');
    else if (byId.get(id) === false) {
      letGo(engine, held, 'no longer wanted');
      unwanted.push(id);
    } else held.leaseUntil = new Date(now.getTime() + ttlMs);
  }
  if (unwanted.length)
    await releaseSessions(db, { owner, channelIds: unwanted }).catch((err: unknown) =>
      logger.warn({ err }, 'embedded engine: could not hand sessions back'),
    );
}
