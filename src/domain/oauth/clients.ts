/**
 * OAuth client registration by an organization's owners and admins (or a credential holding
 * oauth_clients:write): public clients (PKCE, no secret) and confidential ones (a `pcs_` secret shown
 * once, stored as SHA-256), their exact redirect URIs, grant types and scopes. A client is named by
 * its public client_id (`pcl_…`) everywhere, in the management routes as in the flows; another
 * organization's client is as unknown as one never registered.
 *
 * Deleting a client deletes (by the foreign keys' cascade) its grants, their tokens, and its pending
 * authorization requests and device authorizations, so nothing it started can still finish.
 */
import { and, eq } from 'drizzle-orm';
import ipaddr from 'ipaddr.js';
import type { Executor } from '../../db/client.ts';
import { listPage, newestFirstBy } from '../../db/list-query.ts';
import type { Page, PageResult } from '../../db/paginate.ts';
import { cursorKey } from '../paging.ts';
import { oauthClients } from '../../db/schema.ts';
import { randomToken, sha256Hex } from '../../lib/crypto.ts';
import type { Clock } from '../../lib/clock.ts';
import { uuidv7 } from '../../lib/ids.ts';
import type { Actor } from '../actor.ts';
import { permissionsBeyond } from '../api-keys/api-keys.ts';
import { conflict, DomainError, invalid, notFound, type FieldError } from '../errors.ts';
import { isPermission, type Permission } from '../permissions.ts';
import { AUTHORIZE_LIMITS } from './authorization-requests.ts';
import { GRANT_TYPE_VALUES, GRANT_TYPES, OAUTH_PREFIXES, type GrantType, type OAuthClient } from './vocabulary.ts';

export type ClientDeps = { db: Executor; clock: Clock };

export type ClientType = 'public' | 'confidential';

/** The most redirect URIs a client may register. */
export const MAX_REDIRECT_URIS = 10;

/** What a client is registered with; on update, any of it may be left out (kept as it is). */
export type ClientSettings = { name: string; redirectUris: string[]; grantTypes: string[]; scopes: string[] };

const WHAT = 'OAuth client';

/**
 * Why a redirect URI cannot be registered, or undefined when it can: absolute, compared exactly (so
 * no wildcard and no fragment, RFC 6749 §3.1.2), https, or http on a loopback address for native
 * apps (RFC 8252 §7.3: 127.0.0.0/8, [::1] or localhost), with no credentials in it.
 */
export function redirectUriProblem(uri: string): string | undefined {
  if (uri.length > AUTHORIZE_LIMITS.redirectUri) return `must be at most ${AUTHORIZE_LIMITS.redirectUri} characters`;
  if (!URL.canParse(uri)) return 'must be an absolute URI (scheme and host)';
  const url = new URL(uri);
  if (uri.includes('#')) return 'must not contain a fragment (#)';
  if (uri.includes('*')) return 'must not contain a wildcard (*): redirect URIs are compared exactly';
  if (url.username !== '' || url.password !== '') return 'must not contain a user name or password';
  if (url.protocol === 'https:') return url.hostname === '' ? 'must name a host' : undefined;
  if (url.protocol !== 'http:') return 'must use https (or http on a loopback address)';
  if (!isLoopbackHost(url.hostname)) return 'http is allowed only on a loopback address (127.0.0.1, [::1] or localhost); use https';
  return undefined;
}

function isLoopbackHost(hostname: string): boolean {
  if (hostname.toLowerCase() === 'localhost') return true;
  const address = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  if (!ipaddr.isValid(address)) return false;
  return ipaddr.parse(address).range() === 'loopback';
}

type Checked = { name: string; redirectUris: string[]; grantTypes: GrantType[]; scopes: Permission[] };

