import type { Db } from '../../db/client.ts';
import { assignQueues } from '../../domain/teams/assignment.ts';
import type { Clock } from '../../lib/clock.ts';
import type { Logger } from '../../lib/logger.ts';

/** Assigns a team's queue (or, from the sweep, every team's) under its policy. */
export function conversationsAssignHandler(deps: { db: Db; clock: Clock; logger: Logger }) {
  return async ({ team_id }: { team_id?: string }) => {
    const assigned = await assignQueues(deps, team_id);
    if (assigned > 0) deps.logger.debug({ assigned, team_id }, 'assigned queued conversations');
  };
}
