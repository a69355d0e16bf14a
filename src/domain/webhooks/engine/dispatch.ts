/**
 * The engine's dispatch step: dispatches committed events, leasing the new deliveries to this engine
 * up to each endpoint's share: their first attempts start as soon as the transaction commits, with no
 * claim between.
 */
import { DISPATCH_BATCH, dispatchEvents } from '../dispatch.ts';
import { room, type EngineContext } from './context.ts';
import { hold } from './slots.ts';

export async function dispatchAndLease(engine: EngineContext, probe: boolean): Promise<void> {
  const { database, clock, settings } = engine.deps;
  const perEndpointHold = 2 * settings.endpointConcurrency;
  const reserved = new Map<string, number>();
  let roomLeft = room(engine);
  const take = (endpointId: string) => {
    const e = engine.endpoints.get(endpointId);
    const held = (e ? e.running + e.waiting.length : 0) + (reserved.get(endpointId) ?? 0);
    if (roomLeft <= 0 || held >= perEndpointHold) return false;
    reserved.set(endpointId, (reserved.get(endpointId) ?? 0) + 1);
    roomLeft--;
    return true;
  };
  const until = new Date(clock.now().getTime() + engine.leaseMs);
  const result = await dispatchEvents(database, clock, {
    limit: DISPATCH_BATCH,
    firstDelayMs: settings.retrySchedule[0] ?? 0,
    probe,
    lease: { workerId: engine.workerId, until, take },
    onSequenced: engine.deps.onSequenced,
  });
  if (result.events === DISPATCH_BATCH) engine.wantDispatch = true;
  // Some were left for claiming (endpoints at their share, or a first delay): claim them when due.
  if (result.deliveries > result.leased.length) engine.wantClaim = true;
  hold(
    engine,
    result.leased.map((row) => ({ ...row, leaseUntil: until.getTime() })),
  );
}