/** Checks a client's settings as a whole (a change is checked merged with what it keeps); every problem is named by its field. */
function checkSettings(actor: Actor, settings: ClientSettings, changed: ReadonlySet<keyof ClientSettings>): Checked {
  const errors: FieldError[] = [];
  const name = settings.name.trim();
  if (changed.has('name') && (name.length === 0 || name.length > 100))
    errors.push({ pointer: '/name', message: 'must be 1 to 100 characters' });

  const redirectUris = [...new Set(settings.redirectUris)];
  if (changed.has('redirectUris')) {
    if (redirectUris.length > MAX_REDIRECT_URIS)
      errors.push({ pointer: '/redirect_uris', message: `at most ${MAX_REDIRECT_URIS} redirect URIs` });
    settings.redirectUris.forEach((uri, index) => {
      const problem = redirectUriProblem(uri);
      if (problem) errors.push({ pointer: `/redirect_uris/${index}`, message: problem });
    });
  }

  const grantTypes = [...new Set(settings.grantTypes)];
  if (changed.has('grantTypes')) {
    settings.grantTypes.forEach((grant, index) => {
      if (!(GRANT_TYPE_VALUES as readonly string[]).includes(grant))
        errors.push({ pointer: `/grant_types/${index}`, message: `unknown grant type; one of ${GRANT_TYPE_VALUES.join(', ')}` });
    });
    if (!grantTypes.includes(GRANT_TYPES.authorizationCode) && !grantTypes.includes(GRANT_TYPES.deviceCode)) {
      errors.push({
        pointer: '/grant_types',
        message: `must include ${GRANT_TYPES.authorizationCode} or ${GRANT_TYPES.deviceCode}: a refresh token only comes from one of them`,
      });
    }
  }
  if (
    (changed.has('grantTypes') || changed.has('redirectUris')) &&
    grantTypes.includes(GRANT_TYPES.authorizationCode) &&
    redirectUris.length === 0
  ) {
    errors.push({
      pointer: '/redirect_uris',
      message: `at least one redirect URI is needed for the ${GRANT_TYPES.authorizationCode} grant`,
    });
  }

  const scopes = [...new Set(settings.scopes)];
  if (changed.has('scopes')) {
    settings.scopes.forEach((scope, index) => {
      if (!isPermission(scope)) errors.push({ pointer: `/scopes/${index}`, message: 'unknown scope: scopes are the permission names' });
    });
    if (scopes.length === 0) errors.push({ pointer: '/scopes', message: 'must name at least one scope' });
  }
  if (errors.length > 0)
    throw invalid(`the client's settings are not valid: ${errors.map((e) => `${e.pointer.slice(1)} ${e.message}`).join('; ')}`, errors);

  if (changed.has('scopes')) {
    const beyond = permissionsBeyond(actor, scopes);
    if (beyond.length > 0) {
      throw new DomainError('forbidden', `cannot give a client scope ${beyond.join(', ')} that the registering credential does not hold`, {
        extra: { permissions: beyond },
      });
    }
  }
  return { name, redirectUris, grantTypes: grantTypes as GrantType[], scopes: scopes as Permission[] };
}

function newSecret(): string {
  return OAUTH_PREFIXES.clientSecret + randomToken(32);
}

/** Registers a client in the actor's organization; a confidential client's secret is in the result this once. */
export async function registerClient(
  { db, clock }: ClientDeps,
  actor: Actor,
  input: ClientSettings & { type: ClientType },
): Promise<{ client: OAuthClient; secret: string | undefined }> {
  const checked = checkSettings(actor, input, new Set(['name', 'redirectUris', 'grantTypes', 'scopes']));
  const secret = input.type === 'confidential' ? newSecret() : undefined;
  const now = clock.now();
  const [client] = await db
    .insert(oauthClients)
    .values({
      id: uuidv7(),
      clientId: OAUTH_PREFIXES.clientId + randomToken(16),
      organizationId: actor.organizationId,
      name: checked.name,
      type: input.type,
      secretHash: secret === undefined ? null : sha256Hex(secret),
      redirectUris: checked.redirectUris,
      grantTypes: checked.grantTypes,
      scopes: checked.scopes,
      createdByUserId: actor.kind === 'user' || actor.kind === 'oauth' ? actor.userId : null,
      createdAt: now,
      updatedAt: now,
    })
    .returning();
  return { client: client!, secret };
}

