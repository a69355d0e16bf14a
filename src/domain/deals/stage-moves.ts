/**
 * Deals entering stages: the stage history rows of a move (the open row closed, a new one opened), and
 * the move of every deal of some stages at once (a stage or pipeline deleted with move_deals_to), with
 * its events. The single deal's own change is deals.ts's; this file knows no pipeline rules.
 */
import { and, asc, eq, inArray, isNull, sql } from 'drizzle-orm';
import { batchIds, batchRows } from '../../db/batch-rows.ts';
import type { Executor } from '../../db/client.ts';
import { deals, dealStageHistory } from '../../db/schema.ts';
import { uuidv7 } from '../../lib/ids.ts';
import type { ChangedBy } from '../crm/records.ts';
import { recordEvents, type NewEvent } from '../events/outbox.ts';

/** The stage a deal enters, with its name as the history keeps it. */
export type StageRef = { pipelineId: string; stageId: string; stageName: string };

/** Closes the deals' open history rows and opens one in the stage for each, at `now`. */
export async function enterStage(
  tx: Executor,
  organizationId: string,
  dealIds: string[],
  to: StageRef,
  now: Date,
  by: ChangedBy,
): Promise<void> {
  if (dealIds.length === 0) return;
  await tx
    .update(dealStageHistory)
    .set({ leftAt: now })
    .where(and(inArray(dealStageHistory.dealId, batchIds(dealIds)), isNull(dealStageHistory.leftAt)));
  const rows = dealIds.map((dealId) => ({ id: uuidv7(), deal_id: dealId }));
  await tx.execute(sql`
    insert into deal_stage_history (id, organization_id, deal_id, pipeline_id, stage_id, stage_name, entered_at, changed_by_type, changed_by_id, changed_by_user_id)
    select h.id, ${organizationId}, h.deal_id, ${to.pipelineId}, ${to.stageId}, ${to.stageName}, ${now.toISOString()}::timestamptz,
           ${by.type}, ${by.id}, ${by.userId}::uuid
      from ${batchRows(JSON.stringify(rows), 'h', 'id uuid, deal_id uuid')}`);
}

/** The events of a deal's move: the record changed, and its stage. */
export function stageMoveEvents(
  organizationId: string,
  deal: { id: string; name: string },
  fromStageId: string,
  to: StageRef,
  options: { recordUpdated?: boolean } = {},
): NewEvent[] {
  return [
    ...(options.recordUpdated === false
      ? []
      : [
          {
            type: 'crm.record.updated' as const,
            body: { object_kind: 'deal', record_id: deal.id, display_name: deal.name, organization_id: organizationId },
          },
        ]),
    {
      type: 'crm.deal.stage_changed',
      body: {
        deal_id: deal.id,
        pipeline_id: to.pipelineId,
        from_stage_id: fromStageId,
        to_stage_id: to.stageId,
        organization_id: organizationId,
      },
    },
  ];
}

/**
 * Moves every deal of the stages to another stage (of the same pipeline or another): each gets a
 * history row and crm.record.updated + crm.deal.stage_changed. The caller holds the stages locked, so no
 * deal enters them meanwhile; the deals are locked here. Returns how many moved.
 */
export async function moveStageDeals(
  tx: Executor,
  organizationId: string,
  input: { fromStageIds: string[]; to: StageRef; now: Date; by: ChangedBy },
): Promise<number> {
  const { fromStageIds, to, now, by } = input;
  if (fromStageIds.length === 0) return 0;
  const moving = await tx
    .select({ id: deals.id, name: deals.name, stageId: deals.stageId })
    .from(deals)
    .where(and(eq(deals.organizationId, organizationId), inArray(deals.stageId, fromStageIds)))
    .orderBy(asc(deals.id))
    .for('update');
  if (moving.length === 0) return 0;
  const ids = moving.map((d) => d.id);
  await tx
    .update(deals)
    .set({ pipelineId: to.pipelineId, stageId: to.stageId, stageEnteredAt: now, updatedAt: now })
    .where(and(eq(deals.organizationId, organizationId), inArray(deals.id, batchIds(ids))));
  await enterStage(tx, organizationId, ids, to, now, by);
  await recordEvents(
    tx,
    organizationId,
    moving.flatMap((d) => stageMoveEvents(organizationId, d, d.stageId, to)),
  );
  return moving.length;
}
