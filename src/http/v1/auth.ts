import type { FastifyReply } from 'fastify';
import { z } from 'zod';
import type { Config } from '../../config.ts';
import type { Actor } from '../../domain/actor.ts';
import { DomainError } from '../../domain/errors.ts';
import {
  describeSession,
  listSessions,
  login,
  revokeSession,
  type LoginThrottle,
  type LoginThrottled,
  type SessionDeps,
} from '../../domain/sessions/sessions.ts';
import { CSRF_COOKIE, csrfTokenFor, SESSION_COOKIE } from '../auth/authenticate.ts';
import { actorOf } from '../auth/actor.ts';
import type { App } from '../types.ts';
import { errorResponses, HttpError } from '../errors.ts';
import { dataOf, listOf, PageQuerySchema, PathId } from '../schemas.ts';
import type { RouteRateLimit } from '../rate-limit.ts';
import { presentUser, presentMembership, presentSession } from './auth.presenters.ts';

export const UserSessionRecordSchema = z
  .object({
    id: z.uuid(),
    name: z.string(),
    email: z.string(),
    email_verified: z.boolean(),
    timezone: z.string().meta({ example: 'Europe/Berlin' }),
    week_start: z.string().meta({ example: 'monday' }),
    created_at: z.string().meta({ format: 'date-time' }),
  })
  .meta({ id: 'UserSessionRecord' });

const LoginBodySchema = z.object({
  email: z.string().min(1).max(320).meta({ example: 'owner@parley.local' }),
  password: z.string().min(1).max(1024),
  telemetry_id: z.string().max(200).optional().meta({ description: 'Optional device fingerprint id' }),
});

export const OrganizationMembershipSchema = z.object({
  organization_id: z.uuid(),
  organization_name: z.string(),
  role: z.enum(['owner', 'admin', 'member']),
});

export const SessionInfoSchema = z
  .object({
    user: UserSessionRecordSchema,
    organization_id: z.uuid().meta({ description: 'The organization this request acts in (choose another with X-Organization-Id)' }),
    role: z.enum(['owner', 'admin', 'member']),
    permissions: z.array(z.string()),
    organizations: z.array(OrganizationMembershipSchema),
    session: z.object({ id: z.uuid(), created_at: z.string(), expires_at: z.string() }),
  })
  .meta({ id: 'SessionInfo' });

export const SessionViewSchema = z.object({
  id: z.uuid(),
  current: z.boolean(),
  user_agent: z.string().nullable(),
  ip: z.string().nullable(),
  created_at: z.string(),
  last_seen_at: z.string(),
  expires_at: z.string(),
});

/** The actor of a session-only route, as the user it is. */
export function userActor(actor: Actor): Extract<Actor, { kind: 'user' }> {
  if (actor.kind !== 'user') throw new DomainError('forbidden', 'this operation needs a dashboard session');
  return actor;
}

/** The session cookie's attributes (login and an accepted invitation set the same cookie). */
export function sessionCookieOptions(secure: boolean) {
  return { path: '/', httpOnly: true, sameSite: 'lax' as const, secure };
}

/**
 * Sets the session cookie and its readable CSRF companion (login, sign-up and an accepted invitation).
 * The companion also tells the dashboard a session may exist, so a signed-out visit makes no doomed probe.
 */
export function setSessionCookies(reply: FastifyReply, session: { token: string; expiresAt: Date }, secure: boolean): void {
  const options = sessionCookieOptions(secure);
  void reply.setCookie(SESSION_COOKIE, session.token, { ...options, expires: session.expiresAt });
  void reply.setCookie(CSRF_COOKIE, csrfTokenFor(session.token), { ...options, httpOnly: false, expires: session.expiresAt });
}

export function clearSessionCookies(reply: FastifyReply, secure: boolean): void {
  const options = sessionCookieOptions(secure);
  void reply.clearCookie(SESSION_COOKIE, options);
  void reply.clearCookie(CSRF_COOKIE, { ...options, httpOnly: false });
}

/** What the auth routes use: the database, the clock, and the session and login settings. */
export type AuthServices = SessionDeps & {
  settings: Pick<Config, 'secureCookies' | 'sessionTtlHours' | 'loginThrottle' | 'loginRateLimitPerMinute'>;
};

/** The failed-login throttles of the settings: shared by every route that checks a password. */
export function loginThrottleOf(config: Pick<Config, 'loginThrottle'>): LoginThrottle {
  return {
    // One attempt forgiven per 15 minutes of quiet: an attacker at the cap stays at the cap.
    account: {
      freeAttempts: config.loginThrottle.accountFreeAttempts,
      baseDelayMs: 1000,
      maxDelayMs: config.loginThrottle.maxDelayMs,
      forgiveEveryMs: 15 * 60_000,
    },
    // An address may be shared (an office): a failure a minute never adds up.
    address: {
      freeAttempts: config.loginThrottle.addressFreeAttempts,
      baseDelayMs: 1000,
      maxDelayMs: config.loginThrottle.maxDelayMs,
      forgiveEveryMs: 60_000,
    },
  };
}

/** A throttled password attempt: a 429 with Retry-After, naming whose attempts ran out. */
export function throttledLogin(reply: FastifyReply, result: LoginThrottled, what = 'failed logins'): HttpError {
  void reply.header('retry-after', String(result.retryAfterSeconds));
  const whose = result.throttled === 'account' ? 'this account' : 'this address';
  return new HttpError(
    'rate_limited',
    `too many ${what} for ${whose}; try again in ${result.retryAfterSeconds} s (at ${result.retryAt.toISOString()})`,
  );
}

