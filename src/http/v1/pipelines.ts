/**
 * Pipelines and their stages: the pipeline (create, list, get, update: name, default, the whole stage
 * list; delete), one stage at a time (add, change, delete with move_deals_to), and the board (the
 * stages with their totals and first deals; a stage's next deals).
 */
import { z } from 'zod';
import { getBoard, listStageDeals } from '../../domain/deals/board.ts';
import type { DealClockDeps } from '../../domain/deals/deals.ts';
import {
  createPipeline,
  deletePipeline,
  getPipeline,
  listPipelines,
  STAGE_KINDS,
  STAGES_MAX,
  updatePipeline,
} from '../../domain/pipelines/pipelines.ts';
import { addStage, deleteStage, updateStage } from '../../domain/pipelines/stages.ts';
import { PAGE_SIZE_MAX } from '../../lib/cursor.ts';
import { actorOf } from '../auth/actor.ts';
import { errorResponses } from '../errors.ts';
import { inputFrom } from '../input-location.ts';
import { dataOf, listOf, PageQuerySchema, PathId } from '../schemas.ts';
import type { App } from '../types.ts';
import { crmRead, crmWrite, OwnerFilter } from './crm.schemas.ts';
import { DealSchema } from './deals.ts';
import { presentDeal } from './deals.presenters.ts';
import { presentBoard, presentPipeline, presentStage } from './pipelines.presenters.ts';

const TAG = 'pipelines';

export const StageSchema = z
  .object({
    id: z.uuid(),
    name: z.string(),
    probability: z.number().int().meta({ description: 'The chance, in percent, that a deal in this stage is won' }),
    kind: z.enum(STAGE_KINDS).meta({ description: 'open, won or lost: the status of the deals in it' }),
    position: z.number().int().meta({ description: '0-based place in the pipeline' }),
  })
  .meta({ id: 'PipelineStage' });

export const PipelineSchema = z
  .object({
    id: z.uuid(),
    name: z.string(),
    is_default: z.boolean().meta({ description: 'Where a deal goes when it names no pipeline; one per organization' }),
    stages: z.array(StageSchema).meta({ description: 'In order' }),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: 'Pipeline' });

const TotalSchema = z
  .object({
    currency: z.string().meta({ description: 'ISO 4217' }),
    deal_count: z.number().int(),
    amount: z.number().int().meta({ description: 'The sum of the amounts, in minor units' }),
    weighted_amount: z.number().int().meta({ description: 'The sum × the stage’s probability / 100, rounded' }),
  })
  .meta({ id: 'BoardTotal' });

export const BoardSchema = z
  .object({
    pipeline: z.object({ id: z.uuid(), name: z.string(), is_default: z.boolean() }),
    stages: z.array(
      StageSchema.extend({
        deal_count: z.number().int().meta({ description: 'Every deal in the stage (with or without an amount)' }),
        totals: z.array(TotalSchema).meta({ description: 'Per currency, by code; a deal without an amount is in none' }),
        deals: z.array(DealSchema).meta({ description: 'The first page: most recently arrived in the stage first' }),
        next_cursor: z
          .string()
          .nullable()
          .meta({ description: 'The stage’s next page: GET /v1/pipelines/{pipelineID}/stages/{stageID}/deals?cursor=…' }),
      }),
    ),
  })
  .meta({ id: 'PipelineBoard' });

const stageName = z.string().trim().min(1).max(100);
const probability = z.number().int().min(0).max(100);
const stageKind = z.enum(STAGE_KINDS);

const NewStage = z.strictObject({
  name: stageName.meta({ example: 'Demo' }),
  probability: probability.meta({ example: 40 }),
  kind: stageKind.default('open'),
});

const ListedStage = NewStage.extend({
  id: z.uuid().optional().meta({ description: 'A stage of this pipeline, kept (renamed, moved); left out: a new stage' }),
});

