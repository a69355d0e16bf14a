import { z } from 'zod';
import {
  createTemplate,
  listTemplates,
  loadTemplate,
  submitTemplate,
  syncTemplates,
  TEMPLATE_CATEGORIES,
  TEMPLATE_STATUSES,
  type TemplateDeps,
} from '../../domain/templates/templates.ts';
import { actorOf } from '../auth/actor.ts';
import type { App } from '../types.ts';
import { errorResponses } from '../errors.ts';
import { dataOf, listOf, PageQuerySchema, PathId } from '../schemas.ts';
import { presentTemplate } from './templates.presenters.ts';

export const TemplateSchema = z
  .object({
    id: z.uuid(),
    channel_id: z.uuid(),
    name: z.string(),
    language: z.string().meta({ description: 'Locale code; a template message must use exactly this code', example: 'en_US' }),
    category: z.string().meta({ example: 'UTILITY' }),
    components: z.array(z.unknown()),
    status: z.enum(TEMPLATE_STATUSES).meta({
      description:
        'draft (not submitted), pending, approved, rejected, paused, disabled; each change emits template.status_update. The provider\'s reports map to these (docs/channels.md, "Template reports").',
    }),
    rejection_reason: z.string().nullable().meta({
      description: "Why the provider rejected, paused or disabled it, in its words (a pause's title and description); null otherwise",
    }),
    provider_template_id: z.string().nullable(),
    quality: z
      .object({
        score: z
          .string()
          .nullable()
          .meta({ description: "The provider's quality score: GREEN, YELLOW, RED or UNKNOWN; null until it gives one" }),
        flagged: z.boolean().meta({
          description:
            'The provider flagged it (negative feedback, at risk of being paused or disabled); it can still be sent. Lifted when reinstated.',
        }),
        reason: z.string().nullable().meta({ description: "The provider's reason for the flag" }),
        updated_at: z.string(),
      })
      .nullable()
      .meta({ description: "The provider's quality report; null until it sends one. Each change emits template.quality_update" }),
    provider_note: z
      .object({
        event: z.string().meta({
          description:
            "The provider's own name of its last report (APPROVED, FLAGGED, LOCKED, ...); one it does not document changes nothing else",
          example: 'LOCKED',
        }),
        reason: z.string().nullable(),
        received_at: z.string(),
      })
      .nullable()
      .meta({ description: "The provider's last report on the template, whatever it said; null until one arrives" }),
    submitted_at: z.string().nullable(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: 'Template' });

export const TemplateSyncSchema = z.object({
  created: z.number().int(),
  updated: z.number().int(),
  unchanged: z.number().int(),
  templates: z.array(TemplateSchema),
});

const CreateTemplateBody = z
  .object({
    channel_id: z.string().min(1),
    name: z.string().regex(/^[a-z0-9_]{1,512}$/, { error: 'lower-case letters, digits and underscores' }),
    language: z.string().regex(/^[a-z]{2,3}(_[A-Z]{2})?$/, { error: 'a locale code such as en or en_US' }),
    category: z.enum(TEMPLATE_CATEGORIES),
    components: z
      .array(z.object({ type: z.enum(['HEADER', 'BODY', 'FOOTER', 'BUTTONS']) }).passthrough())
      .min(1)
      .max(10)
      .meta({ description: "The provider's component objects (HEADER, BODY with text and {{n}} variables, FOOTER, BUTTONS)" }),
  })
  .meta({
    id: 'CreateTemplateRequest',
    examples: [
      {
        channel_id: '0196a0e2-7c1e-7a59-9a4c-2f5d3f3b8a10',
        name: 'order_shipped',
        language: 'en_US',
        category: 'UTILITY',
        components: [{ type: 'BODY', text: 'Hi {{1}}, your order {{2}} is on its way.', example: { body_text: [['Ana', 'A-1042']] } }],
      },
    ],
  });

export type CreateTemplateRequest = z.input<typeof CreateTemplateBody>;

export async function registerTemplateRoutes(app: App, deps: TemplateDeps) {
  app.get(
    '/v1/templates',
    {
      config: { auth: { permission: 'templates:read' } },
      schema: {
        tags: ['templates'],
        summary: 'List templates',
        querystring: PageQuerySchema.extend({
          channel_id: z.string().optional(),
          status: z.enum(TEMPLATE_STATUSES).optional(),
          name: z.string().optional(),
          language: z.string().optional().meta({ description: 'Exactly this locale code', example: 'en_US' }),
          category: z.enum(TEMPLATE_CATEGORIES).optional(),
        }),
        response: { 200: listOf(TemplateSchema), ...errorResponses([400, 401, 403]) },
      },
    },
    async (request) => {
      const q = request.query;
      const page = await listTemplates(deps, actorOf(request), {
        limit: q.limit,
        cursor: q.cursor,
        channelId: q.channel_id,
        status: q.status,
        name: q.name,
        language: q.language,
        category: q.category,
      });
      return { data: page.items.map(presentTemplate), meta: { next_cursor: page.nextCursor } };
    },
  );

  app.get(
    '/v1/templates/:templateID',
    {
      config: { auth: { permission: 'templates:read' } },
      schema: {
        tags: ['templates'],
        summary: 'Get a template',
        params: z.object({ templateID: PathId }),
        response: { 200: dataOf(TemplateSchema), ...errorResponses([401, 403, 404]) },
      },
    },
    async (request) => ({ data: presentTemplate(await loadTemplate(deps, actorOf(request), request.params.templateID)) }),
  );

  app.post(
    '/v1/templates',
    {
      config: { auth: { permission: 'templates:write' } },
      schema: {
        tags: ['templates'],
        summary: 'Create a draft template (official only)',
        description: 'Stored as `draft`; POST /v1/templates/{templateID}/submit sends it for approval.',
        body: CreateTemplateBody,
        response: { 201: dataOf(TemplateSchema), ...errorResponses([400, 401, 403, 404, 409, 422]) },
      },
    },
    async (request, reply) => {
      const b = request.body;
      const row = await createTemplate(deps, actorOf(request), {
        channelId: b.channel_id,
        name: b.name,
        language: b.language,
        category: b.category,
        components: b.components,
      });
      return reply.code(201).send({ data: presentTemplate(row) });
    },
  );

  app.post(
    '/v1/templates/:templateID/submit',
    {
      config: { auth: { permission: 'templates:write' } },
      schema: {
        tags: ['templates'],
        summary: 'Submit a template for approval (official only)',
        description:
          'Sends a draft or rejected template to the provider; it becomes `pending`, and the decision arrives as `template.status_update`. In the sandbox, names starting with `reject` are rejected, others approved.',
        params: z.object({ templateID: PathId }),
        response: { 200: dataOf(TemplateSchema), ...errorResponses([401, 403, 404, 409, 422, 503]) },
      },
    },
    async (request) => ({ data: presentTemplate(await submitTemplate(deps, actorOf(request), request.params.templateID)) }),
  );

  app.post(
    '/v1/templates/sync',
    {
      config: { auth: { permission: 'templates:write' } },
      schema: {
        tags: ['templates'],
        summary: "Pull a channel's templates from the provider (official only)",
        description: 'Creates or updates the stored templates; every status change emits `template.status_update`.',
        body: z.object({ channel_id: z.string().min(1) }).meta({ id: 'SyncTemplatesRequest' }),
        response: {
          200: dataOf(TemplateSyncSchema),
          ...errorResponses([400, 401, 403, 404, 422, 503]),
        },
      },
    },
    async (request) => {
      const result = await syncTemplates(deps, actorOf(request), request.body.channel_id);
      return { data: { ...result, templates: result.templates.map(presentTemplate) } };
    },
  );
}
