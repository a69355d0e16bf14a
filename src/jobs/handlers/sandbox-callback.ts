import type { Database } from '../../db/client.ts';
import type { Logger } from '../../lib/logger.ts';
import type { Sandbox } from '../../sandbox/sandbox.ts';
import type { JobHandler } from '../queue.ts';

/**
 * Delivers one sandbox callback (a status, an inbound message, a template decision, a session
 * change). A failed delivery throws, so pg-boss retries it; the job id is the callback's event id.
 */
export function sandboxCallbackHandler(deps: { database: Database; sandbox: Sandbox | undefined; logger: Logger }): JobHandler<'sandbox.callback'> {
  return async (payload, job) => {
    if (!deps.sandbox) {
      deps.logger.warn({ kind: payload.kind }, 'sandbox callback dropped: the sandbox provider is off');
      return;
    }
    await deps.sandbox.deliverCallback(deps.database.db, payload, job.id);
  };
}
