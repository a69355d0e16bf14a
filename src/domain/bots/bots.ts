/**
 * Bots (docs/bots.md): an organization's external URLs that receive a conversation's customer messages,
 * signed like webhooks (the endpoint URL rules, a `whsec_` secret sealed at rest and shown once), and
 * answer through the API. Each has a trigger (every message, or keywords with an operator), the channels
 * it serves, an expiry, a stop keyword, a debounce and keep_open (Evolution API's bot model). Every query
 * is scoped by actor.organizationId.
 */
import { and, asc, count, eq, sql } from 'drizzle-orm';
import safeRegex from 'safe-regex2';
import type { Db, Executor } from '../../db/client.ts';
import { bots, channels } from '../../db/schema.ts';
import type { Clock } from '../../lib/clock.ts';
import type { Sealer } from '../../lib/crypto.ts';
import { isUuid, uuidv7 } from '../../lib/ids.ts';
import type { TargetPolicy } from '../../lib/safe-fetch.ts';
import type { Actor } from '../actor.ts';
import { conflict, invalid, notFound, type FieldError } from '../errors.ts';
import { assertTarget } from '../webhooks/endpoints.ts';
import { generateSecret } from '../webhooks/signing.ts';
import { endBotSessionsOf } from './sessions.ts';

export type BotRow = typeof bots.$inferSelect;
export type BotDeps = { db: Db; clock: Clock; sealer: Sealer; policy: TargetPolicy };

export const BOT_TRIGGER_TYPES = ['all', 'keyword'] as const;
export type BotTriggerType = (typeof BOT_TRIGGER_TYPES)[number];
export const BOT_TRIGGER_OPERATORS = ['equals', 'contains', 'starts_with', 'regex'] as const;
export type BotTriggerOperator = (typeof BOT_TRIGGER_OPERATORS)[number];

export const MAX_BOTS_PER_ORGANIZATION = 50;
export const BOT_KEYWORDS_MAX = 20;
export const BOT_KEYWORD_MAX = 200;
/** A message's text is matched on its first this many characters (a regex never runs over more). */
export const MATCH_TEXT_MAX = 1000;
export const DEFAULT_STOP_KEYWORD = '#stop';

export type BotTrigger = { type: BotTriggerType; operator?: BotTriggerOperator | null; keywords?: string[] };

export type BotInput = {
  name?: string;
  url?: string;
  channelIds?: string[];
  trigger?: BotTrigger;
  expireMinutes?: number;
  stopKeyword?: string | null;
  debounceMs?: number;
  keepOpen?: boolean;
  enabled?: boolean;
};

// ---------------------------------------------------------------------------------------------
// Matching

const fold = (s: string) => s.trim().toLowerCase();

/** The text of a customer message a trigger or stop keyword is matched on: its body, caption or chosen reply. */
export function matchText(content: Record<string, unknown>): string {
  const reply = (content.button_reply ?? content.list_reply ?? content.button) as { title?: unknown; text?: unknown } | undefined;
  const text = content.body ?? content.caption ?? reply?.title ?? reply?.text ?? content.text;
  return typeof text === 'string' ? text.slice(0, MATCH_TEXT_MAX) : '';
}

/** Whether a message's text starts the bot (its trigger). Keywords compare ignoring case; a regex is case-insensitive. */
export function triggerMatches(bot: Pick<BotRow, 'triggerType' | 'triggerOperator' | 'triggerValues'>, text: string): boolean {
  if (bot.triggerType === 'all') return true;
  const t = fold(text);
  if (!t) return false;
  return bot.triggerValues.some((value) => {
    switch (bot.triggerOperator as BotTriggerOperator) {
      case 'equals':
        return t === fold(value);
      case 'contains':
        return t.includes(fold(value));
      case 'starts_with':
        return t.startsWith(fold(value));
      case 'regex':
        return compiled(value).test(text.slice(0, MATCH_TEXT_MAX));
      default:
        return false;
    }
  });
}

/** Whether the customer's message is the bot's stop keyword. */
export function isStopKeyword(bot: Pick<BotRow, 'stopKeyword'>, text: string): boolean {
  return bot.stopKeyword !== null && fold(text) === fold(bot.stopKeyword);
}

