import type { Database } from '../../db/client.ts';
import { purgeSessions } from '../../domain/sessions/sessions.ts';
import type { Clock } from '../../lib/clock.ts';
import type { Logger } from '../../lib/logger.ts';

/** Deletes login sessions that expired or were revoked more than a day ago. */
export function purgeSessionsHandler(deps: { database: Database; clock: Clock; logger: Logger }) {
  return async () => {
    const removed = await purgeSessions(deps.database.db, deps.clock);
    if (removed > 0) deps.logger.info({ removed }, 'purged old sessions');
  };
}
