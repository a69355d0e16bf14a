/**
 * Access and refresh tokens: issued with the grant they belong to, rotated by the refresh grant,
 * revoked one by one or a grant at a time. Tokens are opaque (pla_ and plr_ plus 256 random bits);
 * only their SHA-256 is stored. A grant's tokens form one refresh family: revoking the grant, or
 * replaying a code or a rotated refresh token, ends them all.
 */
import type { ClientLookup } from './client-cache.ts';
import { and, eq, isNull, sql } from 'drizzle-orm';
import { queryRows, type Executor } from '../../db/client.ts';
import { oauthGrantOrganizations, oauthGrants, oauthTokens } from '../../db/schema.ts';
import { randomToken, sha256Hex } from '../../lib/crypto.ts';
import type { Clock } from '../../lib/clock.ts';
import { uuidv7 } from '../../lib/ids.ts';
import { GRANT_TYPES, OAUTH_PREFIXES, type OAuthClient } from './vocabulary.ts';

/** Lifetimes from the settings (OAUTH_ACCESS_TOKEN_TTL, OAUTH_REFRESH_TOKEN_TTL: sliding, renewed by each refresh). */
export type TokenLifetimes = { accessTokenTtlMs: number; refreshTokenTtlMs: number };

/**
 * What a grant endpoint needs: the database (transactions), the clock and the lifetimes; `forget`
 * drops this process's bearer cache after a replay revoked a grant (other processes hear the NOTIFY).
 */
/** `clients`: the registered clients by client_id (cached per process, see client-cache.ts). */
export type TokenDeps = { db: Executor; clock: Clock; clients: ClientLookup; lifetimes: TokenLifetimes; forget?: () => void };

/** The token endpoint's success (RFC 6749 §5.1). */
export type IssuedTokens = { accessToken: string; refreshToken: string | undefined; expiresIn: number; scopes: string[] };

type TokenRow = typeof oauthTokens.$inferInsert;

function newToken(kind: 'access' | 'refresh'): string {
  return (kind === 'access' ? OAUTH_PREFIXES.accessToken : OAUTH_PREFIXES.refreshToken) + randomToken(32);
}

export function hashToken(token: string): string {
  return sha256Hex(token);
}

/** A refresh token only for a client registered for the refresh grant. */
export function issuesRefreshTokens(client: Pick<OAuthClient, 'grantTypes'>): boolean {
  return client.grantTypes.includes(GRANT_TYPES.refreshToken);
}

/**
 * An access token (and a refresh token, when `refresh` says so) for a grant. The refresh token
 * keeps `refreshScopes` (RFC 6749 §6: a narrowed refresh does not narrow the refresh token).
 */
export async function issueTokens(
  db: Executor,
  now: Date,
  lifetimes: TokenLifetimes,
  input: { grantId: string; scopes: string[]; refresh: { scopes: string[]; parentId: string | null } | undefined },
): Promise<IssuedTokens & { refreshTokenId: string | undefined }> {
  const accessToken = newToken('access');
  const refreshToken = input.refresh ? newToken('refresh') : undefined;
  const refreshTokenId = refreshToken ? uuidv7() : undefined;
  const rows: TokenRow[] = [];
  if (refreshToken && input.refresh) {
    rows.push({
      id: refreshTokenId!,
      grantId: input.grantId,
      kind: 'refresh',
      tokenHash: hashToken(refreshToken),
      scopes: input.refresh.scopes,
      parentId: input.refresh.parentId,
      createdAt: now,
      expiresAt: new Date(now.getTime() + lifetimes.refreshTokenTtlMs),
    });
  }
  rows.push({
    id: uuidv7(),
    grantId: input.grantId,
    kind: 'access',
    tokenHash: hashToken(accessToken),
    scopes: input.scopes,
    parentId: refreshTokenId ?? input.refresh?.parentId ?? null,
    createdAt: now,
    expiresAt: new Date(now.getTime() + lifetimes.accessTokenTtlMs),
  });
  await db.insert(oauthTokens).values(rows);
  return { accessToken, refreshToken, refreshTokenId, expiresIn: Math.floor(lifetimes.accessTokenTtlMs / 1000), scopes: input.scopes };
}

/** A text[] parameter, written as an array literal (drizzle's sql would spread a JS array into a list). */
function textArray(values: readonly string[]) {
  return sql`${`{${values.map((v) => `"${v.replace(/["\\]/g, '\\$&')}"`).join(',')}}`}::text[]`;
}

/**
 * A refresh token exchanged for a new pair in one statement: the old one is marked rotated only if
 * it is still usable (not rotated, revoked or expired, its grant not revoked: of two exchanges at
 * once, one gets the pair), and the new rows are inserted only then. The token is named by its id,
 * or by its hash and client (the whole exchange in one round trip), where `scopes`, when given, must
 * be among its scopes. The new refresh token keeps the old one's scopes; the access token gets
 * `scopes` (or the same). Undefined when nothing was claimed.
 */
