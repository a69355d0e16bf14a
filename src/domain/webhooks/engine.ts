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
import { sql } from 'drizzle-orm';
import { queryRows } from '../../db/client.ts';
import { uuidv7 } from '../../lib/ids.ts';
import { createLeaseLoop } from '../../lib/lease-loop.ts';
import type { Logger } from '../../lib/logger.ts';
import { EVENTS_CHANNEL } from '../events/outbox.ts';
import { DELIVERIES_CHANNEL, type WebhookDeps } from './deps.ts';
import { DISPATCH_BATCH, dispatchEvents, type LeasedDelivery } from './dispatch.ts';
import { failPendingDeliveries, signingSecrets } from './endpoints.ts';
import { nextAttemptDelay } from './schedule.ts';
import { sendWebhook, type AttemptOutcome } from './send.ts';
import { batchRows } from '../../db/batch-rows.ts';

export type WebhookEngine = {
  start(): Promise<void>;
  /** Stops claiming; graceful waits up to timeoutMs / 2 for attempts in flight, then aborts them (their leases are released). */
  stop(options: { graceful: boolean; timeoutMs: number }): Promise<void>;
  /** Attempts in flight now (for tests and benchmarks). */
  inFlight(): number;
};

/** What became of a delivery after an attempt: succeeded, retry (another attempt is scheduled), failed (final), skipped (none was made). */
export type DeliveryOutcome = 'succeeded' | 'retry' | 'failed' | 'skipped';
export type AttemptRecorder = { attempt(endpointId: string, outcome: DeliveryOutcome, seconds: number | null): void };

/** `recorder`: told of every attempt's outcome (the metrics); optional. */
export type WebhookEngineDeps = WebhookDeps & { logger: Logger; recorder?: AttemptRecorder };

/** Deliveries claimed per query at most. */
const CLAIM_BATCH = 200;
/** Outcomes written per statement at most, and how long one waits for company. */
const FLUSH_BATCH = 200;
const FLUSH_DELAY_MS = 10;

type ClaimedRow = LeasedDelivery & {
  /** When this worker's lease on it ends (ms since the epoch). */
  leaseUntil: number;
};

