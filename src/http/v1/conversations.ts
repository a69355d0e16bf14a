import { z } from 'zod';
import { messageDeps, type Container } from '../../container.ts';
import { listConversations, loadConversation, presentConversation, updateConversation } from '../../domain/messages/conversations.ts';
import { listMessages } from '../../domain/messages/messages.ts';
import { actorOf, type App } from '../app.ts';
import { errorResponses } from '../errors.ts';
import { dataOf, listOf, PageQuerySchema, PathId } from '../schemas.ts';
import { MessageSchema } from './messages.ts';

const ConversationSchema = z
  .object({
    id: z.uuid(),
    channel_id: z.string(),
    contact_id: z.string().nullable(),
    peer_phone: z.string().meta({ description: "The customer's number, digits without +" }),
    status: z.enum(['open', 'closed']),
    assignee_user_id: z.string().nullable(),
    last_message_at: z.string().nullable(),
    last_inbound_at: z.string().nullable(),
    window_expires_at: z.string().nullable().meta({ description: 'When the 24-hour customer-service window closes (official channels)' }),
    last_message_preview: z.string().nullable(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: 'Conversation' });

const Params = z.object({ conversationID: PathId });

export async function registerConversationRoutes(app: App, container: Container) {
  const deps = messageDeps(container);

  app.get(
    '/v1/conversations',
    {
      config: { auth: { permission: 'messages:read' } },
      schema: {
        tags: ['conversations'],
        summary: 'List conversations',
        querystring: PageQuerySchema.extend({ status: z.enum(['open', 'closed']).optional(), channel_id: z.string().optional(), contact_id: z.string().optional() }),
        response: { 200: listOf(ConversationSchema), ...errorResponses([400, 401, 403]) },
      },
    },
    async (request) => {
      const q = request.query;
      const page = await listConversations(deps.db, actorOf(request), { limit: q.limit, cursor: q.cursor, status: q.status, channelId: q.channel_id, contactId: q.contact_id });
      return { data: page.items, meta: { next_cursor: page.nextCursor } };
    },
  );

  app.get(
    '/v1/conversations/:conversationID',
    {
      config: { auth: { permission: 'messages:read' } },
      schema: { tags: ['conversations'], summary: 'Get a conversation', params: Params, response: { 200: dataOf(ConversationSchema), ...errorResponses([401, 403, 404]) } },
    },
    async (request) => ({ data: presentConversation(await loadConversation(deps.db, actorOf(request), request.params.conversationID)) }),
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
      const conversation = await loadConversation(deps.db, actor, request.params.conversationID);
      const page = await listMessages(deps.db, actor, request.query, { conversationId: conversation.id });
      return { data: page.items, meta: { next_cursor: page.nextCursor } };
    },
  );

  app.patch(
    '/v1/conversations/:conversationID',
    {
      config: { auth: { permission: 'messages:send' } },
      schema: {
        tags: ['conversations'],
        summary: 'Change status or assignee',
        description: 'Records `conversation.updated` when something changed. The assignee is a user of the organization, or null.',
        params: Params,
        body: z
          .object({ status: z.enum(['open', 'closed']).optional(), assignee_user_id: z.string().nullable().optional() })
          .meta({ id: 'UpdateConversationRequest', examples: [{ status: 'closed' }, { assignee_user_id: '0196a0e2-7c1e-7a59-9a4c-2f5d3f3b8a10' }] }),
        response: { 200: dataOf(ConversationSchema), ...errorResponses([400, 401, 403, 404]) },
      },
    },
    async (request) => {
      const row = await updateConversation(
        deps.db,
        actorOf(request),
        request.params.conversationID,
        { status: request.body.status, assigneeUserId: request.body.assignee_user_id },
        container.clock.now(),
      );
      return { data: presentConversation(row) };
    },
  );
}
