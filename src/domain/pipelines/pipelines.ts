/**
 * Pipelines and their ordered stages: create, read, list, change (name, default, the whole stage list
 * at once: reordered, renamed, added, removed), delete. One pipeline of an organization is its default
 * (where a deal goes when none is named). A pipeline has 1 to 100 stages, at least one of them open,
 * their names distinct (case-insensitive). A stage or pipeline that holds deals is removed only with a
 * target stage for them (move_deals_to); stage.ts has the one-stage operations.
 */
import { and, asc, count, eq, inArray, ne } from 'drizzle-orm';
import type { Executor } from '../../db/client.ts';
import { listPage, mapPage, oldestFirstBy } from '../../db/list-query.ts';
import type { Page, PageResult } from '../../db/paginate.ts';
import { deals, pipelines, pipelineStages } from '../../db/schema.ts';
import type { Clock } from '../../lib/clock.ts';
import { isUuid, uuidv7 } from '../../lib/ids.ts';
import type { Actor } from '../actor.ts';
import { changedBy } from '../crm/records.ts';
import { moveStageDeals } from '../deals/stage-moves.ts';
import { conflict, invalid, notFound, type FieldError } from '../errors.ts';
import { cursorKey } from '../paging.ts';

export const STAGE_KINDS = ['open', 'won', 'lost'] as const;
export type StageKind = (typeof STAGE_KINDS)[number];
export const STAGES_MAX = 100;

export type PipelineRow = typeof pipelines.$inferSelect;
export type StageRow = typeof pipelineStages.$inferSelect;
export type PipelineWithStages = PipelineRow & { stages: StageRow[] };

export type PipelineDeps = { db: Executor; clock: Clock };

/** A stage as a write gives it: with its id when it is one the pipeline has. */
export type StageInput = { id?: string; name: string; probability: number; kind: StageKind };

export const pipelineNotFound = () => notFound('pipeline');
export const stageNotFound = () => notFound('stage');

/** The stages of the pipelines, in order, by pipeline. */
async function stagesOf(db: Executor, pipelineIds: string[]): Promise<Map<string, StageRow[]>> {
  const byPipeline = new Map<string, StageRow[]>(pipelineIds.map((id) => [id, []]));
  if (pipelineIds.length === 0) return byPipeline;
  const rows = await db
    .select()
    .from(pipelineStages)
    .where(inArray(pipelineStages.pipelineId, pipelineIds))
    .orderBy(asc(pipelineStages.pipelineId), asc(pipelineStages.position), asc(pipelineStages.id));
  for (const row of rows) byPipeline.get(row.pipelineId)?.push(row);
  return byPipeline;
}

async function withStages(db: Executor, rows: PipelineRow[]): Promise<PipelineWithStages[]> {
  const stages = await stagesOf(
    db,
    rows.map((r) => r.id),
  );
  return rows.map((r) => ({ ...r, stages: stages.get(r.id) ?? [] }));
}

/** A pipeline of the organization, or undefined; `lock`: the row held for a change of its structure. */
export async function loadPipelineRow(
  db: Executor,
  organizationId: string,
  pipelineId: string,
  options: { lock?: 'update' | 'key share' } = {},
): Promise<PipelineRow | undefined> {
  if (!isUuid(pipelineId)) return undefined;
  const query = db
    .select()
    .from(pipelines)
    .where(and(eq(pipelines.id, pipelineId.toLowerCase()), eq(pipelines.organizationId, organizationId)))
    .limit(1);
  const [row] = options.lock ? await query.for(options.lock) : await query;
  return row;
}

/** The pipeline, locked for a change (with its stages locked too), or not_found. */
export async function lockPipeline(tx: Executor, organizationId: string, pipelineId: string): Promise<PipelineWithStages> {
  const row = await loadPipelineRow(tx, organizationId, pipelineId, { lock: 'update' });
  if (!row) throw pipelineNotFound();
  const stages = await tx
    .select()
    .from(pipelineStages)
    .where(eq(pipelineStages.pipelineId, row.id))
    .orderBy(asc(pipelineStages.position), asc(pipelineStages.id))
    .for('update');
  return { ...row, stages };
}

