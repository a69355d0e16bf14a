import { z } from 'zod';
import type { Db } from '../../db/client.ts';
import {
  CONVERSATION_PRIORITIES,
  CONVERSATION_SEARCH_MAX,
  CONVERSATION_STATUS_INPUTS,
  CONVERSATION_STATUSES,
  listConversations,
  loadConversation,
  loadConversationView,
  markConversationRead,
  updateConversation,
  type ConversationHooks,
} from '../../domain/messages/conversations.ts';
import { listMessages } from '../../domain/messages/messages.ts';
import type { Clock } from '../../lib/clock.ts';
import { actorOf } from '../auth/actor.ts';
import type { App } from '../types.ts';
import { errorResponses } from '../errors.ts';
import { inputFrom } from '../input-location.ts';
import { dataOf, listOf, PageQuerySchema, PathId } from '../schemas.ts';
import { presentMessage } from './messages.presenters.ts';
import { MessageSchema } from './messages.ts';
import { presentConversation } from './conversations.presenters.ts';

export const ConversationSchema = z
  .object({
    id: z.uuid(),
    channel_id: z.string(),
    contact_id: z.string().nullable(),
    peer_phone: z.string().meta({ description: "The customer's number, digits without +" }),
    status: z.enum(CONVERSATION_STATUSES).meta({
      description: 'open, pending, snoozed or resolved (formerly closed: `closed` is still accepted on input and in filters)',
    }),
    snoozed_until: z.string().nullable().meta({
      description: 'Snoozed: when it opens again; null while snoozed means until the customer writes (and always when not snoozed)',
    }),
    priority: z.enum(CONVERSATION_PRIORITIES),
    labels: z
      .array(z.object({ id: z.string(), name: z.string(), color: z.string() }))
      .meta({ description: 'The conversation labels on it, by name' }),
    assignee_user_id: z.string().nullable(),
    team_id: z.string().nullable().meta({ description: 'The team it belongs to; unassigned and open, it waits in that team’s queue' }),
    last_message_at: z.string().nullable(),
    last_inbound_at: z.string().nullable(),
    window_expires_at: z.string().nullable().meta({ description: 'When the 24-hour customer-service window closes (official channels)' }),
    last_message_preview: z.string().nullable(),
    unread_count: z.number().int().meta({
      description:
        'Inbound messages since the conversation was last marked read (POST /v1/conversations/{conversationID}/read); one count for the whole team',
    }),
    last_read_at: z.string().nullable().meta({ description: 'When unread messages were last marked read; null if never' }),
    archived: z.boolean().meta({
      description:
        'The chat is archived on the linked phone (unofficial channels: PATCH /v1/channels/{id}/chats/{chatID}); false elsewhere',
    }),
    pinned: z.boolean().meta({ description: 'The chat is pinned on the linked phone' }),
    muted_until: z
      .string()
      .nullable()
      .meta({ description: "The chat's notifications are muted on the linked phone until then; null when not muted" }),
    marked_unread: z.boolean().meta({ description: 'Marked unread by hand (on the phone or through the API), whatever unread_count says' }),
    csat: z.object({ rating: z.number().int(), answered_at: z.string() }).nullable().meta({
      description:
        "The customer's last satisfaction rating (1 to 5) and when they gave it; null if never (GET /v1/conversations/{conversationID}/csat-surveys has each survey)",
    }),
    contact: z
      .object({ id: z.string(), name: z.string().nullable(), phone: z.string().nullable().meta({ description: 'E.164, with +' }) })
      .nullable()
      .meta({ description: "The customer's contact; null when there is none (or it was deleted)" }),
    channel: z
      .object({ id: z.string(), name: z.string(), platform: z.string() })
      .nullable()
      .meta({ description: 'The channel; null once it was deleted (its conversations stay as history)' }),
    assignee: z.object({ id: z.string(), name: z.string() }).nullable().meta({ description: 'The user of assignee_user_id, or null' }),
    team: z.object({ id: z.string(), name: z.string() }).nullable().meta({ description: 'The team of team_id, or null' }),
    bot_id: z.string().nullable().meta({
      description:
        'The bot that owns the conversation (docs/bots.md); null: people own it. POST /v1/conversations/{conversationID}/handoff moves it',
    }),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: 'Conversation' });

