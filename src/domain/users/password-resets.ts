/**
 * One-time password-reset links. An owner or admin makes one for a member of their organization
 * (or the operator, with `npm run reset-password`); the link carries a random token, of which only
 * the SHA-256 is stored. Redeeming it sets a new password, ends every session of the user and
 * voids the user's other unused links; a used, voided or expired link answers `gone`.
 */
import { and, eq, gt, isNull } from 'drizzle-orm';
import { passwordResets } from '../../db/schema.ts';
import { randomToken, sha256Hex } from '../../lib/crypto.ts';
import { isUuid, uuidv7 } from '../../lib/ids.ts';
import type { Actor } from '../actor.ts';
import { DomainError, forbidden, notFound } from '../errors.ts';
import type { Role } from '../permissions.ts';
import type { SendMail } from '../../lib/mail.ts';
import type { SessionDeps } from '../sessions/sessions.ts';
import { throttleKeys } from '../throttle/keys.ts';
import { settleAttempt, takeAttempt, type ThrottlePolicy } from '../throttle/throttle.ts';
import { storePasswordHash } from './accounts.ts';
import { assertPasswordRules, hashPassword } from './passwords.ts';
import { findMembership, findUserByEmail, findUserById, listMemberships } from './users.ts';

export const PASSWORD_RESET_TOKEN_PREFIX = 'plp_';

/** The link a token makes: the dashboard's reset page, with the token in the fragment (never sent to a server, so never in its logs). */
export function passwordResetUrl(appUrl: string, token: string): string {
  return `${appUrl.replace(/\/+$/, '')}/reset-password#token=${encodeURIComponent(token)}`;
}

export type PasswordResetDeps = SessionDeps & { ttlMs: number };

export type IssuedReset = { token: string; userId: string; email: string; expiresAt: Date };

/** Mailing a member's reset link: the dashboard's address the link points at, and the sender (absent without SMTP). */
export type ResetMail = { appUrl: string; send: SendMail | undefined };

/** Makes a reset link's token for the user; the caller shows it once. */
export async function issuePasswordReset(
  deps: PasswordResetDeps,
  input: { userId: string; email: string; createdByUserId: string | null },
): Promise<IssuedReset> {
  const token = PASSWORD_RESET_TOKEN_PREFIX + randomToken(32);
  const now = deps.clock.now();
  const expiresAt = new Date(now.getTime() + deps.ttlMs);
  await deps.db.insert(passwordResets).values({
    id: uuidv7(),
    userId: input.userId,
    tokenHash: sha256Hex(token),
    createdByUserId: input.createdByUserId,
    createdAt: now,
    expiresAt,
  });
  return { token, userId: input.userId, email: input.email, expiresAt };
}

/** The operator's reset link for an account by its email (no actor: the operator holds the database). */
export async function issuePasswordResetByEmail(deps: PasswordResetDeps, email: string): Promise<IssuedReset> {
  const user = await findUserByEmail(deps.db, email);
  if (!user) throw notFound(`user with email ${email.trim()}`);
  return issuePasswordReset(deps, { userId: user.id, email: user.email, createdByUserId: null });
}

/** The role the actor acts with as a person: a session's, or an OAuth token's user's; keys act as no one. */
async function actingRole(deps: SessionDeps, actor: Actor): Promise<Role | undefined> {
  if (actor.kind === 'user') return actor.role;
  if (actor.kind === 'oauth') return findMembership(deps.db, actor.userId, actor.organizationId);
  return undefined;
}

/**
 * A reset link for a member of the actor's organization. Only an owner (signed in, or through a
 * token of theirs) resets an owner's password. A person who also belongs to another organization
 * is refused: the link would hand this organization's admins their account everywhere.
 */
