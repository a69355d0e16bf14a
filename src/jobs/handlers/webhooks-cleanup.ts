import type { Database } from '../../db/client.ts';
import { cleanUpWebhookData } from '../../domain/webhooks/retention.ts';
import type { Clock } from '../../lib/clock.ts';
import type { Logger } from '../../lib/logger.ts';

/** Deletes events, webhook deliveries and attempts past the retention period. */
export function webhooksCleanupHandler(deps: { database: Pick<Database, 'db'>; clock: Clock; logger: Logger; retentionDays: number }) {
  return async () => {
    const removed = await cleanUpWebhookData({ db: deps.database.db, clock: deps.clock, retentionDays: deps.retentionDays });
    if (removed.events + removed.deliveries + removed.attempts + removed.failedOnDisabled > 0)
      deps.logger.info({ removed }, 'cleaned up old events and webhook data');
  };
}
