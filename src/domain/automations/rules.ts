/**
 * Automation rules (docs/automations.md): a name, enabled or not, a trigger, conditions that must all
 * hold, and actions run in order. The shapes are zod schemas (the routes' too); what they cannot say
 * (the records a rule names belong to the organization, a pattern compiles, a filter is one the
 * segments take, a URL is safe) is checked here on every write, each refusal naming its place.
 */
import { and, eq, inArray, sql, type SQL } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import { z } from 'zod';
import type { Executor } from '../../db/client.ts';
import { listPage, oldestFirstBy } from '../../db/list-query.ts';
import type { Page, PageResult } from '../../db/paginate.ts';
import { automationRules, cannedResponses, channels, conversationLabels, lists, memberships, pipelineStages } from '../../db/schema.ts';
import type { Clock } from '../../lib/clock.ts';
import type { Sealer } from '../../lib/crypto.ts';
import { isUuid, uuidv7 } from '../../lib/ids.ts';
import { assertSafeTarget, UnsafeTargetError, type TargetPolicy } from '../../lib/safe-fetch.ts';
import type { Actor } from '../actor.ts';
import { invalid, notFound, type FieldError } from '../errors.ts';
import { CONTENT_SCHEMAS } from '../messages/content.ts';
import { parseFilter, type FilterGroup } from '../segments/filter.ts';
import { cursorKey } from '../paging.ts';
import { generateSecret } from '../webhooks/signing.ts';
import { regexProblem, TEXT_OPS, TEXT_VALUE_MAX } from './text-match.ts';

export type AutomationRuleRow = typeof automationRules.$inferSelect;
export type AutomationDeps = { db: Executor; clock: Clock; sealer: Sealer; policy: TargetPolicy };

export const TRIGGER_TYPES = [
  'message_received',
  'conversation_created',
  'status_changed',
  'label_added',
  'no_reply',
  'broadcast_reply',
] as const;
export type TriggerType = (typeof TRIGGER_TYPES)[number];
export const NO_REPLY_MINUTES_MAX = 7 * 24 * 60;
export const CONDITIONS_MAX = 20;
export const ACTIONS_MAX = 10;
export const RULES_MAX = 100;

const Id = z.uuid();
const Ids = z.array(Id).min(1).max(50);

export const TriggerSchema = z
  .strictObject({
    type: z.enum(TRIGGER_TYPES),
    minutes: z
      .number()
      .int()
      .min(1)
      .max(NO_REPLY_MINUTES_MAX)
      .optional()
      .meta({ description: 'no_reply: the minutes since the customer’s last message with no answer (required there, nowhere else)' }),
    status: z
      .enum(['open', 'pending', 'snoozed', 'resolved'])
      .optional()
      .meta({ description: 'status_changed: only changes to this status (default any)' }),
  })
  .meta({ id: 'AutomationTrigger', example: { type: 'message_received' } });
export type Trigger = z.infer<typeof TriggerSchema>;

export const ConditionSchema = z
  .discriminatedUnion('kind', [
    z.strictObject({
      kind: z.literal('contact'),
      filter: z
        .record(z.string(), z.unknown())
        .meta({ description: 'A segment filter (docs/crm.md "Segments") the conversation’s contact fits' }),
    }),
    z.strictObject({
      kind: z.literal('message'),
      op: z.enum(TEXT_OPS),
      value: z.string().min(1).max(TEXT_VALUE_MAX),
      case_sensitive: z.boolean().optional(),
    }),
    z.strictObject({ kind: z.literal('business_hours'), value: z.enum(['open', 'closed']) }),
    z.strictObject({ kind: z.literal('channel'), channel_ids: Ids }),
    z.strictObject({ kind: z.literal('labels'), op: z.enum(['has_any', 'has_all', 'has_none']), label_ids: Ids }),
  ])
  .meta({
    id: 'AutomationCondition',
    description:
      'contact: a segment filter over the conversation’s contact; message: the triggering message’s text (contains, equals, starts_with, regex: RE2 syntax, linear time; case-insensitive unless case_sensitive); business_hours: the channel’s hours now; channel: one of these channels; labels: the conversation’s labels.',
    example: { kind: 'message', op: 'contains', value: 'refund' },
  });
export type Condition = z.infer<typeof ConditionSchema>;

