/**
 * Teams and assignment (docs/inbox.md#teams-and-assignment): teams with their members, policy and
 * capacities; members' availability; the team a channel routes its conversations to.
 */
import { z } from 'zod';
import type { QueueTrigger } from '../../domain/messages/conversations.ts';
import { forbidden } from '../../domain/errors.ts';
import type { Actor } from '../../domain/actor.ts';
import {
  ASSIGNMENT_POLICIES,
  AVAILABILITIES,
  CAPACITY_MAX,
  TEAM_DESCRIPTION_MAX,
  TEAM_MEMBERS_MAX,
  TEAM_NAME_MAX,
  createTeam,
  deleteTeam,
  getAvailability,
  getChannelAssignment,
  getTeam,
  listTeams,
  putTeamMember,
  removeTeamMember,
  setAvailability,
  setChannelAssignment,
  updateTeam,
  type TeamDeps,
} from '../../domain/teams/teams.ts';
import { actorOf } from '../auth/actor.ts';
import { errorResponses } from '../errors.ts';
import { inputFrom } from '../input-location.ts';
import { dataOf, listOf, PageQuerySchema, PathId } from '../schemas.ts';
import type { App } from '../types.ts';
import { presentAvailability, presentChannelAssignment, presentTeam } from './teams.presenters.ts';

const TAG = 'teams';
const read = { auth: { permission: 'teams:read' as const } };
const write = { auth: { permission: 'teams:write' as const } };
const TEAM_ID = '0196b1f2-0a00-7000-8000-0000000000e1';
const USER_ID = '0190a5b0-9a1b-7c11-9d2f-5b6c7d8e9d01';

const Policy = z.enum(ASSIGNMENT_POLICIES).meta({
  description:
    '`manual`: nothing is assigned automatically; `round_robin`: each in turn (the member after the last one assigned); `least_busy`: the member with the fewest open conversations',
});
const Capacity = z
  .number()
  .int()
  .min(0)
  .max(CAPACITY_MAX)
  .nullable()
  .meta({ description: `Open conversations a member holds at most for automatic assignment (0 to ${CAPACITY_MAX}); null: no limit` });
const Availability = z.enum(AVAILABILITIES).meta({ description: 'Only online members are assigned conversations automatically' });