export async function rotateRefreshToken(
  db: Executor,
  now: Date,
  lifetimes: TokenLifetimes,
  input: ({ refreshTokenId: string } | { tokenHash: string; clientRowId: string }) & { scopes: string[] | undefined },
): Promise<IssuedTokens | undefined> {
  const accessToken = newToken('access');
  const refreshToken = newToken('refresh');
  const refreshId = uuidv7();
  const at = (ms: number) => sql`${new Date(now.getTime() + ms).toISOString()}::timestamptz`;
  const scopes = input.scopes ? textArray(input.scopes) : sql`null::text[]`;
  const which =
    'refreshTokenId' in input
      ? sql`t.id = ${input.refreshTokenId}`
      : sql`t.token_hash = ${input.tokenHash} and g.client_id = ${input.clientRowId} and (${scopes} is null or t.scopes @> ${scopes})`;
  const rows = await queryRows<{ kind: string; scopes: string[] }>(
    db,
    sql`
    with claimed as (
      update oauth_tokens t set rotated_at = ${at(0)}
        from oauth_grants g
       where g.id = t.grant_id and g.revoked_at is null and t.kind = 'refresh'
         and t.rotated_at is null and t.revoked_at is null and t.expires_at > ${at(0)} and ${which}
      returning t.id, t.grant_id, t.scopes)
    insert into oauth_tokens (id, grant_id, kind, token_hash, scopes, parent_id, created_at, expires_at)
    select ${refreshId}::uuid, grant_id, 'refresh', ${hashToken(refreshToken)}::text, scopes, id, ${at(0)}, ${at(lifetimes.refreshTokenTtlMs)} from claimed
    union all
    select ${uuidv7()}::uuid, grant_id, 'access', ${hashToken(accessToken)}::text, coalesce(${scopes}, scopes), ${refreshId}::uuid, ${at(0)}, ${at(lifetimes.accessTokenTtlMs)} from claimed
    returning kind, scopes`,
  );
  const access = rows.find((r) => r.kind === 'access');
  if (!access) return undefined;
  return { accessToken, refreshToken, expiresIn: Math.floor(lifetimes.accessTokenTtlMs / 1000), scopes: access.scopes };
}

/**
 * A new grant (what the user approved: client, scopes, organizations) and its first tokens. Runs
 * in the caller's transaction, with the statement that marked the code or device code used.
 */
export async function createGrant(
  db: Executor,
  now: Date,
  lifetimes: TokenLifetimes,
  input: { client: OAuthClient; userId: string; scopes: string[]; organizationIds: readonly string[] },
): Promise<IssuedTokens & { grantId: string }> {
  const grantId = uuidv7();
  await db
    .insert(oauthGrants)
    .values({ id: grantId, clientId: input.client.id, userId: input.userId, scopes: input.scopes, createdAt: now });
  const organizationIds = [...new Set(input.organizationIds)];
  if (organizationIds.length > 0)
    await db.insert(oauthGrantOrganizations).values(organizationIds.map((organizationId) => ({ grantId, organizationId })));
  const tokens = await issueTokens(db, now, lifetimes, {
    grantId,
    scopes: input.scopes,
    refresh: issuesRefreshTokens(input.client) ? { scopes: input.scopes, parentId: null } : undefined,
  });
  return { ...tokens, grantId };
}

/** Revokes a grant and every token of it (a replayed code or refresh token, a revoked refresh token, the user's revocation). */
export async function revokeGrant(db: Executor, now: Date, grantId: string): Promise<void> {
  await db
    .update(oauthGrants)
    .set({ revokedAt: now })
    .where(and(eq(oauthGrants.id, grantId), isNull(oauthGrants.revokedAt)));
  await db
    .update(oauthTokens)
    .set({ revokedAt: now })
    .where(and(eq(oauthTokens.grantId, grantId), isNull(oauthTokens.revokedAt)));
}

/** A stored token by its secret, with its grant and client; any state (the caller decides what counts as active). */
export async function findToken(db: Executor, token: string) {
  if (token.length > 512 || !(token.startsWith(OAUTH_PREFIXES.accessToken) || token.startsWith(OAUTH_PREFIXES.refreshToken)))
    return undefined;
  const rows = await db
    .select({ token: oauthTokens, grant: oauthGrants })
    .from(oauthTokens)
    .innerJoin(oauthGrants, eq(oauthGrants.id, oauthTokens.grantId))
    .where(eq(oauthTokens.tokenHash, hashToken(token)))
    .limit(1);
  return rows[0];
}

export type FoundToken = NonNullable<Awaited<ReturnType<typeof findToken>>>;

/** Whether a found token can be used now: neither it nor its grant revoked, not expired, not a rotated refresh token. */
export function isActive(found: FoundToken, now: Date): boolean {
  return (
    found.token.revokedAt === null &&
    found.grant.revokedAt === null &&
    found.token.rotatedAt === null &&
    found.token.expiresAt.getTime() > now.getTime()
  );
}

/** Revokes one token: an access token alone; a refresh token with its whole grant (RFC 7009 §2.1: its access tokens go with it). */
export async function revokeToken({ db, clock }: { db: Executor; clock: Clock }, found: FoundToken): Promise<void> {
  const now = clock.now();
  if (found.token.kind === 'refresh') {
    await revokeGrant(db, now, found.grant.id);
    return;
  }
  await db
    .update(oauthTokens)
    .set({ revokedAt: now })
    .where(and(eq(oauthTokens.id, found.token.id), isNull(oauthTokens.revokedAt)));
}

/** The organizations a grant reaches in which its user is still a member. */
export async function reachedOrganizations(db: Executor, grant: { id: string; userId: string }): Promise<string[]> {
  const rows = await queryRows<{ organization_id: string }>(
    db,
    sql`
    select o.organization_id from oauth_grant_organizations o
      join memberships m on m.organization_id = o.organization_id and m.user_id = ${grant.userId}
     where o.grant_id = ${grant.id}
     order by o.organization_id`,
  );
  return rows.map((r) => r.organization_id);
}
