/**
 * What starts a rule. Events: the webhook dispatcher sequences every committed event and, in the same
 * transaction, hands the batch to enqueueAutomationEvents, which enqueues one `automations.event` job
 * per event that may trigger a rule of its organization (a customer's message, a status change, a
 * label added; never one an automation's own action recorded). The job works out the triggers that
 * apply and runs each enabled rule once per event (runs.ts). So nothing is lost (the job is written
 * with the event's position) and nothing is done twice (the run is unique per rule and event).
 * No reply: the `automations.no-reply` job sweeps every minute for conversations whose customer has
 * waited a rule's minutes without an answer.
 */
import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import { queryRows, type Executor } from '../../db/client.ts';
import { automationRules, events } from '../../db/schema.ts';
import type { Queue } from '../../jobs/queue.ts';
import type { Logger } from '../../lib/logger.ts';
import type { SequencedEvent } from '../webhooks/dispatch.ts';
import type { ActionDeps } from './actions.ts';
import { loadConversationContext, loadMessageText, type RunContext } from './evaluate.ts';
import { ruleParts, type AutomationRuleRow, type TriggerType } from './rules.ts';
import { executeRun } from './runs.ts';

/** The triggers an event of a type may start, before its details are looked at. */
function candidateTriggers(event: Pick<SequencedEvent, 'type' | 'payload' | 'automation_rule_id'>): TriggerType[] {
  if (event.automation_rule_id !== null) return [];
  const p = event.payload;
  switch (event.type) {
    case 'message.new':
      return p.direction === 'inbound' ? ['message_received', 'conversation_created', 'broadcast_reply'] : [];
    case 'conversation.status_changed':
      return p.status !== p.previous_status ? ['status_changed'] : [];
    case 'conversation.labels_changed':
      return Array.isArray(p.added) && p.added.length > 0 ? ['label_added'] : [];
    default:
      return [];
  }
}

/** The dispatcher's hook: one `automations.event` job per event that may start an enabled rule of its organization. */
export function createAutomationEventHook(deps: { queue: Queue }) {
  return async (tx: Executor, sequenced: SequencedEvent[]): Promise<void> => {
    const candidates = sequenced.flatMap((e) => {
      const triggers = candidateTriggers(e);
      return triggers.length > 0 ? [{ event: e, triggers }] : [];
    });
    if (candidates.length === 0) return;
    const orgs = [...new Set(candidates.map((c) => c.event.organization_id))];
    const rules = await tx
      .selectDistinct({ organizationId: automationRules.organizationId, trigger: automationRules.trigger })
      .from(automationRules)
      .where(and(inArray(automationRules.organizationId, orgs), eq(automationRules.enabled, true)));
    const wanted = new Set(rules.map((r) => `${r.organizationId}:${r.trigger}`));
    for (const { event, triggers } of candidates) {
      if (triggers.some((t) => wanted.has(`${event.organization_id}:${t}`)))
        await deps.queue.enqueue(tx, 'automations.event', { event_id: event.id }, { singletonKey: event.id });
    }
  };
}

type EventRow = { id: string; organization_id: string; type: string; payload: Record<string, unknown>; automation_rule_id: string | null };

/** The triggers that apply to the event, with what a run sees. */
async function triggersOf(db: Executor, event: EventRow): Promise<{ types: TriggerType[]; status?: string; context: RunContext } | null> {
  const candidates = candidateTriggers(event);
  if (candidates.length === 0) return null;
  const org = event.organization_id;
  const conversationId = String(event.payload.conversation_id ?? '');
  const conversation = conversationId ? await loadConversationContext(db, org, conversationId) : null;
  if (!conversation) return null;
  if (event.type !== 'message.new')
    return {
      types: candidates,
      status: typeof event.payload.status === 'string' ? event.payload.status : undefined,
      context: { organizationId: org, conversation, text: null, messageId: null },
    };
  const messageId = String(event.payload.message_id);
  const text = await loadMessageText(db, org, messageId);
  const [facts] = await queryRows<{ first: boolean; broadcast: boolean }>(
    db,
    sql`select
          not exists (select 1 from messages o where o.conversation_id = m.conversation_id and o.id <> m.id
                       and (o.created_at, o.id) < (m.created_at, m.id)) as first,
          coalesce((select o.broadcast_id is not null from messages o
                     where o.conversation_id = m.conversation_id and o.direction = 'outbound' and (o.created_at, o.id) < (m.created_at, m.id)
                     order by o.created_at desc, o.id desc limit 1), false) as broadcast
        from messages m where m.id = ${messageId}`,
  );
  const types: TriggerType[] = ['message_received'];
  if (facts?.first) types.push('conversation_created');
  if (facts?.broadcast) types.push('broadcast_reply');
  return { types, context: { organizationId: org, conversation, text, messageId } };
}

