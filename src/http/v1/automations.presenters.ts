/** The automation routes' records (automations.ts), typed from the response schemas. */
import type { z } from 'zod';
import { ruleParts, type AutomationRuleRow } from '../../domain/automations/rules.ts';
import type { AutomationRunRow } from '../../domain/automations/runs.ts';
import type { AutomationRuleSchema, AutomationRunSchema } from './automations.ts';

export type AutomationRuleRecord = z.infer<typeof AutomationRuleSchema>;
export type AutomationRunRecord = z.infer<typeof AutomationRunSchema>;

export function presentRule(row: AutomationRuleRow): AutomationRuleRecord {
  const { trigger, conditions, actions } = ruleParts(row);
  return {
    id: row.id,
    name: row.name,
    enabled: row.enabled,
    trigger,
    conditions,
    actions,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

export function presentRun(row: AutomationRunRow): AutomationRunRecord {
  return {
    id: row.id,
    rule_id: row.ruleId,
    trigger: row.trigger,
    event_id: row.eventId,
    conversation_id: row.conversationId,
    message_id: row.messageId,
    status: row.status as AutomationRunRecord['status'],
    matched: row.matched,
    conditions: row.conditions as AutomationRunRecord['conditions'],
    actions: row.actions as AutomationRunRecord['actions'],
    automated_messages: row.automatedMessages,
    created_at: row.createdAt.toISOString(),
    finished_at: row.finishedAt?.toISOString() ?? null,
  };
}