const Params = z.object({ conversationID: PathId });

const UpdateConversationBody = z
  .object({
    status: z
      .enum(CONVERSATION_STATUS_INPUTS)
      .optional()
      .meta({ description: 'open, pending, snoozed or resolved; `closed` is the old name of resolved' }),
    snoozed_until: z.iso
      .datetime({ offset: true })
      .nullable()
      .optional()
      .meta({ description: 'With status snoozed: when it opens again (in the future); null or absent: until the customer writes' }),
    priority: z.enum(CONVERSATION_PRIORITIES).optional(),
    assignee_user_id: z.string().nullable().optional(),
    team_id: z
      .string()
      .nullable()
      .optional()
      .meta({ description: 'A team of the organization (unassigned, the conversation joins its queue), or null' }),
  })
  .meta({
    id: 'UpdateConversationRequest',
    examples: [
      { status: 'resolved' },
      { status: 'snoozed', snoozed_until: '2025-06-03T08:00:00Z' },
      { priority: 'urgent' },
      { assignee_user_id: '0196a0e2-7c1e-7a59-9a4c-2f5d3f3b8a10' },
      { team_id: '0196b1f2-0a00-7000-8000-0000000000e1', assignee_user_id: null },
    ],
  });

export type UpdateConversationRequest = z.input<typeof UpdateConversationBody>;

