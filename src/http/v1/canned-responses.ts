/**
 * Canned responses (docs/inbox.md): replies an agent inserts with `/shortcut`, shared or their own;
 * create, list (search), get, change, delete, and render one for a conversation or contact.
 */
import { z } from 'zod';
import {
  CANNED_BODY_MAX,
  CANNED_SCOPES,
  CANNED_VARIABLES,
  createCannedResponse,
  deleteCannedResponse,
  getCannedResponse,
  listCannedResponses,
  renderCannedResponse,
  updateCannedResponse,
  type CannedDeps,
} from '../../domain/canned-responses/canned-responses.ts';
import { actorOf } from '../auth/actor.ts';
import { errorResponses } from '../errors.ts';
import { inputFrom } from '../input-location.ts';
import { dataOf, listOf, PageQuerySchema, PathId } from '../schemas.ts';
import type { App } from '../types.ts';
import { presentCannedResponse } from './canned-responses.presenters.ts';

const TAG = 'canned responses';
const read = { auth: { permission: 'messages:read' as const } };
const write = { auth: { permission: 'messages:send' as const } };
const VARIABLES_TEXT = `${CANNED_VARIABLES.map((v) => `\`{{${v}}}\``).join(', ')} and \`{{contact.custom_fields.<key>}}\`; a default after \`|\` (\`{{contact.first_name|there}}\`)`;

