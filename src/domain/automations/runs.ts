/**
 * A rule's runs: one per (rule, trigger), kept as the run log. A run records whether the conditions
 * held and, action by action, what was done; a retried job finds its run and goes on after the last
 * action recorded (a run already finished is left as it is). A dry run evaluates the same way and
 * does nothing.
 */
import { and, eq, sql } from 'drizzle-orm';
import { queryRows } from '../../db/client.ts';
import { listPage, newestFirstBy } from '../../db/list-query.ts';
import type { Page, PageResult } from '../../db/paginate.ts';
import { automationRuns } from '../../db/schema.ts';
import { isUuid, uuidv7 } from '../../lib/ids.ts';
import type { Actor } from '../actor.ts';
import { invalid } from '../errors.ts';
import { recordEvent } from '../events/outbox.ts';
import { asAutomation } from '../events/origin.ts';
import { cursorKey } from '../paging.ts';
import { AUTOMATED_MESSAGES_PER_HOUR, describeAction, performAction, type ActionDeps, type ActionOutcome } from './actions.ts';
import {
  automatedMessagesLastHour,
  evaluateConditions,
  loadConversationContext,
  loadMessageText,
  type ConditionResult,
  type RunContext,
} from './evaluate.ts';
import { loadRule, ruleParts, type AutomationRuleRow, type TriggerType } from './rules.ts';

export type AutomationRunRow = typeof automationRuns.$inferSelect;

export type RunTrigger = {
  type: TriggerType;
  /** Unique per rule: the event's id, or `no_reply:<conversation>:<time of the customer's message>`. */
  key: string;
  eventId: string | null;
  context: RunContext;
};

/**
 * Runs a rule for a trigger once: the run row is made first (unique per rule and trigger key); a
 * retry finds it and does only what is not recorded yet. Answers the run as it ends.
 */
export async function executeRun(deps: ActionDeps, rule: AutomationRuleRow, trigger: RunTrigger): Promise<AutomationRunRow> {
  const now = deps.clock.now();
  const { context } = trigger;
  const [created] = await deps.db
    .insert(automationRuns)
    .values({
      id: uuidv7(),
      organizationId: rule.organizationId,
      ruleId: rule.id,
      triggerKey: trigger.key,
      trigger: trigger.type,
      eventId: trigger.eventId,
      conversationId: context.conversation?.id ?? null,
      messageId: context.messageId,
      status: 'running',
      conditions: [],
      actions: [],
      createdAt: now,
    })
    .onConflictDoNothing()
    .returning();
  let run =
    created ??
    (
      await deps.db
        .select()
        .from(automationRuns)
        .where(and(eq(automationRuns.ruleId, rule.id), eq(automationRuns.triggerKey, trigger.key)))
        .limit(1)
    )[0]!;
  if (run.status === 'done') return run;
  const { conditions, actions } = ruleParts(rule);
  if (run.matched === null) {
    const results = await evaluateConditions(deps, context, conditions);
    const matched = results.every((r) => r.matched);
    const [evaluated] = await deps.db
      .update(automationRuns)
      .set({ matched, conditions: results, ...(matched ? {} : { status: 'done', finishedAt: deps.clock.now() }) })
      .where(eq(automationRuns.id, run.id))
      .returning();
    run = evaluated!;
    if (!matched) return run;
  }
  const done = new Set((run.actions as ActionOutcome[]).map((a) => a.index));
  for (const [index, action] of actions.entries()) {
    if (done.has(index)) continue;
    const outcome = await asAutomation(rule.id, () =>
      performAction(deps, rule, { id: run.id, trigger: trigger.type }, context, action, index),
    );
    await deps.db
      .update(automationRuns)
      .set({ actions: sql`${automationRuns.actions} || ${JSON.stringify([outcome])}::jsonb` })
      .where(eq(automationRuns.id, run.id));
  }
  return deps.db.transaction(async (tx) => {
    const [finished] = await tx
      .update(automationRuns)
      .set({ status: 'done', finishedAt: deps.clock.now() })
      .where(and(eq(automationRuns.id, run.id), eq(automationRuns.status, 'running')))
      .returning();
    if (!finished) return (await tx.select().from(automationRuns).where(eq(automationRuns.id, run.id)))[0]!;
    const outcomes = finished.actions as ActionOutcome[];
    await recordEvent(
      tx,
      rule.organizationId,
      'automation.run',
      {
        rule_id: rule.id,
        run_id: finished.id,
        trigger: finished.trigger,
        conversation_id: finished.conversationId,
        actions_done: outcomes.filter((o) => o.status === 'done').length,
        actions_failed: outcomes.filter((o) => o.status === 'failed').length,
        organization_id: rule.organizationId,
      },
      deps.clock.now(),
    );
    return finished;
  });
}

