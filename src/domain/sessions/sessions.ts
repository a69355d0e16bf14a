/**
 * Dashboard login sessions, stored server side. The cookie holds a random token; only its hash is
 * stored. Sessions expire after the configured lifetime and can be revoked one by one.
 */
import { and, eq, gt, isNull, lt, ne, or } from 'drizzle-orm';
import type { Executor } from '../../db/client.ts';
import { listPage, mapPage, newestFirstBy } from '../../db/list-query.ts';
import type { Page, PageResult } from '../../db/paginate.ts';
import { cursorKey } from '../paging.ts';
import { sessions } from '../../db/schema.ts';
import { randomToken, sha256Hex } from '../../lib/crypto.ts';
import { isUuid, uuidv7 } from '../../lib/ids.ts';
import type { Clock } from '../../lib/clock.ts';
import type { Actor } from '../actor.ts';
import { DomainError, notFound } from '../errors.ts';
import { permissionsForRole } from '../permissions.ts';
import { purgeThrottles, settleAttempt, takeAttempt, type ThrottlePolicy } from '../throttle/throttle.ts';
import { throttleKeys } from '../throttle/keys.ts';
import { verifyPassword } from '../users/passwords.ts';
import { findMembership, findUserByEmail, findUserById, listMemberships, type User } from '../users/users.ts';

export const SESSION_TOKEN_PREFIX = 'pls_';

export type LoginInput = { email: string; password: string; telemetryId?: string; userAgent?: string; ip: string };
/** Failed-login throttles: per account (the email, known or not) and per address. */
export type LoginThrottle = { account: ThrottlePolicy; address: ThrottlePolicy };
/** What the session functions take; login also the session lifetime and its throttles. */
export type SessionDeps = { db: Executor; clock: Clock };
export type LoginDeps = SessionDeps & { ttlHours: number; throttle: LoginThrottle };
type UserActor = Extract<Actor, { kind: 'user' }>;

export type LoginResult = { user: User; token: string; sessionId: string; expiresAt: Date };
/** Too many recent failures for the address or the account: nothing was checked. */
export type LoginThrottled = { throttled: 'account' | 'address'; retryAt: Date; retryAfterSeconds: number };

/** A password attempt's throttles and what it was checked against. */
export type PasswordAttempt = { email: string; password: string; ip: string };

/**
 * Checks a password as a throttled attempt: it is charged to the address and the account (the
 * email, known or not) first, and while either waits out a delay the password is not even looked
 * at (a right one included). A right password forgets the account's failures and refunds the
 * address its attempt. `storedHash` is read only once the attempt is allowed; undefined (an unknown
 * email) is verified against a dummy hash, so it costs the same time and always fails.
 */
export async function checkPassword(
  deps: SessionDeps & { throttle: LoginThrottle },
  attempt: PasswordAttempt,
  storedHash: () => Promise<string | undefined>,
): Promise<{ ok: boolean } | LoginThrottled> {
  const addressKey = throttleKeys.loginAddress(attempt.ip);
  const accountKey = throttleKeys.loginAccount(attempt.email);
  const decision = await takeAttempt({ db: deps.db, clock: deps.clock }, [
    { key: addressKey, policy: deps.throttle.address },
    { key: accountKey, policy: deps.throttle.account },
  ]);
  if (!decision.allowed) {
    return {
      throttled: decision.key === addressKey ? 'address' : 'account',
      retryAt: decision.retryAt,
      retryAfterSeconds: decision.retryAfterSeconds,
    };
  }
  const ok = await verifyPassword(await storedHash(), attempt.password);
  if (ok) await settleAttempt({ db: deps.db }, { forget: [accountKey], refund: [addressKey] });
  return { ok };
}

/**
 * Checks the password and opens a session in the user's first organization, as a throttled
 * attempt (checkPassword): an unknown email is throttled exactly like a known one.
 */
export async function login(deps: LoginDeps, input: LoginInput): Promise<LoginResult | LoginThrottled> {
  const { db } = deps;
  let user: User | undefined;
  const checked = await checkPassword(deps, input, async () => {
    user = await findUserByEmail(db, input.email);
    return user?.passwordHash;
  });
  if ('throttled' in checked) return checked;
  if (!user || !checked.ok) throw new DomainError('invalid_credentials', 'invalid email or password');
  const [first] = await listMemberships(db, user.id);
  if (!first) throw new DomainError('invalid_credentials', 'invalid email or password');
  return { user, ...(await openSession(deps, { userId: user.id, organizationId: first.organizationId, ...input })) };
}

export type OpenedSession = { token: string; sessionId: string; expiresAt: Date };

