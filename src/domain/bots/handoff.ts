/**
 * Moving a conversation between people and bots on purpose: POST /v1/conversations/{id}/handoff (a
 * member, or the bot itself with its key, handing off to people) and startBotSession (the automation
 * rules' "start a bot" action). Each records conversation.handoff (the hand-off) beside the session events.
 */
import type { Db, Executor } from '../../db/client.ts';
import type { Clock } from '../../lib/clock.ts';
import type { Actor } from '../actor.ts';
import { conflict, invalid } from '../errors.ts';
import { recordEvent } from '../events/outbox.ts';
import { loadConversation } from '../messages/conversations.ts';
import { loadBot, type BotRow } from './bots.ts';
import { endSession, humanTookOver, isHuman, openSessionOf, startSession, type BotSessionRow } from './sessions.ts';

export type HandoffDeps = { db: Db; clock: Clock };

/** Who owns a conversation: a bot (with its open session) or people. */
export type ConversationOwner = { conversationId: string; owner: 'bot' | 'human'; botId: string | null; session: BotSessionRow | null };

async function enabledBot(tx: Executor, actor: Actor, botId: string, pointer: string) {
  const bot = await loadBot(tx, actor, botId).catch(() => {
    throw invalid(`${pointer.slice(1)} is not a bot of this organization`, [{ pointer, message: 'bot not found' }]);
  });
  if (!bot.enabled) throw conflict(`bot ${bot.name} is disabled; enable it first`);
  return bot;
}

/** Who owns the conversation now. */
export async function conversationOwner(deps: { db: Db }, actor: Actor, conversationId: string): Promise<ConversationOwner> {
  const conversation = await loadConversation(deps, actor, conversationId);
  const session = conversation.botId ? await openSessionOf(deps.db, conversation.id) : null;
  return { conversationId: conversation.id, owner: session ? 'bot' : 'human', botId: session?.botId ?? null, session };
}

/**
 * Starts the bot on the conversation (for the automation rules' "start a bot"): ends another bot's
 * session (handoff) and clears the people's mark. Answers the open session.
 */
export async function startBotSession(deps: HandoffDeps, actor: Actor, conversationId: string, botId: string): Promise<BotSessionRow> {
  return deps.db.transaction(async (tx) => {
    const conversation = await loadConversation({ db: tx }, actor, conversationId);
    const bot = await enabledBot(tx, actor, botId, '/bot_id');
    return startSession(tx, bot, conversation, deps.clock.now(), 'automation');
  });
}

export type HandoffInput = { conversationId: string; to: 'human' | 'bot'; botId?: string };

/**
 * Hands the conversation to people (the open session ends with `handoff`; the conversation stays
 * people's unless the bot itself handed off with keep_open false) or to a bot (its session starts).
 * Records conversation.handoff.
 */
export async function handoffConversation(deps: HandoffDeps, actor: Actor, input: HandoffInput): Promise<ConversationOwner> {
  if (input.to === 'human' && input.botId !== undefined)
    throw invalid('bot_id is for a hand-off to a bot', [{ pointer: '/bot_id', message: 'only with to: bot' }]);
  if (input.to === 'bot' && input.botId === undefined)
    throw invalid('bot_id is required for a hand-off to a bot', [{ pointer: '/bot_id', message: 'required with to: bot' }]);
  const now = deps.clock.now();
  return deps.db.transaction(async (tx) => {
    const conversation = await loadConversation({ db: tx }, actor, input.conversationId);
    const open = await openSessionOf(tx, conversation.id);
    let bot: BotRow | null = null;
    let session: BotSessionRow | null = null;
    if (input.to === 'bot') {
      bot = await enabledBot(tx, actor, input.botId!, '/bot_id');
      session = await startSession(tx, bot, conversation, now, 'handoff');
    } else if (open) {
      const owner = await loadBot(tx, actor, open.botId);
      await endSession(tx, open, 'handoff', now, { pause: isHuman(actor) || owner.keepOpen });
    } else {
      // No bot owned it: it stays people's all the same (no trigger takes it).
      await humanTookOver(tx, conversation.organizationId, conversation.id, now);
    }
    await recordEvent(
      tx,
      conversation.organizationId,
      'conversation.handoff',
      {
        conversation_id: conversation.id,
        to: input.to,
        bot_id: bot?.id ?? null,
        previous_bot_id: open?.botId ?? null,
        organization_id: conversation.organizationId,
      },
      now,
    );
    return { conversationId: conversation.id, owner: session ? 'bot' : 'human', botId: bot?.id ?? null, session };
  });
}
