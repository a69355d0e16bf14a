import type { Db } from '../../db/client.ts';
import { wakeSnoozedConversations } from '../../domain/messages/conversations.ts';
import type { Clock } from '../../lib/clock.ts';
import type { Logger } from '../../lib/logger.ts';

/** Opens the snoozed conversations whose time has passed (each recorded once). */
export function conversationsWakeHandler(deps: { db: Db; clock: Clock; logger: Logger }) {
  return async () => {
    const woke = await wakeSnoozedConversations(deps);
    if (woke > 0) deps.logger.debug({ woke }, 'woke snoozed conversations');
  };
}
