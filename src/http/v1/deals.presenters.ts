/** The deals routes' records (deals.ts): the presenters of deals and their stage history, typed from the response schemas. */
import type { z } from 'zod';
import type { StageHistoryRow } from '../../domain/deals/list.ts';
import type { DealView } from '../../domain/deals/records.ts';
import { presentChangedBy } from './crm.presenters.ts';
import type { DealSchema, StageChangeSchema } from './deals.ts';

export type DealRecord = z.infer<typeof DealSchema>;
export type StageChangeRecord = z.infer<typeof StageChangeSchema>;

export function presentDeal(row: DealView): DealRecord {
  return {
    id: row.id,
    name: row.name,
    amount: row.amount,
    currency: row.currency,
    pipeline_id: row.pipelineId,
    stage_id: row.stageId,
    status: row.status,
    probability: row.probability,
    expected_close_date: row.expectedCloseDate,
    owner_user_id: row.ownerUserId,
    company_id: row.companyId,
    contact_ids: row.contactIds,
    conversation_id: row.conversationId,
    custom_fields: row.customFields,
    stage_entered_at: row.stageEnteredAt.toISOString(),
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

export function presentStageChange(row: StageHistoryRow & { currentStageName: string | null }): StageChangeRecord {
  return {
    id: row.id,
    pipeline_id: row.pipelineId,
    stage_id: row.stageId,
    stage_name: row.currentStageName ?? row.stageName,
    entered_at: row.enteredAt.toISOString(),
    left_at: row.leftAt?.toISOString() ?? null,
    changed_by: presentChangedBy(row.changedByType, row.changedById, row.changedByUserId),
  };
}