export async function createPasswordReset(
  deps: PasswordResetDeps & { mail: ResetMail },
  actor: Actor,
  input: { organizationId: string; userId: string },
): Promise<IssuedReset & { url: string; mailed: boolean }> {
  // The route's path decides the organization (organizationParam); this is the same rule, kept for any other caller.
  if (input.organizationId.toLowerCase() !== actor.organizationId.toLowerCase() || !isUuid(input.userId)) throw notFound('member');
  const role = await findMembership(deps.db, input.userId, actor.organizationId);
  const user = role ? await findUserById(deps.db, input.userId) : undefined;
  if (!role || !user) throw notFound('member');
  if (role === 'owner' && (await actingRole(deps, actor)) !== 'owner') {
    throw forbidden("only an owner can reset an owner's password");
  }
  const elsewhere = (await listMemberships(deps.db, user.id)).filter((m) => m.organizationId !== actor.organizationId);
  if (elsewhere.length > 0) {
    throw forbidden(
      'this person also belongs to another organization: they change their password themselves, or the operator runs npm run reset-password',
    );
  }
  const createdByUserId = actor.kind === 'user' || actor.kind === 'oauth' ? actor.userId : null;
  const issued = await issuePasswordReset(deps, { userId: user.id, email: user.email, createdByUserId });
  const url = passwordResetUrl(deps.mail.appUrl, issued.token);
  deps.mail.send?.({
    to: issued.email,
    subject: 'Set a new Parley password',
    text:
      `An administrator of your organization made you a link to set a new Parley password.\n\n` +
      `It works once, until ${issued.expiresAt.toISOString()}, and signs you out everywhere:\n${url}\n\n` +
      'If you did not ask for it, tell your administrator.\n',
  });
  return { ...issued, url, mailed: deps.mail.send !== undefined };
}

export type ResetThrottled = { throttled: 'address'; retryAt: Date; retryAfterSeconds: number };

export type RedeemDeps = SessionDeps & { throttle: ThrottlePolicy };

/**
 * Sets a new password with a reset token, once. The token is a throttled attempt per address;
 * every session of the user ends, and their other unused links stop working.
 */
export async function redeemPasswordReset(
  deps: RedeemDeps,
  input: { token: string; newPassword: string; ip: string },
): Promise<{ userId: string } | ResetThrottled> {
  const addressKey = throttleKeys.passwordResetAddress(input.ip);
  const decision = await takeAttempt(deps, [{ key: addressKey, policy: deps.throttle }]);
  if (!decision.allowed) return { throttled: 'address', retryAt: decision.retryAt, retryAfterSeconds: decision.retryAfterSeconds };
  const now = deps.clock.now();
  const [reset] = await deps.db
    .select()
    .from(passwordResets)
    .where(eq(passwordResets.tokenHash, sha256Hex(input.token.trim())))
    .limit(1);
  if (!reset) throw notFound('password reset link');
  // A known token is no guess, whatever else is wrong with the request.
  await settleAttempt(deps, { forget: [], refund: [addressKey] });
  if (reset.usedAt)
    throw new DomainError('gone', 'this password reset link was already used (or a newer password replaced it): ask for a new one');
  if (reset.expiresAt.getTime() <= now.getTime()) throw new DomainError('gone', 'this password reset link expired: ask for a new one');
  const user = await findUserById(deps.db, reset.userId);
  if (!user) throw notFound('password reset link');
  assertPasswordRules(input.newPassword, '/new_password', { email: user.email });
  const passwordHash = await hashPassword(input.newPassword);
  await deps.db.transaction(async (tx) => {
    // Claimed in the transaction that stores the password: of two redemptions at once, one wins.
    const claimed = await tx
      .update(passwordResets)
      .set({ usedAt: now })
      .where(and(eq(passwordResets.id, reset.id), isNull(passwordResets.usedAt), gt(passwordResets.expiresAt, now)))
      .returning({ id: passwordResets.id });
    if (claimed.length === 0) throw new DomainError('gone', 'this password reset link was already used: ask for a new one');
    await storePasswordHash({ db: tx, clock: deps.clock }, user.id, passwordHash);
  });
  return { userId: user.id };
}
