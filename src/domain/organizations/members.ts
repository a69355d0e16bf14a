/**
 * An organization's members: their roles and their leaving. Only an owner makes or unmakes owners,
 * and the last owner can neither be demoted nor leave. A membership that ends takes with it, in the
 * same transaction, what the user holds in that organization: their sessions there, the API keys
 * they created there, and the OAuth access they gave for it.
 */
import { and, asc, eq, isNull } from 'drizzle-orm';
import type { Executor } from '../../db/client.ts';
import { listPage, mapPage, oldestFirstBy } from '../../db/list-query.ts';
import type { Page, PageResult } from '../../db/paginate.ts';
import { cursorKey } from '../paging.ts';
import { apiKeys, memberships, sessions, users } from '../../db/schema.ts';
import { isUuid } from '../../lib/ids.ts';
import type { Clock } from '../../lib/clock.ts';
import type { Actor } from '../actor.ts';
import { conflict, DomainError, notFound } from '../errors.ts';
import { revokeMemberOAuthAccess } from '../oauth/membership.ts';
import { releaseMemberRecords } from './departing.ts';
import type { Role } from '../permissions.ts';

export type MemberDeps = { db: Executor; clock: Clock };

export type Member = { userId: string; name: string; email: string; role: Role; joinedAt: Date };

/** The organization's members, oldest first (by joined time, then user id); the cursor holds the last one's. */
export async function listMembers({ db }: Pick<MemberDeps, 'db'>, actor: Actor, page: Page): Promise<PageResult<Member>> {
  const rows = await listPage(
    db
      .select({ userId: users.id, name: users.name, email: users.email, role: memberships.role, joinedAt: memberships.createdAt })
      .from(memberships)
      .innerJoin(users, eq(users.id, memberships.userId))
      .$dynamic(),
    {
      where: [eq(memberships.organizationId, actor.organizationId)],
      order: oldestFirstBy(memberships.createdAt, memberships.userId),
      after: cursorKey(page.cursor),
      limit: page.limit,
      keyOf: (r) => ({ t: r.joinedAt, id: r.userId }),
    },
  );
  return mapPage(rows, (r) => ({ ...r, role: r.role as Role }));
}

/** Whether the actor may make, unmake or remove an owner: only an owner by their own session or token. */
export function actsAsOwner(actor: Actor): boolean {
  return actor.kind === 'user' && actor.role === 'owner';
}

/** Locks the organization's membership rows (so two owners cannot demote each other at once) and returns the target's. */
async function lockMembers(tx: Executor, organizationId: string, userId: string): Promise<{ target: Member; owners: number }> {
  const rows = await tx
    .select({ userId: memberships.userId, role: memberships.role, joinedAt: memberships.createdAt })
    .from(memberships)
    .where(eq(memberships.organizationId, organizationId))
    .orderBy(asc(memberships.userId))
    .for('update');
  const target = rows.find((r) => r.userId === userId);
  if (!target) throw notFound('member');
  const [user] = await tx.select({ name: users.name, email: users.email }).from(users).where(eq(users.id, userId)).limit(1);
  return {
    target: { userId, role: target.role as Role, name: user?.name ?? '', email: user?.email ?? '', joinedAt: target.joinedAt },
    owners: rows.filter((r) => r.role === 'owner').length,
  };
}

const LAST_OWNER = 'the organization would have no owner: make another member an owner first';

/** Changes a member's role; takes effect on the member's next request. */
export async function changeMemberRole({ db }: MemberDeps, actor: Actor, input: { userId: string; role: Role }): Promise<Member> {
  if (!isUuid(input.userId)) throw notFound('member');
  return db.transaction(async (tx) => {
    const { target, owners } = await lockMembers(tx, actor.organizationId, input.userId);
    if ((target.role === 'owner' || input.role === 'owner') && target.role !== input.role && !actsAsOwner(actor)) {
      throw new DomainError('forbidden', 'only an owner makes or unmakes owners');
    }
    if (target.role === 'owner' && input.role !== 'owner' && owners <= 1) throw conflict(LAST_OWNER);
    await tx
      .update(memberships)
      .set({ role: input.role })
      .where(and(eq(memberships.organizationId, actor.organizationId), eq(memberships.userId, input.userId)));
    return { ...target, role: input.role };
  });
}

/**
 * Ends a membership (a removal by an owner or admin, or the member leaving): in one transaction the
 * membership goes, the user's sessions in the organization end, the API keys they created there are
 * revoked, their OAuth access to it is withdrawn, and what was assigned to them or owned by them
 * there is released (departing.ts).
 */
export async function removeMember({ db, clock }: MemberDeps, actor: Actor, input: { userId: string }): Promise<{ revokedKeys: number }> {
  if (!isUuid(input.userId)) throw notFound('member');
  const self = (actor.kind === 'user' || actor.kind === 'oauth') && actor.userId === input.userId;
  return db.transaction(async (tx) => {
    const { target, owners } = await lockMembers(tx, actor.organizationId, input.userId);
    if (target.role === 'owner' && !self && !actsAsOwner(actor)) throw new DomainError('forbidden', 'only an owner removes an owner');
    if (target.role === 'owner' && owners <= 1) throw conflict(self ? `you are the last owner: ${LAST_OWNER.slice(4)}` : LAST_OWNER);
    const now = clock.now();
    const organizationId = actor.organizationId;
    await tx.delete(memberships).where(and(eq(memberships.organizationId, organizationId), eq(memberships.userId, input.userId)));
    await tx
      .update(sessions)
      .set({ revokedAt: now })
      .where(and(eq(sessions.userId, input.userId), eq(sessions.organizationId, organizationId), isNull(sessions.revokedAt)));
    const keys = await tx
      .update(apiKeys)
      .set({ revokedAt: now })
      .where(and(eq(apiKeys.createdByUserId, input.userId), eq(apiKeys.organizationId, organizationId), isNull(apiKeys.revokedAt)))
      .returning({ id: apiKeys.id });
    await revokeMemberOAuthAccess({ db: tx, clock }, { userId: input.userId, organizationId });
    await releaseMemberRecords(tx, organizationId, input.userId, now);
    return { revokedKeys: keys.length };
  });
}