/** Holds the organization's pipelines, so that changes of the default come one at a time. */
async function lockOrganizationPipelines(tx: Executor, organizationId: string): Promise<PipelineRow[]> {
  return tx.select().from(pipelines).where(eq(pipelines.organizationId, organizationId)).orderBy(asc(pipelines.id)).for('update');
}

export async function getPipeline(
  { db }: Pick<PipelineDeps, 'db'>,
  actor: Actor,
  { pipelineId }: { pipelineId: string },
): Promise<PipelineWithStages> {
  const row = await loadPipelineRow(db, actor.organizationId, pipelineId);
  if (!row) throw pipelineNotFound();
  return (await withStages(db, [row]))[0]!;
}

/** The organization's pipelines, oldest first, each with its stages. */
export async function listPipelines({ db }: Pick<PipelineDeps, 'db'>, actor: Actor, page: Page): Promise<PageResult<PipelineWithStages>> {
  const rows = await listPage(db.select().from(pipelines).$dynamic(), {
    where: [eq(pipelines.organizationId, actor.organizationId)],
    order: oldestFirstBy(pipelines.createdAt, pipelines.id),
    after: cursorKey(page.cursor),
    limit: page.limit,
  });
  const full = new Map((await withStages(db, rows.items)).map((p) => [p.id, p]));
  return mapPage(rows, (r) => full.get(r.id)!);
}

/** What is wrong with a stage list as a whole: its size, no open stage, a name or id twice. */
export function stageListProblems(stages: ReadonlyArray<StageInput>, pointer = '/stages'): FieldError[] {
  const problems: FieldError[] = [];
  if (stages.length < 1 || stages.length > STAGES_MAX) problems.push({ pointer, message: `a pipeline has 1 to ${STAGES_MAX} stages` });
  if (stages.length > 0 && !stages.some((s) => s.kind === 'open'))
    problems.push({ pointer, message: 'a pipeline needs at least one open stage' });
  const names = new Map<string, number>();
  const ids = new Set<string>();
  stages.forEach((stage, i) => {
    const key = stage.name.trim().toLowerCase();
    if (names.has(key)) problems.push({ pointer: `${pointer}/${i}/name`, message: `the name of stage ${names.get(key)} too` });
    else names.set(key, i);
    if (stage.id !== undefined) {
      const id = stage.id.toLowerCase();
      if (ids.has(id)) problems.push({ pointer: `${pointer}/${i}/id`, message: 'listed twice' });
      ids.add(id);
    }
  });
  return problems;
}

/** The `invalid` refusal naming every field at fault. */
export function refuse(problems: FieldError[]): never {
  throw invalid(problems.map((p) => `${p.pointer.slice(1)}: ${p.message}`).join('; '), problems);
}

/** Makes the pipeline the organization's default, and no other (the organization's pipelines held). */
async function makeDefault(tx: Executor, organizationId: string, pipelineId: string, now: Date): Promise<void> {
  await lockOrganizationPipelines(tx, organizationId);
  await tx
    .update(pipelines)
    .set({ isDefault: false, updatedAt: now })
    .where(and(eq(pipelines.organizationId, organizationId), eq(pipelines.isDefault, true), ne(pipelines.id, pipelineId)));
  await tx
    .update(pipelines)
    .set({ isDefault: true, updatedAt: now })
    .where(and(eq(pipelines.id, pipelineId), eq(pipelines.organizationId, organizationId)));
}

