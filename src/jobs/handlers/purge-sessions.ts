import type { Database } from '../../db/client.ts';
import { purgeIdempotencyKeys } from '../../db/idempotent-requests.ts';
import { IDEMPOTENCY_HOURS } from '../../domain/messages/accept.ts';
import { purgeExpiredOAuthFlows } from '../../domain/oauth/purge.ts';
import { purgeSessions } from '../../domain/sessions/sessions.ts';
import type { Clock } from '../../lib/clock.ts';
import type { Logger } from '../../lib/logger.ts';

/**
 * Deletes login sessions that expired or were revoked more than a day ago, throttle rows quiet for a
 * day, OAuth authorization requests and device authorizations a day past their expiry, and
 * Idempotency-Keys past their 24 hours.
 */
export function purgeSessionsHandler(deps: { database: Pick<Database, 'db'>; clock: Clock; logger: Logger }) {
  return async () => {
    const removed = await purgeSessions({ db: deps.database.db, clock: deps.clock });
    if (removed.sessions > 0) deps.logger.info({ removed: removed.sessions }, 'purged old sessions');
    if (removed.throttles > 0) deps.logger.info({ removed: removed.throttles }, 'purged quiet throttle rows');
    const flows = await purgeExpiredOAuthFlows({ db: deps.database.db, clock: deps.clock });
    if (Object.values(flows).some((n) => n > 0))
      deps.logger.info({ removed: flows }, 'purged expired OAuth authorization requests, device authorizations, tokens and revoked grants');
    const expired = new Date(deps.clock.now().getTime() - IDEMPOTENCY_HOURS * 3_600_000);
    const keys = await purgeIdempotencyKeys({ db: deps.database.db }, expired);
    if (keys > 0) deps.logger.info({ removed: keys }, 'purged Idempotency-Keys past their 24 hours');
  };
}