const FIELD_RE = /^(name|email|custom_fields\.[A-Za-z0-9_]{1,64})$/;
export const ActionSchema = z
  .discriminatedUnion('type', [
    z.strictObject({ type: z.literal('send_text'), text: z.string().trim().min(1).max(4096) }),
    z.strictObject({ type: z.literal('send_template'), template: z.record(z.string(), z.unknown()) }),
    z.strictObject({ type: z.literal('send_canned_response'), canned_response_id: Id }),
    z.strictObject({ type: z.literal('add_label'), label_id: Id }),
    z.strictObject({ type: z.literal('assign'), user_id: Id.nullable() }),
    z.strictObject({ type: z.literal('set_status'), status: z.enum(['open', 'pending', 'snoozed', 'resolved']) }),
    z.strictObject({
      type: z.literal('set_contact_field'),
      field: z.string().regex(FIELD_RE, { error: 'name, email or custom_fields.<key> (letters, digits, _)' }),
      value: z.union([z.string().max(1000), z.number(), z.boolean(), z.null()]),
    }),
    z.strictObject({ type: z.literal('add_to_list'), list_id: Id }),
    z.strictObject({
      type: z.literal('create_task'),
      title: z.string().trim().min(1).max(200),
      due_in_minutes: z.number().int().min(0).max(525_600).optional(),
      assignee_user_id: Id.optional(),
    }),
    z.strictObject({ type: z.literal('move_deal'), stage_id: Id }),
    z.strictObject({ type: z.literal('call_webhook'), url: z.string().min(1).max(2048) }),
    z.strictObject({ type: z.literal('start_bot'), bot_id: z.string().max(64).optional() }),
  ])
  .meta({
    id: 'AutomationAction',
    description:
      'send_text, send_template (content.template of POST /v1/messages), send_canned_response (a shared one, filled for the contact), add_label, assign (a member, or null), set_status, set_contact_field, add_to_list (a contact list), create_task (on the contact), move_deal (the conversation’s deal, else the contact’s latest open one), call_webhook (signed with the rule’s secret), start_bot (hands the conversation to the bot bot_id, as POST /v1/conversations/{id}/handoff would: docs/bots.md).',
    example: { type: 'add_label', label_id: '0196b1f2-0a00-7000-8000-0000000000b1' },
  });
export type Action = z.infer<typeof ActionSchema>;

/** A rule's parts as written: conditions and actions as given, the contact filters as the segments' parser left them. */
export type RuleInput = {
  name: string;
  enabled?: boolean;
  trigger: Trigger;
  conditions?: Condition[];
  actions: Action[];
};

export const ruleNotFound = () => notFound('automation rule');

export async function loadRule(db: Executor, actor: Actor, id: string): Promise<AutomationRuleRow> {
  if (!isUuid(id)) throw ruleNotFound();
  const [row] = await db
    .select()
    .from(automationRules)
    .where(and(eq(automationRules.id, id.toLowerCase()), eq(automationRules.organizationId, actor.organizationId)))
    .limit(1);
  if (!row) throw ruleNotFound();
  return row;
}

/** The records a rule may name, by kind: where they are, and what a missing one is called. */
const LOOKUPS: Record<string, { table: PgTable; id: PgColumn; organizationId: PgColumn; only?: SQL; refusal: string }> = {
  channels: { table: channels, id: channels.id, organizationId: channels.organizationId, refusal: 'not a channel of this organization' },
  labels: {
    table: conversationLabels,
    id: conversationLabels.id,
    organizationId: conversationLabels.organizationId,
    refusal: 'not a conversation label of this organization',
  },
  canned: {
    table: cannedResponses,
    id: cannedResponses.id,
    organizationId: cannedResponses.organizationId,
    only: sql`${cannedResponses.ownerUserId} is null`,
    refusal: 'not a shared canned response of this organization',
  },
  members: {
    table: memberships,
    id: memberships.userId,
    organizationId: memberships.organizationId,
    refusal: 'not a member of this organization',
  },
  lists: {
    table: lists,
    id: lists.id,
    organizationId: lists.organizationId,
    only: eq(lists.kind, 'contact'),
    refusal: 'not a contact list of this organization',
  },
  stages: {
    table: pipelineStages,
    id: pipelineStages.id,
    organizationId: pipelineStages.organizationId,
    refusal: 'not a pipeline stage of this organization',
  },
};

