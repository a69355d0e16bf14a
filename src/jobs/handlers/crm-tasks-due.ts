import type { Executor } from '../../db/client.ts';
import { recordDueTasks } from '../../domain/tasks/due.ts';
import type { Clock } from '../../lib/clock.ts';
import type { Logger } from '../../lib/logger.ts';

/** Records crm.task.due for the tasks whose due time has passed (each once). */
export function tasksDueHandler(deps: { db: Executor; clock: Clock; logger: Logger }) {
  return async () => {
    const recorded = await recordDueTasks(deps);
    if (recorded > 0) deps.logger.debug({ recorded }, 'recorded due task reminders');
  };
}
