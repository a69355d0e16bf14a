/**
 * The team inbox's workflow routes (docs/inbox.md): conversation labels, labels on a conversation,
 * private notes with @mentions, and bulk actions. Reading needs messages:read, changing messages:send,
 * as every other inbox route (DECISIONS).
 */
import { z } from 'zod';
import {
  addConversationLabels,
  BULK_ACTIONS,
  BULK_MAX,
  bulkConversations,
  COLOR_RE,
  createConversationLabel,
  createConversationNote,
  deleteConversationLabel,
  deleteConversationNote,
  getConversationLabel,
  LABEL_NAME_MAX,
  listConversationLabels,
  listConversationNotes,
  NOTE_BODY_MAX,
  NOTE_MENTIONS_MAX,
  removeConversationLabel,
  updateConversationLabel,
  type ConversationLabelRow,
  type ConversationNoteRow,
  type WorkflowDeps,
} from '../../domain/messages/inbox-workflow.ts';
import { CONVERSATION_PRIORITIES, loadConversationView } from '../../domain/messages/conversations.ts';
import { actorOf } from '../auth/actor.ts';
import { errorResponses } from '../errors.ts';
import { inputFrom } from '../input-location.ts';
import { dataOf, listOf, PageQuerySchema, PathId } from '../schemas.ts';
import type { App } from '../types.ts';
import { presentConversation } from './conversations.presenters.ts';
import { ConversationSchema } from './conversations.ts';

const read = { auth: { permission: 'messages:read' as const } };
const write = { auth: { permission: 'messages:send' as const } };
const LABEL_ID = '0196b1f2-0a00-7000-8000-0000000000d1';
const USER_ID = '0190a5b0-9a1b-7c11-9d2f-5b6c7d8e9d02';
const CONVERSATION_ID = '0190a5b4-2a70-7c11-9d2f-5b6c7d8e9f00';

