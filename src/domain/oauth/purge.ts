/**
 * Authorization requests and device authorizations that can no longer be used go a day after they
 * expired (anyone may start a flow, so nothing else would bound them). Redeemed ones (`used`) stay:
 * they hold the grant a replayed code or device code revokes.
 */
import { and, lt, ne } from 'drizzle-orm';
import type { Executor } from '../../db/client.ts';
import { oauthAuthorizationRequests, oauthDeviceAuthorizations } from '../../db/schema.ts';
import type { Clock } from '../../lib/clock.ts';

const KEEP_AFTER_EXPIRY_MS = 86_400_000;

export async function purgeExpiredOAuthFlows({ db, clock }: { db: Executor; clock: Clock }): Promise<{ authorizationRequests: number; deviceAuthorizations: number }> {
  const cutoff = new Date(clock.now().getTime() - KEEP_AFTER_EXPIRY_MS);
  const requests = await db
    .delete(oauthAuthorizationRequests)
    .where(and(lt(oauthAuthorizationRequests.expiresAt, cutoff), ne(oauthAuthorizationRequests.status, 'used')))
    .returning({ id: oauthAuthorizationRequests.id });
  const devices = await db
    .delete(oauthDeviceAuthorizations)
    .where(and(lt(oauthDeviceAuthorizations.expiresAt, cutoff), ne(oauthDeviceAuthorizations.status, 'used')))
    .returning({ id: oauthDeviceAuthorizations.id });
  return { authorizationRequests: requests.length, deviceAuthorizations: devices.length };
}
