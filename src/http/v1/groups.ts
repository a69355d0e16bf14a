/**
 * The groups of a channel's number and contacts' presence (unofficial channels; capabilities
 * `groups.manage`, `presence.subscribe`): thin routes over domain/channels/groups.ts, which asks the
 * channel's engine. docs/channels.md, "Groups".
 */
import { z } from 'zod';
import {
  createGroup,
  EPHEMERAL_SECONDS,
  getGroup,
  GROUP_DESCRIPTION_MAX,
  GROUP_PARTICIPANTS_MAX,
  GROUP_SUBJECT_MAX,
  groupInvite,
  joinGroup,
  leaveGroup,
  listGroups,
  setGroupPicture,
  subscribePresence,
  updateGroup,
  updateGroupParticipants,
  type GroupDeps,
} from '../../domain/channels/groups.ts';
import { GROUP_RECIPIENT } from '../../providers/capabilities.ts';
import { actorOf } from '../auth/actor.ts';
import { errorResponses } from '../errors.ts';
import { inputFrom } from '../input-location.ts';
import { dataOf, PathId } from '../schemas.ts';
import type { App } from '../types.ts';
import { presentGroup, presentJoin } from './groups.presenters.ts';

const Phone = z.string().min(1).max(40).meta({ example: '+49 151 12345678' });

const ParticipantSchema = z.object({
  phone: z
    .string()
    .nullable()
    .meta({ description: 'International format (E.164); null when the engine knows the member only by privacy id' }),
  lid: z.string().nullable().meta({ description: "The member's privacy id (LID), where known" }),
  role: z.enum(['member', 'admin', 'superadmin']).meta({ description: 'superadmin: the creator' }),
});

export const GroupSchema = z
  .object({
    id: z.string().meta({ description: 'The group id, `<digits>@g.us`: what a message to the group names as `to`' }),
    channel_id: z.uuid(),
    subject: z.string(),
    description: z.string().nullable(),
    owner: z.string().nullable().meta({ description: "The creator's phone (E.164), where known" }),
    created_at: z.string().nullable(),
    announcement: z.boolean().meta({ description: 'Only admins may send messages' }),
    locked: z.boolean().meta({ description: 'Only admins may change the subject, description, picture and disappearing messages' }),
    members_can_add: z.boolean().meta({ description: 'Members, not only admins, may add participants' }),
    join_approval: z.boolean().meta({ description: 'Joining by link needs an admin to approve' }),
    ephemeral_seconds: z.number().int().meta({ description: 'Disappearing messages: their lifetime in seconds, 0 when off' }),
    size: z.number().int(),
    role: z.enum(['member', 'admin', 'superadmin']).nullable().meta({ description: "The channel's own number's role in the group" }),
    participants: z.array(ParticipantSchema),
  })
  .meta({ id: 'Group' });

const GroupParams = z.object({
  channelID: PathId,
  groupID: z
    .string()
    .max(64)
    .regex(GROUP_RECIPIENT)
    .meta({ description: 'The group id, `<digits>@g.us`', example: '120363025246125888@g.us' }),
});
const ChannelParams = z.object({ channelID: PathId });

const CreateGroupBody = z
  .object({
    subject: z.string().trim().min(1).max(GROUP_SUBJECT_MAX),
    participants: z
      .array(Phone)
      .min(1)
      .max(GROUP_PARTICIPANTS_MAX)
      .meta({ description: "Phone numbers (with country code) to add; the channel's own number is the group's admin" }),
    description: z.string().max(GROUP_DESCRIPTION_MAX).optional(),
  })
  .strict()
  .meta({ id: 'CreateGroupRequest', examples: [{ subject: 'Order 10023', participants: ['+49 151 12345678'] }] });