const EXAMPLE_STAGES = [
  { name: 'Lead', probability: 10 },
  { name: 'Demo', probability: 40 },
  { name: 'Contract sent', probability: 80 },
  { name: 'Won', probability: 100, kind: 'won' },
  { name: 'Lost', probability: 0, kind: 'lost' },
];

const CreatePipelineBody = z
  .strictObject({
    name: z.string().trim().min(1).max(100),
    stages: z
      .array(NewStage)
      .min(1)
      .max(STAGES_MAX)
      .meta({ description: 'In order; at least one open; names distinct (case-insensitive)' }),
    is_default: z.boolean().optional().meta({ description: 'Make it the default pipeline (the one before stops being it)' }),
  })
  .meta({ id: 'CreatePipelineRequest', examples: [{ name: 'Partnerships', stages: EXAMPLE_STAGES }] });

const UpdatePipelineBody = z
  .strictObject({
    name: z.string().trim().min(1).max(100).optional(),
    is_default: z
      .boolean()
      .optional()
      .meta({ description: 'true: make it the default. A default stops being it only when another becomes it' }),
    stages: z.array(ListedStage).min(1).max(STAGES_MAX).optional().meta({
      description:
        'The whole stage list in its new order: a stage with its id is kept (renamed, moved, its probability or kind changed), one without an id is added, a stage left out is deleted (400 when it holds deals: delete it with move_deals_to instead)',
    }),
  })
  .meta({
    id: 'UpdatePipelineRequest',
    examples: [
      { name: 'Partnerships EU' },
      {
        stages: [
          { id: '0196b1f2-0a00-7000-8000-000000000212', name: 'Qualified lead', probability: 20 },
          { id: '0196b1f2-0a00-7000-8000-000000000211', name: 'New', probability: 10 },
          { name: 'Pilot', probability: 60 },
          { id: '0196b1f2-0a00-7000-8000-000000000215', name: 'Won', probability: 100, kind: 'won' },
        ],
      },
    ],
  });

const position = z
  .number()
  .int()
  .min(0)
  .max(STAGES_MAX - 1)
  .meta({ description: '0-based place among the stages; past the end: last' });

const AddStageBody = NewStage.extend({ position: position.optional() }).meta({
  id: 'AddPipelineStageRequest',
  description: 'The stage, last unless position says otherwise. 409 when the pipeline has 100 stages, or another stage has the name.',
  examples: [{ name: 'Pilot', probability: 60, position: 2 }],
});

const UpdateStageBody = z
  .strictObject({
    name: stageName.optional(),
    probability: probability.optional(),
    kind: stageKind.optional(),
    position: position.optional(),
  })
  .meta({
    id: 'UpdatePipelineStageRequest',
    description:
      'The fields to change; position moves the stage. 409 when another stage has the name, or the last open stage would stop being open.',
    examples: [{ name: 'Proposal sent', probability: 55 }, { position: 0 }],
  });

const MoveDealsQuery = z.object({
  move_deals_to: z.uuid().optional().meta({ description: 'The stage that receives the deals (needed when there are some)' }),
});

const Params = z.object({ pipelineID: PathId });
const StageParams = Params.extend({ stageID: PathId });

const BOARD_LIMIT_DEFAULT = 20;

/** What the pipelines routes use: the database and the clock. */
export type PipelineServices = DealClockDeps;

export async function registerPipelineRoutes(app: App, deps: PipelineServices) {
  registerPipelineRecordRoutes(app, deps);
  registerStageRoutes(app, deps);
  registerBoardRoutes(app, deps);
}