/** Rules of the organization that are enabled with one of the triggers, oldest first. */
async function enabledRules(db: Executor, organizationId: string, triggers: TriggerType[]): Promise<AutomationRuleRow[]> {
  return db
    .select()
    .from(automationRules)
    .where(
      and(
        eq(automationRules.organizationId, organizationId),
        eq(automationRules.enabled, true),
        inArray(automationRules.trigger, triggers),
      ),
    )
    .orderBy(asc(automationRules.createdAt), asc(automationRules.id));
}

/**
 * The `automations.event` job: runs every enabled rule the event triggers, each once. A rule that
 * fails for something other than a refusal (the database away) does not stop the others; the job
 * then fails and its retry runs what is left.
 */
export async function runAutomationsForEvent(deps: ActionDeps & { logger?: Pick<Logger, 'warn'> }, eventId: string): Promise<void> {
  const [event] = await deps.db
    .select({
      id: events.id,
      organization_id: events.organizationId,
      type: events.type,
      payload: events.payload,
      automation_rule_id: events.automationRuleId,
    })
    .from(events)
    .where(eq(events.id, eventId))
    .limit(1);
  if (!event) return;
  const found = await triggersOf(deps.db, event);
  if (!found) return;
  let failure: unknown;
  for (const rule of await enabledRules(deps.db, event.organization_id, found.types)) {
    const { trigger } = ruleParts(rule);
    if (trigger.status !== undefined && trigger.status !== found.status) continue;
    try {
      await executeRun(deps, rule, { type: trigger.type, key: event.id, eventId: event.id, context: found.context });
    } catch (err) {
      deps.logger?.warn({ err, rule_id: rule.id, event_id: event.id }, 'an automation run failed; its job will retry it');
      failure ??= err;
    }
  }
  if (failure) throw failure;
}

/** Conversations looked at per rule and sweep. */
const NO_REPLY_BATCH = 100;

/**
 * The `automations.no-reply` job: for each enabled no_reply rule, the open or pending conversations
 * whose customer's last message is at least the rule's minutes old with no outbound message after
 * it, and whose wait ended after the rule was made (a new rule does not act on old conversations).
 * Each runs once per customer message (the trigger key names it). Answers the runs made.
 */
export async function sweepNoReply(deps: ActionDeps & { logger?: Pick<Logger, 'warn'> }): Promise<number> {
  const now = deps.clock.now();
  const rules = await deps.db
    .select()
    .from(automationRules)
    .where(and(eq(automationRules.trigger, 'no_reply'), eq(automationRules.enabled, true)))
    .orderBy(asc(automationRules.createdAt), asc(automationRules.id));
  let runs = 0;
  for (const rule of rules) {
    const minutes = rule.triggerMinutes ?? 60;
    const due = await queryRows<{ id: string; waited_since: string }>(
      deps.db,
      sql`select c.id, to_char(c.last_inbound_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as waited_since
            from conversations c
           where c.organization_id = ${rule.organizationId}
             and c.status in ('open', 'pending')
             and c.last_inbound_at <= ${now.toISOString()}::timestamptz - make_interval(mins => ${minutes})
             and c.last_inbound_at + make_interval(mins => ${minutes}) >= ${rule.createdAt.toISOString()}::timestamptz
             and not exists (select 1 from messages m where m.conversation_id = c.id and m.direction = 'outbound'
                              and m.created_at > c.last_inbound_at)
             and not exists (select 1 from automation_runs r where r.rule_id = ${rule.id}
                              and r.trigger_key = 'no_reply:' || c.id || ':' || to_char(c.last_inbound_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))
           order by c.last_inbound_at
           limit ${NO_REPLY_BATCH}`,
    );
    for (const row of due) {
      const conversation = await loadConversationContext(deps.db, rule.organizationId, row.id);
      if (!conversation) continue;
      try {
        await executeRun(deps, rule, {
          type: 'no_reply',
          key: `no_reply:${row.id}:${row.waited_since}`,
          eventId: null,
          context: { organizationId: rule.organizationId, conversation, text: null, messageId: null },
        });
        runs++;
      } catch (err) {
        deps.logger?.warn(
          { err, rule_id: rule.id, conversation_id: row.id },
          'a no-reply automation run failed; the next sweep retries it',
        );
      }
    }
  }
  return runs;
}
