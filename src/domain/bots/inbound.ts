/**
 * A customer message and the bots, in the transaction that stores it (docs/bots.md): the owning bot's
 * session ends when it expired or the message is the stop keyword, or else the message joins the
 * session's pending delivery (debounce: due debounce_ms after the latest message) and a bot.deliver
 * job is enqueued with it; with no bot owning the conversation and people not holding it, the first
 * enabled bot of the channel whose trigger matches starts a session. Answers the bot that owns the
 * conversation afterwards (the away message and greeting are not sent then).
 */
import { and, asc, desc, eq, sql } from 'drizzle-orm';
import { queryRows, type Executor } from '../../db/client.ts';
import { bots, botSessions } from '../../db/schema.ts';
import type { Queue } from '../../jobs/queue.ts';
import { uuidv7 } from '../../lib/ids.ts';
import { isStopKeyword, matchText, triggerMatches, type BotRow } from './bots.ts';
import { endSession, expiryOf, openSessionOf, startSession, type BotSessionRow } from './sessions.ts';

export type InboundBotMessage = {
  id: string;
  organizationId: string;
  channelId: string;
  conversationId: string;
  content: Record<string, unknown>;
  /** The conversation's columns as loaded with it. */
  botId: string | null;
  botPausedAt: Date | null;
};

export type InboundBotRecorder = (tx: Executor, message: InboundBotMessage, at: Date) => Promise<string | null>;

/** A sliding debounce waits at most this many debounce periods after a delivery's first message. */
const DEBOUNCE_CAP_PERIODS = 5;

export function createBotInboundRecorder(deps: { queue: Queue }): InboundBotRecorder {
  return async (tx, message, at) => {
    const text = matchText(message.content);
    if (message.botId !== null) {
      const open = await openSessionOf(tx, message.conversationId);
      const bot = open ? await botOf(tx, open.botId) : null;
      if (open && bot) {
        if (open.expiresAt !== null && open.expiresAt.getTime() <= at.getTime()) {
          await endSession(tx, open, 'expired', at, { pause: false });
        } else if (isStopKeyword(bot, text)) {
          await endSession(tx, open, 'stop_keyword', at, { pause: bot.keepOpen });
          return null;
        } else {
          await addToDelivery(tx, deps.queue, open, bot, message.id, at);
          return bot.id;
        }
      }
    } else if (message.botPausedAt !== null) return null;
    const bot = await triggeredBot(tx, message, text);
    if (!bot || isStopKeyword(bot, text)) return null;
    const session = await startSession(
      tx,
      bot,
      { id: message.conversationId, organizationId: message.organizationId, channelId: message.channelId },
      at,
      'trigger',
    );
    await addToDelivery(tx, deps.queue, session, bot, message.id, at);
    return bot.id;
  };
}

async function botOf(tx: Executor, botId: string): Promise<BotRow | null> {
  const [row] = await tx.select().from(bots).where(eq(bots.id, botId)).limit(1);
  return row && row.enabled ? row : null;
}

/** The first enabled bot serving the channel whose trigger matches: keyword bots before the catch-all ones, oldest first. */
async function triggeredBot(tx: Executor, message: InboundBotMessage, text: string): Promise<BotRow | null> {
  const candidates = await tx
    .select()
    .from(bots)
    .where(
      and(
        eq(bots.organizationId, message.organizationId),
        eq(bots.enabled, true),
        sql`(cardinality(${bots.channelIds}) = 0 or ${message.channelId}::uuid = any(${bots.channelIds}))`,
      ),
    )
    .orderBy(desc(bots.triggerType), asc(bots.createdAt), asc(bots.id));
  return candidates.find((bot) => triggerMatches(bot, text)) ?? null;
}

/**
 * Adds the message to the session's pending delivery (a new one when none is pending), pushes its due
 * time to debounce_ms from now (at most DEBOUNCE_CAP_PERIODS periods after its first message), moves
 * the session's expiry, and enqueues the delivery's job for when it is due.
 */
async function addToDelivery(tx: Executor, queue: Queue, session: BotSessionRow, bot: BotRow, messageId: string, at: Date) {
  const due = new Date(at.getTime() + bot.debounceMs);
  const cap = `${bot.debounceMs * DEBOUNCE_CAP_PERIODS} milliseconds`;
  const [row] = await queryRows<{ id: string }>(
    tx,
    sql`
    insert into bot_deliveries (id, organization_id, bot_id, session_id, conversation_id, message_ids, status, due_at, created_at, updated_at)
    values (${uuidv7()}, ${session.organizationId}, ${bot.id}, ${session.id}, ${session.conversationId},
            array[${messageId}::uuid], 'pending', ${due.toISOString()}::timestamptz, ${at.toISOString()}::timestamptz, ${at.toISOString()}::timestamptz)
    on conflict (session_id) where status = 'pending' do update
      set message_ids = bot_deliveries.message_ids || excluded.message_ids,
          due_at = least(excluded.due_at, bot_deliveries.created_at + ${cap}::interval),
          updated_at = excluded.updated_at
    returning id`,
  );
  const id = row!.id;
  const expiresAt = expiryOf(bot, at);
  if (expiresAt) await tx.update(botSessions).set({ expiresAt }).where(eq(botSessions.id, session.id));
  await queue.enqueue(
    tx,
    'bot.deliver',
    { delivery_id: id },
    bot.debounceMs > 0 ? { startAfterSeconds: Math.max(1, Math.ceil(bot.debounceMs / 1000)) } : undefined,
  );
}
