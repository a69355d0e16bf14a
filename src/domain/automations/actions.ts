/**
 * A rule's actions, each through the domain function a person's request would call (so each records
 * its own events), as a system actor, inside asAutomation (events/origin.ts): every event they record
 * is marked as the rule's, and no rule triggers on it. A message is sent behind an idempotency key
 * per run and action, so a retried run sends nothing twice; the loop guard allows at most
 * AUTOMATED_MESSAGES_PER_HOUR automated messages per conversation per hour.
 */
import { and, desc, eq, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { automationRuns, conversations, dealContacts, deals } from '../../db/schema.ts';
import type { Clock } from '../../lib/clock.ts';
import type { Sealer } from '../../lib/crypto.ts';
import type { TargetPolicy } from '../../lib/safe-fetch.ts';
import type { Actor } from '../actor.ts';
import { renderCannedResponse } from '../canned-responses/canned-responses.ts';
import { updateContact } from '../contacts/contacts.ts';
import { updateDeal } from '../deals/deals.ts';
import { DomainError } from '../errors.ts';
import { addListEntries } from '../lists/lists.ts';
import { acceptMessageOnce, type MessageDeps, type SendInput } from '../messages/accept.ts';
import { updateConversation, type ConversationHooks } from '../messages/conversations.ts';
import { startBotSession } from '../bots/handoff.ts';
import { addConversationLabels } from '../messages/inbox-workflow.ts';
import { PERMISSIONS } from '../permissions.ts';
import { createTask } from '../tasks/tasks.ts';
import { sendWebhook } from '../webhooks/send.ts';
import { automatedMessagesLastHour, type RunContext } from './evaluate.ts';
import type { Action, AutomationRuleRow } from './rules.ts';

export const AUTOMATED_MESSAGES_PER_HOUR = 3;

export type ActionDeps = {
  db: Db;
  clock: Clock;
  sealer: Sealer;
  policy: TargetPolicy;
  messages: MessageDeps;
  webhookTimeoutMs: number;
  /** What a conversation change also does (the survey on resolving, the team queue): as the routes' changes. */
  conversationHooks?: ConversationHooks;
};

export type ActionOutcome = {
  index: number;
  type: Action['type'];
  /** done; skipped (nothing to act on, or the loop guard); failed (refused: error says why); not_available (kept for runs logged before bots existed). */
  status: 'done' | 'skipped' | 'failed' | 'not_available';
  detail?: string;
};

/** The system actor a rule acts as. */
export const automationActor = (organizationId: string): Actor => ({ kind: 'system', organizationId, permissions: new Set(PERMISSIONS) });

const isMessageAction = (a: Action) => a.type === 'send_text' || a.type === 'send_template' || a.type === 'send_canned_response';

/** What an action would do, for a dry run; null when it would be skipped (with why). */
export function describeAction(action: Action, context: RunContext): { would: string } | { skipped: string } {
  const conversation = context.conversation;
  if ((isMessageAction(action) || ['add_label', 'assign', 'set_status'].includes(action.type)) && !conversation)
    return { skipped: 'no conversation' };
  if (['set_contact_field', 'add_to_list', 'move_deal'].includes(action.type) && !conversation?.contactId) return { skipped: 'no contact' };
  switch (action.type) {
    case 'send_text':
      return { would: `send the text “${action.text.slice(0, 80)}”` };
    case 'send_template':
      return { would: `send the template ${String(action.template.name)}` };
    case 'send_canned_response':
      return { would: `send the canned response ${action.canned_response_id}, filled for the contact` };
    case 'add_label':
      return { would: `add the label ${action.label_id}` };
    case 'assign':
      return { would: action.user_id ? `assign to ${action.user_id}` : 'unassign' };
    case 'set_status':
      return { would: `set the status ${action.status}` };
    case 'set_contact_field':
      return { would: `set the contact’s ${action.field} to ${JSON.stringify(action.value)}` };
    case 'add_to_list':
      return { would: `add the contact to the list ${action.list_id}` };
    case 'create_task':
      return { would: `create the task “${action.title}”` };
    case 'move_deal':
      return { would: `move the deal to the stage ${action.stage_id}` };
    case 'call_webhook':
      return { would: `POST a signed call to ${action.url}` };
    case 'start_bot':
      return action.bot_id ? { would: `hand the conversation to the bot ${action.bot_id}` } : { skipped: 'no bot_id given' };
    default:
      return action satisfies never;
  }
}

/**
 * Reserves one automated message of the conversation's hour for the run, or answers false (the loop
 * guard). The conversation's row is locked meanwhile, so two runs at once cannot both take the last one.
 */
async function reserveMessage(deps: ActionDeps, runId: string, conversationId: string): Promise<boolean> {
  return deps.db.transaction(async (tx) => {
    await tx.select({ id: conversations.id }).from(conversations).where(eq(conversations.id, conversationId)).for('update');
    if ((await automatedMessagesLastHour(tx, conversationId, deps.clock.now())) >= AUTOMATED_MESSAGES_PER_HOUR) return false;
    await tx
      .update(automationRuns)
      .set({ automatedMessages: sql`${automationRuns.automatedMessages} + 1` })
      .where(eq(automationRuns.id, runId));
    return true;
  });
}

/** The deal an action moves: the conversation's own, else the contact's most recently changed one. */
async function dealOf(db: Db, organizationId: string, context: RunContext): Promise<string | null> {
  const conversation = context.conversation!;
  const [own] = await db
    .select({ id: deals.id })
    .from(deals)
    .where(and(eq(deals.organizationId, organizationId), eq(deals.conversationId, conversation.id)))
    .orderBy(desc(deals.updatedAt))
    .limit(1);
  if (own) return own.id;
  const [linked] = await db
    .select({ id: deals.id })
    .from(deals)
    .innerJoin(dealContacts, eq(dealContacts.dealId, deals.id))
    .where(and(eq(deals.organizationId, organizationId), eq(dealContacts.contactId, conversation.contactId!)))
    .orderBy(desc(deals.updatedAt))
    .limit(1);
  return linked?.id ?? null;
}

/**
 * Does one action of a run. A refusal of the domain (a DomainError) is the action's outcome `failed`;
 * anything else (the database away) is thrown, and the job's retry resumes the run at this action.
 */
export async function performAction(
  deps: ActionDeps,
  rule: AutomationRuleRow,
  run: { id: string; trigger: string },
  context: RunContext,
  action: Action,
  index: number,
): Promise<ActionOutcome> {
  const outcome = (status: ActionOutcome['status'], detail?: string): ActionOutcome => ({
    index,
    type: action.type,
    status,
    ...(detail ? { detail } : {}),
  });
  const plan = describeAction(action, context);
  if ('skipped' in plan) return outcome('skipped', plan.skipped);
  const actor = automationActor(rule.organizationId);
  const conversation = context.conversation;
  const workflow = { db: deps.db, clock: deps.clock, hooks: deps.conversationHooks };
  try {
    if (isMessageAction(action)) {
      if (!(await reserveMessage(deps, run.id, conversation!.id)))
        return outcome('skipped', `loop guard: ${AUTOMATED_MESSAGES_PER_HOUR} automated messages in this conversation in the last hour`);
      let content: Pick<SendInput, 'type' | 'content'>;
      if (action.type === 'send_text') content = { type: 'text', content: { body: action.text } };
      else if (action.type === 'send_template') content = { type: 'template', content: { template: action.template } };
      else {
        const rendered = await renderCannedResponse(workflow, actor, (action as { canned_response_id: string }).canned_response_id, {
          conversationId: conversation!.id,
        });
        content = { type: 'text', content: { body: rendered.body } };
      }
      const key = `parley:automation:${run.id}:${index}`;
      const sent = await acceptMessageOnce(deps.messages, actor, {
        channelId: conversation!.channelId,
        to: `+${conversation!.peerPhone}`,
        conversationId: conversation!.id,
        ...content,
        idempotency: { key, requestHash: key },
      });
      if (!sent.refusal) return outcome('done', `message ${sent.message.id}`);
      // Refused: nothing was sent, so the reservation is given back.
      await deps.db
        .update(automationRuns)
        .set({ automatedMessages: sql`${automationRuns.automatedMessages} - 1` })
        .where(eq(automationRuns.id, run.id));
      return outcome('failed', sent.refusal);
    }
    switch (action.type) {
      case 'add_label':
        await addConversationLabels(workflow, actor, conversation!.id, [action.label_id]);
        return outcome('done');
      case 'assign':
        await updateConversation(workflow, actor, { conversationId: conversation!.id, assigneeUserId: action.user_id });
        return outcome('done');
      case 'set_status':
        await updateConversation(workflow, actor, { conversationId: conversation!.id, status: action.status });
        return outcome('done');
      case 'set_contact_field': {
        const fields =
          action.field === 'name' || action.field === 'email'
            ? { [action.field]: action.value === null ? null : String(action.value) }
            : { customFields: { [action.field.slice('custom_fields.'.length)]: action.value } };
        await updateContact(workflow, actor, { contactId: conversation!.contactId!, fields });
        return outcome('done');
      }
      case 'add_to_list': {
        const { added } = await addListEntries(workflow, actor, { listId: action.list_id, recordIds: [conversation!.contactId!] });
        return outcome('done', added.length > 0 ? undefined : 'already in the list');
      }
      case 'create_task': {
        const due = action.due_in_minutes === undefined ? null : new Date(deps.clock.now().getTime() + action.due_in_minutes * 60_000);
        const task = await createTask(workflow, actor, {
          title: action.title,
          dueAt: due,
          assigneeUserId: action.assignee_user_id?.toLowerCase() ?? null,
          targets: conversation?.contactId ? [{ kind: 'contact', id: conversation.contactId }] : [],
        });
        return outcome('done', `task ${task.id}`);
      }
      case 'move_deal': {
        const dealId = await dealOf(deps.db, rule.organizationId, context);
        if (!dealId) return outcome('skipped', 'the conversation and its contact have no deal');
        await updateDeal(workflow, actor, { dealId, fields: { stageId: action.stage_id } });
        return outcome('done', `deal ${dealId}`);
      }
      case 'call_webhook': {
        const body = JSON.stringify({
          type: 'automation.webhook',
          rule_id: rule.id,
          run_id: run.id,
          trigger: run.trigger,
          conversation_id: conversation?.id ?? null,
          contact_id: conversation?.contactId ?? null,
          message_id: context.messageId,
          organization_id: rule.organizationId,
        });
        const secret = deps.sealer.open(rule.webhookSecretSealed);
        const sent = await sendWebhook(
          action.url,
          [secret],
          { id: `${run.id}:${index}`, type: 'automation.webhook', body },
          { clock: deps.clock, timeoutMs: deps.webhookTimeoutMs, policy: deps.policy },
        );
        return sent.succeeded
          ? outcome('done', `answered ${sent.statusCode}`)
          : outcome('failed', sent.error ?? `answered ${sent.statusCode}`);
      }
      case 'start_bot': {
        const session = await startBotSession(workflow, actor, conversation!.id, action.bot_id!);
        return outcome('done', `bot session ${session.id}`);
      }
      default:
        throw new Error(`unexpected action ${(action as { type: string }).type}`);
    }
  } catch (err) {
    if (err instanceof DomainError) return outcome('failed', err.message.slice(0, 300));
    throw err;
  }
}