/** Checks what the schemas cannot; answers the conditions with their filters as parsed. Throws invalid naming every bad place. */
async function checkRule(deps: Pick<AutomationDeps, 'db' | 'policy'>, actor: Actor, input: RuleInput): Promise<Condition[]> {
  const errors: FieldError[] = [];
  const org = actor.organizationId;
  const { trigger } = input;
  if (trigger.type === 'no_reply' && trigger.minutes === undefined)
    errors.push({ pointer: '/trigger/minutes', message: 'required for no_reply' });
  if (trigger.type !== 'no_reply' && trigger.minutes !== undefined)
    errors.push({ pointer: '/trigger/minutes', message: 'only for no_reply' });
  if (trigger.type !== 'status_changed' && trigger.status !== undefined)
    errors.push({ pointer: '/trigger/status', message: 'only for status_changed' });
  const conditions = (input.conditions ?? []).map((c, i): Condition => {
    if (c.kind === 'contact') {
      const parsed = parseFilter(c.filter, `conditions/${i}/filter`);
      if (!parsed.ok) {
        errors.push(...parsed.errors);
        return c;
      }
      return { kind: 'contact', filter: parsed.filter as unknown as Record<string, unknown> };
    }
    if (c.kind === 'message' && c.op === 'regex') {
      const problem = regexProblem(c.value);
      if (problem) errors.push({ pointer: `/conditions/${i}/value`, message: problem });
    }
    if (
      c.kind === 'message' &&
      trigger.type !== 'message_received' &&
      trigger.type !== 'broadcast_reply' &&
      trigger.type !== 'conversation_created'
    )
      errors.push({
        pointer: `/conditions/${i}`,
        message: 'a message condition needs a trigger with a message (message_received, conversation_created, broadcast_reply)',
      });
    return c;
  });
  // The records named, each checked in one query per kind.
  const named = { channels: [] as Array<[string, string]>, labels: [] as Array<[string, string]> } as Record<
    string,
    Array<[string, string]>
  >;
  const name = (kind: string, id: string | null | undefined, pointer: string) => {
    if (id) (named[kind] ??= []).push([id.toLowerCase(), pointer]);
  };
  conditions.forEach((c, i) => {
    if (c.kind === 'channel') c.channel_ids.forEach((id, j) => name('channels', id, `/conditions/${i}/channel_ids/${j}`));
    if (c.kind === 'labels') c.label_ids.forEach((id, j) => name('labels', id, `/conditions/${i}/label_ids/${j}`));
  });
  for (const [i, a] of input.actions.entries()) {
    const at = `/actions/${i}`;
    switch (a.type) {
      case 'send_template': {
        const parsed = CONTENT_SCHEMAS.template.safeParse({ template: a.template });
        if (!parsed.success) {
          const issue = parsed.error.issues[0]!;
          const sub = issue.path.slice(1).filter((p): p is string | number => typeof p !== 'symbol');
          errors.push({ pointer: [at, 'template', ...sub].join('/'), message: issue.message });
        }
        break;
      }
      case 'send_canned_response':
        name('canned', a.canned_response_id, `${at}/canned_response_id`);
        break;
      case 'add_label':
        name('labels', a.label_id, `${at}/label_id`);
        break;
      case 'assign':
        name('members', a.user_id, `${at}/user_id`);
        break;
      case 'create_task':
        name('members', a.assignee_user_id, `${at}/assignee_user_id`);
        break;
      case 'add_to_list':
        name('lists', a.list_id, `${at}/list_id`);
        break;
      case 'move_deal':
        name('stages', a.stage_id, `${at}/stage_id`);
        break;
      case 'call_webhook':
        try {
          await assertSafeTarget(a.url, deps.policy);
        } catch (err) {
          if (!(err instanceof UnsafeTargetError)) throw err;
          errors.push({ pointer: `${at}/url`, message: err.message });
        }
        break;
      case 'send_text':
      case 'set_status':
      case 'set_contact_field':
      case 'start_bot':
        break;
      default:
        a satisfies never;
    }
  }
  for (const [kind, refs] of Object.entries(named)) {
    if (refs.length === 0) continue;
    const lookup = LOOKUPS[kind]!;
    const ids = [...new Set(refs.map(([id]) => id))];
    const rows = await deps.db
      .select({ id: lookup.id })
      .from(lookup.table)
      .where(and(eq(lookup.organizationId, org), inArray(lookup.id, ids), lookup.only));
    const ok = new Set(rows.map((r) => r.id));
    for (const [id, pointer] of refs) if (!ok.has(id)) errors.push({ pointer, message: lookup.refusal });
  }
  if (errors.length > 0) throw invalid(`${errors[0]!.pointer.slice(1)}: ${errors[0]!.message}`, errors);
  return conditions;
}

