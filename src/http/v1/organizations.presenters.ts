/** The organization routes' records (organizations.ts): the presenters that turn the domain's rows into them, typed from the response schemas. */
import type { z } from 'zod';
import type { Member } from '../../domain/organizations/members.ts';
import type { OrganizationView } from '../../domain/organizations/organizations.ts';
import type { OrganizationSchema, MemberSchema } from './organizations.ts';

export type OrganizationRecord = z.infer<typeof OrganizationSchema>;
export type MemberRecord = z.infer<typeof MemberSchema>;

export function presentOrganization(o: OrganizationView): z.infer<typeof OrganizationSchema> {
  return { id: o.id, name: o.name, role: o.role, created_at: o.createdAt.toISOString(), updated_at: o.updatedAt.toISOString() };
}

export function presentMember(m: Member): z.infer<typeof MemberSchema> {
  return { user_id: m.userId, name: m.name, email: m.email, role: m.role, joined_at: m.joinedAt.toISOString() };
}
