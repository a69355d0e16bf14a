/** The deals of the CRM: create, list (filters, sort), get, update (a stage change among it), delete, stage history. */
import { z } from 'zod';
import { createDeal, deleteDeal, getDeal, updateDeal, type DealClockDeps } from '../../domain/deals/deals.ts';
import { DEAL_SORTS, DEAL_STATUSES, listDeals, listStageHistory } from '../../domain/deals/list.ts';
import { DealFieldsSchema, normalizeDealFields } from '../../domain/deals/fields.ts';
import { STAGE_KINDS } from '../../domain/pipelines/pipelines.ts';
import { actorOf } from '../auth/actor.ts';
import { errorResponses } from '../errors.ts';
import { inputFrom } from '../input-location.ts';
import { dataOf, listOf, PageQuerySchema, PathId } from '../schemas.ts';
import type { App } from '../types.ts';
import { ChangedBySchema, crmRead, crmWrite, normalizedBody, OwnerFilter, sortParam } from './crm.schemas.ts';
import { presentDeal, presentStageChange } from './deals.presenters.ts';

const TAG = 'deals';

export const DealSchema = z
  .object({
    id: z.uuid(),
    name: z.string(),
    amount: z.number().int().nullable().meta({ description: 'In the currency’s minor units (cents)' }),
    currency: z.string().nullable().meta({ description: 'ISO 4217' }),
    pipeline_id: z.uuid(),
    stage_id: z.uuid(),
    status: z.enum(STAGE_KINDS).meta({ description: 'The kind of its stage: open, won or lost' }),
    probability: z.number().int().meta({ description: 'Its stage’s probability, in percent' }),
    expected_close_date: z.string().nullable().meta({ description: 'YYYY-MM-DD' }),
    owner_user_id: z.uuid().nullable(),
    company_id: z.uuid().nullable(),
    contact_ids: z.array(z.uuid()),
    conversation_id: z.uuid().nullable().meta({ description: 'The conversation it came from' }),
    custom_fields: z.record(z.string(), z.unknown()),
    stage_entered_at: z.string().meta({ description: 'When it entered its stage' }),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: 'Deal' });

export const StageChangeSchema = z
  .object({
    id: z.uuid(),
    pipeline_id: z.uuid(),
    stage_id: z.uuid(),
    stage_name: z.string().meta({ description: 'The stage’s name now; its name when entered if it was deleted since' }),
    entered_at: z.string(),
    left_at: z.string().nullable().meta({ description: 'null: the deal is in this stage now' }),
    changed_by: ChangedBySchema.meta({ description: 'Who moved the deal into the stage (or created it there)' }),
  })
  .meta({ id: 'DealStageChange' });

const EXAMPLE_IDS = {
  pipeline: '0196b1f2-0a00-7000-8000-000000000201',
  stage: '0196b1f2-0a00-7000-8000-000000000212',
  won: '0196b1f2-0a00-7000-8000-000000000215',
  company: '0196b1f2-0a00-7000-8000-000000000181',
  contact: '0196b1f2-0a00-7000-8000-0000000000d1',
  conversation: '0196b1f2-0a00-7000-8000-0000000000e1',
  owner: '0196b1f2-0a00-7000-8000-0000000000b1',
};

const CreateDealBody = DealFieldsSchema.meta({
  id: 'CreateDealRequest',
  description:
    'Without stage_id the deal enters the first open stage of pipeline_id, or of the default pipeline. Records crm.record.created (object_kind `deal`) and its first stage history row.',
  examples: [
    {
      name: 'Acme: 40 seats',
      amount: 1250000,
      currency: 'EUR',
      pipeline_id: EXAMPLE_IDS.pipeline,
      stage_id: EXAMPLE_IDS.stage,
      expected_close_date: '2025-07-31',
      owner_user_id: EXAMPLE_IDS.owner,
      company_id: EXAMPLE_IDS.company,
      contact_ids: [EXAMPLE_IDS.contact],
      conversation_id: EXAMPLE_IDS.conversation,
      custom_fields: { source: 'chat' },
    },
    { name: 'Renewal 2026' },
  ],
});

const UpdateDealBody = DealFieldsSchema.partial().meta({
  id: 'UpdateDealRequest',
  description:
    'The fields to change; null clears one (not the name, pipeline or stage); contact_ids replaces the set; custom_fields is merged key by key. ' +
    'A new stage_id (of the deal’s pipeline, or of pipeline_id when given too), or a pipeline_id alone (its first open stage), moves the deal: ' +
    'its stage history gets a row and crm.deal.stage_changed is recorded beside crm.record.updated.',
  examples: [{ stage_id: EXAMPLE_IDS.won }, { amount: 1500000, expected_close_date: '2025-08-15' }, { owner_user_id: null }],
});

const Params = z.object({ dealID: PathId });

const DateParam = z.iso.date().refine((v) => !v.startsWith('0000'), { message: 'must be in years 0001 to 9999' });

/** What the deals routes use: the database and the clock. */
export type DealServices = DealClockDeps;