/** The per-address request limit of the login route, for every route that takes a password from anyone. */
export function loginRateLimit(config: Pick<Config, 'loginRateLimitPerMinute'>, name: string): { rateLimit?: RouteRateLimit } {
  return config.loginRateLimitPerMinute > 0 ? { rateLimit: { name, perMinute: config.loginRateLimitPerMinute } } : {};
}

export async function registerAuthRoutes(app: App, services: AuthServices) {
  const { settings: config, ...deps } = services;
  const throttle = loginThrottleOf(config);

  app.post(
    '/v1/auth/login',
    {
      config: {
        auth: { public: true },
        ...loginRateLimit(config, 'login'),
      },
      schema: {
        tags: ['auth'],
        summary: 'Log in to the dashboard',
        description: `Checks the email and password and sets the \`${SESSION_COOKIE}\` session cookie (HttpOnly, SameSite=Lax, Secure on https; lifetime ${config.sessionTtlHours} hours). It also sets the readable \`${CSRF_COOKIE}\` cookie: every write made with the session cookie must send its value in the \`X-CSRF-Token\` header (403 otherwise). For dashboard sessions only; integrations use API keys. After ${config.loginThrottle.accountFreeAttempts} failed attempts for one email (or ${config.loginThrottle.addressFreeAttempts} from one address) each further attempt must wait twice as long as the last, up to ${Math.round(config.loginThrottle.maxDelayMs / 1000)} s: until then every attempt, a right password included, answers 429 with \`Retry-After\`. A successful login clears the account's count.`,
        security: [],
        body: LoginBodySchema,
        response: { 200: dataOf(UserSessionRecordSchema), ...errorResponses([400, 401, 429]) },
      },
    },
    async (request, reply) => {
      const result = await login(
        { ...deps, ttlHours: config.sessionTtlHours, throttle },
        {
          email: request.body.email,
          password: request.body.password,
          telemetryId: request.body.telemetry_id,
          userAgent: request.headers['user-agent'],
          ip: request.ip,
        },
      );
      if ('throttled' in result) throw throttledLogin(reply, result);
      setSessionCookies(reply, { token: result.token, expiresAt: result.expiresAt }, config.secureCookies);
      return { data: presentUser(result.user) };
    },
  );

  app.post(
    '/v1/auth/logout',
    {
      config: { auth: { sessionOnly: true } },
      schema: {
        tags: ['auth'],
        summary: 'Log out',
        description: 'Revokes the current session and clears its cookie.',
        security: [{ session: [] }],
        response: { 204: z.null().describe('Logged out'), ...errorResponses([401, 403]) },
      },
    },
    async (request, reply) => {
      const actor = userActor(actorOf(request));
      await revokeSession(deps, actor, { sessionId: actor.sessionId });
      clearSessionCookies(reply, config.secureCookies);
      return reply.code(204).send(null);
    },
  );

  app.get(
    '/v1/auth/session',
    {
      config: { auth: { sessionOnly: true } },
      schema: {
        tags: ['auth'],
        summary: 'The current session',
        description: 'The logged-in user, the organization this request acts in, and every organization the user belongs to.',
        security: [{ session: [] }],
        response: { 200: dataOf(SessionInfoSchema), ...errorResponses([401, 403]) },
      },
    },
    async (request) => {
      const actor = userActor(actorOf(request));
      const { user, session, organizations } = await describeSession(deps, actor);
      return {
        data: {
          user: presentUser(user),
          organization_id: actor.organizationId,
          role: actor.role,
          permissions: [...actor.permissions],
          organizations: organizations.map(presentMembership),
          session: { id: session.id, created_at: session.createdAt.toISOString(), expires_at: session.expiresAt.toISOString() },
        },
      };
    },
  );

  app.get(
    '/v1/auth/sessions',
    {
      config: { auth: { sessionOnly: true } },
      schema: {
        tags: ['auth'],
        summary: "The user's active sessions",
        description:
          'Sessions not signed out or expired, newest first (then id); `current` marks this one. Paginated: pass `meta.next_cursor` as `cursor` for the next page.',
        security: [{ session: [] }],
        querystring: PageQuerySchema,
        response: { 200: listOf(SessionViewSchema), ...errorResponses([400, 401, 403]) },
      },
    },
    async (request) => {
      const page = await listSessions(deps, userActor(actorOf(request)), request.query);
      return { data: page.items.map(presentSession), meta: { next_cursor: page.nextCursor } };
    },
  );

  app.delete(
    '/v1/auth/sessions/:sessionID',
    {
      config: { auth: { sessionOnly: true } },
      schema: {
        tags: ['auth'],
        summary: 'Revoke one of your sessions',
        description: "Signs that session out on its next request. Another user's session id answers 404.",
        security: [{ session: [] }],
        params: z.object({ sessionID: PathId }),
        response: { 204: z.null().describe('Revoked'), ...errorResponses([401, 403, 404]) },
      },
    },
    async (request, reply) => {
      const actor = userActor(actorOf(request));
      await revokeSession(deps, actor, { sessionId: request.params.sessionID });
      return reply.code(204).send(null);
    },
  );
}
