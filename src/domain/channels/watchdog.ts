/**
 * The channel watchdog: asks each connected (or pairing) channel's provider whether it still
 * answers, so a channel never shows `connected` after its phone logged out or its provider went
 * silent. A platform whose health check reports a session state has it mapped to a channel status
 * by its provider module; three failed checks in a row mark the channel `disconnected` with the
 * last reason. A channel in `error` because its provider address was refused is asked too: a later
 * start's settings (the sandbox back on, ALLOW_PRIVATE_NETWORK_TARGETS) may let the address through,
 * and the channel then recovers by itself.
 */
import { storeProviderTier } from '../broadcasts/sending-rules.ts';
import { and, asc, eq, inArray, or, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { channels } from '../../db/schema.ts';
import type { Clock } from '../../lib/clock.ts';
import type { Sealer } from '../../lib/crypto.ts';
import type { Logger } from '../../lib/logger.ts';
import { providerModule, type ProviderRegistry } from '../../providers/registry.ts';
import {
  applyReportedStatus,
  applyStatus,
  connectionOf,
  connectVerifiedChannel,
  recordProviderFault,
  reloadChannel,
  type ChannelRow,
  type ConnectDeps,
} from './channels.ts';

export const WATCHDOG_FAILURE_LIMIT = 3;
const BATCH = 100;

/** Faults a restart with other settings can clear: the provider address refused by the current target rule. */
const SETTINGS_FAULTS = ['unsafe_target'];

export type WatchdogDeps = ConnectDeps & {
  db: Db;
  clock: Clock;
  sealer: Sealer;
  providers: ProviderRegistry;
  logger: Pick<Logger, 'error'>;
};

/**
 * Checks the channels checked longest ago (at most a batch); one channel's failure does not stop the
 * others. With `countFailures: false` (a worker's check as it starts: the workers of a scaled-out
 * restart each make one), a failed check is recorded but does not count toward marking the channel
 * disconnected, so several at once cannot add up to the limit.
 */
export async function checkChannelHealth(deps: WatchdogDeps, options: { countFailures?: boolean } = {}): Promise<void> {
  const due = await deps.db
    .select()
    .from(channels)
    .where(
      or(
        inArray(channels.status, ['connected', 'pairing']),
        and(eq(channels.status, 'error'), inArray(channels.lastErrorCode, SETTINGS_FAULTS)),
      ),
    )
    .orderBy(sql`${channels.lastCheckedAt} asc nulls first`, asc(channels.id))
    .limit(BATCH);
  for (const row of due) {
    try {
      await checkChannel(deps, row, options.countFailures ?? true);
    } catch (err) {
      deps.logger.error({ err, channel_id: row.id }, 'channel health check failed');
    }
  }
}

async function checkChannel(deps: WatchdogDeps, row: ChannelRow, countFailures: boolean): Promise<void> {
  const asked = deps.clock.now();
  const check = await deps.providers.get(row.platform).checkHealth(connectionOf(row, deps.sealer));
  const now = deps.clock.now();
  if (check.ok) {
    await deps.db.update(channels).set({ lastCheckedAt: now, reconnectAttempts: 0 }).where(eq(channels.id, row.id));
    await storeProviderTier(deps.db, row.id, check.messagingTier);
    const status = providerModule(row.platform).status.fromSession?.(check.status);
    // The session's state as of when it was asked: a report newer than that wins; older ones lose to it.
    if (status !== undefined) await applyReportedStatus(deps, row, status, `gateway session is ${check.status}`, check.status, asked);
    else if (row.status === 'error') await connectVerifiedChannel(deps, row, 'the provider answers again');
    return;
  }
  const attempts = row.reconnectAttempts + (countFailures ? 1 : 0);
  await deps.db.update(channels).set({ lastCheckedAt: now, reconnectAttempts: attempts }).where(eq(channels.id, row.id));
  await recordProviderFault(deps, row, check.error);
  if (countFailures && !check.error.channelFault && attempts >= WATCHDOG_FAILURE_LIMIT) {
    const fresh = await reloadChannel(deps.db, row.id);
    if (fresh.status === 'connected' || fresh.status === 'pairing') {
      await applyStatus(
        deps,
        fresh,
        'disconnected',
        `provider not answering after ${attempts} checks: ${check.error.title}`,
        check.error.code,
      );
    }
  }
}
