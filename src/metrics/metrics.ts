/**
 * The process's Prometheus metrics (prom-client), in a registry of its own: never prom-client's
 * global one, so several servers in one process (the tests) keep theirs apart. Counters and
 * histograms are fed as things happen (HTTP responses, provider sends, webhook attempts); the
 * database-wide gauges (queues, webhook backlog, channel states) are read at scrape time from one
 * snapshot, cached briefly so concurrent or repeated scrapes cost one set of queries.
 * docs/operations.md lists every family with its labels.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { SendOutcome, SendRecorder } from '../domain/messages/dispatch.ts';
import type { DeliveryOutcome, AttemptRecorder } from '../domain/webhooks/engine.ts';
import type { Snapshot } from './snapshot.ts';

export const METRICS_PREFIX = 'parley_';

export type PoolStats = { total: number; idle: number; waiting: number; max: number };

export type MetricSources = {
  /** The database-wide numbers; a rejection leaves those gauges out of that scrape. */
  snapshot(): Promise<Snapshot>;
  /** Whether this process last found the database reachable. */
  databaseUp(): boolean;
  /** The PostgreSQL pool's connections; undefined on the embedded database (one connection, no pool). */
  pool?(): PoolStats;
  /** How long one snapshot serves scrapes (default 2 s). */
  snapshotTtlMs?: number;
  now?(): number;
};

export type Metrics = {
  contentType: string;
  /** The text exposition of every family. */
  render(): Promise<string>;
  /** One answered HTTP request: `route` is the route's pattern (never the raw URL), or "unmatched". */
  observeRequest(method: string, route: string, status: number, seconds: number): void;
  sends: SendRecorder;
  webhooks: AttemptRecorder;
};

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

