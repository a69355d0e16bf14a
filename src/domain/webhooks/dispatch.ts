/**
 * The dispatcher: turns committed events into deliveries. An event's seq is taken at insert, not at
 * commit, so "seq > the last one seen" would skip an event whose transaction committed late. Instead
 * every event starts with position null, and the dispatcher, one at a time under a lock, takes the
 * committed events that still have none, gives them the next positions (that is the commit order
 * event replay (events/replay.ts) pages on) and creates one delivery per enabled endpoint whose filter matches, in
 * the same transaction. Nothing is skipped and nothing is dispatched twice.
 *
 * The delivery engine that dispatches may lease the new deliveries to itself as they are written
 * (`lease`), so their first attempts start right after the commit, without a claim in between.
 */
import { sql } from 'drizzle-orm';
import { queryRows, type Database, type Executor } from '../../db/client.ts';
import type { Clock } from '../../lib/clock.ts';
import { uuidv7 } from '../../lib/ids.ts';
import { EVENTS_SEQUENCED_CHANNEL } from '../events/outbox.ts';
import { DELIVERIES_CHANNEL } from './deps.ts';
import { batchRows } from '../../db/batch-rows.ts';

export const DISPATCH_LOCK_KEY = 7_240_006;
/** Events taken per dispatch transaction. */
export const DISPATCH_BATCH = 500;
const INSERT_CHUNK = 1000;

/** A new delivery leased to the dispatching engine, with what its first attempt needs. */
export type LeasedDelivery = {
  id: string;
  organization_id: string;
  endpoint_id: string;
  message_id: string;
  event_type: string;
  test: boolean;
  attempts: number;
  manual: boolean;
  url: string;
  enabled: boolean;
  secret_sealed: string;
  previous_secret_sealed: string | null;
  previous_secret_expires_at: Date | string | null;
  body: Record<string, unknown> | null;
};

export type DispatchOptions = {
  limit?: number;
  /** The wait before first attempts (the retry schedule's first entry). */
  firstDelayMs?: number;
  /** Look for undispatched events first (one cheap query) instead of opening a transaction blindly. */
  probe?: boolean;
  /** Lease new deliveries to this worker while `take(endpointId)` says it has room for them. */
  lease?: { workerId: string; until: Date; take(endpointId: string): boolean };
  /** The events' other consumers (automations), told of the batch inside the transaction that sequences it. */
  onSequenced?: SequencedHook;
};

/** An event as it was sequenced; automation_rule_id: the rule whose action recorded it (events/origin.ts). */
export type SequencedEvent = {
  id: string;
  organization_id: string;
  type: string;
  payload: Record<string, unknown>;
  automation_rule_id: string | null;
};
export type SequencedHook = (tx: Executor, events: SequencedEvent[]) => Promise<void>;

export type DispatchResult = { events: number; deliveries: number; leased: LeasedDelivery[] };

type Pair = {
  event_id: string;
  automation_rule_id: string | null;
  organization_id: string;
  type: string;
  payload: Record<string, unknown>;
  endpoint_id: string | null;
  url: string | null;
  secret_sealed: string | null;
  previous_secret_sealed: string | null;
  previous_secret_expires_at: Date | string | null;
};