export const TeamSchema = z
  .object({
    id: z.uuid(),
    name: z.string(),
    description: z.string().nullable(),
    assignment_policy: Policy,
    default_capacity: Capacity,
    members: z.array(
      z.object({
        user_id: z.uuid(),
        name: z.string(),
        email: z.string(),
        availability: Availability,
        capacity: Capacity.meta({ description: 'The member’s own capacity in this team; null: the team’s default_capacity' }),
        open_conversations: z.number().int().meta({ description: 'Open conversations assigned to the member in the organization' }),
      }),
    ),
    queued: z.number().int().meta({ description: 'Open unassigned conversations waiting in the team’s queue' }),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({
    id: 'Team',
    example: {
      id: TEAM_ID,
      name: 'Support',
      description: 'First line, Portuguese and English',
      assignment_policy: 'round_robin',
      default_capacity: 5,
      members: [
        { user_id: USER_ID, name: 'Ana Souza', email: 'ana@example.com', availability: 'online', capacity: null, open_conversations: 3 },
      ],
      queued: 2,
      created_at: '2025-06-02T09:15:00.000Z',
      updated_at: '2025-06-02T09:15:00.000Z',
    },
  });

export const AvailabilitySchema = z
  .object({ user_id: z.uuid(), availability: Availability, changed_at: z.string().nullable() })
  .meta({ id: 'MemberAvailability', example: { user_id: USER_ID, availability: 'online', changed_at: '2025-06-02T09:15:00.000Z' } });

export const ChannelAssignmentSchema = z
  .object({
    channel_id: z.uuid(),
    team_id: z.uuid().nullable().meta({ description: 'The team its new and reopened conversations go to; null: none' }),
  })
  .meta({ id: 'ChannelAssignment', example: { channel_id: '0190a5b1-1111-7c11-9d2f-5b6c7d8e9f01', team_id: TEAM_ID } });

const Name = z.string().trim().min(1).max(TEAM_NAME_MAX);
const Description = z.string().trim().max(TEAM_DESCRIPTION_MAX).nullable();

const CreateBody = z
  .strictObject({
    name: Name,
    description: Description.optional(),
    assignment_policy: Policy.optional().meta({ description: 'Default manual' }),
    default_capacity: Capacity.optional(),
    members: z
      .array(z.strictObject({ user_id: z.string(), capacity: Capacity.optional() }))
      .max(TEAM_MEMBERS_MAX)
      .optional()
      .meta({ description: 'Members of the organization (400 naming /members/N/user_id otherwise)' }),
  })
  .meta({
    id: 'CreateTeamRequest',
    description: 'A name unique in the organization whatever its case (409 naming /name). Records team.created.',
    examples: [{ name: 'Support', assignment_policy: 'round_robin', default_capacity: 5, members: [{ user_id: USER_ID }] }],
  });

const UpdateBody = z
  .strictObject({
    name: Name.optional(),
    description: Description.optional(),
    assignment_policy: Policy.optional(),
    default_capacity: Capacity.optional(),
  })
  .meta({
    id: 'UpdateTeamRequest',
    description: 'Records team.updated when something changed; the queue is assigned again under the new policy and capacity.',
    examples: [{ assignment_policy: 'least_busy', default_capacity: 8 }],
  });

const MemberBody = z.strictObject({ capacity: Capacity.optional() }).meta({ id: 'PutTeamMemberRequest', examples: [{ capacity: 3 }, {}] });
const AvailabilityBody = z.strictObject({ availability: Availability }).meta({
  id: 'SetAvailabilityRequest',
  examples: [{ availability: 'online' }],
});
const ChannelAssignmentBody = z
  .strictObject({ team_id: z.string().nullable().meta({ description: 'A team of the organization, or null' }) })
  .meta({ id: 'SetChannelAssignmentRequest', examples: [{ team_id: TEAM_ID }, { team_id: null }] });

const TeamParams = z.object({ teamID: PathId });
const MemberParams = z.object({ teamID: PathId, userID: PathId });

/** The signed-in member (a session or an OAuth token for one); an API key is no member. */
function memberOf(actor: Actor): string {
  if (actor.kind === 'user' || actor.kind === 'oauth') return actor.userId;
  throw forbidden('availability is a member’s: an API key is no member (PUT /v1/members/{userID}/availability sets one)');
}

export async function registerTeamRoutes(app: App, deps: TeamDeps & { queue: QueueTrigger }) {
  app.post(
    '/v1/teams',
    {
      config: write,
      schema: {
        tags: [TAG],
        summary: 'Create a team',
        description: CreateBody.description,
        body: CreateBody,
        response: { 201: dataOf(TeamSchema).describe('Created'), ...errorResponses([400, 401, 403, 409]) },
      },
    },
    async (request, reply) => {
      const view = await inputFrom('body', createTeam(deps, actorOf(request), request.body));
      return reply.code(201).send({ data: presentTeam(view) });
    },
  );

  app.get(
    '/v1/teams',
    {
      config: read,
      schema: {
        tags: [TAG],
        summary: 'List teams',
        description: 'Oldest first, each with its members (availability, capacity, open conversations) and the length of its queue.',
        querystring: PageQuerySchema,
        response: { 200: listOf(TeamSchema), ...errorResponses([400, 401, 403]) },
      },
    },
    async (request) => {
      const page = await inputFrom('query', listTeams(deps, actorOf(request), request.query));
      return { data: page.items.map(presentTeam), meta: { next_cursor: page.nextCursor } };
    },
  );

  app.get(
    '/v1/teams/:teamID',
    {
      config: read,
      schema: {
        tags: [TAG],
        summary: 'Get a team',
        params: TeamParams,
        response: { 200: dataOf(TeamSchema), ...errorResponses([401, 403, 404]) },
      },
    },
    async (request) => ({ data: presentTeam(await getTeam(deps, actorOf(request), request.params.teamID)) }),
  );

  app.patch(
    '/v1/teams/:teamID',
    {
      config: write,
      schema: {
        tags: [TAG],
        summary: 'Change a team',
        description: UpdateBody.description,
        params: TeamParams,
        body: UpdateBody,
        response: { 200: dataOf(TeamSchema), ...errorResponses([400, 401, 403, 404, 409]) },
      },
    },
    async (request) => ({
      data: presentTeam(await inputFrom('body', updateTeam(deps, actorOf(request), request.params.teamID, request.body))),
    }),
  );

  app.delete(
    '/v1/teams/:teamID',
    {
      config: write,
      schema: {
        tags: [TAG],
        summary: 'Delete a team',
        description: 'Its conversations and channels keep no team; what was assigned stays assigned. Records team.deleted.',
        params: TeamParams,
        response: { 204: z.null().describe('Deleted'), ...errorResponses([401, 403, 404]) },
      },
    },
    async (request, reply) => {
      await deleteTeam(deps, actorOf(request), request.params.teamID);
      return reply.code(204).send(null);
    },
  );

  app.put(
    '/v1/teams/:teamID/members/:userID',
    {
      config: write,
      schema: {
        tags: [TAG],
        summary: 'Add a member to a team, or change their capacity',
        description:
          'The user is a member of the organization (404 otherwise). `capacity` null or absent on a new member: the team’s default_capacity. Records team.updated when something changed.',
        params: MemberParams,
        body: MemberBody,
        response: { 200: dataOf(TeamSchema), ...errorResponses([400, 401, 403, 404]) },
      },
    },
    async (request) => ({
      data: presentTeam(
        await inputFrom('body', putTeamMember(deps, actorOf(request), request.params.teamID, request.params.userID, request.body)),
      ),
    }),
  );

  app.delete(
    '/v1/teams/:teamID/members/:userID',
    {
      config: write,
      schema: {
        tags: [TAG],
        summary: 'Take a member out of a team',
        description: 'The conversations assigned to them stay theirs. Records team.updated.',
        params: MemberParams,
        response: { 204: z.null().describe('Removed'), ...errorResponses([401, 403, 404]) },
      },
    },
    async (request, reply) => {
      await removeTeamMember(deps, actorOf(request), request.params.teamID, request.params.userID);
      return reply.code(204).send(null);
    },
  );

  app.get(
    '/v1/me/availability',
    {
      config: { auth: { permission: 'messages:read' as const } },
      schema: {
        tags: [TAG],
        summary: 'Your availability',
        description: 'The signed-in member’s (or an OAuth token’s member’s); an API key is no member (403).',
        response: { 200: dataOf(AvailabilitySchema), ...errorResponses([401, 403]) },
      },
    },
    async (request) => {
      const actor = actorOf(request);
      return { data: presentAvailability(await getAvailability(deps, actor, memberOf(actor))) };
    },
  );

  app.put(
    '/v1/me/availability',
    {
      config: { auth: { permission: 'messages:send' as const } },
      schema: {
        tags: [TAG],
        summary: 'Set your availability',
        description:
          'online, away or offline. Only online members are assigned conversations automatically; coming online lets your teams’ queues move. Records member.availability_changed when it changed. An API key is no member (403).',
        body: AvailabilityBody,
        response: { 200: dataOf(AvailabilitySchema), ...errorResponses([400, 401, 403]) },
      },
    },
    async (request) => {
      const actor = actorOf(request);
      return { data: presentAvailability(await setAvailability(deps, actor, memberOf(actor), request.body.availability)) };
    },
  );

  app.put(
    '/v1/members/:userID/availability',
    {
      config: write,
      schema: {
        tags: [TAG],
        summary: 'Set a member’s availability',
        description: 'An admin’s change of any member’s availability (as PUT /v1/me/availability). Records member.availability_changed.',
        params: z.object({ userID: PathId }),
        body: AvailabilityBody,
        response: { 200: dataOf(AvailabilitySchema), ...errorResponses([400, 401, 403, 404]) },
      },
    },
    async (request) => ({
      data: presentAvailability(await setAvailability(deps, actorOf(request), request.params.userID, request.body.availability)),
    }),
  );

  app.get(
    '/v1/channels/:channelID/assignment',
    {
      config: read,
      schema: {
        tags: [TAG],
        summary: 'A channel’s team',
        params: z.object({ channelID: PathId }),
        response: { 200: dataOf(ChannelAssignmentSchema), ...errorResponses([401, 403, 404]) },
      },
    },
    async (request) => ({ data: presentChannelAssignment(await getChannelAssignment(deps, actorOf(request), request.params.channelID)) }),
  );

  app.put(
    '/v1/channels/:channelID/assignment',
    {
      config: write,
      schema: {
        tags: [TAG],
        summary: 'Route a channel to a team',
        description:
          'Its new conversations, and those the customer reopens, go to the team (unassigned ones wait in its queue, assigned by its policy). A team of another organization is a 400 naming /team_id; null routes to none.',
        params: z.object({ channelID: PathId }),
        body: ChannelAssignmentBody,
        response: { 200: dataOf(ChannelAssignmentSchema), ...errorResponses([400, 401, 403, 404]) },
      },
    },
    async (request) => ({
      data: presentChannelAssignment(
        await inputFrom('body', setChannelAssignment(deps, actorOf(request), request.params.channelID, { teamId: request.body.team_id })),
      ),
    }),
  );
}
