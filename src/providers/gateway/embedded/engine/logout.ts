/** Logging a session out, from any process: its holder does it; with none, the credentials are dropped here. */
import type { Result } from '../../../provider.ts';
import { clearAuthState } from '../auth-state.ts';
import { hasLiveOwner, readSession, stopUnheldSession } from '../sessions.ts';
import { askHolder } from './ask.ts';
import type { EngineContext } from './context.ts';

export async function logout(engine: EngineContext, channelId: string): Promise<Result<{ status: string }>> {
  const { db } = engine;
  const { clock } = engine.options;
  const row = await readSession(db, channelId);
  if (row && hasLiveOwner(row, clock.now())) return (await askHolder(engine, channelId, 'logout', {})) as Result<{ status: string }>;
  // Nobody holds it: drop the credentials here, unless a holder claimed it meanwhile.
  const stopped = await db.transaction(async (tx) => {
    if (row && !(await stopUnheldSession(tx, channelId, clock.now()))) return false;
    await clearAuthState(tx, channelId);
    return true;
  });
  if (!stopped) return (await askHolder(engine, channelId, 'logout', {})) as Result<{ status: string }>;
  return { ok: true, value: { status: 'STOPPED' } };
}
