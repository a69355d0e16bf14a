/**
 * Writes a batch of outcomes in one statement: the deliveries (only those this worker still holds),
 * each with its new attempt in its row (the attempt it replaces moves to webhook_attempts), and each endpoint's run of successes and failures; then disables the endpoints that
 * have failed for too long.
 */
import { sql } from 'drizzle-orm';
import { batchRows } from '../../../db/batch-rows.ts';
import { queryRows } from '../../../db/client.ts';
import type { EngineContext, Outcome } from './context.ts';
import { disableFailingEndpoint } from './disable.ts';

export async function writeOutcomeRows(engine: EngineContext, batch: Outcome[]): Promise<void> {
  const { clock, settings, logger } = engine.deps;
  const { db } = engine;
  const now = clock.now();
  const stats = endpointStats(batch);
  const updated = await queryRows<{ id: string; enabled: boolean; consecutive_failures: number; failing_since: Date | string | null }>(
    db,
    sql`
      with r as (
        select * from ${batchRows(JSON.stringify(batch), 'r', `delivery_id uuid, attempt_id uuid, organization_id uuid, endpoint_id uuid, trigger text, test boolean, skipped boolean, attempted_at timestamptz, status_code int, duration_ms int, response_body text, error text, status text, attempts int, next_attempt_at timestamptz`)}
      ),
      -- The latest attempt each delivery keeps in its row (latest_attempt), read before the update
      -- replaces it: it moves to webhook_attempts. A first attempt has none, so a delivery that
      -- succeeds at once writes no attempt row.
      prev as (
        select x.id, x.organization_id, x.endpoint_id, x.latest_attempt as l from webhook_deliveries x
        where x.id in (select delivery_id from r where not r.skipped) and x.locked_by = ${engine.workerId} and x.latest_attempt is not null
      ),
      d as (
        update webhook_deliveries d set
          status = r.status, attempts = r.attempts, next_attempt_at = r.next_attempt_at, manual = false,
          locked_until = null, locked_by = null,
          last_attempt_at = coalesce(r.attempted_at, d.last_attempt_at),
          last_status_code = case when r.skipped then d.last_status_code else r.status_code end,
          last_error = r.error, updated_at = ${now},
          latest_attempt = case when r.skipped then d.latest_attempt else jsonb_build_object(
            'id', r.attempt_id, 'trigger', r.trigger, 'attempted_at', r.attempted_at, 'status_code', r.status_code,
            'duration_ms', r.duration_ms, 'response_body', r.response_body, 'error', r.error) end
        from r where d.id = r.delivery_id and d.locked_by = ${engine.workerId}
        returning d.id
      ),
      a as (
        insert into webhook_attempts (id, organization_id, delivery_id, endpoint_id, trigger, attempted_at, status_code, duration_ms, response_body, error)
        select (p.l->>'id')::uuid, p.organization_id, p.id, p.endpoint_id, p.l->>'trigger', (p.l->>'attempted_at')::timestamptz,
          (p.l->>'status_code')::int, (p.l->>'duration_ms')::int, p.l->>'response_body', p.l->>'error'
        from prev p where p.id in (select id from d)
        union all
        -- An attempt on a delivery this worker no longer holds (its lease lapsed and another took it)
        -- is still recorded, as a row of its own.
        select r.attempt_id, r.organization_id, r.delivery_id, r.endpoint_id, r.trigger, r.attempted_at, r.status_code, r.duration_ms, r.response_body, r.error
        from r where not r.skipped and r.delivery_id not in (select id from d) and exists (select 1 from webhook_deliveries x where x.id = r.delivery_id)
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
    (e) =>
      e.enabled &&
      e.consecutive_failures >= settings.disableMinFailures &&
      e.failing_since !== null &&
      new Date(e.failing_since).getTime() <= cutoff,
  );
  for (const endpoint of failing) {
    // The outcomes are written; a failure here must not make the caller write them again.
    await disableFailingEndpoint(engine, endpoint.id, batch).catch((err: unknown) =>
      logger.error({ err, endpoint_id: endpoint.id }, 'could not disable a failing webhook endpoint; the next failure tries again'),
    );
  }
}

type EndpointStats = {
  endpoint_id: string;
  last_success_at: string | null;
  last_failure_at: string | null;
  failures: number;
  first_failure_at: string | null;
};

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