export async function registerDealRoutes(app: App, deps: DealServices) {
  app.post(
    '/v1/deals',
    {
      config: crmWrite,
      schema: {
        tags: [TAG],
        summary: 'Create a deal',
        description: CreateDealBody.description,
        body: CreateDealBody,
        response: { 201: dataOf(DealSchema).describe('Created'), ...errorResponses([400, 401, 403]) },
      },
    },
    async (request, reply) => {
      const input = normalizedBody(normalizeDealFields(request.body));
      const deal = await inputFrom('body', createDeal(deps, actorOf(request), { ...input, name: request.body.name }));
      return reply.code(201).send({ data: presentDeal(deal) });
    },
  );

  app.get(
    '/v1/deals',
    {
      config: crmRead,
      schema: {
        tags: [TAG],
        summary: 'List deals',
        description: 'Newest first unless `sort` says otherwise, by cursor. Filters combine.',
        querystring: PageQuerySchema.extend({
          sort: sortParam(
            DEAL_SORTS,
            '-created_at',
            'The order: `created_at`, `updated_at`, `name` (case-insensitive, in code-point order) or `expected_close_date` (deals without one last).',
          ),
          pipeline_id: z.uuid().optional(),
          stage_id: z.uuid().optional(),
          status: z.enum(DEAL_STATUSES).optional().meta({ description: 'The kind of the deal’s stage' }),
          owner: OwnerFilter,
          company_id: z.uuid().optional(),
          contact_id: z.uuid().optional().meta({ description: 'Deals with this contact among theirs' }),
          conversation_id: z.uuid().optional().meta({ description: 'Deals that came from this conversation' }),
          expected_close_after: DateParam.optional().meta({ description: 'Expected to close on or after this date (YYYY-MM-DD)' }),
          expected_close_before: DateParam.optional().meta({ description: 'Expected to close on or before this date (YYYY-MM-DD)' }),
        }),
        response: { 200: listOf(DealSchema), ...errorResponses([400, 401, 403]) },
      },
    },
    async (request) => {
      const q = request.query;
      const page = await inputFrom(
        'query',
        listDeals(deps, actorOf(request), {
          limit: q.limit,
          cursor: q.cursor,
          sort: q.sort,
          pipelineId: q.pipeline_id,
          stageId: q.stage_id,
          status: q.status,
          owner: q.owner,
          companyId: q.company_id,
          contactId: q.contact_id,
          conversationId: q.conversation_id,
          expectedCloseAfter: q.expected_close_after,
          expectedCloseBefore: q.expected_close_before,
        }),
      );
      return { data: page.items.map(presentDeal), meta: { next_cursor: page.nextCursor } };
    },
  );

  app.get(
    '/v1/deals/:dealID',
    {
      config: crmRead,
      schema: {
        tags: [TAG],
        summary: 'Get a deal',
        params: Params,
        response: { 200: dataOf(DealSchema), ...errorResponses([401, 403, 404]) },
      },
    },
    async (request) => ({ data: presentDeal(await getDeal(deps, actorOf(request), { dealId: request.params.dealID })) }),
  );

  app.patch(
    '/v1/deals/:dealID',
    {
      config: crmWrite,
      schema: {
        tags: [TAG],
        summary: 'Update a deal',
        description: UpdateDealBody.description,
        params: Params,
        body: UpdateDealBody,
        response: { 200: dataOf(DealSchema), ...errorResponses([400, 401, 403, 404]) },
      },
    },
    async (request) => {
      const fields = normalizedBody(normalizeDealFields(request.body));
      const deal = await inputFrom('body', updateDeal(deps, actorOf(request), { dealId: request.params.dealID, fields }));
      return { data: presentDeal(deal) };
    },
  );

  app.delete(
    '/v1/deals/:dealID',
    {
      config: crmWrite,
      schema: {
        tags: [TAG],
        summary: 'Delete a deal',
        description: 'With its stage history and contact links. Records crm.record.deleted.',
        params: Params,
        response: { 204: z.null().describe('Deleted'), ...errorResponses([401, 403, 404]) },
      },
    },
    async (request, reply) => {
      await deleteDeal(deps, actorOf(request), { dealId: request.params.dealID });
      return reply.code(204).send(null);
    },
  );

  app.get(
    '/v1/deals/:dealID/stage-history',
    {
      config: crmRead,
      schema: {
        tags: [TAG],
        summary: "A deal's stage history",
        description:
          'Every stage the deal was in, oldest first, by cursor: when it entered and left, and who moved it there (a user, an API key, an OAuth client for its user). The row without left_at is its stage now.',
        params: Params,
        querystring: PageQuerySchema,
        response: { 200: listOf(StageChangeSchema), ...errorResponses([400, 401, 403, 404]) },
      },
    },
    async (request) => {
      const page = await listStageHistory(deps, actorOf(request), { dealId: request.params.dealID, ...request.query });
      return { data: page.items.map(presentStageChange), meta: { next_cursor: page.nextCursor } };
    },
  );
}
