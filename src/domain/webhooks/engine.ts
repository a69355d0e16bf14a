/**
 * The delivery engine (worker role). Each webhook_deliveries row is its own job: the engine holds
 * rows under a lease (`locked_until`, `locked_by`): the new deliveries it dispatches itself, and due
 * rows it claims (FOR UPDATE SKIP LOCKED, so any number of workers share the table). It sends each as
 * an independent request and writes the outcomes back in small batches. A worker that dies
 * mid-attempt leaves its rows leased; when the lease lapses any worker claims them again, with the
 * same webhook-id (at least once).
 *
 * Slow receivers cannot hold up healthy ones: every attempt runs on its own, at most
 * `endpointConcurrency` to one endpoint and `concurrency` in all per process, and a claim skips
 * endpoints that are at their limit.
 *
 * Wake-ups: a NOTIFY on the events channel (sent inside each event's transaction, so it arrives at
 * commit) starts a dispatch; a NOTIFY on the deliveries channel (dispatch elsewhere, a manual retry)
 * or a retry falling due starts a claim. Polling every `pollIntervalMs` is the floor. The waking,
 * pausing while the database is down and stopping are the shared lease loop's (src/lib/lease-loop.ts).
 */
import { randomUUID } from 'node:crypto';
import { createLeaseLoop } from '../../lib/lease-loop.ts';
import { EVENTS_CHANNEL } from '../events/outbox.ts';
import { DELIVERIES_CHANNEL } from './deps.ts';
import { claimDue } from './engine/claim.ts';
import { initialEngineState, room, type EngineContext, type WebhookEngineDeps } from './engine/context.ts';
import { dispatchAndLease } from './engine/dispatch.ts';
import { flush } from './engine/flush.ts';

export type { AttemptRecorder, DeliveryOutcome, WebhookEngineDeps } from './engine/context.ts';

export type WebhookEngine = {
  start(): Promise<void>;
  /** Stops claiming; graceful waits up to timeoutMs / 2 for attempts in flight, then aborts them (their leases are released). */
  stop(options: { graceful: boolean; timeoutMs: number }): Promise<void>;
  /** Attempts in flight now (for tests and benchmarks). */
  inFlight(): number;
};

/**
 * The steps, one file each under engine/: dispatch.ts (events -> deliveries leased here), claim.ts
 * (due rows), slots.ts (per-endpoint and process-wide slots), attempt.ts (sign and send), record.ts
 * (what the attempt means, the next one's time), flush.ts + write-outcomes.ts (batched writes),
 * disable.ts (an endpoint failing for too long); context.ts holds the state they share.
 */
export function createWebhookEngine(deps: WebhookEngineDeps): WebhookEngine {
  const { database, logger, settings } = deps;
  const engine: EngineContext = {
    ...initialEngineState(),
    deps,
    db: database.db,
    workerId: randomUUID(),
    // An attempt lasts at most timeoutMs; the margin covers writing its outcome.
    leaseMs: 2 * settings.timeoutMs + 5000,
    loop: createLeaseLoop({
      name: 'webhook engine',
      database,
      channels: [
        { channel: EVENTS_CHANNEL, onNotify: () => (engine.wantDispatch = true) },
        { channel: DELIVERIES_CHANNEL, onNotify: () => (engine.wantClaim = true) },
      ],
      pollMs: settings.pollIntervalMs,
      onPoll() {
        if (!engine.wantDispatch) engine.dispatchProbe = true;
        engine.wantDispatch = true;
        engine.wantClaim = true;
      },
      // Dispatch and claim take turns, so a stream of events cannot keep deliveries from starting.
      async pass() {
        if (engine.wantDispatch) {
          engine.wantDispatch = false;
          const probe = engine.dispatchProbe;
          engine.dispatchProbe = false;
          await dispatchAndLease(engine, probe);
        }
        if (engine.loop.isRunning() && engine.wantClaim && room(engine) > 0) {
          engine.wantClaim = false;
          await claimDue(engine);
        }
        return engine.wantDispatch || (engine.wantClaim && room(engine) > 0);
      },
      onListenError: (err) =>
        logger.warn({ err }, `webhook engine: LISTEN failed; events are picked up by polling every ${settings.pollIntervalMs} ms`),
      logger,
    }),
  };
  const { loop } = engine;

  return {
    start: () => loop.start(),
    async stop({ graceful, timeoutMs }) {
      if (!loop.isRunning()) return;
      clearTimeout(engine.dueTimer);
      // Half the shutdown time at most: the job queue stops after this, within the same budget.
      await loop.stop({
        timeoutMs: graceful ? timeoutMs / 2 : 0,
        abort: () => {
          for (const controller of engine.inflight.values()) controller.abort();
        },
      });
      // Rows claimed but never started go back at once.
      for (const e of engine.endpoints.values()) engine.releases.push(...e.waiting.map((r) => r.id));
      engine.endpoints.clear();
      engine.waitingTotal = 0;
      clearTimeout(engine.flushTimer);
      engine.flushTimer = undefined;
      await flush(engine).catch((err: unknown) => logger.error({ err }, 'could not record the last webhook attempts'));
    },
    inFlight: () => engine.inflight.size,
  };
}
