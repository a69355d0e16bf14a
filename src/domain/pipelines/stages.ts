/**
 * One stage of a pipeline at a time: add one (at a position, or last), change one (name, probability,
 * kind, position), delete one (its deals moved to another stage of the pipeline with move_deals_to).
 * Each is an edit of the pipeline's stage list (pipelines.ts replaceStages), under the same rules; what
 * the stage's own body gets wrong is named by its own fields.
 */
import { and, eq } from 'drizzle-orm';
import { pipelineStages } from '../../db/schema.ts';
import { isUuid } from '../../lib/ids.ts';
import type { Actor } from '../actor.ts';
import { changedBy } from '../crm/records.ts';
import { moveStageDeals } from '../deals/stage-moves.ts';
import { conflict, DomainError, type FieldError } from '../errors.ts';
import {
  dealCounts,
  lockPipeline,
  refuse,
  replaceStages,
  stageNotFound,
  STAGES_MAX,
  targetStage,
  type PipelineDeps,
  type PipelineWithStages,
  type StageInput,
  type StageKind,
  type StageRow,
} from './pipelines.ts';

const asInput = (s: StageRow): StageInput => ({ id: s.id, name: s.name, probability: s.probability, kind: s.kind as StageKind });

const conflictOn = (pointer: string, message: string) =>
  new DomainError('conflict', message, { fieldErrors: [{ pointer, message }] satisfies FieldError[] });

function nameTaken(pipeline: PipelineWithStages, name: string, exceptId?: string): boolean {
  const key = name.trim().toLowerCase();
  return pipeline.stages.some((s) => s.id !== exceptId && s.name.trim().toLowerCase() === key);
}

async function stageAfter(tx: Parameters<typeof lockPipeline>[0], pipelineId: string, stageId: string): Promise<StageRow> {
  const [row] = await tx
    .select()
    .from(pipelineStages)
    .where(and(eq(pipelineStages.pipelineId, pipelineId), eq(pipelineStages.id, stageId)))
    .limit(1);
  return row!;
}

/** Adds a stage at the position (0-based; past the end, or left out: last). */
export async function addStage(
  { db, clock }: PipelineDeps,
  actor: Actor,
  input: { pipelineId: string; stage: Omit<StageInput, 'id'>; position?: number },
): Promise<StageRow> {
  return db.transaction(async (tx) => {
    const pipeline = await lockPipeline(tx, actor.organizationId, input.pipelineId);
    if (pipeline.stages.length >= STAGES_MAX) throw conflict(`a pipeline has at most ${STAGES_MAX} stages`);
    if (nameTaken(pipeline, input.stage.name)) throw conflictOn('/name', 'another stage of this pipeline has this name');
    const list = pipeline.stages.map(asInput);
    const position = Math.min(input.position ?? list.length, list.length);
    list.splice(position, 0, input.stage);
    await replaceStages(tx, pipeline, list, clock.now());
    const [added] = await tx
      .select()
      .from(pipelineStages)
      .where(and(eq(pipelineStages.pipelineId, pipeline.id), eq(pipelineStages.position, position)))
      .limit(1);
    return added!;
  });
}

/** Changes a stage's name, probability or kind, or moves it to a position (past the end: last). */
export async function updateStage(
  { db, clock }: PipelineDeps,
  actor: Actor,
  input: { pipelineId: string; stageId: string; changes: Partial<Omit<StageInput, 'id'>>; position?: number },
): Promise<StageRow> {
  return db.transaction(async (tx) => {
    const pipeline = await lockPipeline(tx, actor.organizationId, input.pipelineId);
    const stageId = isUuid(input.stageId) ? input.stageId.toLowerCase() : '';
    const index = pipeline.stages.findIndex((s) => s.id === stageId);
    if (index < 0) throw stageNotFound();
    const current = asInput(pipeline.stages[index]!);
    const next: StageInput = { ...current, ...input.changes, id: current.id };
    if (input.changes.name !== undefined && nameTaken(pipeline, input.changes.name, stageId))
      throw conflictOn('/name', 'another stage of this pipeline has this name');
    if (next.kind !== 'open' && current.kind === 'open' && !pipeline.stages.some((s) => s.id !== stageId && s.kind === 'open'))
      throw conflictOn('/kind', 'this is the pipeline’s last open stage: a pipeline keeps at least one');
    const list = pipeline.stages.map(asInput);
    list.splice(index, 1);
    list.splice(Math.min(input.position ?? index, list.length), 0, next);
    await replaceStages(tx, pipeline, list, clock.now());
    return stageAfter(tx, pipeline.id, stageId);
  });
}

/**
 * Deletes a stage. One that holds deals needs move_deals_to (another stage of the pipeline), where
 * they go, each with crm.deal.stage_changed. The last stage, and the last open one, stay.
 */
export async function deleteStage(
  { db, clock }: PipelineDeps,
  actor: Actor,
  input: { pipelineId: string; stageId: string; moveDealsTo?: string },
): Promise<{ movedDeals: number }> {
  const org = actor.organizationId;
  return db.transaction(async (tx) => {
    const pipeline = await lockPipeline(tx, org, input.pipelineId);
    const stageId = isUuid(input.stageId) ? input.stageId.toLowerCase() : '';
    const stage = pipeline.stages.find((s) => s.id === stageId);
    if (!stage) throw stageNotFound();
    if (pipeline.stages.length === 1) throw conflict('a pipeline keeps at least one stage: delete the pipeline instead');
    if (stage.kind === 'open' && !pipeline.stages.some((s) => s.id !== stageId && s.kind === 'open'))
      throw conflict('this is the pipeline’s last open stage: a pipeline keeps at least one');
    let movedDeals = 0;
    if (input.moveDealsTo !== undefined) {
      const target = await targetStage(tx, org, input.moveDealsTo, { within: pipeline.id });
      if (target.id === stage.id) refuse([{ pointer: '/move_deals_to', message: 'the stage being deleted: name another stage' }]);
      movedDeals = await moveStageDeals(tx, org, {
        fromStageIds: [stage.id],
        to: { pipelineId: pipeline.id, stageId: target.id, stageName: target.name },
        now: clock.now(),
        by: changedBy(actor),
      });
    } else {
      const holding = (await dealCounts(tx, org, [stage.id])).get(stage.id) ?? 0;
      if (holding > 0)
        refuse([
          {
            pointer: '/move_deals_to',
            message: `the stage holds ${holding} deal${holding === 1 ? '' : 's'}: name another stage of the pipeline to move them to`,
          },
        ]);
    }
    await replaceStages(tx, pipeline, pipeline.stages.filter((s) => s.id !== stage.id).map(asInput), clock.now());
    return { movedDeals };
  });
}
