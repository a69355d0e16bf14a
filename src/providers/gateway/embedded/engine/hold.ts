/** The holder's hold on a session: its work in order, its fenced row writes, letting it go and ending it. */
import { LeaseLostError } from '../auth-state.ts';
import { releaseSessions, updateHeldSession } from '../sessions.ts';
import type { EngineContext, Held } from './context.ts';

/** Closes a session's socket at once and forgets it (its lease is lost, or it is handed back): no more writes. */
export function letGo(engine: EngineContext, held: Held, why: string): void {
  if (engine.sessions.get(held.channelId) !== held) return;
  engine.sessions.delete(held.channelId);
  held.generation++;
  const socket = held.socket;
  held.socket = undefined;
  engine.options.logger.info({ channel_id: held.channelId, why }, 'embedded engine: session socket closed');
  if (socket) void Promise.resolve(socket.end(undefined)).catch(() => undefined);
}

/** Runs work after the session's earlier work (socket events and writes, one at a time and in order). */
export function enqueue(engine: EngineContext, held: Held, work: () => Promise<void>): Promise<void> {
  const next = held.chain.then(work).catch((err: unknown) => {
    if (err instanceof LeaseLostError) return letGo(engine, held, 'lease lost');
    engine.options.logger.error({ err, channel_id: held.channelId }, 'embedded engine: session event failed');
  });
  held.chain = next;
  return next;
}

export type HeldSessionSet = Parameters<typeof updateHeldSession>[2];

/** The holder's fenced write of its session row. */
export const writeHeld = (engine: EngineContext, held: Held, set: HeldSessionSet) =>
  updateHeldSession(engine.db, { channelId: held.channelId, owner: engine.owner, now: engine.options.clock.now() }, set);

/** A session that ends (not wanted any more): row written, handed back, socket closed. */
export async function endSession(engine: EngineContext, held: Held, set: HeldSessionSet, why: string): Promise<void> {
  await writeHeld(engine, held, { wanted: false, qrSealed: null, qrExpiresAt: null, nextReconnectAt: null, ...set });
  letGo(engine, held, why);
  await releaseSessions(engine.db, { owner: engine.owner, channelIds: [held.channelId] });
}