function registerPipelineRecordRoutes(app: App, deps: PipelineServices) {
  app.post(
    '/v1/pipelines',
    {
      config: crmWrite,
      schema: {
        tags: [TAG],
        summary: 'Create a pipeline',
        body: CreatePipelineBody,
        response: { 201: dataOf(PipelineSchema).describe('Created'), ...errorResponses([400, 401, 403]) },
      },
    },
    async (request, reply) => {
      const b = request.body;
      const pipeline = await inputFrom(
        'body',
        createPipeline(deps, actorOf(request), { name: b.name, stages: b.stages, isDefault: b.is_default }),
      );
      return reply.code(201).send({ data: presentPipeline(pipeline) });
    },
  );

  app.get(
    '/v1/pipelines',
    {
      config: crmRead,
      schema: {
        tags: [TAG],
        summary: 'List pipelines',
        description: 'Oldest first, by cursor; each with its stages in order. Every organization starts with a default pipeline.',
        querystring: PageQuerySchema,
        response: { 200: listOf(PipelineSchema), ...errorResponses([400, 401, 403]) },
      },
    },
    async (request) => {
      const page = await listPipelines(deps, actorOf(request), request.query);
      return { data: page.items.map(presentPipeline), meta: { next_cursor: page.nextCursor } };
    },
  );

  app.get(
    '/v1/pipelines/:pipelineID',
    {
      config: crmRead,
      schema: {
        tags: [TAG],
        summary: 'Get a pipeline',
        params: Params,
        response: { 200: dataOf(PipelineSchema), ...errorResponses([401, 403, 404]) },
      },
    },
    async (request) => ({ data: presentPipeline(await getPipeline(deps, actorOf(request), { pipelineId: request.params.pipelineID })) }),
  );

  app.patch(
    '/v1/pipelines/:pipelineID',
    {
      config: crmWrite,
      schema: {
        tags: [TAG],
        summary: 'Update a pipeline',
        description:
          'Rename it, make it the default, or rewrite its stage list at once (reorder, rename, add, remove: stage ids are kept). The deals stay in their stages; a stage whose kind changes changes its deals’ status.',
        params: Params,
        body: UpdatePipelineBody,
        response: { 200: dataOf(PipelineSchema), ...errorResponses([400, 401, 403, 404]) },
      },
    },
    async (request) => {
      const b = request.body;
      const pipeline = await inputFrom(
        'body',
        updatePipeline(deps, actorOf(request), {
          pipelineId: request.params.pipelineID,
          name: b.name,
          isDefault: b.is_default,
          stages: b.stages,
        }),
      );
      return { data: presentPipeline(pipeline) };
    },
  );

  app.delete(
    '/v1/pipelines/:pipelineID',
    {
      config: crmWrite,
      schema: {
        tags: [TAG],
        summary: 'Delete a pipeline',
        description:
          'With its stages. A pipeline that holds deals needs move_deals_to, a stage of another pipeline: each deal moves there (crm.deal.stage_changed); without it the answer is 400 naming move_deals_to. The default pipeline is not deleted (409): make another the default first.',
        params: Params,
        querystring: MoveDealsQuery,
        response: { 204: z.null().describe('Deleted'), ...errorResponses([400, 401, 403, 404, 409]) },
      },
    },
    async (request, reply) => {
      await inputFrom(
        'query',
        deletePipeline(deps, actorOf(request), { pipelineId: request.params.pipelineID, moveDealsTo: request.query.move_deals_to }),
      );
      return reply.code(204).send(null);
    },
  );
}

