/**
 * Automation rules (docs/automations.md): create, list, get, change, delete; a rule's run log and its
 * dry run.
 */
import { z } from 'zod';
import {
  ActionSchema,
  ACTIONS_MAX,
  CONDITIONS_MAX,
  ConditionSchema,
  createRule,
  deleteRule,
  getRule,
  listRules,
  TriggerSchema,
  updateRule,
  type AutomationDeps,
} from '../../domain/automations/rules.ts';
import { dryRun, listRuns } from '../../domain/automations/runs.ts';
import { TEXT_INPUT_MAX } from '../../domain/automations/text-match.ts';
import { actorOf } from '../auth/actor.ts';
import { errorResponses } from '../errors.ts';
import { inputFrom } from '../input-location.ts';
import { dataOf, listOf, PageQuerySchema, PathId } from '../schemas.ts';
import type { App } from '../types.ts';
import { presentRule, presentRun } from './automations.presenters.ts';

const TAG = 'automations';
const read = { auth: { permission: 'automations:read' as const } };
const write = { auth: { permission: 'automations:write' as const } };

const RULE_EXAMPLE = {
  id: '0196b1f2-0a00-7000-8000-0000000000a1',
  name: 'Refund requests to billing',
  enabled: true,
  trigger: { type: 'message_received' },
  conditions: [
    { kind: 'message', op: 'contains', value: 'refund' },
    { kind: 'business_hours', value: 'open' },
  ],
  actions: [
    { type: 'add_label', label_id: '0196b1f2-0a00-7000-8000-0000000000b1' },
    { type: 'send_text', text: 'Thanks, our billing team will answer within the hour.' },
  ],
  created_at: '2025-06-02T09:15:00.000Z',
  updated_at: '2025-06-02T09:15:00.000Z',
};

export const AutomationRuleSchema = z
  .object({
    id: z.uuid(),
    name: z.string(),
    enabled: z.boolean(),
    trigger: TriggerSchema,
    conditions: z.array(ConditionSchema),
    actions: z.array(ActionSchema),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: 'AutomationRule', example: RULE_EXAMPLE });

