/**
 * The engine's claim step: takes due deliveries nobody holds (FOR UPDATE SKIP LOCKED, so any number of
 * workers share the table), leaving out endpoints at their share, and holds them under this worker's lease.
 */
import { sql } from 'drizzle-orm';
import { queryRows } from '../../../db/client.ts';
import { CLAIM_BATCH, room, type ClaimedRow, type EngineContext } from './context.ts';
import { hold } from './slots.ts';

export async function claimDue(engine: EngineContext): Promise<void> {
  const { clock, settings } = engine.deps;
  const { db, workerId } = engine;
  const limit = Math.min(room(engine), CLAIM_BATCH);
  const perEndpointHold = 2 * settings.endpointConcurrency;
  // Endpoints already holding rows may take only what is left of their share.
  const busy: Record<string, number> = {};
  for (const [endpointId, e] of engine.endpoints) busy[endpointId] = perEndpointHold - e.running - e.waiting.length;
  const now = clock.now();
  const lease = new Date(now.getTime() + engine.leaseMs);
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
  engine.claimWasFull = rows.length === limit;
  // Some endpoint got all its share (or had none left): it may have more due rows than it took.
  const taken = new Map<string, number>();
  for (const row of rows) taken.set(row.endpoint_id, (taken.get(row.endpoint_id) ?? 0) + 1);
  const filledShare = [...taken].some(([endpointId, n]) => n >= (busy[endpointId] ?? perEndpointHold));
  engine.claimSkippedEndpoints = filledShare || Object.values(busy).some((n) => n <= 0);
  // Full, or an endpoint filled its share (its rows may have hidden others' in the scan): claim again
  // at once; the next claim leaves that endpoint out.
  if (engine.claimWasFull || filledShare) engine.wantClaim = true;
  for (const row of rows) row.leaseUntil = lease.getTime();
  hold(engine, rows);
}