/** Creates a rule with its webhook signing secret, shown in the result this once. */
export async function createRule(
  deps: AutomationDeps,
  actor: Actor,
  input: RuleInput,
): Promise<{ row: AutomationRuleRow; webhookSecret: string }> {
  const conditions = await checkRule(deps, actor, input);
  const [{ n } = { n: 0 }] = await deps.db
    .select({ n: sql<number>`count(*)::int` })
    .from(automationRules)
    .where(eq(automationRules.organizationId, actor.organizationId));
  if (Number(n) >= RULES_MAX)
    throw invalid(`an organization has at most ${RULES_MAX} automation rules`, [{ pointer: '/name', message: 'too many rules' }]);
  const secret = generateSecret();
  const now = deps.clock.now();
  const [row] = await deps.db
    .insert(automationRules)
    .values({
      id: uuidv7(),
      organizationId: actor.organizationId,
      name: input.name,
      enabled: input.enabled ?? true,
      trigger: input.trigger.type,
      triggerMinutes: input.trigger.minutes ?? null,
      conditions: triggerConditions(input.trigger, conditions),
      actions: input.actions,
      webhookSecretSealed: deps.sealer.seal(secret),
      createdAt: now,
      updatedAt: now,
    })
    .returning();
  return { row: row!, webhookSecret: secret };
}

/** The trigger's status filter travels with the conditions (as a `trigger_status` entry, first). */
function triggerConditions(trigger: Trigger, conditions: Condition[]): unknown[] {
  return trigger.status ? [{ kind: 'trigger_status', status: trigger.status }, ...conditions] : conditions;
}

/** The trigger, conditions and actions of a stored rule. */
export function ruleParts(row: AutomationRuleRow): { trigger: Trigger; conditions: Condition[]; actions: Action[] } {
  const stored = row.conditions as Array<Condition | { kind: 'trigger_status'; status: Trigger['status'] }>;
  const status = stored.find((c) => c.kind === 'trigger_status') as { status: Trigger['status'] } | undefined;
  const trigger: Trigger = { type: row.trigger as TriggerType };
  if (row.triggerMinutes !== null) trigger.minutes = row.triggerMinutes;
  if (status) trigger.status = status.status;
  return { trigger, conditions: stored.filter((c): c is Condition => c.kind !== 'trigger_status'), actions: row.actions as Action[] };
}

export async function getRule({ db }: Pick<AutomationDeps, 'db'>, actor: Actor, id: string): Promise<AutomationRuleRow> {
  return loadRule(db, actor, id);
}

/** The organization's rules, oldest first (the order they run in). */
export async function listRules({ db }: Pick<AutomationDeps, 'db'>, actor: Actor, page: Page): Promise<PageResult<AutomationRuleRow>> {
  return listPage(db.select().from(automationRules).$dynamic(), {
    where: [eq(automationRules.organizationId, actor.organizationId)],
    order: oldestFirstBy(automationRules.createdAt, automationRules.id),
    after: cursorKey(page.cursor),
    limit: page.limit,
  });
}

/** Changes the parts given; a new trigger, conditions or actions are checked as on create. */
export async function updateRule(deps: AutomationDeps, actor: Actor, id: string, input: Partial<RuleInput>): Promise<AutomationRuleRow> {
  const row = await loadRule(deps.db, actor, id);
  const current = ruleParts(row);
  const next: RuleInput = {
    name: input.name ?? row.name,
    enabled: input.enabled ?? row.enabled,
    trigger: input.trigger ?? current.trigger,
    conditions: input.conditions ?? current.conditions,
    actions: input.actions ?? current.actions,
  };
  const conditions = await checkRule(deps, actor, next);
  const [updated] = await deps.db
    .update(automationRules)
    .set({
      name: next.name,
      enabled: next.enabled,
      trigger: next.trigger.type,
      triggerMinutes: next.trigger.minutes ?? null,
      conditions: triggerConditions(next.trigger, conditions),
      actions: next.actions,
      updatedAt: deps.clock.now(),
    })
    .where(and(eq(automationRules.id, row.id), eq(automationRules.organizationId, actor.organizationId)))
    .returning();
  return updated!;
}

/** Deletes a rule with its run log. */
export async function deleteRule({ db }: Pick<AutomationDeps, 'db'>, actor: Actor, id: string): Promise<void> {
  const row = await loadRule(db, actor, id);
  await db.delete(automationRules).where(eq(automationRules.id, row.id));
}

export type { FilterGroup };
