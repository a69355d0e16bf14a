/**
 * Request authentication: X-Api-Key, Authorization: Bearer (OAuth access tokens) and the dashboard
 * session cookie. Runs before the body is parsed, so an unauthenticated request is refused before
 * anything it sent is looked at. Each route states what it needs in its config.
 */
import type { FastifyRequest } from 'fastify';
import type { Actor } from '../../domain/actor.ts';
import type { ApiKeyAuthenticator } from '../../domain/api-keys/api-keys.ts';
import { DomainError, notFound } from '../../domain/errors.ts';
import type { Permission } from '../../domain/permissions.ts';
import { authenticateSession } from '../../domain/sessions/sessions.ts';
import type { Db } from '../../db/client.ts';
import type { Clock } from '../../lib/clock.ts';
import { constantTimeEqual, sha256Base64url } from '../../lib/crypto.ts';
import { isUuid } from '../../lib/ids.ts';

export const SESSION_COOKIE = 'parley_session';
/** The dashboard's readable companion of the session cookie: its value goes back in CSRF_HEADER on every write. */
export const CSRF_COOKIE = 'parley_csrf';
export const CSRF_HEADER = 'x-csrf-token';
export const ORGANIZATION_HEADER = 'x-organization-id';

/**
 * What a route needs: nothing (public), any credential with a permission, or a dashboard session.
 * `optional`: a credential is looked at when one is sent (the route decides what else it accepts,
 * such as OAuth client credentials), none or an unknown one leaves the actor undefined.
 */
export type AuthRequirement =
  /** optionalSession: a valid session cookie, when sent, gives the route its user (a public route that signed-in users may also call). */
  | { public: true; optionalSession?: boolean }
  | { optional: true }
  | {
      permission?: Permission;
      sessionOnly?: boolean;
      credentials?: ReadonlyArray<Actor['kind']>;
      /**
       * The path parameter naming the organization the route acts in: it is the requested organization
       * (as X-Organization-Id is elsewhere), and one the credential does not reach is not found (404).
       */
      organizationParam?: string;
      /**
       * A query parameter that may name the requested organization instead of X-Organization-Id, for
       * clients that cannot set headers (a browser's EventSource); the same rules as the header.
       */
      organizationQuery?: string;
    };

/** Resolves a bearer token to an actor; the OAuth module supplies it. */
export type BearerAuthenticator = (token: string, organizationId: string | undefined) => Promise<Actor | undefined>;

export type AuthDeps = {
  db: Db;
  clock: Clock;
  apiKeys: ApiKeyAuthenticator;
  /** Origins allowed to send cookie-authenticated requests that change state. */
  trustedOrigins: ReadonlySet<string>;
  bearer?: BearerAuthenticator;
};

export const UNAUTHENTICATED_DETAIL = 'invalid or missing API key';

const unauthenticated = () => new DomainError('unauthenticated', UNAUTHENTICATED_DETAIL);