/** Creates a pipeline with its stages in the order given; the default when is_default (then no other is). */
export async function createPipeline(
  { db, clock }: PipelineDeps,
  actor: Actor,
  input: { name: string; stages: Array<Omit<StageInput, 'id'>>; isDefault?: boolean },
): Promise<PipelineWithStages> {
  const problems = stageListProblems(input.stages);
  if (problems.length > 0) refuse(problems);
  const org = actor.organizationId;
  return db.transaction(async (tx) => {
    const now = clock.now();
    const id = uuidv7();
    await tx.insert(pipelines).values({ id, organizationId: org, name: input.name, isDefault: false, createdAt: now, updatedAt: now });
    await tx.insert(pipelineStages).values(
      input.stages.map((s, position) => ({
        id: uuidv7(),
        organizationId: org,
        pipelineId: id,
        name: s.name,
        probability: s.probability,
        kind: s.kind,
        position,
        createdAt: now,
        updatedAt: now,
      })),
    );
    if (input.isDefault) await makeDefault(tx, org, id, now);
    const row = await loadPipelineRow(tx, org, id);
    return (await withStages(tx, [row!]))[0]!;
  });
}

/** How many deals each of the stages holds (the stages that hold none are left out). */
export async function dealCounts(db: Executor, organizationId: string, stageIds: string[]): Promise<Map<string, number>> {
  if (stageIds.length === 0) return new Map();
  const rows = await db
    .select({ stageId: deals.stageId, n: count() })
    .from(deals)
    .where(and(eq(deals.organizationId, organizationId), inArray(deals.stageId, stageIds)))
    .groupBy(deals.stageId);
  return new Map(rows.map((r) => [r.stageId, Number(r.n)]));
}

/** Rewrites the pipeline's stages to the list: kept (by id) and changed, added, and those left out removed (when empty). */
export async function replaceStages(tx: Executor, pipeline: PipelineWithStages, list: StageInput[], now: Date): Promise<void> {
  const problems = stageListProblems(list);
  const existing = new Map(pipeline.stages.map((s) => [s.id, s]));
  list.forEach((s, i) => {
    if (s.id !== undefined && !existing.has(s.id.toLowerCase()))
      problems.push({ pointer: `/stages/${i}/id`, message: 'not a stage of this pipeline (leave id out for a new stage)' });
  });
  const kept = new Set(list.flatMap((s) => (s.id === undefined ? [] : [s.id.toLowerCase()])));
  const removed = pipeline.stages.filter((s) => !kept.has(s.id));
  const holding = await dealCounts(
    tx,
    pipeline.organizationId,
    removed.map((s) => s.id),
  );
  for (const stage of removed) {
    const n = holding.get(stage.id);
    if (n)
      problems.push({
        pointer: '/stages',
        message: `stage "${stage.name}" (${stage.id}) holds ${n} deal${n === 1 ? '' : 's'}: keep it in the list, or delete it with DELETE /v1/pipelines/${pipeline.id}/stages/${stage.id}?move_deals_to=<a stage id>`,
      });
  }
  if (problems.length > 0) refuse(problems);
  if (removed.length > 0)
    await tx.delete(pipelineStages).where(
      inArray(
        pipelineStages.id,
        removed.map((s) => s.id),
      ),
    );
  for (const [position, stage] of list.entries()) {
    const values = { name: stage.name, probability: stage.probability, kind: stage.kind, position };
    const current = stage.id === undefined ? undefined : existing.get(stage.id.toLowerCase());
    if (!current) {
      await tx.insert(pipelineStages).values({
        id: uuidv7(),
        organizationId: pipeline.organizationId,
        pipelineId: pipeline.id,
        ...values,
        createdAt: now,
        updatedAt: now,
      });
    } else if (
      current.name !== values.name ||
      current.probability !== values.probability ||
      current.kind !== values.kind ||
      current.position !== position
    ) {
      await tx
        .update(pipelineStages)
        .set({ ...values, updatedAt: now })
        .where(eq(pipelineStages.id, current.id));
    }
  }
}

/**
 * Changes the name, makes the pipeline the default, or rewrites its stage list (the full list in
 * order: a stage with its id is kept, renamed and moved, one without is added, one left out is removed
 * when it holds no deals). A pipeline stops being the default only by another becoming it.
 */
