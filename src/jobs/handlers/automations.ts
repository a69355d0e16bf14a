import type { ActionDeps } from '../../domain/automations/actions.ts';
import { runAutomationsForEvent, sweepNoReply } from '../../domain/automations/triggers.ts';
import type { Logger } from '../../lib/logger.ts';

/** Runs the automation rules an event triggers (each once per event). */
export function automationsEventHandler(deps: ActionDeps & { logger: Logger }) {
  return async ({ event_id }: { event_id: string }) => runAutomationsForEvent(deps, event_id);
}

/** Runs the no_reply rules whose wait has passed. */
export function automationsNoReplyHandler(deps: ActionDeps & { logger: Logger }) {
  return async () => {
    const runs = await sweepNoReply(deps);
    if (runs > 0) deps.logger.debug({ runs }, 'no-reply automation runs');
  };
}