/** Dispatches up to `limit` undispatched events, oldest first. */
export async function dispatchEvents(database: Database, clock: Clock, options: DispatchOptions = {}): Promise<DispatchResult> {
  const limit = options.limit ?? DISPATCH_BATCH;
  const none: DispatchResult = { events: 0, deliveries: 0, leased: [] };
  if (options.probe) {
    // A partial index of undispatched events makes this cheap; a transaction and its lock are not.
    const waiting = await queryRows(database.db, sql`select 1 from events where position is null limit 1`);
    if (waiting.length === 0) return none;
  }
  // The commit does not wait for the WAL flush (durableCommit false): everything here can be derived
  // again from the events, which their own transactions made durable. Should the database crash in
  // that moment, the events are dispatched again (a receiver may get a message twice, never zero
  // times); the first attempts do not wait for a disk flush.
  const result = await database.withAdvisoryLock(
    DISPATCH_LOCK_KEY,
    async (tx) => {
      // Positions for the batch, and each event with every enabled endpoint whose filter matches it
      // (or one row with no endpoint), in one statement.
      const pairs = await queryRows<Pair>(
        tx,
        sql`
        with base as (select coalesce(max(position), 0) as last from events),
        batch as (
          select id, row_number() over (order by seq) as n
          from (select id, seq from events where position is null order by seq limit ${limit}) undispatched
        ),
        dispatched as (
          update events e set position = base.last + batch.n
          from batch, base
          where e.id = batch.id
          returning e.id, e.organization_id, e.type, e.payload, e.position, e.automation_rule_id
        ),
        -- One NOTIFY per batch that gave positions (delivered at commit): open event streams read on.
        notified as (select pg_notify(${EVENTS_SEQUENCED_CHANNEL}, '') from (select 1 from dispatched limit 1) one)
        select d.id as event_id, d.organization_id, d.type, d.payload, d.automation_rule_id,
          ep.id as endpoint_id, ep.url, ep.secret_sealed, ep.previous_secret_sealed, ep.previous_secret_expires_at
        from dispatched d
        cross join (select count(*) from notified) sent
        left join webhook_endpoints ep on ep.organization_id = d.organization_id and ep.enabled
          and (cardinality(ep.event_types) = 0 or d.type = any(ep.event_types))
        order by d.position, ep.created_at`,
      );
      const events = new Set(pairs.map((p) => p.event_id)).size;
      if (options.onSequenced && pairs.length > 0) {
        const seen = new Set<string>();
        const sequenced: SequencedEvent[] = [];
        for (const p of pairs) {
          if (seen.has(p.event_id)) continue;
          seen.add(p.event_id);
          sequenced.push({
            id: p.event_id,
            organization_id: p.organization_id,
            type: p.type,
            payload: p.payload,
            automation_rule_id: p.automation_rule_id,
          });
        }
        await options.onSequenced(tx, sequenced);
      }
      const now = clock.now();
      const due = new Date(now.getTime() + (options.firstDelayMs ?? 0));
      const lease = options.firstDelayMs ? undefined : options.lease;
      const rows: Array<{
        id: string;
        organization_id: string;
        endpoint_id: string;
        event_id: string;
        event_type: string;
        leased: boolean;
      }> = [];
      const leased: LeasedDelivery[] = [];
      for (const pair of pairs) {
        if (pair.endpoint_id === null) continue;
        const id = uuidv7();
        const take = lease?.take(pair.endpoint_id) ?? false;
        rows.push({
          id,
          organization_id: pair.organization_id,
          endpoint_id: pair.endpoint_id,
          event_id: pair.event_id,
          event_type: pair.type,
          leased: take,
        });
        if (take) {
          leased.push({
            id,
            organization_id: pair.organization_id,
            endpoint_id: pair.endpoint_id,
            message_id: pair.event_id,
            event_type: pair.type,
            test: false,
            attempts: 0,
            manual: false,
            url: pair.url!,
            enabled: true,
            secret_sealed: pair.secret_sealed!,
            previous_secret_sealed: pair.previous_secret_sealed,
            previous_secret_expires_at: pair.previous_secret_expires_at,
            body: pair.payload,
          });
        }
      }
      // One JSON parameter per chunk (cheaper to build and send than thousands of bound values). Rows
      // left unleased are for any engine: NOTIFY wakes those of other processes.
      for (let i = 0; i < rows.length; i += INSERT_CHUNK) {
        await tx.execute(sql`
        with inserted as (
          insert into webhook_deliveries (id, organization_id, endpoint_id, message_id, event_id, event_type, status, next_attempt_at, locked_until, locked_by, created_at, updated_at)
          select r.id, r.organization_id, r.endpoint_id, r.event_id, r.event_id, r.event_type, 'pending', ${due},
            case when r.leased then ${lease?.until ?? null}::timestamptz end, case when r.leased then ${lease?.workerId ?? null}::uuid end, ${now}, ${now}
          from ${batchRows(JSON.stringify(rows.slice(i, i + INSERT_CHUNK)), 'r', `id uuid, organization_id uuid, endpoint_id uuid, event_id uuid, event_type text, leased boolean`)}
          on conflict do nothing
          returning locked_by
        )
        select pg_notify(${DELIVERIES_CHANNEL}, '') from (select 1 from inserted where locked_by is null limit 1) unleased`);
      }
      return { events, deliveries: rows.length, leased };
    },
    { durableCommit: false },
  );
  return result.events === 0 ? none : result;
}