function headerValue(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** Authenticates the request for its route's requirement; throws DomainError on failure. */
export async function authenticate(request: FastifyRequest, requirement: AuthRequirement, deps: AuthDeps): Promise<Actor | undefined> {
  if ('public' in requirement) return requirement.optionalSession ? optionalSession(request, deps) : undefined;
  const requested = requestedOrganization(request, 'organizationQuery' in requirement ? requirement.organizationQuery : undefined);
  const requestedOrg = requested?.id;
  const pathOrg =
    'organizationParam' in requirement && requirement.organizationParam !== undefined
      ? organizationInPath(request, requirement.organizationParam, requestedOrg)
      : undefined;
  const actor = await resolveActor(request, { header: requestedOrg, path: pathOrg?.id }, deps);
  // Known to the hooks even when the checks below refuse it: a refused request still counts against its credential's rate limit.
  request.actor = actor;
  if ('optional' in requirement) return actor;
  if (!actor) throw unauthenticated();
  // Another organization's id in the path (or one that cannot be an id) answers exactly as an unknown one.
  if (pathOrg !== undefined && actor.organizationId !== pathOrg.id) throw notFound('organization');
  // A valid key naming another organization is no bad credential: that organization is refused, as a token's is.
  if (requested !== undefined && actor.organizationId.toLowerCase() !== requested.id.toLowerCase()) throw unreachedOrganization(requested);
  if (requirement.sessionOnly && actor.kind !== 'user') {
    throw new DomainError('forbidden', 'this operation needs a dashboard session');
  }
  if (requirement.credentials && !requirement.credentials.includes(actor.kind)) {
    throw new DomainError('forbidden', `this operation is not open to ${actor.kind.replace('_', ' ')} credentials`);
  }
  if (requirement.permission && !actor.permissions.has(requirement.permission)) {
    const what = actor.kind === 'oauth' ? 'the access token lacks scope' : 'missing permission';
    throw new DomainError('forbidden', `${what} ${requirement.permission}`, { extra: { permission: requirement.permission } });
  }
  return actor;
}

/** Which organization the request names, and where (for the field error that refuses it). */
export type RequestedOrganization = { id: string; pointer: string; location: 'headers' | 'query' };

/** The 400 for an organization the credential does not reach (docs/api.md, Organizations). */
export function unreachedOrganization(requested: RequestedOrganization): DomainError {
  return new DomainError(
    'invalid',
    `this credential does not reach organization ${requested.id}: an API key acts in its own organization only`,
    { fieldErrors: [{ pointer: requested.pointer, location: requested.location, message: 'not an organization the credential reaches' }] },
  );
}

/** The organization X-Organization-Id (or the route's organization query parameter, when it has one) names, checked to be an id. */
function requestedOrganization(request: FastifyRequest, queryParam: string | undefined): RequestedOrganization | undefined {
  const header = headerValue(request, ORGANIZATION_HEADER);
  if (header !== undefined && !isUuid(header)) {
    throw new DomainError('invalid', `${ORGANIZATION_HEADER} must be an organization id (UUID)`, {
      fieldErrors: [{ pointer: `/${ORGANIZATION_HEADER}`, location: 'headers', message: 'must be a UUID' }],
    });
  }
  const fromHeader = header === undefined ? undefined : { id: header, pointer: `/${ORGANIZATION_HEADER}`, location: 'headers' as const };
  if (queryParam === undefined) return fromHeader;
  const raw = (request.query as Record<string, unknown> | undefined)?.[queryParam];
  if (raw === undefined) return fromHeader;
  const value = Array.isArray(raw) ? raw[0] : raw;
  if (typeof value !== 'string' || !isUuid(value)) {
    throw new DomainError('invalid', `${queryParam} must be an organization id (UUID)`, {
      fieldErrors: [{ pointer: `/${queryParam}`, location: 'query', message: 'must be a UUID' }],
    });
  }
  if (header !== undefined && header.toLowerCase() !== value.toLowerCase()) {
    throw new DomainError('invalid', `${ORGANIZATION_HEADER} and ${queryParam} name different organizations`, {
      fieldErrors: [
        { pointer: `/${queryParam}`, location: 'query', message: `must be the organization ${ORGANIZATION_HEADER} names, or absent` },
      ],
    });
  }
  return fromHeader ?? { id: value.toLowerCase(), pointer: `/${queryParam}`, location: 'query' };
}

/** The session's user when a valid session cookie is sent (from the dashboard's origin); otherwise nobody. */
async function optionalSession(request: FastifyRequest, deps: AuthDeps): Promise<Actor | undefined> {
  const cookie = request.cookies?.[SESSION_COOKIE];
  if (!cookie) return undefined;
  assertSameSiteWrite(request, cookie, deps.trustedOrigins);
  return authenticateSession(deps, { token: cookie, organizationId: undefined });
}

/** The organization id in the route's path (undefined when it cannot be one); a header naming another is a contradiction. */
function organizationInPath(request: FastifyRequest, param: string, requestedOrg: string | undefined): { id: string | undefined } {
  const value = (request.params as Record<string, string | undefined>)[param];
  if (value === undefined || !isUuid(value)) return { id: undefined };
  if (requestedOrg !== undefined && requestedOrg.toLowerCase() !== value.toLowerCase()) {
    throw new DomainError('invalid', `${ORGANIZATION_HEADER} names another organization than the path`, {
      fieldErrors: [
        { pointer: `/${ORGANIZATION_HEADER}`, location: 'headers', message: `must be the path's organization ${value} or absent` },
      ],
    });
  }
  return { id: value.toLowerCase() };
}

async function resolveActor(
  request: FastifyRequest,
  requested: { header: string | undefined; path: string | undefined },
  deps: AuthDeps,
): Promise<Actor | undefined> {
  const requestedOrg = requested.header ?? requested.path;
  const apiKey = headerValue(request, 'x-api-key');
  if (apiKey !== undefined) {
    // A key belongs to one organization: naming another is refused once the key is known to be valid (authenticate).
    return deps.apiKeys.authenticate(apiKey.trim());
  }
  const authorization = headerValue(request, 'authorization');
  if (authorization !== undefined) {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    if (!match || !deps.bearer) return undefined;
    // A token that does not reach the organization in the path: as unknown as one that does not exist.
    return pathScoped(requested.path, 'invalid', () => deps.bearer!(match[1]!, requestedOrg));
  }
  const cookie = request.cookies?.[SESSION_COOKIE];
  if (cookie) {
    assertSameSiteWrite(request, cookie, deps.trustedOrigins);
    // Not a member of the organization in the path: as unknown as an organization that does not exist.
    return pathScoped(requested.path, 'forbidden', () => authenticateSession(deps, { token: cookie, organizationId: requestedOrg }));
  }
  return undefined;
}

/** Runs a credential check; when the route names an organization in its path, the refusal `code` (the credential does not reach it) becomes 404. */
async function pathScoped(
  path: string | undefined,
  code: DomainError['code'],
  check: () => Promise<Actor | undefined>,
): Promise<Actor | undefined> {
  try {
    return await check();
  } catch (err) {
    if (path !== undefined && err instanceof DomainError && err.code === code) throw notFound('organization');
    throw err;
  }
}

/** The CSRF token of a session: derived from its secret (which scripts never see), so it needs no storage. */
export function csrfTokenFor(sessionToken: string): string {
  return sha256Base64url(`parley-csrf:${sessionToken}`);
}

/**
 * Cookie-authenticated requests that change state must prove they come from the dashboard: the
 * X-CSRF-Token header carries the readable parley_csrf cookie's value (double submit, bound to the
 * session), and a browser's Origin, when sent, must be the dashboard's. Defence next to SameSite=Lax
 * and the JSON-only body parser.
 */
function assertSameSiteWrite(request: FastifyRequest, sessionToken: string, trusted: ReadonlySet<string>): void {
  if (request.method === 'GET' || request.method === 'HEAD' || request.method === 'OPTIONS') return;
  const origin = headerValue(request, 'origin');
  // No Origin header: not a browser's cross-site request (curl, scripts); the token still decides.
  if (origin !== undefined && !trusted.has(origin)) {
    throw new DomainError('forbidden', `cross-origin request refused: origin ${origin} is not the dashboard's`);
  }
  const sent = headerValue(request, CSRF_HEADER);
  if (sent === undefined || !constantTimeEqual(sent, csrfTokenFor(sessionToken))) {
    throw new DomainError(
      'forbidden',
      `a write with the session cookie needs the ${CSRF_HEADER} header holding the ${CSRF_COOKIE} cookie's value`,
      {
        extra: { reason: 'csrf' },
      },
    );
  }
}