export function createMetrics(sources: MetricSources): Metrics {
  const registry = new Registry();
  // Event-loop lag, memory, GC, handles: prom-client's defaults, in this registry, under our prefix.
  collectDefaultMetrics({ register: registry, prefix: METRICS_PREFIX });
  const now = sources.now ?? Date.now;
  const ttl = sources.snapshotTtlMs ?? 2000;
  let cached: { at: number; snapshot: Promise<Snapshot | undefined> } | undefined;
  const snapshot = () => {
    const at = now();
    if (!cached || at - cached.at >= ttl) cached = { at, snapshot: sources.snapshot().catch(() => undefined) };
    return cached.snapshot;
  };

  const http = new Histogram({
    name: `${METRICS_PREFIX}http_request_duration_seconds`,
    help: 'HTTP requests answered, by method, route pattern and status code, with their duration.',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  // Children by label set: the label lookup costs more than the observation.
  const httpChildren = new Map<string, ReturnType<typeof http.labels>>();

  const sends = new Counter({
    name: `${METRICS_PREFIX}dispatch_sends_total`,
    help: 'Provider send calls by platform and outcome: sent, retry (a transient refusal), failed (final), unknown (no answer; settled later).',
    labelNames: ['platform', 'outcome'] as const,
    registers: [registry],
  });
  const providerLatency = new Histogram({
    name: `${METRICS_PREFIX}provider_request_duration_seconds`,
    help: 'Provider API calls by platform, operation and outcome, with their duration.',
    labelNames: ['platform', 'operation', 'outcome'] as const,
    buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [registry],
  });

  const attempts = new Counter({
    name: `${METRICS_PREFIX}webhook_attempts_total`,
    help: 'Webhook delivery attempts by endpoint and what became of the delivery: succeeded, retry, failed (final), skipped (endpoint disabled, event gone).',
    labelNames: ['endpoint_id', 'outcome'] as const,
    registers: [registry],
  });
  const attemptLatency = new Histogram({
    name: `${METRICS_PREFIX}webhook_attempt_duration_seconds`,
    help: 'Webhook delivery attempts by outcome, with their duration (all endpoints together).',
    labelNames: ['outcome'] as const,
    buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [registry],
  });

  // Gauges read from the snapshot: reset on every scrape, so a kind or endpoint that is gone disappears.
  const fromSnapshot = <L extends string>(
    name: string,
    help: string,
    labelNames: readonly L[],
    fill: (gauge: Gauge<L>, s: Snapshot) => void,
  ) =>
    new Gauge<L>({
      name: `${METRICS_PREFIX}${name}`,
      help,
      labelNames,
      registers: [registry],
      async collect() {
        const s = await snapshot();
        this.reset();
        if (s) fill(this, s);
      },
    });
  fromSnapshot(
    'queue_ready_jobs',
    'Jobs due now and not yet taken, by job kind (database-wide: the same in every process).',
    ['kind'],
    (g, s) => {
      for (const q of s.queues) g.set({ kind: q.kind }, q.ready);
    },
  );
  fromSnapshot('queue_deferred_jobs', 'Jobs scheduled for later (retries, delays, leases held), by job kind.', ['kind'], (g, s) => {
    for (const q of s.queues) g.set({ kind: q.kind }, q.deferred);
  });
  fromSnapshot(
    'queue_oldest_ready_age_seconds',
    'How long the oldest job due now has been due, by job kind (0 when none is).',
    ['kind'],
    (g, s) => {
      for (const q of s.queues) g.set({ kind: q.kind }, q.oldestReadySeconds);
    },
  );
  fromSnapshot('webhook_backlog_deliveries', 'Webhook deliveries due now (pending, attempt due), by endpoint.', ['endpoint_id'], (g, s) => {
    for (const e of s.webhookBacklog) g.set({ endpoint_id: e.endpointId }, e.due);
  });
  fromSnapshot(
    'webhook_backlog_oldest_age_seconds',
    'How long the oldest webhook delivery due now has been due, by endpoint.',
    ['endpoint_id'],
    (g, s) => {
      for (const e of s.webhookBacklog) g.set({ endpoint_id: e.endpointId }, e.oldestDueSeconds);
    },
  );
  fromSnapshot('channels', 'Channels by platform and status.', ['platform', 'status'], (g, s) => {
    for (const c of s.channels) g.set({ platform: c.platform, status: c.status }, c.count);
  });
  new Gauge({
    name: `${METRICS_PREFIX}metrics_snapshot_ok`,
    help: '1 when this scrape read the database-wide gauges (queues, webhook backlog, channels), 0 when the database did not answer.',
    registers: [registry],
    async collect() {
      this.set((await snapshot()) ? 1 : 0);
    },
  });
  new Gauge({
    name: `${METRICS_PREFIX}database_up`,
    help: '1 while this process finds the database reachable, 0 during an outage.',
    registers: [registry],
    collect() {
      this.set(sources.databaseUp() ? 1 : 0);
    },
  });
  if (sources.pool) {
    const pool = sources.pool;
    new Gauge({
      name: `${METRICS_PREFIX}db_pool_connections`,
      help: "The PostgreSQL pool's open connections, by state (active: checked out, idle).",
      labelNames: ['state'] as const,
      registers: [registry],
      collect() {
        const p = pool();
        this.set({ state: 'active' }, p.total - p.idle);
        this.set({ state: 'idle' }, p.idle);
      },
    });
    new Gauge({
      name: `${METRICS_PREFIX}db_pool_waiting_queries`,
      help: 'Queries waiting for a pool connection.',
      registers: [registry],
      collect() {
        this.set(pool().waiting);
      },
    });
    new Gauge({
      name: `${METRICS_PREFIX}db_pool_max_connections`,
      help: "The pool's size limit.",
      registers: [registry],
      collect() {
        this.set(pool().max);
      },
    });
  }

  return {
    contentType: registry.contentType,
    render: () => registry.metrics(),
    observeRequest(method, route, status, seconds) {
      const m = METHODS.has(method) ? method : 'OTHER';
      const key = `${m} ${status} ${route}`;
      let child = httpChildren.get(key);
      if (!child) {
        child = http.labels(m, route, String(status));
        httpChildren.set(key, child);
      }
      child.observe(seconds);
    },
    sends: {
      send(platform: string, outcome: SendOutcome, seconds: number) {
        sends.inc({ platform, outcome });
        providerLatency.observe({ platform, operation: 'send', outcome }, seconds);
      },
    },
    webhooks: {
      attempt(endpointId: string, outcome: DeliveryOutcome, seconds: number | null) {
        attempts.inc({ endpoint_id: endpointId, outcome });
        if (seconds !== null) attemptLatency.observe({ outcome }, seconds);
      },
    },
  };
}
