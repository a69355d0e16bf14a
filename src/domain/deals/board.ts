/**
 * The board of a pipeline: its stages in order, each with its deal count, its amounts summed per
 * currency (and weighted by the stage's probability), and the first page of its deals, most recently
 * arrived in the stage first; a stage's next pages come from listStageDeals with the stage's cursor.
 * Three queries whatever the number of stages: the totals, the first pages (one lateral join), their contacts.
 */
import { and, count, eq, inArray, sql, type SQL } from 'drizzle-orm';
import { listPage, newestFirstBy, pageOf } from '../../db/list-query.ts';
import type { Page, PageResult } from '../../db/paginate.ts';
import { deals, pipelineStages } from '../../db/schema.ts';
import { isUuid } from '../../lib/ids.ts';
import type { Actor } from '../actor.ts';
import { ownerCondition } from '../crm/records.ts';
import { cursorKey } from '../paging.ts';
import { getPipeline, stageNotFound, type PipelineWithStages, type StageRow } from '../pipelines/pipelines.ts';
import { dealSelect, withContacts, type DealDeps, type DealView, type SelectedDeal } from './records.ts';

export type CurrencyTotal = { currency: string; dealCount: number; amount: number; weightedAmount: number };

export type BoardStage = {
  stage: StageRow;
  dealCount: number;
  /** Per currency, by code; deals without an amount count in dealCount only. */
  totals: CurrencyTotal[];
  deals: DealView[];
  nextCursor: string | null;
};

export type Board = { pipeline: PipelineWithStages; stages: BoardStage[] };

const boardKey = (r: SelectedDeal) => ({ t: r.deal.stageEnteredAt, id: r.deal.id });

/** amount × probability / 100, rounded half up, exact in integers. */
function weighted(amount: bigint, probability: number): number {
  return Number((amount * BigInt(probability) + 50n) / 100n);
}

export async function getBoard(
  { db }: DealDeps,
  actor: Actor,
  input: { pipelineId: string; limit: number; owner?: string },
): Promise<Board> {
  const org = actor.organizationId;
  const pipeline = await getPipeline({ db }, actor, { pipelineId: input.pipelineId });
  const owner = ownerCondition(actor, deals.ownerUserId, input.owner);
  const sums = await db
    .select({
      stageId: deals.stageId,
      currency: deals.currency,
      n: count(),
      amount: sql<string>`coalesce(sum(${deals.amount}), 0)::text`,
    })
    .from(deals)
    .where(and(eq(deals.organizationId, org), eq(deals.pipelineId, pipeline.id), owner))
    .groupBy(deals.stageId, deals.currency);
  // Each stage's first page (and one more row, to know there is a next): a lateral join over the stages.
  const firstPages: SQL = sql`(select page.id from ${pipelineStages} s cross join lateral (
      select ${deals.id} as id from ${deals}
       where ${deals.stageId} = s.id and ${deals.organizationId} = ${org} ${owner ? sql`and ${owner}` : sql``}
       order by ${deals.stageEnteredAt} desc, ${deals.id} desc
       limit ${input.limit + 1}) page
     where s.pipeline_id = ${pipeline.id})`;
  const rows = await dealSelect(db).where(and(eq(deals.organizationId, org), inArray(deals.id, firstPages)));
  const byStage = new Map<string, SelectedDeal[]>();
  for (const row of rows) byStage.set(row.deal.stageId, [...(byStage.get(row.deal.stageId) ?? []), row]);
  const pages = new Map(
    pipeline.stages.map((stage) => {
      const sorted = (byStage.get(stage.id) ?? []).sort(
        (a, b) => b.deal.stageEnteredAt.getTime() - a.deal.stageEnteredAt.getTime() || (a.deal.id < b.deal.id ? 1 : -1),
      );
      return [stage.id, pageOf(sorted, input.limit, boardKey)] as const;
    }),
  );
  const views = new Map(
    (
      await withContacts(
        db,
        [...pages.values()].flatMap((p) => p.items),
      )
    ).map((d) => [d.id, d]),
  );
  return {
    pipeline,
    stages: pipeline.stages.map((stage) => {
      const ofStage = sums.filter((s) => s.stageId === stage.id);
      const page = pages.get(stage.id)!;
      return {
        stage,
        dealCount: ofStage.reduce((n, s) => n + Number(s.n), 0),
        totals: ofStage
          .filter((s) => s.currency !== null)
          .map((s) => ({
            currency: s.currency!,
            dealCount: Number(s.n),
            amount: Number(s.amount),
            weightedAmount: weighted(BigInt(s.amount), stage.probability),
          }))
          .sort((a, b) => (a.currency < b.currency ? -1 : 1)),
        deals: page.items.map((r) => views.get(r.deal.id)!),
        nextCursor: page.nextCursor,
      };
    }),
  };
}

/** A stage's deals in board order (most recently arrived first), paged with the board's per-stage cursor. */
export async function listStageDeals(
  { db }: DealDeps,
  actor: Actor,
  input: { pipelineId: string; stageId: string; owner?: string } & Page,
): Promise<PageResult<DealView>> {
  const org = actor.organizationId;
  const pipeline = await getPipeline({ db }, actor, { pipelineId: input.pipelineId });
  const stage = isUuid(input.stageId) ? pipeline.stages.find((s) => s.id === input.stageId.toLowerCase()) : undefined;
  if (!stage) throw stageNotFound();
  const page = await listPage(dealSelect(db), {
    where: [eq(deals.organizationId, org), eq(deals.stageId, stage.id), ownerCondition(actor, deals.ownerUserId, input.owner)],
    order: newestFirstBy(deals.stageEnteredAt, deals.id),
    after: cursorKey(input.cursor),
    limit: input.limit,
    keyOf: boardKey,
  });
  return { items: await withContacts(db, page.items), nextCursor: page.nextCursor };
}
