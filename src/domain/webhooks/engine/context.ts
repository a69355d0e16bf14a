/**
 * The delivery engine's state, shared by its steps (engine.ts puts them together): what it holds in
 * hand (rows claimed, attempts in flight, outcomes not yet written) and what its loop was asked for.
 */
import type { LeaseLoop } from '../../../lib/lease-loop.ts';
import type { Logger } from '../../../lib/logger.ts';
import type { WebhookDeps } from '../deps.ts';
import type { LeasedDelivery, SequencedHook } from '../dispatch.ts';

/** What became of a delivery after an attempt: succeeded, retry (another attempt is scheduled), failed (final), skipped (none was made). */
export type DeliveryOutcome = 'succeeded' | 'retry' | 'failed' | 'skipped';
export type AttemptRecorder = { attempt(endpointId: string, outcome: DeliveryOutcome, seconds: number | null): void };

/** `recorder`: told of every attempt's outcome (the metrics); `onSequenced`: the events' other consumers (automations). */
export type WebhookEngineDeps = WebhookDeps & { logger: Logger; recorder?: AttemptRecorder; onSequenced?: SequencedHook };

/** Deliveries claimed per query at most. */
export const CLAIM_BATCH = 200;
/** Outcomes written per statement at most, and how long one waits for company. */
export const FLUSH_BATCH = 200;
export const FLUSH_DELAY_MS = 10;

export type ClaimedRow = LeasedDelivery & {
  /** When this worker's lease on it ends (ms since the epoch). */
  leaseUntil: number;
};

export type Outcome = {
  delivery_id: string;
  attempt_id: string;
  organization_id: string;
  endpoint_id: string;
  trigger: 'scheduled' | 'manual';
  test: boolean;
  /** No attempt was made (the endpoint was disabled, the event is gone): only the delivery changes. */
  skipped: boolean;
  succeeded: boolean;
  attempted_at: string | null;
  status_code: number | null;
  duration_ms: number | null;
  response_body: string | null;
  error: string | null;
  status: 'pending' | 'succeeded' | 'failed';
  attempts: number;
  next_attempt_at: string | null;
};

export type EngineState = {
  wantDispatch: boolean;
  /** The dispatch was asked for by a poll, not a NOTIFY: look before opening a transaction. */
  dispatchProbe: boolean;
  wantClaim: boolean;
  /** The last claim took all it could (more rows may be due), or some endpoint took its whole share. */
  claimWasFull: boolean;
  claimSkippedEndpoints: boolean;
  /** Attempts in flight, by delivery. */
  inflight: Map<string, AbortController>;
  /**
   * Per endpoint: attempts in flight, and claimed rows waiting for a slot. A claim takes up to twice
   * the endpoint's limit, so the next attempt starts the moment one ends, without a query between;
   * what waits is at most one limit's worth, so it starts within one timeout, well inside its lease.
   */
  endpoints: Map<string, { running: number; waiting: ClaimedRow[] }>;
  waitingTotal: number;
  /** Outcomes and lease releases waiting to be written (flush.ts). */
  outcomes: Outcome[];
  releases: string[];
  flushing: Promise<void> | undefined;
  flushAgain: boolean;
  flushTimer: NodeJS.Timeout | undefined;
  /** The timer of the soonest retry due before the next poll (record.ts). */
  dueTimer: NodeJS.Timeout | undefined;
  dueAt: number;
  /** Opened signing secrets, by their sealed form. */
  secretCache: Map<string, string>;
};

export type EngineContext = EngineState & {
  deps: WebhookEngineDeps;
  /** The database handle of `deps.database`. */
  db: WebhookEngineDeps['database']['db'];
  workerId: string;
  /** How long a lease lasts: an attempt lasts at most timeoutMs; the margin covers writing its outcome. */
  leaseMs: number;
  loop: LeaseLoop;
};

export function initialEngineState(): EngineState {
  return {
    wantDispatch: false,
    dispatchProbe: false,
    wantClaim: false,
    claimWasFull: false,
    claimSkippedEndpoints: false,
    inflight: new Map(),
    endpoints: new Map(),
    waitingTotal: 0,
    outcomes: [],
    releases: [],
    flushing: undefined,
    flushAgain: false,
    flushTimer: undefined,
    dueTimer: undefined,
    dueAt: Infinity,
    secretCache: new Map(),
  };
}

/** How many more rows a claim may take: up to twice the concurrency held in all. */
export const room = (engine: EngineContext) => 2 * engine.deps.settings.concurrency - engine.inflight.size - engine.waitingTotal;

/** Asks for a claim, now instead of at the next poll. */
export function claimSoon(engine: EngineContext): void {
  engine.wantClaim = true;
  engine.loop.wake();
}

/** A signing secret in the clear, opened once per sealed form. */
export function openSecret(engine: EngineContext, sealed: string): string {
  let plain = engine.secretCache.get(sealed);
  if (plain === undefined) {
    if (engine.secretCache.size > 1000) engine.secretCache.clear();
    plain = engine.deps.sealer.open(sealed);
    engine.secretCache.set(sealed, plain);
  }
  return plain;
}
