/**
 * Request authentication: X-Api-Key, Authorization: Bearer (OAuth access tokens) and the dashboard
 * session cookie. Runs before the body is parsed, so an unauthenticated request is refused before
 * anything it sent is looked at. Each route states what it needs in its config.
 */
import type { FastifyRequest } from 'fastify';
import type { Actor } from '../../domain/actor.ts';
import type { ApiKeyAuthenticator } from '../../domain/api-keys/api-keys.ts';
import { DomainError } from '../../domain/errors.ts';
import type { Permission } from '../../domain/permissions.ts';
import { authenticateSession } from '../../domain/sessions/sessions.ts';
import type { Db } from '../../db/client.ts';
import type { Clock } from '../../lib/clock.ts';
import { isUuid } from '../../lib/ids.ts';

export const SESSION_COOKIE = 'parley_session';
export const ORGANIZATION_HEADER = 'x-organization-id';

/**
 * What a route needs: nothing (public), any credential with a permission, or a dashboard session.
 * `optional`: a credential is looked at when one is sent (the route decides what else it accepts,
 * such as OAuth client credentials), none or an unknown one leaves the actor undefined.
 */
export type AuthRequirement =
  | { public: true }
  | { optional: true }
  | { permission?: Permission; sessionOnly?: boolean; credentials?: ReadonlyArray<Actor['kind']> };

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
  if ('public' in requirement) return undefined;
  const requestedOrg = headerValue(request, ORGANIZATION_HEADER);
  if (requestedOrg !== undefined && !isUuid(requestedOrg)) {
    throw new DomainError('invalid', `${ORGANIZATION_HEADER} must be an organization id (UUID)`, {
      fieldErrors: [{ pointer: `/${ORGANIZATION_HEADER}`, location: 'headers', message: 'must be a UUID' }],
    });
  }
  const actor = await resolveActor(request, requestedOrg, deps);
  if ('optional' in requirement) return actor;
  if (!actor) throw unauthenticated();
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

async function resolveActor(request: FastifyRequest, requestedOrg: string | undefined, deps: AuthDeps): Promise<Actor | undefined> {
  const apiKey = headerValue(request, 'x-api-key');
  if (apiKey !== undefined) {
    const actor = await deps.apiKeys.authenticate(apiKey.trim());
    // A key belongs to one organization; naming another one is a credential mismatch.
    if (actor && requestedOrg !== undefined && requestedOrg !== actor.organizationId) return undefined;
    return actor;
  }
  const authorization = headerValue(request, 'authorization');
  if (authorization !== undefined) {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    if (!match || !deps.bearer) return undefined;
    return deps.bearer(match[1]!, requestedOrg);
  }
  const cookie = request.cookies?.[SESSION_COOKIE];
  if (cookie) {
    assertTrustedOrigin(request, deps.trustedOrigins);
    return authenticateSession(deps, { token: cookie, organizationId: requestedOrg });
  }
  return undefined;
}

/**
 * Cookie-authenticated requests that change state must come from the dashboard's own origin
 * (defence in depth next to SameSite=Lax and the JSON-only body parser).
 */
function assertTrustedOrigin(request: FastifyRequest, trusted: ReadonlySet<string>): void {
  if (request.method === 'GET' || request.method === 'HEAD' || request.method === 'OPTIONS') return;
  const origin = headerValue(request, 'origin');
  // No Origin header: not a browser's cross-site request (curl, scripts).
  if (origin !== undefined && !trusted.has(origin)) {
    throw new DomainError('forbidden', `cross-origin request refused: origin ${origin} is not the dashboard's`);
  }
}