/** The organization's clients, newest first. */
export async function listClients({ db }: Pick<ClientDeps, 'db'>, actor: Actor, page: Page): Promise<PageResult<OAuthClient>> {
  return listPage(db.select().from(oauthClients).$dynamic(), {
    where: [eq(oauthClients.organizationId, actor.organizationId)],
    order: newestFirstBy(oauthClients.createdAt, oauthClients.id),
    after: cursorKey(page.cursor),
    limit: page.limit,
  });
}

/** A client of the actor's organization by its client_id; any other is not found. */
export async function getClient({ db }: Pick<ClientDeps, 'db'>, actor: Actor, { clientId }: { clientId: string }): Promise<OAuthClient> {
  const [row] = await db
    .select()
    .from(oauthClients)
    .where(and(eq(oauthClients.clientId, clientId), eq(oauthClients.organizationId, actor.organizationId)))
    .limit(1);
  if (!row) throw notFound(WHAT);
  return row;
}

/**
 * A client the actor may change: one of its organization's, every scope of which the actor holds (a
 * narrow credential must not take over, or switch off, a client that reaches further than it does).
 */
async function clientToChange(db: Executor, actor: Actor, clientId: string, verb: string): Promise<OAuthClient> {
  const client = await getClient({ db }, actor, { clientId });
  const beyond = permissionsBeyond(actor, client.scopes);
  if (beyond.length > 0) {
    throw new DomainError('forbidden', `cannot ${verb} a client holding scope ${beyond.join(', ')} that this credential does not hold`, {
      extra: { permissions: beyond },
    });
  }
  return client;
}

/**
 * Changes a client's name, redirect URIs, grant types or scopes. Narrower scopes narrow what its
 * existing tokens can do (the bearer reads the client's scopes at each request); a removed redirect
 * URI or grant type refuses new flows that use it.
 */
export async function updateClient(
  { db, clock }: ClientDeps,
  actor: Actor,
  input: { clientId: string } & Partial<ClientSettings>,
): Promise<OAuthClient> {
  const current = await clientToChange(db, actor, input.clientId, 'change');
  const changed = new Set((['name', 'redirectUris', 'grantTypes', 'scopes'] as const).filter((k) => input[k] !== undefined));
  const checked = checkSettings(
    actor,
    {
      name: input.name ?? current.name,
      redirectUris: input.redirectUris ?? current.redirectUris,
      grantTypes: input.grantTypes ?? current.grantTypes,
      scopes: input.scopes ?? current.scopes,
    },
    changed,
  );
  if (changed.size === 0) return current;
  const [row] = await db
    .update(oauthClients)
    .set({ ...checked, updatedAt: clock.now() })
    .where(and(eq(oauthClients.id, current.id), eq(oauthClients.organizationId, actor.organizationId)))
    .returning();
  if (!row) throw notFound(WHAT);
  return row;
}

/** Gives a confidential client a new secret, shown this once; the old one stops working at once. */
export async function rotateClientSecret(
  { db, clock }: ClientDeps,
  actor: Actor,
  { clientId }: { clientId: string },
): Promise<{ client: OAuthClient; secret: string }> {
  const current = await clientToChange(db, actor, clientId, 'rotate the secret of');
  if (current.type !== 'confidential') throw conflict('a public client has no secret: it proves itself with PKCE');
  const secret = newSecret();
  const [row] = await db
    .update(oauthClients)
    .set({ secretHash: sha256Hex(secret), updatedAt: clock.now() })
    .where(and(eq(oauthClients.id, current.id), eq(oauthClients.organizationId, actor.organizationId)))
    .returning();
  if (!row) throw notFound(WHAT);
  return { client: row, secret };
}

/**
 * Deletes a client. Its grants and their tokens, and its authorization requests and device
 * authorizations still in flight, go with it (foreign keys, ON DELETE CASCADE): its tokens stop
 * working on their next use and a pending consent or device poll finds nothing.
 */
export async function deleteClient({ db }: Pick<ClientDeps, 'db'>, actor: Actor, { clientId }: { clientId: string }): Promise<void> {
  const current = await clientToChange(db, actor, clientId, 'delete');
  const rows = await db
    .delete(oauthClients)
    .where(and(eq(oauthClients.id, current.id), eq(oauthClients.organizationId, actor.organizationId)))
    .returning({ id: oauthClients.id });
  if (rows.length === 0) throw notFound(WHAT);
}
