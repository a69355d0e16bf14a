/**
 * The engine's slots: rows in hand wait in their endpoint's queue and start while the endpoint
 * (`endpointConcurrency`) and the process (`concurrency`) have free slots, so a slow receiver cannot
 * hold up healthy ones. An attempt's end frees its slots and may ask for a claim.
 */
import { CLAIM_BATCH, claimSoon, room, type ClaimedRow, type EngineContext } from './context.ts';
import { attemptDelivery } from './attempt.ts';
import { releaseLater } from './flush.ts';

/** Takes leased rows into the endpoints' queues and starts what may start. */
export function hold(engine: EngineContext, rows: ClaimedRow[]): void {
  for (const row of rows) {
    const e = engine.endpoints.get(row.endpoint_id) ?? { running: 0, waiting: [] };
    engine.endpoints.set(row.endpoint_id, e);
    e.waiting.push(row);
    engine.waitingTotal++;
  }
  for (const endpointId of new Set(rows.map((r) => r.endpoint_id))) drain(engine, endpointId);
}

/** Starts the endpoint's waiting rows while it and the process have free slots. */
function drain(engine: EngineContext, endpointId: string): void {
  const { clock, settings } = engine.deps;
  const e = engine.endpoints.get(endpointId);
  // Stopping: what waits is given back by stop().
  if (!e || !engine.loop.isRunning()) return;
  while (e.waiting.length > 0 && e.running < settings.endpointConcurrency && engine.inflight.size < settings.concurrency) {
    const row = e.waiting.shift()!;
    engine.waitingTotal--;
    // Too little of its lease left to finish inside it: give it back rather than risk a second sender.
    if (row.leaseUntil - clock.now().getTime() < settings.timeoutMs + 1000) {
      releaseLater(engine, row.id);
      continue;
    }
    e.running++;
    start(engine, row);
  }
  if (e.running === 0 && e.waiting.length === 0) engine.endpoints.delete(endpointId);
}

function start(engine: EngineContext, row: ClaimedRow): void {
  const { logger, settings } = engine.deps;
  const controller = new AbortController();
  engine.inflight.set(row.id, controller);
  engine.loop.run(
    () =>
      attemptDelivery(engine, row, controller).catch((err: unknown) => {
        // A bug, not the receiver: leave the row to its lease.
        logger.error({ err, delivery_id: row.id }, 'webhook attempt failed unexpectedly');
      }),
    () => {
      engine.inflight.delete(row.id);
      const e = engine.endpoints.get(row.endpoint_id);
      if (e) e.running--;
      if (!engine.loop.isRunning()) return;
      drain(engine, row.endpoint_id);
      // A process-wide slot came free: another endpoint may be waiting for one.
      if (engine.waitingTotal > 0) for (const endpointId of [...engine.endpoints.keys()]) drain(engine, endpointId);
      // Claim again only when it pays: this endpoint is running short of claimed rows, or a good
      // part of the process's room is free again. Not on every completion: each claim is a query.
      const runningShort = engine.claimSkippedEndpoints && (e === undefined || e.waiting.length <= settings.endpointConcurrency / 2);
      const roomAgain = engine.claimWasFull && room(engine) >= Math.min(CLAIM_BATCH, settings.concurrency) / 2;
      if (runningShort || roomAgain) claimSoon(engine);
    },
  );
}
