/**
 * The authorization code grant (RFC 6749 §4.1.3, PKCE per RFC 7636 §4.6): the code approved on the
 * consent page, looked up by its hash, within its 60 s, for the client it was issued to, with the
 * same redirect_uri and a verifier whose S256 is the stored challenge. A code is presented once: the
 * statement that marks it used is in the transaction that issues the tokens; an exchange its client
 * gets wrong (verifier or redirect_uri) spends it too, issuing nothing (one try: no second
 * guess at the verifier); a code presented again is refused and revokes every token of the grant it
 * produced, if any (RFC 6749 §4.1.2). Another client presenting it is told it is unknown, and changes nothing.
 */
import { createHash } from 'node:crypto';
import { and, eq, gt } from 'drizzle-orm';
import { oauthAuthorizationRequests } from '../../../db/schema.ts';
import { constantTimeEqual } from '../../../lib/crypto.ts';
import { oauthError } from '../errors.ts';
import { createGrant, hashToken, revokeGrant, type IssuedTokens, type TokenDeps } from '../tokens.ts';
import { OAUTH_PREFIXES, type OAuthClient } from '../vocabulary.ts';

/** RFC 7636 §4.1: 43 to 128 unreserved characters. */
const CODE_VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/;

export type CodeExchange = { code: string | undefined; redirectUri: string | undefined; codeVerifier: string | undefined };

export async function redeemAuthorizationCode(deps: TokenDeps, client: OAuthClient, input: CodeExchange): Promise<IssuedTokens> {
  const { db, clock } = deps;
  if (input.code === undefined) throw oauthError('invalid_request', 'code is missing');
  if (input.redirectUri === undefined)
    throw oauthError('invalid_request', 'redirect_uri is missing: send the one of the authorization request');
  if (input.codeVerifier !== undefined && !CODE_VERIFIER.test(input.codeVerifier)) {
    throw oauthError('invalid_request', 'code_verifier must be 43 to 128 characters of A-Z, a-z, 0-9 and -._~');
  }
  const unknown = () => oauthError('invalid_grant', 'the code is unknown, expired, or was issued to another client');
  if (!input.code.startsWith(OAUTH_PREFIXES.authorizationCode) || input.code.length > 200) throw unknown();
  const [row] = await db
    .select()
    .from(oauthAuthorizationRequests)
    .where(eq(oauthAuthorizationRequests.codeHash, hashToken(input.code)))
    .limit(1);
  if (!row || row.clientId !== client.id) throw unknown();
  const now = clock.now();
  if (row.status === 'used') {
    if (row.grantId) await revokeGrant(db, now, row.grantId);
    deps.forget?.();
    throw oauthError('invalid_grant', 'the code was already used: every token issued for it is revoked');
  }
  if (row.status !== 'approved' || row.expiresAt.getTime() <= now.getTime()) throw unknown();
  const refusal = exchangeRefusal(row, input);
  if (refusal) {
    // Spent: whoever holds the code gets one try, so a verifier cannot be guessed at.
    await db
      .update(oauthAuthorizationRequests)
      .set({ status: 'used', usedAt: now })
      .where(and(eq(oauthAuthorizationRequests.id, row.id), eq(oauthAuthorizationRequests.status, 'approved')));
    throw refusal;
  }
  const issued = await db.transaction(async (tx) => {
    const [claimed] = await tx
      .update(oauthAuthorizationRequests)
      .set({ status: 'used', usedAt: now })
      .where(
        and(
          eq(oauthAuthorizationRequests.id, row.id),
          eq(oauthAuthorizationRequests.status, 'approved'),
          gt(oauthAuthorizationRequests.expiresAt, now),
        ),
      )
      .returning();
    if (!claimed) return undefined;
    const tokens = await createGrant(tx, now, deps.lifetimes, {
      client,
      userId: claimed.userId!,
      scopes: claimed.scopes,
      organizationIds: claimed.organizationIds ?? [],
    });
    await tx.update(oauthAuthorizationRequests).set({ grantId: tokens.grantId }).where(eq(oauthAuthorizationRequests.id, row.id));
    return tokens;
  });
  if (issued) return issued;
  // Another exchange of the same code won meanwhile: this one is a replay.
  const [current] = await db
    .select({ grantId: oauthAuthorizationRequests.grantId })
    .from(oauthAuthorizationRequests)
    .where(eq(oauthAuthorizationRequests.id, row.id))
    .limit(1);
  if (current?.grantId) await revokeGrant(db, now, current.grantId);
  deps.forget?.();
  throw oauthError('invalid_grant', 'the code was already used: every token issued for it is revoked');
}

/** Why the code's own client may not exchange it with this redirect_uri and verifier; undefined when it may. */
function exchangeRefusal(row: { redirectUri: string | null; codeChallenge: string | null }, input: CodeExchange) {
  if (row.redirectUri !== input.redirectUri) return oauthError('invalid_grant', 'redirect_uri is not the one of the authorization request');
  if (row.codeChallenge === null) {
    return input.codeVerifier === undefined
      ? undefined
      : oauthError('invalid_grant', 'code_verifier was sent but the authorization request had no code_challenge');
  }
  if (input.codeVerifier === undefined)
    return oauthError('invalid_grant', 'code_verifier is missing: the authorization request had a code_challenge');
  const computed = createHash('sha256').update(input.codeVerifier).digest('base64url');
  return constantTimeEqual(computed, row.codeChallenge)
    ? undefined
    : oauthError('invalid_grant', 'code_verifier does not match the code_challenge');
}
