/** Organizations and their members. */
import { and, eq, inArray, isNull } from 'drizzle-orm';
import type { Executor } from '../../db/client.ts';
import { listPage, mapPage, oldestFirstBy } from '../../db/list-query.ts';
import type { Page, PageResult } from '../../db/paginate.ts';
import { cursorKey } from '../paging.ts';
import { memberships, oauthGrantOrganizations, oauthTokens, organizations, users } from '../../db/schema.ts';
import { uuidv7 } from '../../lib/ids.ts';
import type { Clock } from '../../lib/clock.ts';
import type { Actor } from '../actor.ts';
import { conflict, DomainError, notFound } from '../errors.ts';
import { createDefaultPipeline } from '../pipelines/defaults.ts';
import type { Role } from '../permissions.ts';
import { hashPassword } from '../users/passwords.ts';
import { findUserByEmail, listMemberships } from '../users/users.ts';

export type NewMember = { email: string; name: string; password: string; emailVerified?: boolean; role?: Role };

/** What the organization functions take. */
export type OrganizationDeps = { db: Executor; clock: Clock };

/** Creates an organization with its default pipeline, and its first member (an owner unless told otherwise). */
export async function createOrganization(
  deps: OrganizationDeps,
  input: { name: string; owner: NewMember },
): Promise<{ organizationId: string; userId: string }> {
  const now = deps.clock.now();
  const organizationId = uuidv7();
  await deps.db.insert(organizations).values({ id: organizationId, name: input.name, createdAt: now, updatedAt: now });
  await createDefaultPipeline(deps.db, organizationId, now);
  const userId = await addMember(deps, { organizationId, role: 'owner', ...input.owner });
  return { organizationId, userId };
}

/** Adds a new user to an organization; an email already taken (in any case) is a conflict. */
export async function addMember(
  { db, clock }: OrganizationDeps,
  { organizationId, ...member }: NewMember & { organizationId: string },
): Promise<string> {
  if (await findUserByEmail(db, member.email)) throw conflict(`a user with email ${member.email} exists`);
  const now = clock.now();
  const userId = uuidv7();
  await db.insert(users).values({
    id: userId,
    email: member.email.trim(),
    name: member.name,
    passwordHash: await hashPassword(member.password),
    emailVerified: member.emailVerified ?? false,
    createdAt: now,
    updatedAt: now,
  });
  await db.insert(memberships).values({ organizationId, userId, role: member.role ?? 'member', createdAt: now });
  return userId;
}

/** Adds an existing user to another organization. */
export async function addMembership(
  { db, clock }: OrganizationDeps,
  { organizationId, userId, role }: { organizationId: string; userId: string; role: Role },
): Promise<void> {
  await db.insert(memberships).values({ organizationId, userId, role, createdAt: clock.now() }).onConflictDoNothing();
}

export type OrganizationRow = typeof organizations.$inferSelect;
/** An organization as a credential sees it: with the caller's role when the caller is a person in it. */
export type OrganizationView = OrganizationRow & { role: Role | null };

/** A signed-in user creates an organization and becomes its owner. */
export async function createOwnOrganization(deps: OrganizationDeps, actor: Actor, input: { name: string }): Promise<OrganizationView> {
  if (actor.kind !== 'user') throw new DomainError('forbidden', 'this operation needs a dashboard session');
  return deps.db.transaction(async (tx) => {
    const now = deps.clock.now();
    const [row] = await tx.insert(organizations).values({ id: uuidv7(), name: input.name, createdAt: now, updatedAt: now }).returning();
    await tx.insert(memberships).values({ organizationId: row!.id, userId: actor.userId, role: 'owner', createdAt: now });
    await createDefaultPipeline(tx, row!.id, now);
    return { ...row!, role: 'owner' as const };
  });
}

/**
 * The organizations the credential reaches: a person's every membership (by session), the one an
 * API key belongs to, the ones an OAuth token's grant covers.
 */
export async function listOrganizations(
  { db }: Pick<OrganizationDeps, 'db'>,
  actor: Actor,
  page: Page,
): Promise<PageResult<OrganizationView>> {
  if (actor.kind === 'user') {
    // A person's organizations in the order they joined them (then id), as the session record lists them.
    const rows = await listPage(
      db
        .select({ organization: organizations, role: memberships.role, joinedAt: memberships.createdAt })
        .from(memberships)
        .innerJoin(organizations, eq(organizations.id, memberships.organizationId))
        .$dynamic(),
      {
        where: [eq(memberships.userId, actor.userId)],
        order: oldestFirstBy(memberships.createdAt, memberships.organizationId),
        after: cursorKey(page.cursor),
        limit: page.limit,
        keyOf: (r) => ({ t: r.joinedAt, id: r.organization.id }),
      },
    );
    return mapPage(rows, (r) => ({ ...r.organization, role: r.role as Role }));
  }
  let ids = [actor.organizationId];
  if (actor.kind === 'oauth') {
    const covered = await db
      .select({ organizationId: oauthGrantOrganizations.organizationId })
      .from(oauthTokens)
      .innerJoin(oauthGrantOrganizations, eq(oauthGrantOrganizations.grantId, oauthTokens.grantId))
      .innerJoin(
        memberships,
        and(eq(memberships.organizationId, oauthGrantOrganizations.organizationId), eq(memberships.userId, actor.userId)),
      )
      .where(and(eq(oauthTokens.id, actor.tokenId), isNull(oauthTokens.revokedAt)));
    ids = [...new Set([actor.organizationId, ...covered.map((c) => c.organizationId)])];
  }
  // An API key's or an OAuth token's organizations, oldest first (then id).
  const rows = await listPage(db.select().from(organizations).$dynamic(), {
    where: [inArray(organizations.id, ids)],
    order: oldestFirstBy(organizations.createdAt, organizations.id),
    after: cursorKey(page.cursor),
    limit: page.limit,
  });
  const roles = actor.kind === 'oauth' ? await listMemberships(db, actor.userId) : [];
  return mapPage(rows, (r) => ({ ...r, role: roles.find((m) => m.organizationId === r.id)?.role ?? null }));
}

/** The organization the actor acts in. */
export async function getOrganization({ db }: Pick<OrganizationDeps, 'db'>, actor: Actor): Promise<OrganizationView> {
  const [row] = await db.select().from(organizations).where(eq(organizations.id, actor.organizationId)).limit(1);
  if (!row) throw notFound('organization');
  return { ...row, role: await roleOf(db, actor) };
}

/** Renames the organization the actor acts in. */
export async function renameOrganization(
  { db, clock }: OrganizationDeps,
  actor: Actor,
  input: { name: string },
): Promise<OrganizationView> {
  const [row] = await db
    .update(organizations)
    .set({ name: input.name, updatedAt: clock.now() })
    .where(eq(organizations.id, actor.organizationId))
    .returning();
  if (!row) throw notFound('organization');
  return { ...row, role: await roleOf(db, actor) };
}

async function roleOf(db: Executor, actor: Actor): Promise<Role | null> {
  if (actor.kind === 'user') return actor.role;
  if (actor.kind !== 'oauth') return null;
  const [row] = await db
    .select({ role: memberships.role })
    .from(memberships)
    .where(and(eq(memberships.organizationId, actor.organizationId), eq(memberships.userId, actor.userId)))
    .limit(1);
  return (row?.role as Role | undefined) ?? null;
}
