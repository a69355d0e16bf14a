/**
 * Bots (docs/bots.md): create (the signing secret shown once), list, get, change, delete; and the
 * hand-off of a conversation between people and a bot, with who owns it now.
 */
import { z } from 'zod';
import {
  BOT_KEYWORD_MAX,
  BOT_KEYWORDS_MAX,
  BOT_TRIGGER_OPERATORS,
  BOT_TRIGGER_TYPES,
  createBot,
  DEFAULT_STOP_KEYWORD,
  deleteBot,
  getBot,
  listBots,
  MAX_BOTS_PER_ORGANIZATION,
  updateBot,
  type BotDeps,
  type BotInput,
} from '../../domain/bots/bots.ts';
import { conversationOwner, handoffConversation } from '../../domain/bots/handoff.ts';
import { actorOf } from '../auth/actor.ts';
import { errorResponses } from '../errors.ts';
import { BOT_EXAMPLE, CONVERSATION_OWNER_EXAMPLE } from '../examples.ts';
import { inputFrom } from '../input-location.ts';
import { dataOf, PathId } from '../schemas.ts';
import type { App } from '../types.ts';
import { presentBot, presentOwner } from './bots.presenters.ts';

const TAG = 'bots';
const read = { auth: { permission: 'bots:read' as const } };
const write = { auth: { permission: 'bots:write' as const } };
const SECRET_EXAMPLE = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';

const TriggerSchema = z
  .object({
    type: z
      .enum(BOT_TRIGGER_TYPES)
      .meta({ description: '`all`: every customer message; `keyword`: a message matching one of the keywords' }),
    operator: z.enum(BOT_TRIGGER_OPERATORS).nullable().optional().meta({
      description:
        'With keyword (default equals): equals, contains or starts_with compare ignoring case and surrounding spaces; regex is a case-insensitive JavaScript pattern, run over the first 1000 characters, nested repetition refused',
    }),
    keywords: z
      .array(z.string().max(BOT_KEYWORD_MAX))
      .max(BOT_KEYWORDS_MAX)
      .optional()
      .meta({ description: `With keyword: 1 to ${BOT_KEYWORDS_MAX} keywords (or patterns), any of which starts the bot` }),
  })
  .strict()
  .meta({ id: 'BotTrigger' });

