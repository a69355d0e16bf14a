/**
 * Invitations to join an organization with a role. The link is a one-time secret shown once to the
 * inviter (and mailed when SMTP is configured): only its SHA-256 is stored. Accepting it either signs
 * up a new user (name and password) or adds the signed-in user whose email it names; it works once and
 * not after its expiry. Looking a link up and accepting one are throttled per address.
 */
import { and, eq, gt, isNull } from 'drizzle-orm';
import type { Executor } from '../../db/client.ts';
import { listPage, newestFirstBy } from '../../db/list-query.ts';
import type { Page, PageResult } from '../../db/paginate.ts';
import { cursorKey } from '../paging.ts';
import { isUniqueViolation } from '../../db/errors.ts';
import { invitations, memberships, organizations, users } from '../../db/schema.ts';
import { randomToken, sha256Hex } from '../../lib/crypto.ts';
import { isUuid, uuidv7 } from '../../lib/ids.ts';
import type { Clock } from '../../lib/clock.ts';
import type { SendMail } from '../../lib/mail.ts';
import type { Actor } from '../actor.ts';
import { conflict, DomainError, invalid, notFound } from '../errors.ts';
import { actsAsOwner } from '../organizations/members.ts';
import type { Role } from '../permissions.ts';
import { openSession, type OpenedSession } from '../sessions/sessions.ts';
import { settleAttempt, takeAttempt, type ThrottlePolicy } from '../throttle/throttle.ts';
import { throttleKeys } from '../throttle/keys.ts';
import { hashPassword, passwordProblem } from '../users/passwords.ts';
import { findUserByEmail, findUserById } from '../users/users.ts';

export const INVITATION_TOKEN_PREFIX = 'pli_';

/** Unknown links from one address: a few go free, then each waits twice as long as the last, up to 15 minutes. */
export const INVITATION_THROTTLE: ThrottlePolicy = { freeAttempts: 10, baseDelayMs: 1000, maxDelayMs: 15 * 60_000, forgiveEveryMs: 60_000 };

export type InvitationRow = typeof invitations.$inferSelect;
export type InvitationDeps = { db: Executor; clock: Clock };
export type InvitationSettings = { ttlMs: number; appUrl: string };
/** Sends a mail after the change committed, without waiting or failing; absent when no SMTP server is configured. */
export type { SendMail };

type UserActor = Extract<Actor, { kind: 'user' }>;

/** The one-time link of an invitation token (the secret travels in the fragment, which no server logs). */
export function invitationUrl(appUrl: string, token: string): string {
  return `${appUrl.replace(/\/$/, '')}/invitations#token=${token}`;
}

/** Invites an email with a role; the token (and link) are in this answer only. */
export async function createInvitation(
  deps: InvitationDeps & { settings: InvitationSettings; sendMail?: SendMail },
  actor: Actor,
  input: { email: string; role: Role },
): Promise<{ row: InvitationRow; token: string; url: string; mailed: boolean }> {
  if (input.role === 'owner' && !actsAsOwner(actor)) throw new DomainError('forbidden', 'only an owner invites an owner');
  const email = input.email.trim();
  const { db, clock } = deps;
  const existing = await findUserByEmail(db, email);
  if (existing) {
    const [member] = await db
      .select({ role: memberships.role })
      .from(memberships)
      .where(and(eq(memberships.organizationId, actor.organizationId), eq(memberships.userId, existing.id)))
      .limit(1);
    if (member) {
      throw new DomainError('conflict', `${email} is already a member of this organization`, {
        fieldErrors: [{ pointer: '/email', message: 'already a member of this organization' }],
      });
    }
  }
  const now = clock.now();
  const token = INVITATION_TOKEN_PREFIX + randomToken(32);
  const inviterId = actor.kind === 'user' || actor.kind === 'oauth' ? actor.userId : null;
  const row = await db.transaction(async (tx) => {
    // A new invitation for the same email replaces a pending one: only the latest link works.
    await tx
      .update(invitations)
      .set({ revokedAt: now })
      .where(
        and(
          eq(invitations.organizationId, actor.organizationId),
          eq(invitations.email, email),
          isNull(invitations.acceptedAt),
          isNull(invitations.revokedAt),
        ),
      );
    const [inserted] = await tx
      .insert(invitations)
      .values({
        id: uuidv7(),
        organizationId: actor.organizationId,
        email,
        role: input.role,
        tokenHash: sha256Hex(token),
        invitedByUserId: inviterId,
        createdAt: now,
        expiresAt: new Date(now.getTime() + deps.settings.ttlMs),
      })
      .returning();
    return inserted!;
  });
  const url = invitationUrl(deps.settings.appUrl, token);
  if (deps.sendMail) {
    const [org] = await db
      .select({ name: organizations.name })
      .from(organizations)
      .where(eq(organizations.id, actor.organizationId))
      .limit(1);
    const inviter = inviterId ? await findUserById(db, inviterId) : undefined;
    deps.sendMail({
      to: email,
      subject: `You are invited to ${org?.name ?? 'an organization'} on Parley`,
      text:
        `${inviter?.name ?? 'An administrator'} invited you to join ${org?.name ?? 'their organization'} on Parley as ${input.role}.\n\n` +
        `Accept the invitation here (the link works once, until ${row.expiresAt.toISOString()}):\n${url}\n\n` +
        'If you did not expect this invitation, ignore this mail.\n',
    });
  }
  return { row, token, url, mailed: deps.sendMail !== undefined };
}

