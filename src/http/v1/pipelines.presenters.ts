/** The pipelines routes' records (pipelines.ts): the presenters of pipelines, stages and the board, typed from the response schemas. */
import type { z } from 'zod';
import type { Board } from '../../domain/deals/board.ts';
import type { PipelineRow, PipelineWithStages, StageKind, StageRow } from '../../domain/pipelines/pipelines.ts';
import { presentDeal } from './deals.presenters.ts';
import type { BoardSchema, PipelineSchema, StageSchema } from './pipelines.ts';

export type StageRecord = z.infer<typeof StageSchema>;
export type PipelineRecord = z.infer<typeof PipelineSchema>;
export type BoardRecord = z.infer<typeof BoardSchema>;

export function presentStage(row: StageRow): StageRecord {
  return { id: row.id, name: row.name, probability: row.probability, kind: row.kind as StageKind, position: row.position };
}

export function presentPipeline(row: PipelineWithStages): PipelineRecord {
  return {
    id: row.id,
    name: row.name,
    is_default: row.isDefault,
    stages: row.stages.map(presentStage),
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

const pipelineRef = (row: PipelineRow) => ({ id: row.id, name: row.name, is_default: row.isDefault });

export function presentBoard(board: Board): BoardRecord {
  return {
    pipeline: pipelineRef(board.pipeline),
    stages: board.stages.map((s) => ({
      ...presentStage(s.stage),
      deal_count: s.dealCount,
      totals: s.totals.map((t) => ({ currency: t.currency, deal_count: t.dealCount, amount: t.amount, weighted_amount: t.weightedAmount })),
      deals: s.deals.map(presentDeal),
      next_cursor: s.nextCursor,
    })),
  };
}