const UpdateGroupBody = z
  .object({
    subject: z.string().trim().min(1).max(GROUP_SUBJECT_MAX).optional(),
    description: z.string().max(GROUP_DESCRIPTION_MAX).nullable().optional().meta({ description: 'null or "" removes it' }),
    announcement: z.boolean().optional().meta({ description: 'true: only admins may send' }),
    locked: z.boolean().optional().meta({ description: 'true: only admins may edit the group' }),
    members_can_add: z.boolean().optional(),
    join_approval: z.boolean().optional(),
    ephemeral_seconds: z
      .number()
      .int()
      .optional()
      .meta({ description: `Disappearing messages: one of ${EPHEMERAL_SECONDS.join(', ')} (off, a day, a week, 90 days)` }),
  })
  .strict()
  .meta({ id: 'UpdateGroupRequest', examples: [{ subject: 'Order 10023 (shipped)' }, { announcement: true, ephemeral_seconds: 604800 }] });

const PictureBody = z
  .object({ url: z.url().max(2048).meta({ description: 'A JPEG or PNG image (https, public address)' }) })
  .strict()
  .meta({ id: 'GroupPictureRequest', examples: [{ url: 'https://cdn.example.com/groups/order-10023.jpg' }] });

const ParticipantsBody = z
  .object({
    action: z.enum(['add', 'remove', 'promote', 'demote']).meta({ description: 'promote makes admins, demote members again' }),
    participants: z.array(Phone).min(1).max(GROUP_PARTICIPANTS_MAX),
  })
  .strict()
  .meta({ id: 'GroupParticipantsRequest', examples: [{ action: 'add', participants: ['+49 151 12345678'] }] });

const ParticipantOutcomeSchema = z
  .object({
    phone: z.string(),
    ok: z.boolean(),
    error: z
      .object({ code: z.string(), title: z.string() })
      .nullable()
      .meta({ description: "Why the chat network refused this one (e.g. privacy settings that take only contacts' invitations)" }),
  })
  .meta({ id: 'GroupParticipantOutcome' });

export const InviteSchema = z
  .object({ code: z.string(), url: z.string().meta({ description: 'The link that lets anyone join' }) })
  .meta({ id: 'GroupInvite' });

const JoinBody = z
  .object({
    code: z.string().trim().min(1).max(200).meta({ description: 'The invite code, or the link https://chat.whatsapp.com/<code>' }),
  })
  .strict()
  .meta({ id: 'JoinGroupRequest', examples: [{ code: 'https://chat.whatsapp.com/F3gZ8nKqT0aBcDeFgHiJkL' }] });

export const JoinSchema = z
  .object({
    status: z.enum(['joined', 'pending_approval']).meta({ description: "pending_approval: the group's admins approve new members first" }),
    group_id: z.string().nullable(),
    group: GroupSchema.nullable(),
  })
  .meta({ id: 'GroupJoin' });

const PresenceBody = z.object({ phone: Phone }).strict().meta({ id: 'PresenceSubscribeRequest' });
export const PresenceSubscriptionSchema = z.object({ phone: z.string(), subscribed: z.literal(true) }).meta({ id: 'PresenceSubscription' });

export type CreateGroupRequest = z.input<typeof CreateGroupBody>;

const groupErrors = errorResponses([400, 401, 403, 404, 409, 422, 503]);
const WHERE =
  'Unofficial channels with a paired phone (capability `groups.manage`; 422 on official channels, 409 while the channel is not connected).';

