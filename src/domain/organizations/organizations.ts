/** Organizations and their members. */
import type { Executor } from '../../db/client.ts';
import { memberships, organizations, users } from '../../db/schema.ts';
import { uuidv7 } from '../../lib/ids.ts';
import type { Clock } from '../../lib/clock.ts';
import { conflict } from '../errors.ts';
import type { Role } from '../permissions.ts';
import { hashPassword } from '../users/passwords.ts';
import { findUserByEmail } from '../users/users.ts';

export type NewMember = { email: string; name: string; password: string; emailVerified?: boolean; role?: Role };

/** What the organization functions take. */
export type OrganizationDeps = { db: Executor; clock: Clock };

/** Creates an organization and its first member (an owner unless told otherwise). */
export async function createOrganization(deps: OrganizationDeps, input: { name: string; owner: NewMember }): Promise<{ organizationId: string; userId: string }> {
  const now = deps.clock.now();
  const organizationId = uuidv7();
  await deps.db.insert(organizations).values({ id: organizationId, name: input.name, createdAt: now, updatedAt: now });
  const userId = await addMember(deps, { organizationId, role: 'owner', ...input.owner });
  return { organizationId, userId };
}

/** Adds a new user to an organization; an email already taken (in any case) is a conflict. */
export async function addMember({ db, clock }: OrganizationDeps, { organizationId, ...member }: NewMember & { organizationId: string }): Promise<string> {
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
export async function addMembership({ db, clock }: OrganizationDeps, { organizationId, userId, role }: { organizationId: string; userId: string; role: Role }): Promise<void> {
  await db.insert(memberships).values({ organizationId, userId, role, createdAt: clock.now() }).onConflictDoNothing();
}