function registerStageRoutes(app: App, deps: PipelineServices) {
  app.post(
    '/v1/pipelines/:pipelineID/stages',
    {
      config: crmWrite,
      schema: {
        tags: [TAG],
        summary: 'Add a stage',
        description: AddStageBody.description,
        params: Params,
        body: AddStageBody,
        response: { 201: dataOf(StageSchema).describe('Added'), ...errorResponses([400, 401, 403, 404, 409]) },
      },
    },
    async (request, reply) => {
      const { position, ...stage } = request.body;
      const row = await inputFrom('body', addStage(deps, actorOf(request), { pipelineId: request.params.pipelineID, stage, position }));
      return reply.code(201).send({ data: presentStage(row) });
    },
  );

  app.patch(
    '/v1/pipelines/:pipelineID/stages/:stageID',
    {
      config: crmWrite,
      schema: {
        tags: [TAG],
        summary: 'Update a stage',
        description: UpdateStageBody.description,
        params: StageParams,
        body: UpdateStageBody,
        response: { 200: dataOf(StageSchema), ...errorResponses([400, 401, 403, 404, 409]) },
      },
    },
    async (request) => {
      const { position, ...changes } = request.body;
      const row = await inputFrom(
        'body',
        updateStage(deps, actorOf(request), { pipelineId: request.params.pipelineID, stageId: request.params.stageID, changes, position }),
      );
      return { data: presentStage(row) };
    },
  );

  app.delete(
    '/v1/pipelines/:pipelineID/stages/:stageID',
    {
      config: crmWrite,
      schema: {
        tags: [TAG],
        summary: 'Delete a stage',
        description:
          'A stage that holds deals needs move_deals_to, another stage of the pipeline: each deal moves there (crm.deal.stage_changed; its stage history says who); without it the answer is 400 naming move_deals_to. The last stage and the last open stage are not deleted (409).',
        params: StageParams,
        querystring: MoveDealsQuery,
        response: { 204: z.null().describe('Deleted'), ...errorResponses([400, 401, 403, 404, 409]) },
      },
    },
    async (request, reply) => {
      await inputFrom(
        'query',
        deleteStage(deps, actorOf(request), {
          pipelineId: request.params.pipelineID,
          stageId: request.params.stageID,
          moveDealsTo: request.query.move_deals_to,
        }),
      );
      return reply.code(204).send(null);
    },
  );
}

function registerBoardRoutes(app: App, deps: PipelineServices) {
  app.get(
    '/v1/pipelines/:pipelineID/board',
    {
      config: crmRead,
      schema: {
        tags: [TAG],
        summary: "A pipeline's board",
        description:
          'The stages in order, each with its deal count, its amounts per currency (and weighted by its probability), and its first deals (most recently arrived in the stage first); a stage’s next_cursor pages it further with GET /v1/pipelines/{pipelineID}/stages/{stageID}/deals.',
        params: Params,
        querystring: z.object({
          limit: z.coerce
            .number()
            .int()
            .min(1)
            .max(PAGE_SIZE_MAX)
            .default(BOARD_LIMIT_DEFAULT)
            .meta({ description: `Deals per stage, 1 to ${PAGE_SIZE_MAX} (default ${BOARD_LIMIT_DEFAULT})` }),
          owner: OwnerFilter,
        }),
        response: { 200: dataOf(BoardSchema), ...errorResponses([400, 401, 403, 404]) },
      },
    },
    async (request) => {
      const board = await inputFrom(
        'query',
        getBoard(deps, actorOf(request), { pipelineId: request.params.pipelineID, limit: request.query.limit, owner: request.query.owner }),
      );
      return { data: presentBoard(board) };
    },
  );

  app.get(
    '/v1/pipelines/:pipelineID/stages/:stageID/deals',
    {
      config: crmRead,
      schema: {
        tags: [TAG],
        summary: "A stage's deals",
        description: 'In board order (most recently arrived in the stage first), by cursor: a board stage’s next_cursor reads on here.',
        params: StageParams,
        querystring: PageQuerySchema.extend({ owner: OwnerFilter }),
        response: { 200: listOf(DealSchema), ...errorResponses([400, 401, 403, 404]) },
      },
    },
    async (request) => {
      const q = request.query;
      const page = await inputFrom(
        'query',
        listStageDeals(deps, actorOf(request), {
          pipelineId: request.params.pipelineID,
          stageId: request.params.stageID,
          owner: q.owner,
          limit: q.limit,
          cursor: q.cursor,
        }),
      );
      return { data: page.items.map(presentDeal), meta: { next_cursor: page.nextCursor } };
    },
  );
}