export async function registerGroupRoutes(app: App, deps: GroupDeps) {
  const tags = ['groups'];

  app.get(
    '/v1/channels/:channelID/groups',
    {
      config: { auth: { permission: 'channels:read' } },
      schema: {
        tags,
        summary: "The groups the channel's number is in",
        description: `Every group with its members and settings, as the channel's engine holds them (cached by it). ${WHERE}`,
        params: ChannelParams,
        response: { 200: dataOf(z.array(GroupSchema)), ...groupErrors },
      },
    },
    async (request) => {
      const channelId = request.params.channelID;
      const groups = await listGroups(deps, actorOf(request), { channelId });
      return { data: groups.map((g) => presentGroup(channelId, g)) };
    },
  );

  app.post(
    '/v1/channels/:channelID/groups',
    {
      config: { auth: { permission: 'messages:send' } },
      schema: {
        tags,
        summary: 'Create a group',
        description: `The channel's number creates it and is its admin. 400 names a participant that is not a phone number or not on the chat network. ${WHERE}`,
        params: ChannelParams,
        body: CreateGroupBody,
        response: { 201: dataOf(GroupSchema), ...groupErrors },
      },
    },
    async (request, reply) => {
      const channelId = request.params.channelID;
      const group = await inputFrom('body', createGroup(deps, actorOf(request), { channelId, ...request.body }));
      return reply.code(201).send({ data: presentGroup(channelId, group) });
    },
  );

  app.post(
    '/v1/channels/:channelID/groups/join',
    {
      config: { auth: { permission: 'messages:send' } },
      schema: {
        tags,
        summary: 'Join a group by its invite link',
        description: `400 when no group has the code (mistyped, or reset by an admin). ${WHERE}`,
        params: ChannelParams,
        body: JoinBody,
        response: { 200: dataOf(JoinSchema), ...groupErrors },
      },
    },
    async (request) => {
      const channelId = request.params.channelID;
      return {
        data: presentJoin(channelId, await inputFrom('body', joinGroup(deps, actorOf(request), { channelId, code: request.body.code }))),
      };
    },
  );

  app.get(
    '/v1/channels/:channelID/groups/:groupID',
    {
      config: { auth: { permission: 'channels:read' } },
      schema: {
        tags,
        summary: 'A group, with its members',
        description: `404 names a group the channel's number is not in. ${WHERE}`,
        params: GroupParams,
        response: { 200: dataOf(GroupSchema), ...groupErrors },
      },
    },
    async (request) => {
      const { channelID: channelId, groupID: groupId } = request.params;
      return { data: presentGroup(channelId, await getGroup(deps, actorOf(request), { channelId, groupId })) };
    },
  );

  app.patch(
    '/v1/channels/:channelID/groups/:groupID',
    {
      config: { auth: { permission: 'messages:send' } },
      schema: {
        tags,
        summary: "Change a group's subject, description or settings",
        description: `Each field given is changed; answers the group as it now is. 403 when the channel's number is not an admin (the settings always need one; the subject, description and disappearing messages when the group is locked). ${WHERE}`,
        params: GroupParams,
        body: UpdateGroupBody,
        response: { 200: dataOf(GroupSchema), ...groupErrors },
      },
    },
    async (request) => {
      const { channelID: channelId, groupID: groupId } = request.params;
      const b = request.body;
      const group = await inputFrom(
        'body',
        updateGroup(deps, actorOf(request), {
          channelId,
          groupId,
          change: {
            subject: b.subject,
            description: b.description,
            announcement: b.announcement,
            locked: b.locked,
            membersCanAdd: b.members_can_add,
            joinApproval: b.join_approval,
            ephemeralSeconds: b.ephemeral_seconds,
          },
        }),
      );
      return { data: presentGroup(channelId, group) };
    },
  );

  app.put(
    '/v1/channels/:channelID/groups/:groupID/picture',
    {
      config: { auth: { permission: 'messages:send' } },
      schema: {
        tags,
        summary: "Set a group's picture",
        description: `From an image URL (JPEG or PNG, at most 5 MB), fetched by Parley under the target policy. ${WHERE}`,
        params: GroupParams,
        body: PictureBody,
        response: { 204: z.null().describe('Changed'), ...groupErrors },
      },
    },
    async (request, reply) => {
      const { channelID: channelId, groupID: groupId } = request.params;
      await inputFrom('body', setGroupPicture(deps, actorOf(request), { channelId, groupId, url: request.body.url }));
      return reply.code(204).send(null);
    },
  );

  app.delete(
    '/v1/channels/:channelID/groups/:groupID/picture',
    {
      config: { auth: { permission: 'messages:send' } },
      schema: {
        tags,
        summary: "Remove a group's picture",
        description: WHERE,
        params: GroupParams,
        response: { 204: z.null().describe('Removed'), ...groupErrors },
      },
    },
    async (request, reply) => {
      const { channelID: channelId, groupID: groupId } = request.params;
      await setGroupPicture(deps, actorOf(request), { channelId, groupId, url: null });
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/v1/channels/:channelID/groups/:groupID/participants',
    {
      config: { auth: { permission: 'messages:send' } },
      schema: {
        tags,
        summary: 'Add, remove, promote or demote participants',
        description: `The chat network answers each participant on its own: the answer says which were changed and why any was refused. 400 names a participant not on the chat network (add) or not in the group (the others); 403 when the channel's number is not an admin (members may add where the group lets them). ${WHERE}`,
        params: GroupParams,
        body: ParticipantsBody,
        response: { 200: dataOf(z.array(ParticipantOutcomeSchema)), ...groupErrors },
      },
    },
    async (request) => {
      const { channelID: channelId, groupID: groupId } = request.params;
      const outcomes = await inputFrom('body', updateGroupParticipants(deps, actorOf(request), { channelId, groupId, ...request.body }));
      return { data: outcomes };
    },
  );

  app.get(
    '/v1/channels/:channelID/groups/:groupID/invite',
    {
      config: { auth: { permission: 'messages:send' } },
      schema: {
        tags,
        summary: "The group's invite link",
        description: `Admins only (403 otherwise). ${WHERE}`,
        params: GroupParams,
        response: { 200: dataOf(InviteSchema), ...groupErrors },
      },
    },
    async (request) => {
      const { channelID: channelId, groupID: groupId } = request.params;
      return { data: await groupInvite(deps, actorOf(request), { channelId, groupId, revoke: false }) };
    },
  );

  app.post(
    '/v1/channels/:channelID/groups/:groupID/invite/revoke',
    {
      config: { auth: { permission: 'messages:send' } },
      schema: {
        tags,
        summary: "Reset the group's invite link",
        description: `The old link stops working; answers the new one. Admins only (403 otherwise). ${WHERE}`,
        params: GroupParams,
        response: { 200: dataOf(InviteSchema), ...groupErrors },
      },
    },
    async (request) => {
      const { channelID: channelId, groupID: groupId } = request.params;
      return { data: await groupInvite(deps, actorOf(request), { channelId, groupId, revoke: true }) };
    },
  );

  app.post(
    '/v1/channels/:channelID/groups/:groupID/leave',
    {
      config: { auth: { permission: 'messages:send' } },
      schema: {
        tags,
        summary: 'Leave a group',
        description: `The group's conversation keeps its history. ${WHERE}`,
        params: GroupParams,
        response: { 204: z.null().describe('Left'), ...groupErrors },
      },
    },
    async (request, reply) => {
      const { channelID: channelId, groupID: groupId } = request.params;
      await leaveGroup(deps, actorOf(request), { channelId, groupId });
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/v1/channels/:channelID/presence/subscribe',
    {
      config: { auth: { permission: 'messages:read' } },
      schema: {
        tags: ['channels'],
        summary: "Follow a contact's presence",
        description:
          "Asks the chat network for the contact's presence: its changes (available, unavailable, composing, recording, paused) arrive as presence.updated events while the channel stays connected; subscribe again after it reconnects. Unofficial channels (capability `presence.subscribe`; 422 on official channels, 409 while the channel is not connected).",
        params: ChannelParams,
        body: PresenceBody,
        response: { 200: dataOf(PresenceSubscriptionSchema), ...groupErrors },
      },
    },
    async (request) => {
      const subscribed = await inputFrom(
        'body',
        subscribePresence(deps, actorOf(request), { channelId: request.params.channelID, phone: request.body.phone }),
      );
      return { data: { phone: subscribed.phone, subscribed: true as const } };
    },
  );
}