export async function registerConversationRoutes(app: App, deps: { db: Db; clock: Clock; hooks?: ConversationHooks }) {
  app.get(
    '/v1/conversations',
    {
      config: { auth: { permission: 'messages:read' } },
      schema: {
        tags: ['conversations'],
        summary: 'List conversations (the inbox)',
        description:
          'Most recent activity first (the last message, else the creation time), then id; paged by cursor. Filters combine. A conversation that gets a message while you page moves to the top: reload the first page to see it.',
        querystring: PageQuerySchema.extend({
          status: z
            .enum(CONVERSATION_STATUS_INPUTS)
            .optional()
            .meta({ description: 'open, pending, snoozed or resolved (`closed` means resolved)' }),
          priority: z.enum(CONVERSATION_PRIORITIES).optional(),
          label: z.string().optional().meta({ description: 'A conversation label id: only conversations that carry it' }),
          channel_id: z.string().optional(),
          contact_id: z.string().optional(),
          assignee: z
            .string()
            .regex(
              /^(me|none|unassigned|[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})$/,
              'must be me, none, unassigned or a user id',
            )
            .optional()
            .meta({ description: '`me` (the signed-in user: not with an API key), `none` or `unassigned` (unassigned) or a user id' }),
          team_id: z
            .string()
            .optional()
            .meta({ description: 'A team id: its conversations (with `assignee=unassigned&status=open`: its queue)' }),
          unread: z
            .enum(['true', 'false'])
            .optional()
            .meta({ description: '`true`: only conversations with unread messages; `false`: only those without' }),
          q: z
            .string()
            .trim()
            .max(CONVERSATION_SEARCH_MAX)
            .optional()
            .meta({
              description: `Case-insensitive part of the contact's name, the customer's number ("+49 151") or the last message's preview; at most ${CONVERSATION_SEARCH_MAX} characters`,
            }),
        }),
        response: { 200: listOf(ConversationSchema), ...errorResponses([400, 401, 403]) },
      },
    },
    async (request) => {
      const q = request.query;
      const page = await inputFrom(
        'query',
        listConversations(deps, actorOf(request), {
          limit: q.limit,
          cursor: q.cursor,
          status: q.status,
          priority: q.priority,
          label: q.label,
          channelId: q.channel_id,
          contactId: q.contact_id,
          assignee: q.assignee,
          teamId: q.team_id,
          unread: q.unread === undefined ? undefined : q.unread === 'true',
          q: q.q,
        }),
      );
      return { data: page.items.map(presentConversation), meta: { next_cursor: page.nextCursor } };
    },
  );

  app.get(
    '/v1/conversations/:conversationID',
    {
      config: { auth: { permission: 'messages:read' } },
      schema: {
        tags: ['conversations'],
        summary: 'Get a conversation',
        params: Params,
        response: { 200: dataOf(ConversationSchema), ...errorResponses([401, 403, 404]) },
      },
    },
    async (request) => ({ data: presentConversation(await loadConversationView(deps, actorOf(request), request.params.conversationID)) }),
  );

  app.post(
    '/v1/conversations/:conversationID/read',
    {
      config: { auth: { permission: 'messages:send' } },
      schema: {
        tags: ['conversations'],
        summary: 'Mark read',
        description:
          'Marks the conversation read up to now for the whole team: `unread_count` 0, `last_read_at` now. Records `conversation.updated` when there were unread messages; otherwise nothing changes. Needs messages:send, like every change to a conversation.',
        params: Params,
        response: { 200: dataOf(ConversationSchema), ...errorResponses([401, 403, 404]) },
      },
    },
    async (request) => ({ data: presentConversation(await markConversationRead(deps, actorOf(request), request.params.conversationID)) }),
  );

  app.get(
    '/v1/conversations/:conversationID/messages',
    {
      config: { auth: { permission: 'messages:read' } },
      schema: {
        tags: ['conversations'],
        summary: "A conversation's messages",
        description: 'Newest first, paged like GET /v1/messages.',
        params: Params,
        querystring: PageQuerySchema,
        response: { 200: listOf(MessageSchema), ...errorResponses([400, 401, 403, 404]) },
      },
    },
    async (request) => {
      const actor = actorOf(request);
      const conversation = await loadConversation(deps, actor, request.params.conversationID);
      const page = await listMessages(deps, actor, {
        limit: request.query.limit,
        cursor: request.query.cursor,
        conversationId: conversation.id,
      });
      return { data: page.items.map(presentMessage), meta: { next_cursor: page.nextCursor } };
    },
  );

  app.patch(
    '/v1/conversations/:conversationID',
    {
      config: { auth: { permission: 'messages:send' } },
      schema: {
        tags: ['conversations'],
        summary: 'Change status, priority, assignee or team',
        description:
          'Records `conversation.status_changed` (status, snooze time or priority) and `conversation.assigned` (assignee or team) when they changed, and `conversation.updated` beside them. The assignee is a member of the organization, or null; the team a team of the organization, or null (an open unassigned conversation with a team waits in its queue, assigned by the team’s policy). Resolving or unassigning frees the assignee’s capacity for their teams’ queues. `snoozed_until` only with status snoozed, in the future; a snoozed conversation opens when its time passes or the customer writes. `closed` is accepted for resolved.',
        params: Params,
        body: UpdateConversationBody,
        response: { 200: dataOf(ConversationSchema), ...errorResponses([400, 401, 403, 404]) },
      },
    },
    async (request) => {
      const row = await inputFrom(
        'body',
        updateConversation(deps, actorOf(request), {
          conversationId: request.params.conversationID,
          status: request.body.status,
          snoozedUntil:
            request.body.snoozed_until === undefined
              ? undefined
              : request.body.snoozed_until === null
                ? null
                : new Date(request.body.snoozed_until),
          priority: request.body.priority,
          assigneeUserId: request.body.assignee_user_id,
          teamId: request.body.team_id,
        }),
      );
      return { data: presentConversation(row) };
    },
  );
}