export const BotSchema = z
  .object({
    id: z.uuid(),
    name: z.string(),
    url: z.string().meta({ description: 'Where the customer messages are POSTed, signed like webhooks' }),
    channel_ids: z.array(z.string()).meta({ description: 'The channels it serves; empty: every channel' }),
    trigger: TriggerSchema,
    expire_minutes: z.number().int().meta({ description: 'A session ends after this many minutes without a customer message; 0: never' }),
    stop_keyword: z.string().nullable().meta({ description: 'The customer message that ends the session (ignoring case); null: none' }),
    debounce_ms: z.number().int().meta({ description: 'Customer messages within this many ms of each other go as one delivery' }),
    keep_open: z.boolean().meta({
      description:
        'true: a session the stop keyword or the bot’s own hand-off ended leaves the conversation with people (no trigger starts a bot there again until a hand-off to a bot, or it is resolved); false: the next matching message starts a new session',
    }),
    enabled: z.boolean(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: 'Bot', example: BOT_EXAMPLE });

export const CreatedBotSchema = BotSchema.extend({
  secret: z
    .string()
    .meta({ description: 'The signing secret (`whsec_…`), shown this once: verify deliveries with a Standard Webhooks library' }),
}).meta({ id: 'CreatedBot', examples: [{ ...BOT_EXAMPLE, secret: SECRET_EXAMPLE }] });

const UrlSchema = z
  .url({ protocol: /^https?$/, error: 'expects an https URL' })
  .max(2048)
  .meta({
    description:
      'Where customer messages are POSTed. The webhook endpoints’ rule: https resolving to public addresses (checked here and on every delivery); http and private addresses only with ALLOW_PRIVATE_NETWORK_TARGETS=true.',
    example: 'https://bot.example.com/parley',
  });
const Name = z.string().trim().min(1).max(100);
const fields = {
  channel_ids: z.array(z.uuid()).max(100).optional().meta({ description: 'Channels it serves; empty or absent: every channel' }),
  trigger: TriggerSchema,
  expire_minutes: z.number().int().min(0).max(10_080).optional().meta({ description: 'Default 0 (never); at most a week' }),
  stop_keyword: z
    .string()
    .max(BOT_KEYWORD_MAX)
    .nullable()
    .optional()
    .meta({ description: `Default ${DEFAULT_STOP_KEYWORD}; null: none` }),
  debounce_ms: z.number().int().min(0).max(60_000).optional().meta({ description: 'Default 0: each message at once' }),
  keep_open: z.boolean().optional().meta({ description: 'Default true' }),
  enabled: z.boolean().optional().meta({ description: 'Default true; false ends its open sessions (bot_disabled)' }),
};

const CreateBody = z.strictObject({ name: Name, url: UrlSchema, ...fields }).meta({
  id: 'CreateBotRequest',
  description: `At most ${MAX_BOTS_PER_ORGANIZATION} bots an organization. The answer holds the signing secret, this once.`,
  examples: [
    {
      name: 'Order assistant',
      url: 'https://bot.example.com/parley',
      trigger: { type: 'keyword', operator: 'contains', keywords: ['order'] },
    },
    { name: 'Front desk', url: 'https://bot.example.com/desk', trigger: { type: 'all' }, expire_minutes: 30, debounce_ms: 3000 },
  ],
});

const UpdateBody = z.strictObject({ name: Name.optional(), url: UrlSchema.optional(), ...fields, trigger: TriggerSchema.optional() }).meta({
  id: 'UpdateBotRequest',
  examples: [{ enabled: false }, { trigger: { type: 'keyword', operator: 'starts_with', keywords: ['help'] } }],
});

export const ConversationOwnerSchema = z
  .object({
    conversation_id: z.uuid(),
    owner: z.enum(['bot', 'human']).meta({ description: 'bot: the bot of bot_id gets the customer messages; human: people own it' }),
    bot_id: z.string().nullable(),
    session: z
      .object({
        id: z.string(),
        bot_id: z.string(),
        started_at: z.string(),
        expires_at: z.string().nullable().meta({ description: 'When it ends unless the customer writes; null: never' }),
      })
      .nullable(),
  })
  .meta({ id: 'ConversationOwner', example: CONVERSATION_OWNER_EXAMPLE });

const HandoffBody = z
  .strictObject({
    to: z.enum(['human', 'bot']),
    bot_id: z.uuid().optional().meta({ description: 'With to: bot, the bot to hand it to' }),
  })
  .meta({
    id: 'HandoffRequest',
    description:
      'to human: the bot’s session ends (`handoff`) and people own the conversation (a bot handing off with keep_open false lets its trigger start it again). to bot: the bot’s session starts (another bot’s ends). Records conversation.handoff.',
    examples: [{ to: 'human' }, { to: 'bot', bot_id: '0196b1f2-0a00-7000-8000-0000000000f1' }],
  });

const Params = z.object({ botID: PathId });
const ConversationParams = z.object({ conversationID: PathId });

const inputOf = (b: Partial<z.infer<typeof CreateBody>>): BotInput => ({
  name: b.name,
  url: b.url,
  channelIds: b.channel_ids,
  trigger: b.trigger && { type: b.trigger.type, operator: b.trigger.operator, keywords: b.trigger.keywords },
  expireMinutes: b.expire_minutes,
  stopKeyword: b.stop_keyword,
  debounceMs: b.debounce_ms,
  keepOpen: b.keep_open,
  enabled: b.enabled,
});

export async function registerBotRoutes(app: App, deps: BotDeps) {
  app.post(
    '/v1/bots',
    {
      config: { ...write, idempotency: 'no-replay' },
      schema: {
        tags: [TAG],
        summary: 'Create a bot',
        description: CreateBody.description,
        body: CreateBody,
        response: { 201: dataOf(CreatedBotSchema).describe('Created'), ...errorResponses([400, 401, 403, 409]) },
      },
    },
    async (request, reply) => {
      const b = request.body;
      const { row, secret } = await inputFrom(
        'body',
        createBot(deps, actorOf(request), { ...inputOf(b), name: b.name, url: b.url, trigger: inputOf(b).trigger! }),
      );
      return reply.code(201).send({ data: { ...presentBot(row), secret } });
    },
  );

  app.get(
    '/v1/bots',
    {
      config: read,
      schema: {
        tags: [TAG],
        summary: 'List bots',
        description: `Every bot of the organization, oldest first (at most ${MAX_BOTS_PER_ORGANIZATION}). Secrets are never listed.`,
        response: { 200: dataOf(z.array(BotSchema)), ...errorResponses([401, 403]) },
      },
    },
    async (request) => ({ data: (await listBots(deps, actorOf(request))).map(presentBot) }),
  );

  app.get(
    '/v1/bots/:botID',
    {
      config: read,
      schema: {
        tags: [TAG],
        summary: 'Get a bot',
        params: Params,
        response: { 200: dataOf(BotSchema), ...errorResponses([401, 403, 404]) },
      },
    },
    async (request) => ({ data: presentBot(await getBot(deps, actorOf(request), request.params.botID)) }),
  );

  app.patch(
    '/v1/bots/:botID',
    {
      config: write,
      schema: {
        tags: [TAG],
        summary: 'Change a bot',
        description: 'Fields to change. Disabling it ends its open sessions (bot.session_ended, bot_disabled).',
        params: Params,
        body: UpdateBody,
        response: { 200: dataOf(BotSchema), ...errorResponses([400, 401, 403, 404]) },
      },
    },
    async (request) => ({
      data: presentBot(await inputFrom('body', updateBot(deps, actorOf(request), request.params.botID, inputOf(request.body)))),
    }),
  );

  app.delete(
    '/v1/bots/:botID',
    {
      config: write,
      schema: {
        tags: [TAG],
        summary: 'Delete a bot',
        description: 'Its open sessions end first (bot.session_ended, bot_disabled); its conversations go back to people.',
        params: Params,
        response: { 204: z.null().describe('Deleted'), ...errorResponses([401, 403, 404]) },
      },
    },
    async (request, reply) => {
      await deleteBot(deps, actorOf(request), request.params.botID);
      return reply.code(204).send(null);
    },
  );

  app.get(
    '/v1/conversations/:conversationID/owner',
    {
      config: { auth: { permission: 'messages:read' as const } },
      schema: {
        tags: [TAG],
        summary: 'Who owns a conversation',
        description: 'A bot (with its open session) or people.',
        params: ConversationParams,
        response: { 200: dataOf(ConversationOwnerSchema), ...errorResponses([401, 403, 404]) },
      },
    },
    async (request) => ({ data: presentOwner(await conversationOwner(deps, actorOf(request), request.params.conversationID)) }),
  );

  app.post(
    '/v1/conversations/:conversationID/handoff',
    {
      config: { auth: { permission: 'messages:send' as const } },
      schema: {
        tags: [TAG],
        summary: 'Hand a conversation to people or to a bot',
        description: HandoffBody.description,
        params: ConversationParams,
        body: HandoffBody,
        response: { 200: dataOf(ConversationOwnerSchema), ...errorResponses([400, 401, 403, 404, 409]) },
      },
    },
    async (request) => {
      const owner = await inputFrom(
        'body',
        handoffConversation(deps, actorOf(request), {
          conversationId: request.params.conversationID,
          to: request.body.to,
          botId: request.body.bot_id,
        }),
      );
      return { data: presentOwner(owner) };
    },
  );
}

export type CreateBotRequest = z.input<typeof CreateBody>;
export type UpdateBotRequest = z.input<typeof UpdateBody>;
