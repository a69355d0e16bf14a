/** Disables an endpoint that has failed for disableAfterMs with no success, saying why, and fails its pending deliveries. */
import { sql } from 'drizzle-orm';
import { queryRows } from '../../../db/client.ts';
import { failPendingDeliveries } from '../endpoints.ts';
import type { EngineContext, Outcome } from './context.ts';

export async function disableFailingEndpoint(engine: EngineContext, endpointId: string, batch: Outcome[]): Promise<void> {
  const { clock, settings, logger } = engine.deps;
  const { db } = engine;
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
    logger.warn(
      { endpoint_id: endpointId, failed_attempts: disabled[0]!.consecutive_failures },
      'webhook endpoint disabled after failing for too long',
    );
  });
}
