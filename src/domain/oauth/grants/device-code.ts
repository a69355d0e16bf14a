/**
 * The device code grant (RFC 8628 §3.4-3.5): the device polls with its device code. While the person
 * has not decided: authorization_pending, or slow_down (and an interval 5 s longer, kept on the row)
 * when it polls sooner than its interval; after denial access_denied; after expiry expired_token;
 * after approval, once, the tokens (the row is marked used in the transaction that issues them, so of
 * two polls at once one gets them), then invalid_grant. A replayed device code revokes nothing: the
 * device that got the tokens may simply have polled twice.
 */
import { and, eq, gt } from 'drizzle-orm';
import { oauthDeviceAuthorizations } from '../../../db/schema.ts';
import { oauthError } from '../errors.ts';
import { createGrant, hashToken, type IssuedTokens, type TokenDeps } from '../tokens.ts';
import { OAUTH_PREFIXES, type OAuthClient } from '../vocabulary.ts';

/** RFC 8628 §3.5: each slow_down adds 5 seconds to the interval. */
export const SLOW_DOWN_STEP_SECONDS = 5;

export async function redeemDeviceCode(
  deps: TokenDeps,
  client: OAuthClient,
  input: { deviceCode: string | undefined },
): Promise<IssuedTokens> {
  const { db, clock } = deps;
  if (input.deviceCode === undefined) throw oauthError('invalid_request', 'device_code is missing');
  const unknown = () => oauthError('invalid_grant', 'the device code is unknown, was already used, or belongs to another client');
  if (!input.deviceCode.startsWith(OAUTH_PREFIXES.deviceCode) || input.deviceCode.length > 200) throw unknown();
  const [row] = await db
    .select()
    .from(oauthDeviceAuthorizations)
    .where(eq(oauthDeviceAuthorizations.deviceCodeHash, hashToken(input.deviceCode)))
    .limit(1);
  if (!row || row.clientId !== client.id || row.status === 'used') throw unknown();
  const now = clock.now();
  if (row.status === 'denied') throw oauthError('access_denied', 'the user denied the authorization');
  if (row.expiresAt.getTime() <= now.getTime()) throw oauthError('expired_token', 'the device code expired: start the device flow again');
  if (row.status === 'pending') {
    const tooSoon = row.lastPolledAt !== null && now.getTime() - row.lastPolledAt.getTime() < row.intervalSeconds * 1000;
    const intervalSeconds = tooSoon ? row.intervalSeconds + SLOW_DOWN_STEP_SECONDS : row.intervalSeconds;
    await db.update(oauthDeviceAuthorizations).set({ lastPolledAt: now, intervalSeconds }).where(eq(oauthDeviceAuthorizations.id, row.id));
    if (tooSoon)
      throw oauthError('slow_down', `polled sooner than the interval: wait at least ${intervalSeconds} s between polls from now on`);
    throw oauthError('authorization_pending', 'the user has not decided yet: poll again after the interval');
  }
  return db.transaction(async (tx) => {
    const [claimed] = await tx
      .update(oauthDeviceAuthorizations)
      .set({ status: 'used', lastPolledAt: now })
      .where(
        and(
          eq(oauthDeviceAuthorizations.id, row.id),
          eq(oauthDeviceAuthorizations.status, 'approved'),
          gt(oauthDeviceAuthorizations.expiresAt, now),
        ),
      )
      .returning();
    if (!claimed) throw unknown();
    const issued = await createGrant(tx, now, deps.lifetimes, {
      client,
      userId: claimed.userId!,
      scopes: claimed.scopes,
      organizationIds: claimed.organizationIds ?? [],
    });
    await tx.update(oauthDeviceAuthorizations).set({ grantId: issued.grantId }).where(eq(oauthDeviceAuthorizations.id, row.id));
    return issued;
  });
}