type Outcome = {
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

export function createWebhookEngine(deps: WebhookEngineDeps): WebhookEngine {
  const { database, clock, logger, settings, sealer } = deps;
  const db = database.db;
  const workerId = randomUUID();
  // An attempt lasts at most timeoutMs; the margin covers writing its outcome.
  const leaseMs = 2 * settings.timeoutMs + 5000;
  const retry = { schedule: settings.retrySchedule, jitter: settings.retryJitter };

  let wantDispatch = false;
  /** The dispatch was asked for by a poll, not a NOTIFY: look before opening a transaction. */
  let dispatchProbe = false;
  let wantClaim = false;
  /** The last claim took all it could (more rows may be due), or some endpoint took its whole share. */
  let claimWasFull = false;
  let claimSkippedEndpoints = false;
  /** Attempts in flight, by delivery. */
  const inflight = new Map<string, AbortController>();
  /**
   * Per endpoint: attempts in flight, and claimed rows waiting for a slot. A claim takes up to twice
   * the endpoint's limit, so the next attempt starts the moment one ends, without a query between;
   * what waits is at most one limit's worth, so it starts within one timeout, well inside its lease.
   */
  const endpoints = new Map<string, { running: number; waiting: ClaimedRow[] }>();
  let waitingTotal = 0;

  const outcomes: Outcome[] = [];
  const releases: string[] = [];
  let flushing: Promise<void> | undefined;
  let flushAgain = false;
  let flushTimer: NodeJS.Timeout | undefined;
  let dueTimer: NodeJS.Timeout | undefined;
  let dueAt = Infinity;

  const secretCache = new Map<string, string>();
  const open = (sealed: string) => {
    let plain = secretCache.get(sealed);
    if (plain === undefined) {
      if (secretCache.size > 1000) secretCache.clear();
      plain = sealer.open(sealed);
      secretCache.set(sealed, plain);
    }
    return plain;
  };

  /** How many more rows a claim may take: up to twice the concurrency held in all. */
  const room = () => 2 * settings.concurrency - inflight.size - waitingTotal;

  const loop = createLeaseLoop({
    name: 'webhook engine',
    database,
    channels: [
      { channel: EVENTS_CHANNEL, onNotify: () => (wantDispatch = true) },
      { channel: DELIVERIES_CHANNEL, onNotify: () => (wantClaim = true) },
    ],
    pollMs: settings.pollIntervalMs,
    onPoll() {
      if (!wantDispatch) dispatchProbe = true;
      wantDispatch = true;
      wantClaim = true;
    },
    // Dispatch and claim take turns, so a stream of events cannot keep deliveries from starting.
    async pass() {
      if (wantDispatch) {
        wantDispatch = false;
        const probe = dispatchProbe;
        dispatchProbe = false;
        await dispatch(probe);
      }
      if (loop.isRunning() && wantClaim && room() > 0) {
        wantClaim = false;
        await claim();
      }
      return wantDispatch || (wantClaim && room() > 0);
    },
    onListenError: (err) => logger.warn({ err }, `webhook engine: LISTEN failed; events are picked up by polling every ${settings.pollIntervalMs} ms`),
    logger,
  });

  /** Asks for a claim, now instead of at the next poll. */
  const claimSoon = () => {
    wantClaim = true;
    loop.wake();
  };

  /**
   * Dispatches committed events, leasing the new deliveries to this engine up to each endpoint's
   * share: their first attempts start as soon as the transaction commits, with no claim between.
   */
  async function dispatch(probe: boolean): Promise<void> {
    const perEndpointHold = 2 * settings.endpointConcurrency;
    const reserved = new Map<string, number>();
    let roomLeft = room();
    const take = (endpointId: string) => {
      const e = endpoints.get(endpointId);
      const held = (e ? e.running + e.waiting.length : 0) + (reserved.get(endpointId) ?? 0);
      if (roomLeft <= 0 || held >= perEndpointHold) return false;
      reserved.set(endpointId, (reserved.get(endpointId) ?? 0) + 1);
      roomLeft--;
      return true;
    };
    const until = new Date(clock.now().getTime() + leaseMs);
    const result = await dispatchEvents(database, clock, {
      limit: DISPATCH_BATCH,
      firstDelayMs: settings.retrySchedule[0] ?? 0,
      probe,
      lease: { workerId, until, take },
    });
    if (result.events === DISPATCH_BATCH) wantDispatch = true;
    // Some were left for claiming (endpoints at their share, or a first delay): claim them when due.
    if (result.deliveries > result.leased.length) wantClaim = true;
    hold(result.leased.map((row) => ({ ...row, leaseUntil: until.getTime() })));
  }

  /** Takes leased rows into the endpoints' queues and starts what may start. */
  function hold(rows: ClaimedRow[]) {
    for (const row of rows) {
      const e = endpoints.get(row.endpoint_id) ?? { running: 0, waiting: [] };
      endpoints.set(row.endpoint_id, e);
      e.waiting.push(row);
      waitingTotal++;
    }
    for (const endpointId of new Set(rows.map((r) => r.endpoint_id))) drain(endpointId);
  }

  async function claim(): Promise<void> {
    const limit = Math.min(room(), CLAIM_BATCH);
    const perEndpointHold = 2 * settings.endpointConcurrency;
    // Endpoints already holding rows may take only what is left of their share.
    const busy: Record<string, number> = {};
    for (const [endpointId, e] of endpoints) busy[endpointId] = perEndpointHold - e.running - e.waiting.length;
    const now = clock.now();
    const lease = new Date(now.getTime() + leaseMs);
    const rows = await queryRows<ClaimedRow>(
      db,
      sql`
        with share as (
          select key::uuid as endpoint_id, value::int as room from json_each_text(${JSON.stringify(busy)}::json)
        ),
        due as (
          select id, endpoint_id, next_attempt_at from webhook_deliveries
          where status = 'pending' and next_attempt_at <= ${now}
            and (locked_until is null or locked_until <= ${now})
            and endpoint_id not in (select endpoint_id from share where room <= 0)
          order by next_attempt_at
          limit ${Math.max(limit * 2, 200)}
        ),
        candidates as (
          select id, endpoint_id, next_attempt_at, row_number() over (partition by endpoint_id order by next_attempt_at, id) as n from due
        ),
        picked as (
          select d.id from webhook_deliveries d
          join candidates c on c.id = d.id
          left join share s on s.endpoint_id = c.endpoint_id
          where c.n <= coalesce(s.room, ${perEndpointHold})
            and d.status = 'pending' and (d.locked_until is null or d.locked_until <= ${now})
          order by c.next_attempt_at
          limit ${limit}
          for update of d skip locked
        ),
        claimed as (
          update webhook_deliveries d set locked_until = ${lease}, locked_by = ${workerId}
          from picked where d.id = picked.id
          returning d.id, d.organization_id, d.endpoint_id, d.message_id, d.event_id, d.event_type, d.payload, d.test, d.attempts, d.manual
        )
        select c.id, c.organization_id, c.endpoint_id, c.message_id, c.event_type, c.test, c.attempts, c.manual,
          ep.url, ep.enabled, ep.secret_sealed, ep.previous_secret_sealed, ep.previous_secret_expires_at,
          coalesce(c.payload, ev.payload) as body
        from claimed c
        join webhook_endpoints ep on ep.id = c.endpoint_id
        left join events ev on ev.id = c.event_id`,
    );
    claimWasFull = rows.length === limit;
    // Some endpoint got all its share (or had none left): it may have more due rows than it took.
    const taken = new Map<string, number>();
    for (const row of rows) taken.set(row.endpoint_id, (taken.get(row.endpoint_id) ?? 0) + 1);
    const filledShare = [...taken].some(([endpointId, n]) => n >= (busy[endpointId] ?? perEndpointHold));
    claimSkippedEndpoints = filledShare || Object.values(busy).some((n) => n <= 0);
    // Full, or an endpoint filled its share (its rows may have hidden others' in the scan): claim again
    // at once; the next claim leaves that endpoint out.
    if (claimWasFull || filledShare) wantClaim = true;
    for (const row of rows) row.leaseUntil = lease.getTime();
    hold(rows);
  }

  /** Starts the endpoint's waiting rows while it and the process have free slots. */
  function drain(endpointId: string) {
    const e = endpoints.get(endpointId);
    // Stopping: what waits is given back by stop().
    if (!e || !loop.isRunning()) return;
    while (e.waiting.length > 0 && e.running < settings.endpointConcurrency && inflight.size < settings.concurrency) {
      const row = e.waiting.shift()!;
      waitingTotal--;
      // Too little of its lease left to finish inside it: give it back rather than risk a second sender.
      if (row.leaseUntil - clock.now().getTime() < settings.timeoutMs + 1000) {
        releases.push(row.id);
        scheduleFlush();
        continue;
      }
      e.running++;
      start(row);
    }
    if (e.running === 0 && e.waiting.length === 0) endpoints.delete(endpointId);
  }

  function start(row: ClaimedRow) {
    const controller = new AbortController();
    inflight.set(row.id, controller);
    loop.run(
      () =>
        run(row, controller).catch((err: unknown) => {
          // A bug, not the receiver: leave the row to its lease.
          logger.error({ err, delivery_id: row.id }, 'webhook attempt failed unexpectedly');
        }),
      () => {
        inflight.delete(row.id);
        const e = endpoints.get(row.endpoint_id);
        if (e) e.running--;
        if (!loop.isRunning()) return;
        drain(row.endpoint_id);
        // A process-wide slot came free: another endpoint may be waiting for one.
        if (waitingTotal > 0) for (const endpointId of [...endpoints.keys()]) drain(endpointId);
        // Claim again only when it pays: this endpoint is running short of claimed rows, or a good
        // part of the process's room is free again. Not on every completion: each claim is a query.
        const runningShort = claimSkippedEndpoints && (e === undefined || e.waiting.length <= settings.endpointConcurrency / 2);
        const roomAgain = claimWasFull && room() >= Math.min(CLAIM_BATCH, settings.concurrency) / 2;
        if (runningShort || roomAgain) claimSoon();
      },
    );
  }

  async function run(row: ClaimedRow, controller: AbortController): Promise<void> {
    const trigger = row.manual ? 'manual' : 'scheduled';
    if (!row.enabled || row.body === null) {
      record(row, trigger, null, row.enabled ? 'the event is no longer retained' : 'endpoint disabled');
      return;
    }
    const now = clock.now();
    const secrets = signingSecrets(
      {
        secretSealed: row.secret_sealed,
        previousSecretSealed: row.previous_secret_sealed,
        previousSecretExpiresAt: row.previous_secret_expires_at === null ? null : new Date(row.previous_secret_expires_at),
      },
      open,
      now,
    );
    const outcome = await sendWebhook(
      row.url,
      secrets,
      { id: row.message_id, type: row.event_type, body: JSON.stringify(row.body), test: row.test },
      { clock, timeoutMs: settings.timeoutMs, policy: deps.policy, signal: controller.signal },
    );
    if (controller.signal.aborted) {
      // Shutdown: no attempt is recorded and the lease is given back, so the next worker sends it at once.
      releases.push(row.id);
      scheduleFlush();
      return;
    }
    record(row, trigger, outcome, null);
  }

  function record(row: ClaimedRow, trigger: Outcome['trigger'], outcome: AttemptOutcome | null, skippedBecause: string | null) {
    const made = outcome ? row.attempts + 1 : row.attempts;
    let status: Outcome['status'];
    let next: Date | null = null;
    if (outcome?.succeeded) {
      status = 'succeeded';
    } else if (!outcome || row.manual) {
      // Nothing could be sent, or this was the one attempt a manual retry of a failed delivery gets.
      status = 'failed';
    } else {
      const delay = nextAttemptDelay(retry, made);
      if (delay === null) {
        status = 'failed';
      } else {
        status = 'pending';
        next = new Date(clock.now().getTime() + delay);
        scheduleDue(next);
      }
    }
    deps.recorder?.attempt(row.endpoint_id, !outcome ? 'skipped' : status === 'pending' ? 'retry' : status, outcome ? outcome.durationMs / 1000 : null);
    outcomes.push({
      delivery_id: row.id,
      attempt_id: uuidv7(),
      organization_id: row.organization_id,
      endpoint_id: row.endpoint_id,
      trigger,
      test: row.test,
      skipped: outcome === null,
      succeeded: outcome?.succeeded ?? false,
      attempted_at: outcome?.attemptedAt.toISOString() ?? null,
      status_code: outcome?.statusCode ?? null,
      duration_ms: outcome?.durationMs ?? null,
      response_body: outcome?.responseBody ?? null,
      error: outcome ? (outcome.error ?? (outcome.succeeded ? null : `HTTP ${outcome.statusCode}`)) : skippedBecause,
      status,
      attempts: made,
      next_attempt_at: next?.toISOString() ?? null,
    });
    scheduleFlush();
  }

  function scheduleDue(at: Date) {
    const ms = at.getTime() - clock.now().getTime();
    // Polling finds the later ones; a timer only makes the sooner ones punctual.
    if (ms >= settings.pollIntervalMs || at.getTime() >= dueAt) return;
    clearTimeout(dueTimer);
    dueAt = at.getTime();
    dueTimer = setTimeout(() => {
      dueAt = Infinity;
      claimSoon();
    }, Math.max(0, ms));
    dueTimer.unref();
  }

  function scheduleFlush() {
    if (outcomes.length + releases.length >= FLUSH_BATCH) {
      void flush();
      return;
    }
    if (flushTimer) return;
    flushTimer = setTimeout(() => {
      flushTimer = undefined;
      void flush();
    }, FLUSH_DELAY_MS);
  }

  function flush(): Promise<void> {
    if (flushing) {
      flushAgain = true;
      return flushing;
    }
    flushing = (async () => {
      do {
        await yieldToEventLoop();
        flushAgain = false;
        const batch = outcomes.splice(0, FLUSH_BATCH);
        const released = releases.splice(0, releases.length);
        if (batch.length > 0) await writeOutcomes(batch);
        if (released.length > 0) await releaseLeases(released);
      } while (flushAgain || outcomes.length > 0 || releases.length > 0);
    })().finally(() => {
      flushing = undefined;
    });
    return flushing;
  }

  async function writeOutcomes(batch: Outcome[]): Promise<void> {
    try {
      await writeOutcomeRows(batch);
    } catch (err) {
      if (batch.length === 1) {
        // Its lease lapses and the delivery is attempted again: at least once.
        logger.error({ err, delivery_id: batch[0]!.delivery_id }, 'could not record a webhook attempt');
        return;
      }
      // One bad row must not lose the others' outcomes.
      for (const one of batch) await writeOutcomes([one]);
    }
  }

  async function writeOutcomeRows(batch: Outcome[]): Promise<void> {
    const now = clock.now();
    const stats = endpointStats(batch);
    const updated = await queryRows<{ id: string; enabled: boolean; consecutive_failures: number; failing_since: Date | string | null }>(
      db,
      sql`
        with r as (
          select * from ${batchRows(JSON.stringify(batch), 'r', `delivery_id uuid, attempt_id uuid, organization_id uuid, endpoint_id uuid, trigger text, test boolean, skipped boolean, attempted_at timestamptz, status_code int, duration_ms int, response_body text, error text, status text, attempts int, next_attempt_at timestamptz`)}
        ),
        d as (
          update webhook_deliveries d set
            status = r.status, attempts = r.attempts, next_attempt_at = r.next_attempt_at, manual = false,
            locked_until = null, locked_by = null,
            last_attempt_at = coalesce(r.attempted_at, d.last_attempt_at),
            last_status_code = case when r.skipped then d.last_status_code else r.status_code end,
            last_error = r.error, updated_at = ${now}
          from r where d.id = r.delivery_id and d.locked_by = ${workerId}
          returning d.id
        ),
        a as (
          insert into webhook_attempts (id, organization_id, delivery_id, endpoint_id, trigger, attempted_at, status_code, duration_ms, response_body, error)
          select r.attempt_id, r.organization_id, r.delivery_id, r.endpoint_id, r.trigger, r.attempted_at, r.status_code, r.duration_ms, r.response_body, r.error
          from r where not r.skipped and exists (select 1 from webhook_deliveries x where x.id = r.delivery_id)
          returning id
        ),
        s as (
          select * from ${batchRows(JSON.stringify(stats), 's', `endpoint_id uuid, last_success_at timestamptz, last_failure_at timestamptz, failures int, first_failure_at timestamptz`)}
        ),
        e as (
          update webhook_endpoints ep set
            last_success_at = coalesce(s.last_success_at, ep.last_success_at),
            last_failure_at = coalesce(s.last_failure_at, ep.last_failure_at),
            consecutive_failures = case when s.last_success_at is not null then s.failures else ep.consecutive_failures + s.failures end,
            failing_since = case when s.last_success_at is not null then s.first_failure_at else coalesce(ep.failing_since, s.first_failure_at) end
          from s
          where ep.id = s.endpoint_id
            -- A run of successes only moves last_success_at, and that is kept to the minute.
            and (s.failures > 0 or ep.consecutive_failures > 0 or ep.failing_since is not null
              or ep.last_success_at is null or ep.last_success_at < s.last_success_at - interval '1 minute')
          returning ep.id, ep.enabled, ep.consecutive_failures, ep.failing_since
        )
        select e.id, e.enabled, e.consecutive_failures, e.failing_since, (select count(*) from d) as deliveries, (select count(*) from a) as attempts from e`,
    );
    const cutoff = now.getTime() - settings.disableAfterMs;
    const failing = updated.filter(
      (e) => e.enabled && e.consecutive_failures >= settings.disableMinFailures && e.failing_since !== null && new Date(e.failing_since).getTime() <= cutoff,
    );
    for (const endpoint of failing) {
      // The outcomes are written; a failure here must not make the caller write them again.
      await disableFailingEndpoint(endpoint.id, batch).catch((err: unknown) =>
        logger.error({ err, endpoint_id: endpoint.id }, 'could not disable a failing webhook endpoint; the next failure tries again'),
      );
    }
  }

  /** Disables an endpoint that has failed for disableAfterMs with no success, saying why, and fails its pending deliveries. */
  async function disableFailingEndpoint(endpointId: string, batch: Outcome[]): Promise<void> {
    const now = clock.now();
    const lastError = batch.filter((o) => o.endpoint_id === endpointId && !o.succeeded).at(-1)?.error ?? 'unknown error';
    await db.transaction(async (tx) => {
      const disabled = await queryRows<{ id: string; consecutive_failures: number; failing_since: Date | string }>(
        tx,
        sql`
          update webhook_endpoints set enabled = false, disabled_at = ${now}, updated_at = ${now},
            disabled_reason = 'disabled automatically: no delivery succeeded since ' || to_char(failing_since at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')
              || ' (' || consecutive_failures || ' failed attempts; the last: ' || ${lastError} || '). Fix the receiver, then enable it again.'
          where id = ${endpointId} and enabled and consecutive_failures >= ${settings.disableMinFailures}
            and failing_since <= ${new Date(now.getTime() - settings.disableAfterMs)}
          returning id, consecutive_failures, failing_since`,
      );
      if (disabled.length === 0) return;
      await failPendingDeliveries(tx, endpointId, 'endpoint disabled automatically after failing for too long', now);
      logger.warn({ endpoint_id: endpointId, failed_attempts: disabled[0]!.consecutive_failures }, 'webhook endpoint disabled after failing for too long');
    });
  }

  async function releaseLeases(ids: string[]): Promise<void> {
    try {
      await db.execute(sql`
        update webhook_deliveries set locked_until = null, locked_by = null
        where id in (select value::uuid from json_array_elements_text(${JSON.stringify(ids)}::json)) and locked_by = ${workerId}`);
    } catch (err) {
      logger.warn({ err }, 'could not release webhook leases; they lapse by themselves');
    }
  }

  return {
    start: () => loop.start(),
    async stop({ graceful, timeoutMs }) {
      if (!loop.isRunning()) return;
      clearTimeout(dueTimer);
      // Half the shutdown time at most: the job queue stops after this, within the same budget.
      await loop.stop({
        timeoutMs: graceful ? timeoutMs / 2 : 0,
        abort: () => {
          for (const controller of inflight.values()) controller.abort();
        },
      });
      // Rows claimed but never started go back at once.
      for (const e of endpoints.values()) releases.push(...e.waiting.map((r) => r.id));
      endpoints.clear();
      waitingTotal = 0;
      clearTimeout(flushTimer);
      flushTimer = undefined;
      await flush().catch((err: unknown) => logger.error({ err }, 'could not record the last webhook attempts'));
    },
    inFlight: () => inflight.size,
  };
}

type EndpointStats = { endpoint_id: string; last_success_at: string | null; last_failure_at: string | null; failures: number; first_failure_at: string | null };

/** Per endpoint: the last success, and the failures after it (they count toward disabling). Test sends do not count. */
function endpointStats(batch: Outcome[]): EndpointStats[] {
  const byEndpoint = new Map<string, Outcome[]>();
  for (const o of batch) {
    if (o.skipped || o.test || o.attempted_at === null) continue;
    const list = byEndpoint.get(o.endpoint_id) ?? [];
    list.push(o);
    byEndpoint.set(o.endpoint_id, list);
  }
  return [...byEndpoint].map(([endpointId, list]) => {
    list.sort((a, b) => a.attempted_at!.localeCompare(b.attempted_at!));
    const lastSuccess = list.findLast((o) => o.succeeded)?.attempted_at ?? null;
    const after = list.filter((o) => !o.succeeded && (lastSuccess === null || o.attempted_at! > lastSuccess));
    return {
      endpoint_id: endpointId,
      last_success_at: lastSuccess,
      last_failure_at: list.findLast((o) => !o.succeeded)?.attempted_at ?? null,
      failures: after.length,
      first_failure_at: after[0]?.attempted_at ?? null,
    };
  });
}

const yieldToEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve));
