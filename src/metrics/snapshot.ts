/**
 * The database-wide numbers /metrics shows, read at scrape time: each query is bounded by a partial
 * index of the rows it counts (pg-boss's pending-job index, the due-message index, the pending-
 * delivery index, the undispatched-event index), so an idle system costs next to nothing and a
 * backlog costs one index range.
 */
import { sql } from 'drizzle-orm';
import { queryRows, type Db } from '../db/client.ts';
import { JOB_NAMES } from '../jobs/catalog.ts';

export type QueueSnapshot = { kind: string; ready: number; deferred: number; oldestReadySeconds: number };

export type Snapshot = {
  /** pg-boss queues by job name, and the tables that are their own queues: message.dispatch, webhook.dispatch, webhook.delivery. */
  queues: QueueSnapshot[];
  webhookBacklog: Array<{ endpointId: string; due: number; oldestDueSeconds: number }>;
  channels: Array<{ platform: string; status: string; count: number }>;
};

/** The job kinds of the service's own tables, beside pg-boss's job names. */
export const TABLE_QUEUES = {
  /** Messages due to be sent (the dispatcher's claims). */
  messages: 'message.dispatch',
  /** Events committed but not yet turned into webhook deliveries. */
  events: 'webhook.dispatch',
  /** Webhook deliveries pending. */
  deliveries: 'webhook.delivery',
} as const;

type Counts = { ready: number; deferred: number; oldest: number | null };

export async function readSnapshot(db: Db): Promise<Snapshot> {
  // One after another: a scrape holds one pool connection at a time.
  const jobs = await queryRows<Counts & { kind: string }>(
    db,
    sql`select name as kind,
                 (count(*) filter (where start_after <= now()))::int as ready,
                 (count(*) filter (where start_after > now()))::int as deferred,
                 extract(epoch from now() - min(start_after) filter (where start_after <= now()))::float8 as oldest
            from pgboss.job
           where state < 'active' and not blocked
           group by name`,
  );
  const [messages] = await queryRows<Counts>(
    db,
    sql`select (count(*) filter (where dispatch_at <= now()))::int as ready,
                 (count(*) filter (where dispatch_at > now()))::int as deferred,
                 extract(epoch from now() - min(dispatch_at) filter (where dispatch_at <= now()))::float8 as oldest
            from messages
           where dispatch_at is not null`,
  );
  const [events] = await queryRows<Counts>(
    db,
    sql`select count(*)::int as ready, 0 as deferred, extract(epoch from now() - min(created_at))::float8 as oldest
            from events
           where position is null`,
  );
  const deliveries = await queryRows<{ endpoint_id: string; ready: number; deferred: number; oldest: number | null }>(
    db,
    sql`select endpoint_id,
                 (count(*) filter (where next_attempt_at <= now()))::int as ready,
                 (count(*) filter (where next_attempt_at > now()))::int as deferred,
                 extract(epoch from now() - min(next_attempt_at) filter (where next_attempt_at <= now()))::float8 as oldest
            from webhook_deliveries
           where status = 'pending'
           group by endpoint_id`,
  );
  const channels = await queryRows<{ platform: string; status: string; count: number }>(
    db,
    sql`select platform, status, count(*)::int as count from channels group by platform, status`,
  );
  const age = (seconds: number | null) => Math.max(0, Number(seconds ?? 0));
  const queue = (kind: string, c: Counts | undefined): QueueSnapshot => ({
    kind,
    ready: c?.ready ?? 0,
    deferred: c?.deferred ?? 0,
    oldestReadySeconds: age(c?.oldest ?? null),
  });
  const byName = new Map(jobs.map((j) => [j.kind, j]));
  const webhookBacklog = deliveries
    .filter((d) => d.ready > 0)
    .map((d) => ({ endpointId: d.endpoint_id, due: d.ready, oldestDueSeconds: age(d.oldest) }));
  const deliveryTotals = deliveries.reduce<Counts>(
    (sum, d) => ({ ready: sum.ready + d.ready, deferred: sum.deferred + d.deferred, oldest: Math.max(sum.oldest ?? 0, d.oldest ?? 0) }),
    { ready: 0, deferred: 0, oldest: 0 },
  );
  return {
    queues: [
      // Every pg-boss queue the service declares, empty ones as zeros (alerts need a series to watch).
      ...JOB_NAMES.map((name) => queue(name, byName.get(name))),
      queue(TABLE_QUEUES.messages, messages),
      queue(TABLE_QUEUES.events, events),
      queue(TABLE_QUEUES.deliveries, deliveryTotals),
    ],
    webhookBacklog,
    channels,
  };
}
