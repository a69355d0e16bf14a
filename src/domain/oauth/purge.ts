/**
 * Authorization requests and device authorizations that can no longer be used go a day after they
 * expired (anyone may start a flow, so nothing else would bound them). Redeemed ones (`used`) stay:
 * they hold the grant a replayed code revokes. Tokens go a day after they expired, and grants a day
 * after they were revoked (with their tokens and organizations).
 */
import { and, isNotNull, lt, ne } from 'drizzle-orm';
import type { Executor } from '../../db/client.ts';
import { oauthAuthorizationRequests, oauthDeviceAuthorizations, oauthGrants, oauthTokens } from '../../db/schema.ts';
import type { Clock } from '../../lib/clock.ts';

const KEEP_AFTER_EXPIRY_MS = 86_400_000;

export type OAuthPurge = { authorizationRequests: number; deviceAuthorizations: number; tokens: number; grants: number };

export async function purgeExpiredOAuthFlows({ db, clock }: { db: Executor; clock: Clock }): Promise<OAuthPurge> {
  const cutoff = new Date(clock.now().getTime() - KEEP_AFTER_EXPIRY_MS);
  const requests = await db
    .delete(oauthAuthorizationRequests)
    .where(and(lt(oauthAuthorizationRequests.expiresAt, cutoff), ne(oauthAuthorizationRequests.status, 'used')))
    .returning({ id: oauthAuthorizationRequests.id });
  const devices = await db
    .delete(oauthDeviceAuthorizations)
    .where(and(lt(oauthDeviceAuthorizations.expiresAt, cutoff), ne(oauthDeviceAuthorizations.status, 'used')))
    .returning({ id: oauthDeviceAuthorizations.id });
  const grants = await db
    .delete(oauthGrants)
    .where(and(isNotNull(oauthGrants.revokedAt), lt(oauthGrants.revokedAt, cutoff)))
    .returning({ id: oauthGrants.id });
  const tokens = await db.delete(oauthTokens).where(lt(oauthTokens.expiresAt, cutoff)).returning({ id: oauthTokens.id });
  return { authorizationRequests: requests.length, deviceAuthorizations: devices.length, tokens: tokens.length, grants: grants.length };
}