const regexes = new Map<string, RegExp>();
function compiled(pattern: string): RegExp {
  let re = regexes.get(pattern);
  if (!re) {
    if (regexes.size > 1000) regexes.clear();
    re = new RegExp(pattern, 'iu');
    regexes.set(pattern, re);
  }
  return re;
}

// ---------------------------------------------------------------------------------------------
// Validation

function checkTrigger(trigger: BotTrigger, errors: FieldError[]): Pick<BotRow, 'triggerType' | 'triggerOperator' | 'triggerValues'> {
  if (trigger.type === 'all') {
    if (trigger.keywords?.length) errors.push({ pointer: '/trigger/keywords', message: 'a trigger of type all takes no keywords' });
    return { triggerType: 'all', triggerOperator: null, triggerValues: [] };
  }
  const operator = trigger.operator ?? 'equals';
  const keywords = (trigger.keywords ?? []).map((k) => k.trim());
  if (keywords.length === 0) errors.push({ pointer: '/trigger/keywords', message: 'a keyword trigger needs at least one keyword' });
  keywords.forEach((keyword, index) => {
    const pointer = `/trigger/keywords/${index}`;
    if (!keyword) return errors.push({ pointer, message: 'empty' });
    if (operator !== 'regex') return;
    try {
      new RegExp(keyword, 'iu');
    } catch (err) {
      return errors.push({ pointer, message: `not a regular expression: ${(err as Error).message}` });
    }
    // Nested repetition can take exponential time on a crafted message: refused (safe-regex2's star height).
    if (!safeRegex(keyword))
      errors.push({ pointer, message: 'nested repetition (such as (a+)+) is refused: it can take exponential time' });
  });
  return { triggerType: 'keyword', triggerOperator: operator, triggerValues: [...new Set(keywords)] };
}

async function checkChannels(db: Executor, actor: Actor, channelIds: string[], errors: FieldError[]): Promise<string[]> {
  const ids = [...new Set(channelIds.filter(isUuid).map((id) => id.toLowerCase()))];
  const found = new Set(
    ids.length === 0
      ? []
      : (
          await db
            .select({ id: channels.id })
            .from(channels)
            .where(and(eq(channels.organizationId, actor.organizationId), sql`${channels.id} = any(${`{${ids.join(',')}}`}::uuid[])`))
        ).map((r) => r.id),
  );
  channelIds.forEach((id, index) => {
    if (!found.has(id.toLowerCase())) errors.push({ pointer: `/channel_ids/${index}`, message: 'not a channel of this organization' });
  });
  return ids;
}

async function fieldsOf(deps: Pick<BotDeps, 'db' | 'policy'>, actor: Actor, input: BotInput): Promise<Partial<BotRow>> {
  const errors: FieldError[] = [];
  const out: Partial<BotRow> = {};
  if (input.name !== undefined) out.name = input.name.trim();
  if (input.url !== undefined) {
    await assertTarget(deps, input.url);
    out.url = input.url;
  }
  if (input.trigger !== undefined) Object.assign(out, checkTrigger(input.trigger, errors));
  if (input.channelIds !== undefined) out.channelIds = await checkChannels(deps.db, actor, input.channelIds, errors);
  if (input.expireMinutes !== undefined) out.expireMinutes = input.expireMinutes;
  if (input.stopKeyword !== undefined) out.stopKeyword = input.stopKeyword?.trim() || null;
  if (input.debounceMs !== undefined) out.debounceMs = input.debounceMs;
  if (input.keepOpen !== undefined) out.keepOpen = input.keepOpen;
  if (input.enabled !== undefined) out.enabled = input.enabled;
  if (errors.length > 0) throw invalid(`bot: ${errors[0]!.pointer.slice(1)} ${errors[0]!.message}`, errors);
  return out;
}

// ---------------------------------------------------------------------------------------------
// Reading

