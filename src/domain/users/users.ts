/** Users and their memberships. Emails are unique without regard to case. */
import { and, eq, sql } from 'drizzle-orm';
import type { Executor } from '../../db/client.ts';
import { memberships, organizations, users } from '../../db/schema.ts';
import type { Role } from '../permissions.ts';

export type User = typeof users.$inferSelect;

export async function findUserByEmail(db: Executor, email: string): Promise<User | undefined> {
  const [row] = await db
    .select()
    .from(users)
    .where(eq(sql`lower(${users.email})`, email.trim().toLowerCase()))
    .limit(1);
  return row;
}

export async function findUserById(db: Executor, id: string): Promise<User | undefined> {
  const [row] = await db.select().from(users).where(eq(users.id, id)).limit(1);
  return row;
}

export type Membership = { organizationId: string; organizationName: string; role: Role };

export async function listMemberships(db: Executor, userId: string): Promise<Membership[]> {
  const rows = await db
    .select({ organizationId: memberships.organizationId, name: organizations.name, role: memberships.role })
    .from(memberships)
    .innerJoin(organizations, eq(organizations.id, memberships.organizationId))
    .where(eq(memberships.userId, userId))
    .orderBy(memberships.createdAt, memberships.organizationId);
  return rows.map((r) => ({ organizationId: r.organizationId, organizationName: r.name, role: r.role as Role }));
}

export async function findMembership(db: Executor, userId: string, organizationId: string): Promise<Role | undefined> {
  const [row] = await db
    .select({ role: memberships.role })
    .from(memberships)
    .where(and(eq(memberships.userId, userId), eq(memberships.organizationId, organizationId)))
    .limit(1);
  return row?.role as Role | undefined;
}
