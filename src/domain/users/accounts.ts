/**
 * A signed-in user's own account: name, email and password. Changing the email or the password
 * needs the current password, checked as a login attempt (the login throttle counts it, so the
 * form cannot be used to guess); afterwards every other session of the user ends, and reset links
 * still unused stop working.
 */
import { and, eq, isNull, ne, sql } from 'drizzle-orm';
import { passwordResets, users } from '../../db/schema.ts';
import type { Actor } from '../actor.ts';
import { isUniqueViolation } from '../../db/errors.ts';
import { DomainError, invalid, notFound } from '../errors.ts';
import { checkPassword, endUserSessions, type LoginThrottle, type LoginThrottled, type SessionDeps } from '../sessions/sessions.ts';
import { assertPasswordRules, hashPassword } from './passwords.ts';
import { findUserById, type User } from './users.ts';

type UserActor = Extract<Actor, { kind: 'user' }>;

/** What the account functions take: the database, the clock and the login throttle. */
export type AccountDeps = SessionDeps & { throttle: LoginThrottle };

export const MAX_NAME_LENGTH = 200;
export const MAX_EMAIL_LENGTH = 320;

export type AccountChange = { name?: string; email?: string; currentPassword?: string; ip: string };

const wrongPassword = () =>
  new DomainError('forbidden', 'current_password is not your password', {
    fieldErrors: [{ pointer: '/current_password', message: 'is not your current password' }],
  });

/** A display name as stored: trimmed, not empty. */
export function normalizeName(name: string, pointer = '/name'): string {
  const trimmed = name.trim();
  if (trimmed.length === 0) throw invalid(`${pointer.slice(1)} must not be empty`, [{ pointer, message: 'must not be empty' }]);
  return trimmed;
}

/** An email as stored: trimmed, one @ with something on both sides and a dot in the domain. */
export function normalizeEmail(email: string, pointer = '/email'): string {
  const trimmed = email.trim();
  if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(trimmed))
    throw invalid(`${pointer.slice(1)} must be an email address`, [{ pointer, message: 'must be an email address' }]);
  return trimmed;
}

export const emailTaken = () =>
  new DomainError('conflict', 'another account already uses this email', {
    fieldErrors: [{ pointer: '/email', message: 'already used by another account' }],
  });

/** Fails with a conflict naming /email when another user has the email (in any case). */
export async function assertEmailFree(db: SessionDeps['db'], email: string, exceptUserId?: string): Promise<void> {
  const [taken] = await db
    .select({ id: users.id })
    .from(users)
    .where(and(eq(sql`lower(${users.email})`, email.toLowerCase()), exceptUserId ? ne(users.id, exceptUserId) : undefined))
    .limit(1);
  if (taken) throw emailTaken();
}

async function currentUser(deps: SessionDeps, actor: UserActor): Promise<User> {
  const user = await findUserById(deps.db, actor.userId);
  if (!user) throw notFound('user');
  return user;
}

/** Checks the current password as a throttled login attempt for the user's email. */
async function proveCurrentPassword(deps: AccountDeps, user: User, password: string, ip: string): Promise<LoginThrottled | undefined> {
  const checked = await checkPassword(deps, { email: user.email, password, ip }, async () => user.passwordHash);
  if ('throttled' in checked) return checked;
  if (!checked.ok) throw wrongPassword();
  return undefined;
}

/**
 * Changes the user's name and/or email. A new email needs the current password; afterwards the
 * user's other sessions end. The same email (in any case) is no change.
 */
export async function updateAccount(deps: AccountDeps, actor: UserActor, input: AccountChange): Promise<User | LoginThrottled> {
  const user = await currentUser(deps, actor);
  const name = input.name === undefined ? undefined : normalizeName(input.name);
  const email = input.email === undefined ? undefined : normalizeEmail(input.email);
  const emailChanges = email !== undefined && email !== user.email;
  if (emailChanges) {
    if (input.currentPassword === undefined) {
      throw invalid('current_password is required to change the email', [
        { pointer: '/current_password', message: 'required to change the email' },
      ]);
    }
    // The password first: whether an address is taken is told only to someone who proved who they are.
    const throttled = await proveCurrentPassword(deps, user, input.currentPassword, input.ip);
    if (throttled) return throttled;
    await assertEmailFree(deps.db, email, user.id);
  }
  if (name === undefined && !emailChanges) return user;
  const now = deps.clock.now();
  return deps.db.transaction(async (tx) => {
    const [updated] = await tx
      .update(users)
      .set({
        ...(name !== undefined ? { name } : {}),
        // A new address is not verified yet.
        ...(emailChanges ? { email, emailVerified: false } : {}),
        updatedAt: now,
      })
      .where(eq(users.id, user.id))
      .returning()
      .catch((err: unknown) => {
        // Two changes racing to the same address: the unique index decides.
        if (isUniqueViolation(err)) throw emailTaken();
        throw err;
      });
    if (!updated) throw notFound('user');
    if (emailChanges) {
      await endUserSessions({ db: tx, clock: deps.clock }, { userId: user.id, except: actor.sessionId });
      await voidPasswordResets({ db: tx, clock: deps.clock }, user.id);
    }
    return updated;
  });
}

/** Changes the user's password (the current one required); the user's other sessions end. */
export async function changePassword(
  deps: AccountDeps,
  actor: UserActor,
  input: { currentPassword: string; newPassword: string; ip: string },
): Promise<{ endedSessions: number } | LoginThrottled> {
  const user = await currentUser(deps, actor);
  assertPasswordRules(input.newPassword, '/new_password', { email: user.email });
  const throttled = await proveCurrentPassword(deps, user, input.currentPassword, input.ip);
  if (throttled) return throttled;
  return setPassword(deps, user.id, input.newPassword, { keepSession: actor.sessionId });
}

/**
 * Stores a new password for the user and ends their sessions (all, or all but `keepSession`); reset
 * links not yet used stop working.
 */
export async function setPassword(
  deps: SessionDeps,
  userId: string,
  password: string,
  options: { keepSession?: string } = {},
): Promise<{ endedSessions: number }> {
  const passwordHash = await hashPassword(password);
  return deps.db.transaction((tx) => storePasswordHash({ db: tx, clock: deps.clock }, userId, passwordHash, options));
}

/** setPassword's writes, for a caller that hashed the password and holds a transaction. */
export async function storePasswordHash(
  deps: SessionDeps,
  userId: string,
  passwordHash: string,
  options: { keepSession?: string } = {},
): Promise<{ endedSessions: number }> {
  await deps.db.update(users).set({ passwordHash, updatedAt: deps.clock.now() }).where(eq(users.id, userId));
  await voidPasswordResets(deps, userId);
  return { endedSessions: await endUserSessions(deps, { userId, except: options.keepSession }) };
}

/** Marks every unused reset link of the user used: they answer 410 from now on. */
export async function voidPasswordResets({ db, clock }: SessionDeps, userId: string): Promise<void> {
  await db
    .update(passwordResets)
    .set({ usedAt: clock.now() })
    .where(and(eq(passwordResets.userId, userId), isNull(passwordResets.usedAt)));
}