export const CannedResponseSchema = z
  .object({
    id: z.uuid(),
    name: z.string(),
    shortcut: z.string().meta({ description: 'Typed after `/` in the composer' }),
    body: z.string().meta({ description: `The text, with variables: ${VARIABLES_TEXT}` }),
    shared: z.boolean().meta({ description: 'true: the organization’s; false: its owner’s own (only they see it)' }),
    owner_user_id: z.uuid().nullable(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({
    id: 'CannedResponse',
    example: {
      id: '0190a5b7-6eb2-7c11-9d2f-5b6c7d8e9f21',
      name: 'Opening hours',
      shortcut: 'hours',
      body: 'Hi {{contact.first_name|there}}, we are open Monday to Friday, 9:00 to 18:00. {{agent.first_name}}',
      shared: true,
      owner_user_id: null,
      created_at: '2025-06-02T09:15:00.000Z',
      updated_at: '2025-06-02T09:15:00.000Z',
    },
  });

const Shortcut = z.string().min(1).max(32).meta({ description: '1 to 32 lower-case letters, digits, - and _, first a letter or digit' });
const Name = z.string().trim().min(1).max(100);
const Body = z
  .string()
  .trim()
  .min(1)
  .max(CANNED_BODY_MAX)
  .meta({ description: `1 to ${CANNED_BODY_MAX} characters; variables: ${VARIABLES_TEXT}` });

const CreateBody = z
  .strictObject({
    name: Name,
    shortcut: Shortcut,
    body: Body,
    personal: z.boolean().optional().meta({ description: 'true: your own (a signed-in member or an OAuth token for one); default shared' }),
  })
  .meta({
    id: 'CreateCannedResponseRequest',
    description:
      'A shortcut is unique among the shared responses and among each member’s own (409 naming it). An unknown variable is refused (400 naming /body). Records canned_response.created.',
    examples: [{ name: 'Opening hours', shortcut: 'hours', body: 'Hi {{contact.first_name|there}}, we are open 9:00 to 18:00.' }],
  });

const UpdateBody = z.strictObject({ name: Name.optional(), shortcut: Shortcut.optional(), body: Body.optional() }).meta({
  id: 'UpdateCannedResponseRequest',
  description: 'Records canned_response.updated when something changed.',
  examples: [{ body: 'We are open 8:00 to 18:00.' }],
});

const RenderBody = z
  .strictObject({
    conversation_id: z.uuid().optional().meta({ description: 'Fill the contact’s variables from this conversation’s contact' }),
    contact_id: z.uuid().optional().meta({ description: 'Or from this contact' }),
  })
  .meta({ id: 'RenderCannedResponseRequest', examples: [{ conversation_id: '0196b1f2-0a00-7000-8000-0000000000c1' }] });

const RenderedSchema = z
  .object({
    id: z.uuid(),
    body: z.string().meta({ description: 'The text with its variables filled (a default where a value is missing)' }),
    missing: z.array(z.string()).meta({ description: 'Variables that had no value and no default (left out of the text)' }),
  })
  .meta({
    id: 'RenderedCannedResponse',
    example: { id: '0190a5b7-6eb2-7c11-9d2f-5b6c7d8e9f21', body: 'Hi Ana, we are open 9:00 to 18:00.', missing: [] },
  });

const Params = z.object({ cannedResponseID: PathId });

export async function registerCannedResponseRoutes(app: App, deps: CannedDeps) {
  app.post(
    '/v1/canned-responses',
    {
      config: write,
      schema: {
        tags: [TAG],
        summary: 'Create a canned response',
        description: CreateBody.description,
        body: CreateBody,
        response: { 201: dataOf(CannedResponseSchema).describe('Created'), ...errorResponses([400, 401, 403, 409]) },
      },
    },
    async (request, reply) => {
      const row = await inputFrom('body', createCannedResponse(deps, actorOf(request), request.body));
      return reply.code(201).send({ data: presentCannedResponse(row) });
    },
  );

  app.get(
    '/v1/canned-responses',
    {
      config: read,
      schema: {
        tags: [TAG],
        summary: 'List canned responses',
        description:
          'The shared responses and, for a member, their own, by shortcut. `q` finds a shortcut by its beginning (a leading `/` is ignored, as typed in the composer) or words in the name or body.',
        querystring: PageQuerySchema.extend({
          q: z.string().max(100).optional().meta({ description: 'A shortcut’s beginning, or words of the name or body' }),
          scope: z.enum(CANNED_SCOPES).optional().meta({ description: '`shared` or `personal` only; default all' }),
        }),
        response: { 200: listOf(CannedResponseSchema), ...errorResponses([400, 401, 403]) },
      },
    },
    async (request) => {
      const q = request.query;
      const page = await inputFrom(
        'query',
        listCannedResponses(deps, actorOf(request), { limit: q.limit, cursor: q.cursor, q: q.q, scope: q.scope }),
      );
      return { data: page.items.map(presentCannedResponse), meta: { next_cursor: page.nextCursor } };
    },
  );

  app.get(
    '/v1/canned-responses/:cannedResponseID',
    {
      config: read,
      schema: {
        tags: [TAG],
        summary: 'Get a canned response',
        params: Params,
        response: { 200: dataOf(CannedResponseSchema), ...errorResponses([401, 403, 404]) },
      },
    },
    async (request) => ({ data: presentCannedResponse(await getCannedResponse(deps, actorOf(request), request.params.cannedResponseID)) }),
  );

  app.patch(
    '/v1/canned-responses/:cannedResponseID',
    {
      config: write,
      schema: {
        tags: [TAG],
        summary: 'Change a canned response',
        description: UpdateBody.description,
        params: Params,
        body: UpdateBody,
        response: { 200: dataOf(CannedResponseSchema), ...errorResponses([400, 401, 403, 404, 409]) },
      },
    },
    async (request) => {
      const row = await inputFrom('body', updateCannedResponse(deps, actorOf(request), request.params.cannedResponseID, request.body));
      return { data: presentCannedResponse(row) };
    },
  );

  app.delete(
    '/v1/canned-responses/:cannedResponseID',
    {
      config: write,
      schema: {
        tags: [TAG],
        summary: 'Delete a canned response',
        description: 'Records canned_response.deleted.',
        params: Params,
        response: { 204: z.null().describe('Deleted'), ...errorResponses([401, 403, 404]) },
      },
    },
    async (request, reply) => {
      await deleteCannedResponse(deps, actorOf(request), request.params.cannedResponseID);
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/v1/canned-responses/:cannedResponseID/render',
    {
      config: read,
      schema: {
        tags: [TAG],
        summary: 'Fill a canned response for a conversation',
        description:
          'The text with its variables filled from the conversation’s (or the contact’s) contact, the member asking (an API key has no agent) and the organization. Another organization’s conversation or contact is a 400 naming the field. Sends nothing: send the text with POST /v1/messages.',
        params: Params,
        body: RenderBody,
        response: { 200: dataOf(RenderedSchema), ...errorResponses([400, 401, 403, 404]) },
      },
    },
    async (request) => {
      const rendered = await inputFrom(
        'body',
        renderCannedResponse(deps, actorOf(request), request.params.cannedResponseID, {
          conversationId: request.body.conversation_id,
          contactId: request.body.contact_id,
        }),
      );
      return { data: { id: rendered.response.id, body: rendered.body, missing: rendered.missing } };
    },
  );
}
