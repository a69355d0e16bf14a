/** The channel watchdog job (cron): one call into the domain (domain/channels/watchdog.ts). */
import type { Executor } from '../../db/client.ts';
import { checkChannelHealth, type WatchdogDeps } from '../../domain/channels/watchdog.ts';
import type { Queue } from '../queue.ts';

export function channelWatchdogHandler(deps: WatchdogDeps) {
  // A start's check (one per worker that starts: two starts a few seconds apart with other settings, the
  // sandbox off then on again, each get theirs) does not count failures toward the disconnect limit.
  return (payload: { start?: boolean } = {}) => checkChannelHealth(deps, { countFailures: !payload.start });
}

/**
 * A check now, when a worker starts, rather than at the next minute's cron run: the settings may have
 * changed with the restart (the sandbox on or off, ALLOW_PRIVATE_NETWORK_TARGETS), and a channel they
 * broke or mended shows it at once.
 */
export function checkChannelsAtStart(queue: Pick<Queue, 'enqueue'>, executor: Executor): Promise<void> {
  return queue.enqueue(executor, 'channel.watchdog', { start: true });
}
