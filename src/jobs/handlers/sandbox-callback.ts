import type { Database } from '../../db/client.ts';
import type { Logger } from '../../lib/logger.ts';
import type { Sandbox } from '../../sandbox/sandbox.ts';
import type { BatchJobHandler } from '../queue.ts';

/**
 * Delivers sandbox callbacks (statuses, inbound messages, template decisions, session changes), a
 * batch at a time: the statuses of one account together, as one callback. A failed delivery fails
 * its jobs, so pg-boss retries them; a job's id is its callback's event id.
 */
export function sandboxCallbackHandler(deps: {
  database: Database;
  sandbox: Sandbox | undefined;
  logger: Logger;
}): BatchJobHandler<'sandbox.callback'> {
  return {
    async batch(jobs) {
      if (!deps.sandbox) {
        for (const job of jobs) deps.logger.warn({ kind: job.payload.kind }, 'sandbox callback dropped: the sandbox provider is off');
        return new Map();
      }
      return deps.sandbox.deliverCallbacks(deps.database.db, jobs);
    },
  };
}
