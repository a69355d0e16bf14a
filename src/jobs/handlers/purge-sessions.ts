import type { Database } from '../../db/client.ts';
import { purgeSessions } from '../../domain/sessions/sessions.ts';
import { purgeThrottles } from '../../domain/throttle/throttle.ts';
import type { Clock } from '../../lib/clock.ts';
import type { Logger } from '../../lib/logger.ts';

/** A day without attempts forgives every throttle's count in practice; the row can go. */
const THROTTLE_QUIET_MS = 86_400_000;

/** Deletes login sessions that expired or were revoked more than a day ago, and throttle rows quiet for a day. */
export function purgeSessionsHandler(deps: { database: Database; clock: Clock; logger: Logger }) {
  return async () => {
    const removed = await purgeSessions(deps.database.db, deps.clock);
    if (removed > 0) deps.logger.info({ removed }, 'purged old sessions');
    const throttles = await purgeThrottles({ db: deps.database.db, clock: deps.clock }, THROTTLE_QUIET_MS);
    if (throttles > 0) deps.logger.info({ removed: throttles }, 'purged quiet throttle rows');
  };
}