const CreatedRuleSchema = AutomationRuleSchema.extend({
  webhook_secret: z
    .string()
    .meta({ description: 'Signs the rule’s call_webhook actions (Standard Webhooks, as webhooks.md). Shown this once.' }),
}).meta({ id: 'CreatedAutomationRule', example: { ...RULE_EXAMPLE, webhook_secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' } });

export const AutomationRunSchema = z
  .object({
    id: z.uuid(),
    rule_id: z.uuid(),
    trigger: z.string(),
    event_id: z.uuid().nullable().meta({ description: 'The event that triggered it (null for no_reply)' }),
    conversation_id: z.uuid().nullable(),
    message_id: z.uuid().nullable(),
    status: z.enum(['running', 'done']),
    matched: z.boolean().nullable().meta({ description: 'Whether every condition held (null while not yet evaluated)' }),
    conditions: z.array(z.object({ index: z.number().int(), kind: z.string(), matched: z.boolean(), detail: z.string().optional() })),
    actions: z.array(
      z.object({
        index: z.number().int(),
        type: z.string(),
        status: z.enum(['done', 'skipped', 'failed', 'not_available']),
        detail: z.string().optional(),
      }),
    ),
    automated_messages: z.number().int(),
    created_at: z.string(),
    finished_at: z.string().nullable(),
  })
  .meta({
    id: 'AutomationRun',
    example: {
      id: '0196b1f2-0a00-7000-8000-0000000000d1',
      rule_id: RULE_EXAMPLE.id,
      trigger: 'message_received',
      event_id: '0196b1f2-0a00-7000-8000-0000000000e1',
      conversation_id: '0196b1f2-0a00-7000-8000-0000000000c1',
      message_id: '0196b1f2-0a00-7000-8000-0000000000f1',
      status: 'done',
      matched: true,
      conditions: [
        { index: 0, kind: 'message', matched: true },
        { index: 1, kind: 'business_hours', matched: true, detail: 'open now' },
      ],
      actions: [
        { index: 0, type: 'add_label', status: 'done' },
        { index: 1, type: 'send_text', status: 'done', detail: 'message 0196b1f2-0a00-7000-8000-0000000000f2' },
      ],
      automated_messages: 1,
      created_at: '2025-06-02T09:20:00.000Z',
      finished_at: '2025-06-02T09:20:01.000Z',
    },
  });

const Name = z.string().trim().min(1).max(100);
const Conditions = z.array(ConditionSchema).max(CONDITIONS_MAX);
const Actions = z.array(ActionSchema).min(1).max(ACTIONS_MAX);

const CreateBody = z
  .strictObject({
    name: Name,
    enabled: z.boolean().optional(),
    trigger: TriggerSchema,
    conditions: Conditions.optional(),
    actions: Actions,
  })
  .meta({
    id: 'CreateAutomationRuleRequest',
    description: `Conditions (at most ${CONDITIONS_MAX}) must all hold; actions (1 to ${ACTIONS_MAX}) run in order. A record a rule names (label, list, stage, member, channel, shared canned response) must be the organization's, a regex must be RE2 syntax, a webhook URL a public https one: each refusal a 400 naming its place. The answer holds the rule's webhook signing secret, this once.`,
    examples: [
      {
        name: 'Refund requests to billing',
        trigger: { type: 'message_received' },
        conditions: [{ kind: 'message', op: 'contains', value: 'refund' }],
        actions: [{ type: 'send_text', text: 'Thanks, our billing team will answer within the hour.' }],
      },
    ],
  });

const UpdateBody = z
  .strictObject({
    name: Name.optional(),
    enabled: z.boolean().optional(),
    trigger: TriggerSchema.optional(),
    conditions: Conditions.optional(),
    actions: Actions.optional(),
  })
  .meta({
    id: 'UpdateAutomationRuleRequest',
    description: 'The parts given replace the rule’s; checked as on create.',
    examples: [{ enabled: false }],
  });

const DryRunBody = z
  .strictObject({
    conversation_id: z
      .uuid()
      .optional()
      .meta({ description: 'Evaluate against this conversation (and its last customer message unless message is given)' }),
    message: z
      .strictObject({ text: z.string().max(TEXT_INPUT_MAX) })
      .optional()
      .meta({ description: 'A sample message' }),
  })
  .meta({ id: 'AutomationDryRunRequest', examples: [{ message: { text: 'I want a refund' } }] });

const DryRunSchema = z
  .object({
    matched: z.boolean(),
    conditions: z.array(z.object({ index: z.number().int(), kind: z.string(), matched: z.boolean(), detail: z.string().optional() })),
    actions: z.array(z.object({ index: z.number().int(), type: z.string(), would: z.string().optional(), skipped: z.string().optional() })),
  })
  .meta({
    id: 'AutomationDryRun',
    example: {
      matched: true,
      conditions: [{ index: 0, kind: 'message', matched: true }],
      actions: [{ index: 0, type: 'send_text', would: 'send the text “Thanks, our billing team will answer within the hour.”' }],
    },
  });

const Params = z.object({ automationID: PathId });

export async function registerAutomationRoutes(app: App, deps: AutomationDeps) {
  app.post(
    '/v1/automations',
    {
      config: { ...write, idempotency: 'no-replay' },
      schema: {
        tags: [TAG],
        summary: 'Create an automation rule',
        description: CreateBody.description,
        body: CreateBody,
        response: { 201: dataOf(CreatedRuleSchema).describe('Created'), ...errorResponses([400, 401, 403]) },
      },
    },
    async (request, reply) => {
      const { row, webhookSecret } = await inputFrom('body', createRule(deps, actorOf(request), request.body));
      return reply.code(201).send({ data: { ...presentRule(row), webhook_secret: webhookSecret } });
    },
  );

  app.get(
    '/v1/automations',
    {
      config: read,
      schema: {
        tags: [TAG],
        summary: 'List automation rules',
        description: 'Oldest first: the order rules run in.',
        querystring: PageQuerySchema,
        response: { 200: listOf(AutomationRuleSchema), ...errorResponses([400, 401, 403]) },
      },
    },
    async (request) => {
      const page = await inputFrom('query', listRules(deps, actorOf(request), request.query));
      return { data: page.items.map(presentRule), meta: { next_cursor: page.nextCursor } };
    },
  );

  app.get(
    '/v1/automations/:automationID',
    {
      config: read,
      schema: {
        tags: [TAG],
        summary: 'Get an automation rule',
        params: Params,
        response: { 200: dataOf(AutomationRuleSchema), ...errorResponses([401, 403, 404]) },
      },
    },
    async (request) => ({ data: presentRule(await getRule(deps, actorOf(request), request.params.automationID)) }),
  );

  app.patch(
    '/v1/automations/:automationID',
    {
      config: write,
      schema: {
        tags: [TAG],
        summary: 'Change an automation rule',
        description: UpdateBody.description,
        params: Params,
        body: UpdateBody,
        response: { 200: dataOf(AutomationRuleSchema), ...errorResponses([400, 401, 403, 404]) },
      },
    },
    async (request) => ({
      data: presentRule(await inputFrom('body', updateRule(deps, actorOf(request), request.params.automationID, request.body))),
    }),
  );

  app.delete(
    '/v1/automations/:automationID',
    {
      config: write,
      schema: {
        tags: [TAG],
        summary: 'Delete an automation rule',
        description: 'Its run log goes with it.',
        params: Params,
        response: { 204: z.null().describe('Deleted'), ...errorResponses([401, 403, 404]) },
      },
    },
    async (request, reply) => {
      await deleteRule(deps, actorOf(request), request.params.automationID);
      return reply.code(204).send(null);
    },
  );

  app.get(
    '/v1/automations/:automationID/runs',
    {
      config: read,
      schema: {
        tags: [TAG],
        summary: 'List a rule’s runs',
        description:
          'Newest first: each trigger the rule saw, whether its conditions held (each one’s result), and each action’s outcome (done, skipped with why, failed with the refusal, not_available).',
        params: Params,
        querystring: PageQuerySchema,
        response: { 200: listOf(AutomationRunSchema), ...errorResponses([400, 401, 403, 404]) },
      },
    },
    async (request) => {
      const page = await inputFrom('query', listRuns(deps, actorOf(request), request.params.automationID, request.query));
      return { data: page.items.map(presentRun), meta: { next_cursor: page.nextCursor } };
    },
  );

  app.post(
    '/v1/automations/:automationID/dry-run',
    {
      config: read,
      schema: {
        tags: [TAG],
        summary: 'Dry-run an automation rule',
        description:
          'Evaluates the rule against a conversation (its last customer message, or the sample’s text) or a sample message alone: each condition’s result and what each action would do. Nothing is done or recorded. Another organization’s conversation is a 400 naming conversation_id.',
        params: Params,
        body: DryRunBody,
        response: { 200: dataOf(DryRunSchema), ...errorResponses([400, 401, 403, 404]) },
      },
    },
    async (request) => ({
      data: await inputFrom(
        'body',
        dryRun(deps, actorOf(request), request.params.automationID, {
          conversationId: request.body.conversation_id,
          message: request.body.message,
        }),
      ),
    }),
  );
}
