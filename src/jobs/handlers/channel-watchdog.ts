/**
 * The channel watchdog: asks each connected (or pairing) channel's provider whether it still
 * answers, so a channel never shows `connected` after its phone logged out or its provider went
 * silent. Three failed checks in a row mark it `disconnected` with the last reason.
 */
import { asc, eq, inArray, sql } from 'drizzle-orm';
import type { Container } from '../../container.ts';
import { channels } from '../../db/schema.ts';
import { applyStatus, connectionOf, recordProviderFault, reloadChannel } from '../../domain/channels/channels.ts';
import { channelStatusOf } from '../../providers/gateway/adapter.ts';
import type { Platform } from '../../providers/provider.ts';

export const WATCHDOG_FAILURE_LIMIT = 3;
const BATCH = 100;

export function channelWatchdogHandler(container: Container) {
  const { database, clock, providers, sealer, logger } = container;
  const deps = { db: database.db, clock };
  return async () => {
    const due = await database.db
      .select()
      .from(channels)
      .where(inArray(channels.status, ['connected', 'pairing']))
      .orderBy(sql`${channels.lastCheckedAt} asc nulls first`, asc(channels.id))
      .limit(BATCH);
    for (const row of due) {
      try {
        const check = await providers.get(row.platform as Platform).checkHealth(connectionOf(row, sealer));
        const now = clock.now();
        if (check.ok) {
          await database.db.update(channels).set({ lastCheckedAt: now, reconnectAttempts: 0 }).where(eq(channels.id, row.id));
          if (row.platform === 'chatapp_unofficial') {
            const status = channelStatusOf(check.status);
            if (status !== row.status && !(row.status === 'pairing' && status === 'disconnected' && check.status === 'STARTING')) {
              await applyStatus(deps, await reloadChannel(database.db, row.id), status, `gateway session is ${check.status}`, check.status);
            }
          }
          continue;
        }
        const attempts = row.reconnectAttempts + 1;
        await database.db.update(channels).set({ lastCheckedAt: now, reconnectAttempts: attempts }).where(eq(channels.id, row.id));
        await recordProviderFault(deps, row, check.error);
        if (!check.error.channelFault && attempts >= WATCHDOG_FAILURE_LIMIT) {
          const fresh = await reloadChannel(database.db, row.id);
          if (fresh.status === 'connected' || fresh.status === 'pairing') {
            await applyStatus(deps, fresh, 'disconnected', `provider not answering after ${attempts} checks: ${check.error.title}`, check.error.code);
          }
        }
      } catch (err) {
        logger.error({ err, channel_id: row.id }, 'channel health check failed');
      }
    }
  };
}