/** A rule's run log, newest first. */
export async function listRuns(
  deps: Pick<ActionDeps, 'db'>,
  actor: Actor,
  ruleId: string,
  page: Page,
): Promise<PageResult<AutomationRunRow>> {
  const rule = await loadRule(deps.db, actor, ruleId);
  return listPage(deps.db.select().from(automationRuns).$dynamic(), {
    where: [eq(automationRuns.ruleId, rule.id), eq(automationRuns.organizationId, actor.organizationId)],
    order: newestFirstBy(automationRuns.createdAt, automationRuns.id),
    after: cursorKey(page.cursor),
    limit: page.limit,
  });
}

export type DryRunInput = { conversationId?: string; message?: { text: string } };
export type DryRunResult = {
  matched: boolean;
  conditions: ConditionResult[];
  actions: Array<{ index: number; type: string; would?: string; skipped?: string }>;
};

/**
 * What the rule would do for a conversation (its last customer message, or the sample's text) or a
 * sample message alone: each condition's result and each action's plan. Nothing is done or recorded.
 */
export async function dryRun(
  deps: Pick<ActionDeps, 'db' | 'clock'>,
  actor: Actor,
  ruleId: string,
  input: DryRunInput,
): Promise<DryRunResult> {
  const rule = await loadRule(deps.db, actor, ruleId);
  const org = actor.organizationId;
  if (input.conversationId === undefined && input.message === undefined)
    throw invalid('give conversation_id, message or both', [{ pointer: '/conversation_id', message: 'required without message' }]);
  let conversation: RunContext['conversation'] = null;
  let text: string | null = input.message?.text ?? null;
  let messageId: string | null = null;
  if (input.conversationId !== undefined) {
    conversation = isUuid(input.conversationId) ? await loadConversationContext(deps.db, org, input.conversationId.toLowerCase()) : null;
    if (!conversation)
      throw invalid('conversation_id is not a conversation of the organization', [{ pointer: '/conversation_id', message: 'not found' }]);
    if (text === null) {
      const lastInbound = await lastInboundMessage(deps, org, conversation.id);
      if (lastInbound) {
        messageId = lastInbound;
        text = await loadMessageText(deps.db, org, lastInbound);
      }
    }
  }
  const context: RunContext = { organizationId: org, conversation, text, messageId };
  const { conditions, actions } = ruleParts(rule);
  const results = await evaluateConditions(deps, context, conditions);
  let guardLeft = conversation
    ? AUTOMATED_MESSAGES_PER_HOUR - (await automatedMessagesLastHour(deps.db, conversation.id, deps.clock.now()))
    : AUTOMATED_MESSAGES_PER_HOUR;
  return {
    matched: results.every((r) => r.matched),
    conditions: results,
    actions: actions.map((action, index) => {
      const plan = describeAction(action, context);
      if ('would' in plan && action.type.startsWith('send_')) {
        if (guardLeft <= 0)
          return { index, type: action.type, skipped: 'loop guard: the conversation had its automated messages for this hour' };
        guardLeft -= 1;
      }
      return { index, type: action.type, ...plan };
    }),
  };
}

async function lastInboundMessage(deps: Pick<ActionDeps, 'db'>, organizationId: string, conversationId: string): Promise<string | null> {
  const [row] = await queryRows<{ id: string }>(
    deps.db,
    sql`select id from messages where conversation_id = ${conversationId} and organization_id = ${organizationId} and direction = 'inbound'
         order by created_at desc, id desc limit 1`,
  );
  return row?.id ?? null;
}