/** Pending invitations of the actor's organization (not accepted, cancelled or expired), newest first. */
export async function listInvitations({ db, clock }: InvitationDeps, actor: Actor, page: Page): Promise<PageResult<InvitationRow>> {
  return listPage(db.select().from(invitations).$dynamic(), {
    where: [
      eq(invitations.organizationId, actor.organizationId),
      isNull(invitations.acceptedAt),
      isNull(invitations.revokedAt),
      gt(invitations.expiresAt, clock.now()),
    ],
    order: newestFirstBy(invitations.createdAt, invitations.id),
    after: cursorKey(page.cursor),
    limit: page.limit,
  });
}

/** Cancels a pending invitation: its link stops working at once. */
export async function cancelInvitation({ db, clock }: InvitationDeps, actor: Actor, input: { invitationId: string }): Promise<void> {
  if (!isUuid(input.invitationId)) throw notFound('invitation');
  const rows = await db
    .update(invitations)
    .set({ revokedAt: clock.now() })
    .where(
      and(
        eq(invitations.id, input.invitationId),
        eq(invitations.organizationId, actor.organizationId),
        isNull(invitations.acceptedAt),
        isNull(invitations.revokedAt),
      ),
    )
    .returning({ id: invitations.id });
  if (rows.length === 0) throw notFound('invitation');
}

/** Too many unknown links from this address lately: nothing was looked up. */
export type InvitationThrottled = { throttled: true; retryAt: Date; retryAfterSeconds: number };

/** A link as presented, and the address it came from. */
export type InvitationGuess = { token: string; address: string };

/**
 * The invitation a presented link names, as a throttled attempt (given back when the link exists).
 * A link used, cancelled or expired is gone (410).
 */
async function findByToken(deps: InvitationDeps, guess: InvitationGuess): Promise<InvitationRow | InvitationThrottled> {
  if (!guess.token.startsWith(INVITATION_TOKEN_PREFIX)) {
    throw invalid(`token must be the invitation link's token (${INVITATION_TOKEN_PREFIX}...)`, [
      { pointer: '/token', message: `must start with ${INVITATION_TOKEN_PREFIX}` },
    ]);
  }
  const addressKey = throttleKeys.invitationAddress(guess.address);
  const decision = await takeAttempt(deps, [{ key: addressKey, policy: INVITATION_THROTTLE }]);
  if (!decision.allowed) return { throttled: true, retryAt: decision.retryAt, retryAfterSeconds: decision.retryAfterSeconds };
  const [row] = await deps.db
    .select()
    .from(invitations)
    .where(eq(invitations.tokenHash, sha256Hex(guess.token)))
    .limit(1);
  if (!row) throw notFound('invitation');
  await settleAttempt(deps, { forget: [], refund: [addressKey] });
  assertOpen(row, deps.clock.now());
  return row;
}

function assertOpen(row: InvitationRow, now: Date): void {
  if (row.acceptedAt) throw new DomainError('gone', 'this invitation was already accepted: sign in instead');
  if (row.revokedAt) throw new DomainError('gone', 'this invitation was cancelled: ask for a new one');
  if (row.expiresAt.getTime() <= now.getTime()) throw new DomainError('gone', 'this invitation expired: ask for a new one');
}

export type InvitationPreview = {
  organizationName: string;
  role: Role;
  email: string;
  inviterName: string | null;
  accountExists: boolean;
  expiresAt: Date;
};

