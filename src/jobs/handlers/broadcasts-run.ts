import { runDueBroadcasts, type RunnerDeps } from '../../domain/broadcasts/runner.ts';
import type { Logger } from '../../lib/logger.ts';

/** Sends what is due of every broadcast (their audiences frozen at their first run). */
export function broadcastsRunHandler(deps: RunnerDeps & { logger: Logger }) {
  return async () => {
    const taken = await runDueBroadcasts(deps);
    if (taken > 0) deps.logger.debug({ taken }, 'ran due broadcasts');
  };
}