export const ConversationLabelSchema = z
  .object({
    id: z.uuid(),
    name: z.string(),
    color: z.string().meta({ description: '#rrggbb' }),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({
    id: 'ConversationLabel',
    example: {
      id: LABEL_ID,
      name: 'Billing',
      color: '#1f6feb',
      created_at: '2025-06-02T09:15:00.000Z',
      updated_at: '2025-06-02T09:15:00.000Z',
    },
  });

export const ConversationNoteSchema = z
  .object({
    id: z.uuid(),
    conversation_id: z.uuid(),
    author_user_id: z.string().nullable().meta({ description: 'The member who wrote it; null for an API key' }),
    body: z.string(),
    mentions: z.array(z.string()).meta({ description: 'The user ids of the members it mentions' }),
    created_at: z.string(),
  })
  .meta({
    id: 'ConversationNote',
    example: {
      id: '0196b1f2-0a00-7000-8000-0000000000e1',
      conversation_id: CONVERSATION_ID,
      author_user_id: '0190a5b0-9a1b-7c11-9d2f-5b6c7d8e9d01',
      body: '@Ana can you check the refund for this order?',
      mentions: [USER_ID],
      created_at: '2025-06-02T09:20:00.000Z',
    },
  });

const presentLabel = (row: ConversationLabelRow) => ({
  id: row.id,
  name: row.name,
  color: row.color,
  created_at: row.createdAt.toISOString(),
  updated_at: row.updatedAt.toISOString(),
});
const presentNote = (row: ConversationNoteRow) => ({
  id: row.id,
  conversation_id: row.conversationId,
  author_user_id: row.authorUserId,
  body: row.body,
  mentions: row.mentions,
  created_at: row.createdAt.toISOString(),
});

const Name = z
  .string()
  .trim()
  .min(1)
  .max(LABEL_NAME_MAX)
  .meta({ description: `1 to ${LABEL_NAME_MAX} characters, unique in the organization (any case)` });
const Color = z.string().regex(COLOR_RE, 'must be #rrggbb').meta({ description: '#rrggbb' });

const CreateLabelBody = z
  .strictObject({ name: Name, color: Color })
  .meta({ id: 'CreateConversationLabelRequest', examples: [{ name: 'Billing', color: '#1f6feb' }] });
const UpdateLabelBody = z
  .strictObject({ name: Name.optional(), color: Color.optional() })
  .meta({ id: 'UpdateConversationLabelRequest', examples: [{ name: 'Invoices' }, { color: '#d29922' }] });
const AddLabelsBody = z
  .strictObject({ label_ids: z.array(z.string()).min(1).max(20).meta({ description: 'Conversation label ids of the organization' }) })
  .meta({ id: 'AddConversationLabelsRequest', examples: [{ label_ids: [LABEL_ID] }] });
const CreateNoteBody = z
  .strictObject({
    body: z.string().trim().min(1).max(NOTE_BODY_MAX),
    mentions: z
      .array(z.string())
      .max(NOTE_MENTIONS_MAX)
      .optional()
      .meta({ description: 'User ids of members to mention (each a member of the organization)' }),
  })
  .meta({
    id: 'CreateConversationNoteRequest',
    examples: [{ body: '@Ana can you check the refund for this order?', mentions: [USER_ID] }],
  });
const BulkBody = z
  .strictObject({
    ids: z
      .array(z.string())
      .min(1)
      .max(BULK_MAX)
      .meta({ description: `Conversation ids, at most ${BULK_MAX}` }),
    action: z.enum(BULK_ACTIONS),
    assignee_user_id: z.string().nullable().optional().meta({ description: 'assign: a member, or null to unassign' }),
    label_ids: z.array(z.string()).min(1).max(20).optional().meta({ description: 'label and unlabel: conversation label ids' }),
    priority: z.enum(CONVERSATION_PRIORITIES).optional().meta({ description: 'set_priority' }),
  })
  .meta({
    id: 'BulkConversationsRequest',
    examples: [
      { ids: [CONVERSATION_ID], action: 'assign', assignee_user_id: USER_ID },
      { ids: [CONVERSATION_ID], action: 'label', label_ids: [LABEL_ID] },
      { ids: [CONVERSATION_ID], action: 'resolve' },
      { ids: [CONVERSATION_ID], action: 'set_priority', priority: 'high' },
    ],
  });
const BulkResultSchema = z
  .object({
    data: z.array(
      z.object({
        id: z.string(),
        status: z.enum(['updated', 'unchanged', 'not_found']).meta({ description: 'not_found: no conversation of the organization' }),
      }),
    ),
  })
  .meta({ id: 'BulkConversationsResult', example: { data: [{ id: CONVERSATION_ID, status: 'updated' }] } });

const LabelParams = z.object({ conversationLabelID: PathId });
const ConversationParams = z.object({ conversationID: PathId });
const ConversationLabelParams = z.object({ conversationID: PathId, conversationLabelID: PathId });
const NoteParams = z.object({ conversationID: PathId, conversationNoteID: PathId });

export async function registerConversationWorkflowRoutes(app: App, deps: WorkflowDeps) {
  app.post(
    '/v1/conversation-labels',
    {
      config: write,
      schema: {
        tags: ['conversations'],
        summary: 'Create a conversation label',
        description: 'A name unique in the organization (any case: 409 naming it) and a color. Records conversation_label.created.',
        body: CreateLabelBody,
        response: { 201: dataOf(ConversationLabelSchema).describe('Created'), ...errorResponses([400, 401, 403, 409]) },
      },
    },
    async (request, reply) => {
      const row = await inputFrom('body', createConversationLabel(deps, actorOf(request), request.body));
      return reply.code(201).send({ data: presentLabel(row) });
    },
  );

  app.get(
    '/v1/conversation-labels',
    {
      config: read,
      schema: {
        tags: ['conversations'],
        summary: 'List conversation labels',
        description: 'The organization’s labels, oldest first.',
        querystring: PageQuerySchema,
        response: { 200: listOf(ConversationLabelSchema), ...errorResponses([400, 401, 403]) },
      },
    },
    async (request) => {
      const page = await inputFrom('query', listConversationLabels(deps, actorOf(request), request.query));
      return { data: page.items.map(presentLabel), meta: { next_cursor: page.nextCursor } };
    },
  );

  app.get(
    '/v1/conversation-labels/:conversationLabelID',
    {
      config: read,
      schema: {
        tags: ['conversations'],
        summary: 'Get a conversation label',
        params: LabelParams,
        response: { 200: dataOf(ConversationLabelSchema), ...errorResponses([401, 403, 404]) },
      },
    },
    async (request) => ({ data: presentLabel(await getConversationLabel(deps, actorOf(request), request.params.conversationLabelID)) }),
  );

  app.patch(
    '/v1/conversation-labels/:conversationLabelID',
    {
      config: write,
      schema: {
        tags: ['conversations'],
        summary: 'Rename or recolor a conversation label',
        description: 'Records conversation_label.updated when something changed.',
        params: LabelParams,
        body: UpdateLabelBody,
        response: { 200: dataOf(ConversationLabelSchema), ...errorResponses([400, 401, 403, 404, 409]) },
      },
    },
    async (request) => ({
      data: presentLabel(
        await inputFrom('body', updateConversationLabel(deps, actorOf(request), request.params.conversationLabelID, request.body)),
      ),
    }),
  );

  app.delete(
    '/v1/conversation-labels/:conversationLabelID',
    {
      config: write,
      schema: {
        tags: ['conversations'],
        summary: 'Delete a conversation label',
        description: 'It comes off every conversation. Records conversation_label.deleted.',
        params: LabelParams,
        response: { 204: z.null().describe('Deleted'), ...errorResponses([401, 403, 404]) },
      },
    },
    async (request, reply) => {
      await deleteConversationLabel(deps, actorOf(request), request.params.conversationLabelID);
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/v1/conversations/:conversationID/labels',
    {
      config: write,
      schema: {
        tags: ['conversations'],
        summary: 'Put labels on a conversation',
        description:
          'Adds the labels (one already on it stays). Records conversation.labels_changed when something changed. A label of another organization is a 400 naming it. Answers the conversation.',
        params: ConversationParams,
        body: AddLabelsBody,
        response: { 200: dataOf(ConversationSchema), ...errorResponses([400, 401, 403, 404]) },
      },
    },
    async (request) => {
      const actor = actorOf(request);
      await inputFrom('body', addConversationLabels(deps, actor, request.params.conversationID, request.body.label_ids));
      return { data: presentConversation(await loadConversationView(deps, actor, request.params.conversationID)) };
    },
  );

  app.delete(
    '/v1/conversations/:conversationID/labels/:conversationLabelID',
    {
      config: write,
      schema: {
        tags: ['conversations'],
        summary: 'Take a label off a conversation',
        description: 'Records conversation.labels_changed when it was on. Answers the conversation.',
        params: ConversationLabelParams,
        response: { 200: dataOf(ConversationSchema), ...errorResponses([401, 403, 404]) },
      },
    },
    async (request) => {
      const actor = actorOf(request);
      await removeConversationLabel(deps, actor, request.params.conversationID, request.params.conversationLabelID);
      return { data: presentConversation(await loadConversationView(deps, actor, request.params.conversationID)) };
    },
  );

  app.get(
    '/v1/conversations/:conversationID/notes',
    {
      config: read,
      schema: {
        tags: ['conversations'],
        summary: 'A conversation’s team notes',
        description: 'Oldest first. Notes are the team’s: never sent to the customer.',
        params: ConversationParams,
        querystring: PageQuerySchema,
        response: { 200: listOf(ConversationNoteSchema), ...errorResponses([400, 401, 403, 404]) },
      },
    },
    async (request) => {
      const page = await inputFrom('query', listConversationNotes(deps, actorOf(request), request.params.conversationID, request.query));
      return { data: page.items.map(presentNote), meta: { next_cursor: page.nextCursor } };
    },
  );

  app.post(
    '/v1/conversations/:conversationID/notes',
    {
      config: write,
      schema: {
        tags: ['conversations'],
        summary: 'Write a team note',
        description:
          'A note for the team, never sent to the customer. `mentions` names members by user id (another organization’s user is a 400 naming its place). Records conversation.note_created with the mentioned user ids.',
        params: ConversationParams,
        body: CreateNoteBody,
        response: { 201: dataOf(ConversationNoteSchema).describe('Created'), ...errorResponses([400, 401, 403, 404]) },
      },
    },
    async (request, reply) => {
      const row = await inputFrom('body', createConversationNote(deps, actorOf(request), request.params.conversationID, request.body));
      return reply.code(201).send({ data: presentNote(row) });
    },
  );

  app.delete(
    '/v1/conversations/:conversationID/notes/:conversationNoteID',
    {
      config: write,
      schema: {
        tags: ['conversations'],
        summary: 'Delete a team note',
        description: 'Records conversation.note_deleted.',
        params: NoteParams,
        response: { 204: z.null().describe('Deleted'), ...errorResponses([401, 403, 404]) },
      },
    },
    async (request, reply) => {
      await deleteConversationNote(deps, actorOf(request), request.params.conversationID, request.params.conversationNoteID);
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/v1/conversations/bulk',
    {
      config: write,
      schema: {
        tags: ['conversations'],
        summary: 'One action on many conversations',
        description: `Up to ${BULK_MAX} conversations, one action (assign, label, unlabel, resolve, reopen, set_priority) in one transaction, each change with its events as the single routes record them. The action’s argument is checked first (a 400 naming it refuses all); an id that is no conversation of the organization answers not_found in its place.`,
        body: BulkBody,
        response: { 200: BulkResultSchema, ...errorResponses([400, 401, 403]) },
      },
    },
    async (request) => {
      const b = request.body;
      const results = await inputFrom(
        'body',
        bulkConversations(deps, actorOf(request), {
          ids: b.ids,
          action: b.action,
          assigneeUserId: b.assignee_user_id,
          labelIds: b.label_ids,
          priority: b.priority,
        }),
      );
      return { data: results };
    },
  );
}