export async function updatePipeline(
  { db, clock }: PipelineDeps,
  actor: Actor,
  input: { pipelineId: string; name?: string; isDefault?: boolean; stages?: StageInput[] },
): Promise<PipelineWithStages> {
  const org = actor.organizationId;
  return db.transaction(async (tx) => {
    const pipeline = await lockPipeline(tx, org, input.pipelineId);
    const now = clock.now();
    if (input.isDefault === false && pipeline.isDefault)
      refuse([
        {
          pointer: '/is_default',
          message: 'the default pipeline stops being it when another becomes it: PATCH that one with is_default true',
        },
      ]);
    if (input.stages !== undefined) await replaceStages(tx, pipeline, input.stages, now);
    if (input.isDefault === true && !pipeline.isDefault) await makeDefault(tx, org, pipeline.id, now);
    if ((input.name !== undefined && input.name !== pipeline.name) || input.stages !== undefined)
      await tx
        .update(pipelines)
        .set({ name: input.name ?? pipeline.name, updatedAt: now })
        .where(eq(pipelines.id, pipeline.id));
    const row = await loadPipelineRow(tx, org, pipeline.id);
    return (await withStages(tx, [row!]))[0]!;
  });
}

/**
 * The stage a deleted stage's or pipeline's deals move to: a stage of the organization, of the same
 * pipeline (`within`) or of another one (`outside`); held so that it is not deleted meanwhile.
 */
export async function targetStage(
  tx: Executor,
  organizationId: string,
  stageId: string,
  rule: { within: string } | { outside: string },
): Promise<StageRow> {
  const bad = (message: string): never => refuse([{ pointer: '/move_deals_to', message }]);
  const [row] = isUuid(stageId)
    ? await tx
        .select()
        .from(pipelineStages)
        .where(and(eq(pipelineStages.id, stageId.toLowerCase()), eq(pipelineStages.organizationId, organizationId)))
        .limit(1)
        .for('key share')
    : [];
  if (!row) return bad('not a stage of this organization');
  if ('within' in rule && row.pipelineId !== rule.within) return bad('not a stage of this pipeline');
  if ('outside' in rule && row.pipelineId === rule.outside) return bad('a stage of another pipeline (this one is being deleted)');
  return row;
}

/**
 * Deletes a pipeline with its stages. One that holds deals needs move_deals_to: a stage of another
 * pipeline, where they go (each with crm.deal.stage_changed). The default pipeline is not deleted.
 */
export async function deletePipeline(
  { db, clock }: PipelineDeps,
  actor: Actor,
  input: { pipelineId: string; moveDealsTo?: string },
): Promise<{ movedDeals: number }> {
  const org = actor.organizationId;
  return db.transaction(async (tx) => {
    const pipeline = await lockPipeline(tx, org, input.pipelineId);
    if (pipeline.isDefault) throw conflict('the default pipeline cannot be deleted: make another pipeline the default first');
    const stageIds = pipeline.stages.map((s) => s.id);
    const holding = [...(await dealCounts(tx, org, stageIds)).values()].reduce((a, b) => a + b, 0);
    let movedDeals = 0;
    if (input.moveDealsTo !== undefined) {
      const target = await targetStage(tx, org, input.moveDealsTo, { outside: pipeline.id });
      movedDeals = await moveStageDeals(tx, org, {
        fromStageIds: stageIds,
        to: { pipelineId: target.pipelineId, stageId: target.id, stageName: target.name },
        now: clock.now(),
        by: changedBy(actor),
      });
    } else if (holding > 0) {
      refuse([
        {
          pointer: '/move_deals_to',
          message: `the pipeline holds ${holding} deal${holding === 1 ? '' : 's'}: name a stage of another pipeline to move them to`,
        },
      ]);
    }
    await tx.delete(pipelines).where(and(eq(pipelines.id, pipeline.id), eq(pipelines.organizationId, org)));
    return { movedDeals };
  });
}
