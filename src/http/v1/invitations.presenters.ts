/** The invitation routes' records (invitations.ts): the presenters that turn the domain's rows into them, typed from the response schemas. */
import type { z } from 'zod';
import type { InvitationRow } from '../../domain/invitations/invitations.ts';
import type { Role } from '../../domain/permissions.ts';
import type { AcceptedInvitationSchema, CreatedInvitationSchema, InvitationPreviewSchema, InvitationSchema } from './invitations.ts';

export type InvitationRecord = z.infer<typeof InvitationSchema>;
export type CreatedInvitationRecord = z.infer<typeof CreatedInvitationSchema>;
export type InvitationPreviewRecord = z.infer<typeof InvitationPreviewSchema>;
export type AcceptedInvitationRecord = z.infer<typeof AcceptedInvitationSchema>;

export function presentInvitation(row: InvitationRow): z.infer<typeof InvitationSchema> {
  return {
    id: row.id,
    email: row.email,
    role: row.role as Role,
    invited_by_user_id: row.invitedByUserId,
    created_at: row.createdAt.toISOString(),
    expires_at: row.expiresAt.toISOString(),
  };
}
