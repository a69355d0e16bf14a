/** The teams routes' records (teams.ts), typed from the response schemas. */
import type { z } from 'zod';
import type { AssignmentPolicy, AvailabilityView, ChannelAssignment, TeamView } from '../../domain/teams/teams.ts';
import type { AvailabilitySchema, ChannelAssignmentSchema, TeamSchema } from './teams.ts';

export type TeamRecord = z.infer<typeof TeamSchema>;
export type AvailabilityRecord = z.infer<typeof AvailabilitySchema>;
export type ChannelAssignmentRecord = z.infer<typeof ChannelAssignmentSchema>;

export function presentTeam(row: TeamView): TeamRecord {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    assignment_policy: row.assignmentPolicy as AssignmentPolicy,
    default_capacity: row.defaultCapacity,
    members: row.members.map((m) => ({
      user_id: m.userId,
      name: m.name,
      email: m.email,
      availability: m.availability,
      capacity: m.capacity,
      open_conversations: m.openConversations,
    })),
    queued: row.queued,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

export const presentAvailability = (row: AvailabilityView): AvailabilityRecord => ({
  user_id: row.userId,
  availability: row.availability,
  changed_at: row.changedAt?.toISOString() ?? null,
});

export const presentChannelAssignment = (row: ChannelAssignment): ChannelAssignmentRecord => ({
  channel_id: row.channelId,
  team_id: row.teamId,
});
