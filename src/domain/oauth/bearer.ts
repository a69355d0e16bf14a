/**
 * Bearer access with OAuth access tokens (RFC 6750). A token acts as its user, within:
 * the token's scopes ∩ the client's current scopes ∩ the user's current role permissions in the
 * organization of the request. A token reaching one organization needs no header; one reaching
 * several needs X-Organization-Id naming one of them.
 *
 * Resolved tokens are cached in the process (the bench wants bearer requests as cheap as API-key
 * ones). Every process forgets its cache when anything that can withdraw or narrow a token changes:
 * database triggers on oauth_tokens, oauth_grants, oauth_grant_organizations, oauth_clients and
 * memberships NOTIFY OAUTH_ACCESS_CHANGED (migration 0008); the process that made the change may also
 * forget at once. Entries live at most ttlMs in any case; expiry is checked on every use. The grant's
 * last_used_at is written at most once a minute.
 */
import { and, eq, isNull, lt, or, sql } from 'drizzle-orm';
import { queryRows, type Executor } from '../../db/client.ts';
import { oauthGrants } from '../../db/schema.ts';
import type { Clock } from '../../lib/clock.ts';
import type { Actor } from '../actor.ts';
import { DomainError } from '../errors.ts';
import { isPermission, permissionsForRole, type Permission, type Role } from '../permissions.ts';
import { hashToken } from './tokens.ts';
import { OAUTH_PREFIXES } from './vocabulary.ts';

/** The NOTIFY channel of the triggers (migration 0008). */
export const OAUTH_ACCESS_CHANGED = 'parley_oauth_cache';

export type OAuthActor = Extract<Actor, { kind: 'oauth' }>;

type Resolved = {
  tokenId: string;
  grantId: string;
  userId: string;
  clientId: string;
  expiresAt: Date;
  /** The token's scopes that the client still has. */
  scopes: ReadonlySet<Permission>;
  /** The organizations the grant reaches where the user is still a member, with their role. */
  organizations: ReadonlyMap<string, Role>;
  lastUsedAt: Date | null;
  cachedAt: number;
  actors: Map<string, OAuthActor>;
};

export type BearerAuthenticatorService = {
  /** The BearerAuthenticator of http/auth/authenticate.ts. */
  authenticate(token: string, organizationId: string | undefined): Promise<Actor | undefined>;
  /** Forgets every cached token (something changed, or a change may have been missed). */
  forget(): void;
};

export type BearerOptions = { ttlMs: number; maxEntries?: number; onError?: (err: unknown) => void };

type Row = {
  token_id: string;
  grant_id: string;
  user_id: string;
  client_id: string;
  token_scopes: string[];
  client_scopes: string[];
  expires_at: Date | string;
  last_used_at: Date | string | null;
  organization_id: string | null;
  role: string | null;
};

async function resolve(db: Executor, token: string, now: Date): Promise<Omit<Resolved, 'cachedAt' | 'actors'> | undefined> {
  const rows = await queryRows<Row>(
    db,
    sql`
    select t.id as token_id, g.id as grant_id, g.user_id, c.client_id, t.scopes as token_scopes, c.scopes as client_scopes,
           t.expires_at, g.last_used_at, m.organization_id, m.role
      from oauth_tokens t
      join oauth_grants g on g.id = t.grant_id
      join oauth_clients c on c.id = g.client_id
      left join oauth_grant_organizations o on o.grant_id = g.id
      left join memberships m on m.organization_id = o.organization_id and m.user_id = g.user_id
     where t.token_hash = ${hashToken(token)} and t.kind = 'access'
       and t.revoked_at is null and g.revoked_at is null and t.expires_at > ${now}`,
  );
  const first = rows[0];
  if (!first) return undefined;
  const clientScopes = new Set(first.client_scopes);
  const organizations = new Map<string, Role>();
  for (const row of rows) if (row.organization_id && row.role) organizations.set(row.organization_id, row.role as Role);
  return {
    tokenId: first.token_id,
    grantId: first.grant_id,
    userId: first.user_id,
    clientId: first.client_id,
    expiresAt: new Date(first.expires_at),
    scopes: new Set(first.token_scopes.filter((s): s is Permission => isPermission(s) && clientScopes.has(s))),
    organizations,
    lastUsedAt: first.last_used_at === null ? null : new Date(first.last_used_at),
  };
}

