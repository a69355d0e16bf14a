/**
 * The refresh token grant (RFC 6749 §6) with rotation (OAuth 2.0 Security BCP §4.14): each refresh
 * token is exchanged once for a new pair, and the new refresh token lives a full refresh lifetime from
 * now (sliding expiry). A rotated refresh token presented again means it leaked: the whole grant is
 * revoked. `scope` may narrow the new access token to part of the grant's scopes; the new refresh
 * token keeps the old one's scopes (RFC 6749 §6). Access tokens issued earlier live until they expire.
 */
import { oauthError } from '../errors.ts';
import { findToken, hashToken, revokeGrant, rotateRefreshToken, type IssuedTokens, type TokenDeps } from '../tokens.ts';
import { OAUTH_PREFIXES, parseScope, type OAuthClient } from '../vocabulary.ts';

export async function redeemRefreshToken(
  deps: TokenDeps,
  client: OAuthClient,
  input: { refreshToken: string | undefined; scope: string | undefined },
): Promise<IssuedTokens> {
  const { db, clock } = deps;
  if (input.refreshToken === undefined) throw oauthError('invalid_request', 'refresh_token is missing');
  const unknown = () => oauthError('invalid_grant', 'the refresh token is unknown, expired, revoked, or was issued to another client');
  if (!input.refreshToken.startsWith(OAUTH_PREFIXES.refreshToken)) throw unknown();
  let requested: string[] | undefined;
  if (input.scope !== undefined && input.scope.trim() !== '') {
    const parsed = parseScope(input.scope);
    if (!parsed.ok) throw oauthError('invalid_scope', `unknown scope ${parsed.unknown.slice(0, 5).join(', ').slice(0, 200)}`);
    requested = parsed.scopes;
  }
  const now = clock.now();
  // The usual case in one statement: a usable token of this client, claimed and replaced together.
  const rotated = await rotateRefreshToken(db, now, deps.lifetimes, {
    tokenHash: hashToken(input.refreshToken),
    clientRowId: client.id,
    scopes: requested,
  });
  if (rotated) return rotated;
  // Otherwise: say why, and revoke the grant if the token was already used.
  const found = await findToken(db, input.refreshToken);
  if (!found || found.token.kind !== 'refresh' || found.grant.clientId !== client.id) throw unknown();
  if (found.token.revokedAt !== null || found.grant.revokedAt !== null || found.token.expiresAt.getTime() <= now.getTime()) throw unknown();
  const reused = () =>
    oauthError('invalid_grant', 'the refresh token was already used: the whole grant is revoked, so the user must authorize again');
  if (found.token.rotatedAt !== null) {
    await revokeGrant(db, now, found.grant.id);
    deps.forget?.();
    throw reused();
  }
  const beyond = (requested ?? []).filter((s) => !found.token.scopes.includes(s));
  if (beyond.length > 0)
    throw oauthError('invalid_scope', `scope ${beyond.join(', ')} was not granted: a refresh can only narrow the scopes`);
  // Usable after all (it changed meanwhile): exchange it by id.
  const issued = await rotateRefreshToken(db, now, deps.lifetimes, { refreshTokenId: found.token.id, scopes: requested });
  if (issued) return issued;
  // Exchanged by someone else meanwhile: a replay, as above.
  await revokeGrant(db, now, found.grant.id);
  deps.forget?.();
  throw reused();
}
