/** The auth routes' records (auth.ts): the presenters that turn the domain's rows into them, typed from the response schemas. */
import type { z } from 'zod';
import type { SessionRow } from '../../domain/sessions/sessions.ts';
import type { Membership, User } from '../../domain/users/users.ts';
import type { OrganizationMembershipSchema, SessionInfoSchema, SessionViewSchema, UserSessionRecordSchema } from './auth.ts';

export type UserSessionRecord = z.infer<typeof UserSessionRecordSchema>;
export type OrganizationMembershipRecord = z.infer<typeof OrganizationMembershipSchema>;
export type SessionInfoRecord = z.infer<typeof SessionInfoSchema>;
export type SessionViewRecord = z.infer<typeof SessionViewSchema>;

/** The user session record of the spec. */
export function presentUser(user: User): z.infer<typeof UserSessionRecordSchema> {
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

export function presentMembership(m: Membership): z.infer<typeof OrganizationMembershipSchema> {
  return { organization_id: m.organizationId, organization_name: m.organizationName, role: m.role };
}

export function presentSession(s: SessionRow & { current: boolean }): z.infer<typeof SessionViewSchema> {
  return {
    id: s.id,
    current: s.current,
    user_agent: s.userAgent,
    ip: s.ip,
    created_at: s.createdAt.toISOString(),
    last_seen_at: s.lastSeenAt.toISOString(),
    expires_at: s.expiresAt.toISOString(),
  };
}
