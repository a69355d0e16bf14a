/**
 * Token introspection (RFC 7662) and revocation (RFC 7009).
 *
 * Who may introspect: a confidential client, for tokens issued to itself; or any credential (API key,
 * access token, dashboard session) holding `oauth:introspect` in an organization the token reaches.
 * Anything else about a token (unknown, expired, revoked, rotated, another client's, an organization
 * the caller cannot see) is exactly `{active: false}`.
 *
 * Who may revoke: whoever holds the token (the secret is the proof, as the large providers' revocation
 * endpoints take it: an application signing out may have no client credentials at hand), or a client
 * that authenticates (RFC 7009 §2.1: a public client by its client_id, a confidential one with its
 * credentials), which then revokes only tokens issued to it. A token of another client, or an unknown
 * one, is answered like a revoked one (200) and left as it is, so revocation tells nobody what exists.
 */
import type { Executor } from '../../db/client.ts';
import type { Clock } from '../../lib/clock.ts';
import type { Actor } from '../actor.ts';
import { DomainError } from '../errors.ts';
import { oauthClients } from '../../db/schema.ts';
import { eq } from 'drizzle-orm';
import { findToken, isActive, reachedOrganizations, revokeToken } from './tokens.ts';
import type { OAuthClient } from './vocabulary.ts';

export type IntrospectionCaller = { kind: 'client'; client: OAuthClient } | { kind: 'actor'; actor: Actor };

export type Introspection =
  | { active: false }
  | {
      active: true;
      scope: string;
      clientId: string;
      /** The user who authorized the client. */
      sub: string;
      exp: number;
      iat: number;
      tokenType: 'Bearer' | 'refresh_token';
      organizationIds: string[];
    };

const INACTIVE: Introspection = { active: false };

export const INTROSPECT_PERMISSION = 'oauth:introspect';

export async function introspectToken(
  { db, clock }: { db: Executor; clock: Clock },
  caller: IntrospectionCaller,
  input: { token: string },
): Promise<Introspection> {
  if (caller.kind === 'actor' && !caller.actor.permissions.has(INTROSPECT_PERMISSION)) {
    throw new DomainError('forbidden', `missing permission ${INTROSPECT_PERMISSION}`, {
      extra: { permission: INTROSPECT_PERMISSION, oauth_error: 'insufficient_scope' },
    });
  }
  const found = await findToken(db, input.token);
  if (!found || !isActive(found, clock.now())) return INACTIVE;
  if (caller.kind === 'client' && found.grant.clientId !== caller.client.id) return INACTIVE;
  const organizationIds = await reachedOrganizations(db, found.grant);
  if (organizationIds.length === 0) return INACTIVE;
  if (caller.kind === 'actor' && !organizationIds.includes(caller.actor.organizationId)) return INACTIVE;
  const [client] = await db
    .select({ clientId: oauthClients.clientId, scopes: oauthClients.scopes })
    .from(oauthClients)
    .where(eq(oauthClients.id, found.grant.clientId))
    .limit(1);
  if (!client) return INACTIVE;
  return {
    active: true,
    scope: found.token.scopes.filter((s) => client.scopes.includes(s)).join(' '),
    clientId: client.clientId,
    sub: found.grant.userId,
    exp: Math.floor(found.token.expiresAt.getTime() / 1000),
    iat: Math.floor(found.token.createdAt.getTime() / 1000),
    tokenType: found.token.kind === 'access' ? 'Bearer' : 'refresh_token',
    organizationIds,
  };
}

/** Who asks to revoke a token: its holder (no client credentials), or an authenticated client. */
export type Revoker = { kind: 'holder' } | { kind: 'client'; client: OAuthClient };

/** RFC 7009: revokes the token for its holder, or for the client it was issued to; always succeeds. Says whether anything was revoked. */
export async function revokeClientToken(
  deps: { db: Executor; clock: Clock },
  revoker: Revoker,
  input: { token: string },
): Promise<boolean> {
  const found = await findToken(deps.db, input.token);
  if (!found || (revoker.kind === 'client' && found.grant.clientId !== revoker.client.id)) return false;
  await revokeToken(deps, found);
  return true;
}