async function touchGrant(db: Executor, grantId: string, now: Date): Promise<void> {
  await db
    .update(oauthGrants)
    .set({ lastUsedAt: now })
    .where(
      and(eq(oauthGrants.id, grantId), or(isNull(oauthGrants.lastUsedAt), lt(oauthGrants.lastUsedAt, new Date(now.getTime() - 60_000)))),
    );
}

/** The organization a request with this token acts in, or the 400 that says why there is none. */
function organizationOf(resolved: Resolved, requested: string | undefined): string | undefined {
  if (requested !== undefined) {
    if (!resolved.organizations.has(requested)) {
      throw new DomainError(
        'invalid',
        `this access token does not reach organization ${requested}: name one the user approved for the application in X-Organization-Id`,
        {
          fieldErrors: [{ pointer: '/x-organization-id', location: 'headers', message: 'not an organization the token reaches' }],
        },
      );
    }
    return requested;
  }
  if (resolved.organizations.size === 1) return resolved.organizations.keys().next().value!;
  if (resolved.organizations.size === 0) return undefined;
  throw new DomainError(
    'invalid',
    `this access token reaches ${resolved.organizations.size} organizations: name one in the X-Organization-Id header`,
    {
      fieldErrors: [
        { pointer: '/x-organization-id', location: 'headers', message: 'required for a token that reaches several organizations' },
      ],
    },
  );
}

function actorFor(resolved: Resolved, organizationId: string): OAuthActor {
  let actor = resolved.actors.get(organizationId);
  if (!actor) {
    const role = resolved.organizations.get(organizationId)!;
    const allowed = new Set(permissionsForRole(role));
    actor = {
      kind: 'oauth',
      organizationId,
      userId: resolved.userId,
      clientId: resolved.clientId,
      tokenId: resolved.tokenId,
      permissions: new Set([...resolved.scopes].filter((p) => allowed.has(p))),
    };
    resolved.actors.set(organizationId, actor);
  }
  return actor;
}

export function createBearerAuthenticator(
  { db, clock }: { db: Executor; clock: Clock },
  options: BearerOptions,
): BearerAuthenticatorService {
  const cache = new Map<string, Resolved>();
  const maxEntries = options.maxEntries ?? 10_000;
  // A change seen while a lookup was on its way may not be in what it read: such a lookup is not cached.
  let generation = 0;
  return {
    async authenticate(token, requestedOrganizationId) {
      // An API key (or anything else) sent as a bearer is not a token: never interchangeable.
      if (!token.startsWith(OAUTH_PREFIXES.accessToken) || token.length > 512) return undefined;
      const now = clock.now();
      const hash = hashToken(token);
      let entry = cache.get(hash);
      if (entry && (now.getTime() - entry.cachedAt > options.ttlMs || entry.expiresAt.getTime() <= now.getTime())) {
        cache.delete(hash);
        entry = undefined;
      }
      if (!entry) {
        const started = generation;
        const found = await resolve(db, token, now);
        if (!found) return undefined;
        entry = { ...found, cachedAt: now.getTime(), actors: new Map() };
        if (started === generation) {
          if (cache.size >= maxEntries) cache.clear();
          cache.set(hash, entry);
        }
        if (!entry.lastUsedAt || now.getTime() - entry.lastUsedAt.getTime() > 60_000) {
          entry.lastUsedAt = now;
          await touchGrant(db, entry.grantId, now);
        }
      } else if (!entry.lastUsedAt || now.getTime() - entry.lastUsedAt.getTime() > 60_000) {
        entry.lastUsedAt = now;
        touchGrant(db, entry.grantId, now).catch((err: unknown) => options.onError?.(err));
      }
      const organizationId = organizationOf(entry, requestedOrganizationId);
      // A grant that reaches no organization where the user is still a member acts nowhere.
      if (organizationId === undefined) return undefined;
      return actorFor(entry, organizationId);
    },
    forget() {
      generation++;
      cache.clear();
    },
  };
}