/** Opens a session for a user who proved who they are (a login, an accepted invitation), acting in the given organization. */
export async function openSession(
  deps: SessionDeps & { ttlHours: number },
  input: { userId: string; organizationId: string; telemetryId?: string; userAgent?: string; ip: string },
): Promise<OpenedSession> {
  const token = SESSION_TOKEN_PREFIX + randomToken(32);
  const now = deps.clock.now();
  const expiresAt = new Date(now.getTime() + deps.ttlHours * 3_600_000);
  const id = uuidv7();
  await deps.db.insert(sessions).values({
    id,
    tokenHash: sha256Hex(token),
    userId: input.userId,
    organizationId: input.organizationId,
    telemetryId: input.telemetryId ?? null,
    userAgent: input.userAgent?.slice(0, 512) ?? null,
    ip: input.ip ?? null,
    createdAt: now,
    lastSeenAt: now,
    expiresAt,
  });
  return { token, sessionId: id, expiresAt };
}

/** Ends every open session of the user, but the one named in `except` (the one that asked); the count ended. */
export async function endUserSessions(
  { db, clock }: SessionDeps,
  { userId, except }: { userId: string; except?: string },
): Promise<number> {
  const rows = await db
    .update(sessions)
    .set({ revokedAt: clock.now() })
    .where(and(eq(sessions.userId, userId), isNull(sessions.revokedAt), except === undefined ? undefined : ne(sessions.id, except)))
    .returning({ id: sessions.id });
  return rows.length;
}

/**
 * Resolves a session token to an actor, in the requested organization (or the session's own).
 * Undefined for unknown, expired or revoked sessions; forbidden for an organization the user is not
 * a member of.
 */
export async function authenticateSession(
  { db, clock }: SessionDeps,
  { token, organizationId: requestedOrganizationId }: { token: string; organizationId: string | undefined },
): Promise<Actor | undefined> {
  if (!token.startsWith(SESSION_TOKEN_PREFIX)) return undefined;
  const now = clock.now();
  const [session] = await db
    .select()
    .from(sessions)
    .where(and(eq(sessions.tokenHash, sha256Hex(token)), isNull(sessions.revokedAt), gt(sessions.expiresAt, now)))
    .limit(1);
  if (!session) return undefined;
  const organizationId = requestedOrganizationId ?? session.organizationId;
  const role = await findMembership(db, session.userId, organizationId);
  if (!role) throw new DomainError('forbidden', `not a member of organization ${organizationId}`);
  if (now.getTime() - session.lastSeenAt.getTime() > 60_000) {
    await db.update(sessions).set({ lastSeenAt: now }).where(eq(sessions.id, session.id));
  }
  return {
    kind: 'user',
    organizationId,
    userId: session.userId,
    sessionId: session.id,
    role,
    permissions: new Set(permissionsForRole(role)),
  };
}

/** The user, the session and the user's memberships. */
export async function describeSession({ db }: Pick<SessionDeps, 'db'>, actor: UserActor) {
  const user = await findUserById(db, actor.userId);
  if (!user) throw notFound('user');
  const [session] = await db.select().from(sessions).where(eq(sessions.id, actor.sessionId)).limit(1);
  if (!session) throw notFound('session');
  return { user, session, organizations: await listMemberships(db, user.id) };
}

export type SessionRow = typeof sessions.$inferSelect;

/** The user's active sessions, newest first (then id); `current` marks the actor's own. */
export async function listSessions(
  { db, clock }: SessionDeps,
  actor: UserActor,
  page: Page,
): Promise<PageResult<SessionRow & { current: boolean }>> {
  const rows = await listPage(db.select().from(sessions).$dynamic(), {
    where: [eq(sessions.userId, actor.userId), isNull(sessions.revokedAt), gt(sessions.expiresAt, clock.now())],
    order: newestFirstBy(sessions.createdAt, sessions.id),
    after: cursorKey(page.cursor),
    limit: page.limit,
  });
  return mapPage(rows, (s) => ({ ...s, current: s.id === actor.sessionId }));
}

/** Revokes one of the user's own sessions; another user's session id behaves as unknown. */
export async function revokeSession({ db, clock }: SessionDeps, actor: UserActor, { sessionId }: { sessionId: string }): Promise<void> {
  const { userId } = actor;
  if (!isUuid(sessionId)) throw notFound('session');
  const revoked = await db
    .update(sessions)
    .set({ revokedAt: clock.now() })
    .where(and(eq(sessions.id, sessionId), eq(sessions.userId, userId), isNull(sessions.revokedAt)))
    .returning({ id: sessions.id });
  if (revoked.length === 0) throw notFound('session');
}

/** A day without attempts forgives every login throttle's count in practice; the row can go. */
const THROTTLE_QUIET_MS = 86_400_000;

/** Deletes sessions that expired or were revoked more than a day ago, and login throttle rows quiet for a day. */
export async function purgeSessions(deps: SessionDeps): Promise<{ sessions: number; throttles: number }> {
  const cutoff = new Date(deps.clock.now().getTime() - 86_400_000);
  const rows = await deps.db
    .delete(sessions)
    .where(or(lt(sessions.expiresAt, cutoff), lt(sessions.revokedAt, cutoff)))
    .returning({ id: sessions.id });
  return { sessions: rows.length, throttles: await purgeThrottles(deps, THROTTLE_QUIET_MS) };
}