/** What the invitation page shows before accepting. */
export async function lookupInvitation(deps: InvitationDeps, guess: InvitationGuess): Promise<InvitationPreview | InvitationThrottled> {
  const row = await findByToken(deps, guess);
  if ('throttled' in row) return row;
  const [org] = await deps.db
    .select({ name: organizations.name })
    .from(organizations)
    .where(eq(organizations.id, row.organizationId))
    .limit(1);
  const inviter = row.invitedByUserId ? await findUserById(deps.db, row.invitedByUserId) : undefined;
  return {
    organizationName: org?.name ?? '',
    role: row.role as Role,
    email: row.email,
    inviterName: inviter?.name ?? null,
    accountExists: (await findUserByEmail(deps.db, row.email)) !== undefined,
    expiresAt: row.expiresAt,
  };
}

export type AcceptInput = InvitationGuess & { name?: string; password?: string; userAgent?: string };
export type Accepted = { organizationId: string; userId: string; role: Role; created: boolean; session: OpenedSession | undefined };

/**
 * Accepts an invitation. Signed in: adds that user, whose email must be the invitation's. Signed out:
 * signs up a new user with the name and password given and opens a session; an email that already has
 * an account must sign in first (409).
 */
export async function acceptInvitation(
  deps: InvitationDeps & { sessionTtlHours: number },
  actor: UserActor | undefined,
  input: AcceptInput,
): Promise<Accepted | InvitationThrottled> {
  const found = await findByToken(deps, input);
  if ('throttled' in found) return found;
  const role = found.role as Role;
  if (actor) {
    const user = await findUserById(deps.db, actor.userId);
    if (!user || user.email.toLowerCase() !== found.email.toLowerCase()) {
      throw new DomainError('forbidden', `this invitation is for ${found.email}: sign in as that user to accept it`);
    }
    await claim(deps, found, actor.userId, async (tx) => {
      const added = await tx
        .insert(memberships)
        .values({ organizationId: found.organizationId, userId: actor.userId, role, createdAt: deps.clock.now() })
        .onConflictDoNothing()
        .returning();
      if (added.length === 0) throw conflict('you are already a member of this organization');
    });
    return { organizationId: found.organizationId, userId: actor.userId, role, created: false, session: undefined };
  }
  if (await findUserByEmail(deps.db, found.email)) {
    throw conflict(`an account with the email ${found.email} exists: sign in, then open the link again to accept`);
  }
  const name = input.name?.trim() ?? '';
  const missing = [
    ...(name === '' ? [{ pointer: '/name', message: 'required to sign up' }] : []),
    ...(input.password === undefined ? [{ pointer: '/password', message: 'required to sign up' }] : []),
  ];
  if (missing.length > 0) throw invalid(`to sign up, give ${missing.map((m) => m.pointer.slice(1)).join(' and ')}`, missing);
  const problem = passwordProblem(input.password!);
  if (problem) throw invalid(`password ${problem}`, [{ pointer: '/password', message: problem }]);
  const passwordHash = await hashPassword(input.password!);
  const userId = uuidv7();
  await claim(deps, found, userId, async (tx) => {
    const now = deps.clock.now();
    try {
      await tx
        .insert(users)
        .values({ id: userId, email: found.email, name, passwordHash, emailVerified: true, createdAt: now, updatedAt: now });
    } catch (err) {
      if (isUniqueViolation(err))
        throw conflict(`an account with the email ${found.email} exists: sign in, then open the link again to accept`);
      throw err;
    }
    await tx.insert(memberships).values({ organizationId: found.organizationId, userId, role, createdAt: now });
  });
  const session = await openSession(
    { db: deps.db, clock: deps.clock, ttlHours: deps.sessionTtlHours },
    { userId, organizationId: found.organizationId, ip: input.address, userAgent: input.userAgent },
  );
  return { organizationId: found.organizationId, userId, role, created: true, session };
}

/** Marks the invitation accepted and applies the change in one transaction; of two accepts at once, one wins. */
async function claim(deps: InvitationDeps, found: InvitationRow, userId: string, change: (tx: Executor) => Promise<void>): Promise<void> {
  await deps.db.transaction(async (tx) => {
    const now = deps.clock.now();
    const [claimed] = await tx
      .update(invitations)
      .set({ acceptedAt: now, acceptedByUserId: null })
      .where(
        and(eq(invitations.id, found.id), isNull(invitations.acceptedAt), isNull(invitations.revokedAt), gt(invitations.expiresAt, now)),
      )
      .returning({ id: invitations.id });
    if (!claimed) {
      const [current] = await tx.select().from(invitations).where(eq(invitations.id, found.id)).limit(1);
      assertOpen(current ?? found, now);
      throw new DomainError('gone', 'this invitation was already accepted: sign in instead');
    }
    await change(tx);
    await tx.update(invitations).set({ acceptedByUserId: userId }).where(eq(invitations.id, found.id));
  });
}
