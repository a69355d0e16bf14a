/** The group routes' records (groups.ts), typed from their response schemas. */
import type { z } from 'zod';
import type { ProviderGroup } from '../../providers/provider.ts';
import type { GroupSchema, JoinSchema } from './groups.ts';

export type GroupRecord = z.infer<typeof GroupSchema>;
export type GroupJoinRecord = z.infer<typeof JoinSchema>;

const e164 = (digits: string | null) => (digits ? `+${digits}` : null);

export function presentGroup(channelId: string, group: ProviderGroup): GroupRecord {
  return {
    id: group.id,
    channel_id: channelId,
    subject: group.subject,
    description: group.description,
    owner: e164(group.owner),
    created_at: group.createdAt?.toISOString() ?? null,
    announcement: group.announcement,
    locked: group.locked,
    members_can_add: group.membersCanAdd,
    join_approval: group.joinApproval,
    ephemeral_seconds: group.ephemeralSeconds,
    size: group.size,
    role: group.role,
    participants: group.participants.map((p) => ({ phone: e164(p.phone), lid: p.lid, role: p.role })),
  };
}

export function presentJoin(channelId: string, joined: { groupId: string | null; group: ProviderGroup | null }): GroupJoinRecord {
  return {
    status: joined.groupId ? 'joined' : 'pending_approval',
    group_id: joined.groupId,
    group: joined.group ? presentGroup(channelId, joined.group) : null,
  };
}
