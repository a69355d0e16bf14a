/** The channel watchdog job (cron): one call into the domain (domain/channels/watchdog.ts). */
import { checkChannelHealth, type WatchdogDeps } from '../../domain/channels/watchdog.ts';

export function channelWatchdogHandler(deps: WatchdogDeps) {
  return () => checkChannelHealth(deps);
}