/** A bot of the actor's organization; another organization's id is simply not found. */
export async function loadBot(db: Executor, actor: Actor, botId: string): Promise<BotRow> {
  if (!isUuid(botId)) throw notFound('bot');
  const [row] = await db
    .select()
    .from(bots)
    .where(and(eq(bots.id, botId.toLowerCase()), eq(bots.organizationId, actor.organizationId)))
    .limit(1);
  if (!row) throw notFound('bot');
  return row;
}

export async function getBot({ db }: { db: Executor }, actor: Actor, botId: string): Promise<BotRow> {
  return loadBot(db, actor, botId);
}

/** Every bot of the organization, oldest first (at most MAX_BOTS_PER_ORGANIZATION). */
export async function listBots({ db }: { db: Executor }, actor: Actor): Promise<BotRow[]> {
  return db.select().from(bots).where(eq(bots.organizationId, actor.organizationId)).orderBy(asc(bots.createdAt), asc(bots.id));
}

// ---------------------------------------------------------------------------------------------
// Writing

/** Creates a bot with a new signing secret, in the result this once. */
export async function createBot(
  deps: BotDeps,
  actor: Actor,
  input: BotInput & { name: string; url: string; trigger: BotTrigger },
): Promise<{ row: BotRow; secret: string }> {
  const fields = await fieldsOf(deps, actor, input);
  const secret = generateSecret();
  const now = deps.clock.now();
  const row = await deps.db.transaction(async (tx) => {
    // Serializes creates of one organization, so two at once cannot both pass the limit.
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`bots:${actor.organizationId}`}))`);
    const [existing] = await tx.select({ n: count() }).from(bots).where(eq(bots.organizationId, actor.organizationId));
    if ((existing?.n ?? 0) >= MAX_BOTS_PER_ORGANIZATION)
      throw conflict(`an organization has at most ${MAX_BOTS_PER_ORGANIZATION} bots; delete one first`);
    const [created] = await tx
      .insert(bots)
      .values({
        id: uuidv7(),
        organizationId: actor.organizationId,
        name: fields.name!,
        url: fields.url!,
        secretSealed: deps.sealer.seal(secret),
        channelIds: fields.channelIds ?? [],
        triggerType: fields.triggerType!,
        triggerOperator: fields.triggerOperator ?? null,
        triggerValues: fields.triggerValues ?? [],
        expireMinutes: fields.expireMinutes ?? 0,
        stopKeyword: input.stopKeyword === undefined ? DEFAULT_STOP_KEYWORD : (fields.stopKeyword ?? null),
        debounceMs: fields.debounceMs ?? 0,
        keepOpen: fields.keepOpen ?? true,
        enabled: fields.enabled ?? true,
        createdAt: now,
        updatedAt: now,
      })
      .returning();
    return created!;
  });
  return { row, secret };
}

/** Changes a bot; disabling it ends its open sessions (reason bot_disabled). */
export async function updateBot(deps: BotDeps, actor: Actor, botId: string, input: BotInput): Promise<BotRow> {
  const fields = await fieldsOf(deps, actor, input);
  const now = deps.clock.now();
  return deps.db.transaction(async (tx) => {
    const row = await loadBot(tx, actor, botId);
    if (Object.keys(fields).length === 0) return row;
    const [updated] = await tx
      .update(bots)
      .set({ ...fields, updatedAt: now })
      .where(eq(bots.id, row.id))
      .returning();
    if (row.enabled && !updated!.enabled) await endBotSessionsOf(tx, updated!, 'bot_disabled', now);
    return updated!;
  });
}

/** Deletes a bot, ending its open sessions first (reason bot_disabled). */
export async function deleteBot(deps: Pick<BotDeps, 'db' | 'clock'>, actor: Actor, botId: string): Promise<void> {
  const now = deps.clock.now();
  await deps.db.transaction(async (tx) => {
    const row = await loadBot(tx, actor, botId);
    await endBotSessionsOf(tx, row, 'bot_disabled', now);
    await tx.delete(bots).where(eq(bots.id, row.id));
  });
}

/** A bot's signing secret, opened (for the deliveries). */
export function botSecret(deps: Pick<BotDeps, 'sealer'>, row: Pick<BotRow, 'secretSealed'>): string {
  return deps.sealer.open(row.secretSealed);
}
