/** Users and their memberships. Emails are unique without regard to case. */
import { and, eq, sql } from 'drizzle-orm';
import type { Executor } from '../../db/client.ts';
import { memberships, organizations, users } from '../../db/schema.ts';
import type { Role } from '../permissions.ts';

export type User = typeof users.$inferSelect;

export type UserRecord = {
  id: string;
  name: string;
  email: string;
  email_verified: boolean;
  timezone: string;
  week_start: string;
  created_at: string;
};

/** The user session record of the spec. */
export function presentUser(user: User): UserRecord {
  return {
    id: user.id,
    name: user.name,
    email: user.email,
    email_verified: user.emailVerified,
    timezone: user.timezone,
    week_start: user.weekStart,
    created_at: user.createdAt.toISOString(),
  };
}

export async function findUserByEmail(db: Executor, email: string): Promise<User | undefined> {
  const [row] = await db.select().from(users).where(eq(sql`lower(${users.email})`, email.trim().toLowerCase())).limit(1);
  return row;
}

export async function findUserById(db: Executor, id: string): Promise<User | undefined> {
  const [row] = await db.select().from(users).where(eq(users.id, id)).limit(1);
  return row;
}

export type MembershipView = { organization_id: string; organization_name: string; role: Role };

export async function listMemberships(db: Executor, userId: string): Promise<MembershipView[]> {
  const rows = await db
    .select({ organizationId: memberships.organizationId, name: organizations.name, role: memberships.role })
    .from(memberships)
    .innerJoin(organizations, eq(organizations.id, memberships.organizationId))
    .where(eq(memberships.userId, userId))
    .orderBy(memberships.createdAt, memberships.organizationId);
  return rows.map((r) => ({ organization_id: r.organizationId, organization_name: r.name, role: r.role as Role }));
}

export async function findMembership(db: Executor, userId: string, organizationId: string): Promise<Role | undefined> {
  const [row] = await db
    .select({ role: memberships.role })
    .from(memberships)
    .where(and(eq(memberships.userId, userId), eq(memberships.organizationId, organizationId)))
    .limit(1);
  return row?.role as Role | undefined;
}
