/** The channel watchdog job (cron): one call into the domain (domain/channels/watchdog.ts). */
import type { Executor } from '../../db/client.ts';
import { checkChannelHealth, type WatchdogDeps } from '../../domain/channels/watchdog.ts';
import type { Queue } from '../queue.ts';

export function channelWatchdogHandler(deps: WatchdogDeps) {
  return () => checkChannelHealth(deps);
}

/** How long one start's check stands for every start of that slot (a scaled-out restart asks once). */
const START_CHECK_SECONDS = 30;

/**
 * A check now, when a worker starts, rather than at the next minute's cron run: the settings may have
 * changed with the restart (the sandbox on or off, ALLOW_PRIVATE_NETWORK_TARGETS), and a channel they
 * broke or mended shows it at once.
 */
export function checkChannelsAtStart(queue: Pick<Queue, 'enqueue'>, executor: Executor): Promise<void> {
  return queue.enqueue(executor, 'channel.watchdog', {}, { singletonKey: 'start', singletonSeconds: START_CHECK_SECONDS });
}
