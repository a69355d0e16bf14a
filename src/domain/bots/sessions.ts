/**
 * Bot sessions (docs/bots.md): a bot owns a conversation from its session's start to its end, and
 * `conversations.bot_id` says which (the column the inbound path and the away message read, no join).
 * Starting and ending write the session, the conversation's columns, the events and the cancelled
 * deliveries in the caller's transaction. A member's reply or assignment ends the session with
 * `human_took_over` and marks the conversation people's (`bot_paused_at`): no trigger starts a bot
 * there until a hand-off to a bot, or until it is resolved.
 */
import { and, asc, eq, isNotNull, isNull, lte, or, sql } from 'drizzle-orm';
import type { Db, Executor } from '../../db/client.ts';
import { botDeliveries, botSessions, conversations } from '../../db/schema.ts';
import type { Clock } from '../../lib/clock.ts';
import { uuidv7 } from '../../lib/ids.ts';
import type { Actor } from '../actor.ts';
import { recordEvent, type EventBodies } from '../events/outbox.ts';

export type BotSessionRow = typeof botSessions.$inferSelect;
export type BotEndReason = EventBodies['bot.session_ended']['reason'];
export const BOT_END_REASONS = [
  'expired',
  'stop_keyword',
  'human_took_over',
  'handoff',
  'bot_disabled',
] as const satisfies readonly BotEndReason[];
type StartedBy = EventBodies['bot.session_started']['started_by'];

/** A member (a dashboard session or an OAuth token for one): whose reply or assignment takes a conversation from bots. */
export const isHuman = (actor: Actor): boolean => actor.kind === 'user' || actor.kind === 'oauth';

type SessionConversation = { id: string; organizationId: string; channelId: string };
type SessionBot = { id: string; expireMinutes: number };

/** When a session whose customer last wrote at `at` expires; null: never. */
export const expiryOf = (bot: Pick<SessionBot, 'expireMinutes'>, at: Date): Date | null =>
  bot.expireMinutes > 0 ? new Date(at.getTime() + bot.expireMinutes * 60_000) : null;

const sessionBody = (session: BotSessionRow, channelId: string) => ({
  session_id: session.id,
  bot_id: session.botId,
  conversation_id: session.conversationId,
  channel_id: channelId,
  organization_id: session.organizationId,
});

/**
 * Ends a session once (a second end finds it ended and does nothing): the conversation's bot_id goes,
 * its pending deliveries are cancelled, and bot.session_ended is recorded. `pause` marks the
 * conversation people's. Answers whether it ended it.
 */
export async function endSession(
  tx: Executor,
  session: Pick<BotSessionRow, 'id' | 'conversationId'>,
  reason: BotEndReason,
  now: Date,
  options: { pause: boolean },
): Promise<boolean> {
  const [ended] = await tx
    .update(botSessions)
    .set({ endedAt: now, endReason: reason })
    .where(and(eq(botSessions.id, session.id), isNull(botSessions.endedAt)))
    .returning();
  if (!ended) return false;
  const [conversation] = await tx
    .update(conversations)
    .set({
      botId: sql`case when ${conversations.botId} = ${ended.botId} then null else ${conversations.botId} end`,
      ...(options.pause ? { botPausedAt: now } : {}),
      updatedAt: now,
    })
    .where(eq(conversations.id, ended.conversationId))
    .returning({ channelId: conversations.channelId });
  await tx
    .update(botDeliveries)
    .set({ status: 'cancelled', updatedAt: now })
    .where(and(eq(botDeliveries.sessionId, ended.id), eq(botDeliveries.status, 'pending')));
  await recordEvent(tx, ended.organizationId, 'bot.session_ended', { ...sessionBody(ended, conversation?.channelId ?? ''), reason }, now);
  return true;
}

/** The conversation's open session, locked; null when people own it. */
export async function openSessionOf(tx: Executor, conversationId: string): Promise<BotSessionRow | null> {
  const [row] = await tx
    .select()
    .from(botSessions)
    .where(and(eq(botSessions.conversationId, conversationId), isNull(botSessions.endedAt)))
    .limit(1)
    .for('update');
  return row ?? null;
}

/**
 * Starts a session of the bot on the conversation (ending another bot's first, as a hand-off): the
 * conversation's bot_id is set and its people's mark cleared; bot.session_started is recorded.
 * Answers the open session (the bot's own, unchanged, when it owns the conversation already).
 */
export async function startSession(
  tx: Executor,
  bot: SessionBot,
  conversation: SessionConversation,
  now: Date,
  startedBy: StartedBy,
): Promise<BotSessionRow> {
  const open = await openSessionOf(tx, conversation.id);
  if (open?.botId === bot.id) return open;
  if (open) await endSession(tx, open, 'handoff', now, { pause: false });
  const [session] = await tx
    .insert(botSessions)
    .values({
      id: uuidv7(),
      organizationId: conversation.organizationId,
      botId: bot.id,
      conversationId: conversation.id,
      startedAt: now,
      expiresAt: expiryOf(bot, now),
    })
    .returning();
  await tx.update(conversations).set({ botId: bot.id, botPausedAt: null, updatedAt: now }).where(eq(conversations.id, conversation.id));
  await recordEvent(
    tx,
    conversation.organizationId,
    'bot.session_started',
    { ...sessionBody(session!, conversation.channelId), started_by: startedBy },
    now,
  );
  return session!;
}

/** Ends every open session of a bot (it was disabled or deleted). */
export async function endBotSessionsOf(tx: Executor, bot: { id: string }, reason: BotEndReason, now: Date): Promise<void> {
  const open = await tx
    .select({ id: botSessions.id, conversationId: botSessions.conversationId })
    .from(botSessions)
    .where(and(eq(botSessions.botId, bot.id), isNull(botSessions.endedAt)));
  for (const session of open) await endSession(tx, session, reason, now, { pause: false });
}

/**
 * A member replied in the conversation or it was assigned to one: people own it, durably. One
 * statement when no bot owns it and it is people's already (no row changes).
 */
export async function humanTookOver(tx: Executor, organizationId: string, conversationId: string, now: Date): Promise<void> {
  const [row] = await tx
    .update(conversations)
    .set({ botPausedAt: sql`coalesce(${conversations.botPausedAt}, ${now.toISOString()}::timestamptz)` })
    .where(
      and(
        eq(conversations.id, conversationId),
        eq(conversations.organizationId, organizationId),
        or(isNull(conversations.botPausedAt), isNotNull(conversations.botId)),
      ),
    )
    .returning({ botId: conversations.botId });
  if (!row?.botId) return;
  const open = await openSessionOf(tx, conversationId);
  if (open) await endSession(tx, open, 'human_took_over', now, { pause: true });
}

/** After a member's message was accepted: the conversation's bot stops (its own transaction). */
export async function pauseBotsForReply(deps: { db: Db; clock: Clock }, actor: Actor, conversationId: string): Promise<void> {
  if (!isHuman(actor)) return;
  const now = deps.clock.now();
  await deps.db.transaction((tx) => humanTookOver(tx, actor.organizationId, conversationId, now));
}

/** Ends the sessions whose customer has been silent for their bot's expire_minutes (the bots.expire job, each minute). */
export async function expireBotSessions({ db, clock }: { db: Db; clock: Clock }): Promise<number> {
  const now = clock.now();
  return db.transaction(async (tx) => {
    const due = await tx
      .select({ id: botSessions.id, conversationId: botSessions.conversationId })
      .from(botSessions)
      .where(and(isNull(botSessions.endedAt), isNotNull(botSessions.expiresAt), lte(botSessions.expiresAt, now)))
      .orderBy(asc(botSessions.expiresAt))
      .limit(500)
      .for('update', { skipLocked: true });
    for (const session of due) await endSession(tx, session, 'expired', now, { pause: false });
    return due.length;
  });
}
