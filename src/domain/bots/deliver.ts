/**
 * The bot.deliver job (docs/bots.md): one signed POST of a delivery's customer messages to its bot,
 * by the webhook sender (Standard Webhooks signature, the SSRF guard, a time limit). The delivery's id
 * is the webhook-id, the same on every attempt, so a bot dedupes a repeated delivery (at least once).
 * A pending delivery whose debounce is not over waits (its job comes back when it is due); one whose
 * session ended, or whose bot was disabled, is cancelled; a failed attempt throws, and pg-boss retries
 * it with backoff.
 */
import { and, eq, inArray, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { botDeliveries, botSessions, bots, contacts, conversations, messages } from '../../db/schema.ts';
import type { Queue } from '../../jobs/queue.ts';
import type { Clock } from '../../lib/clock.ts';
import type { Sealer } from '../../lib/crypto.ts';
import type { TargetPolicy } from '../../lib/safe-fetch.ts';
import { sendWebhook } from '../webhooks/send.ts';

export type BotDeliveryDeps = { db: Db; clock: Clock; sealer: Sealer; policy: TargetPolicy; queue: Queue; timeoutMs: number };

/** The type a bot's deliveries carry (webhook-event-type). */
export const BOT_DELIVERY_TYPE = 'bot.messages';

export class BotDeliveryFailed extends Error {}

export async function deliverToBot(deps: BotDeliveryDeps, deliveryId: string): Promise<'delivered' | 'waiting' | 'cancelled' | 'done'> {
  const [row] = await deps.db
    .select({ delivery: botDeliveries, bot: bots, sessionEndedAt: botSessions.endedAt, conversation: conversations })
    .from(botDeliveries)
    .innerJoin(bots, eq(bots.id, botDeliveries.botId))
    .innerJoin(botSessions, eq(botSessions.id, botDeliveries.sessionId))
    .innerJoin(conversations, eq(conversations.id, botDeliveries.conversationId))
    .where(eq(botDeliveries.id, deliveryId))
    .limit(1);
  if (!row || row.delivery.status === 'delivered' || row.delivery.status === 'cancelled') return 'done';
  const { delivery, bot, conversation } = row;
  const now = deps.clock.now();
  if (row.sessionEndedAt !== null || !bot.enabled) {
    await deps.db.update(botDeliveries).set({ status: 'cancelled', updatedAt: now }).where(eq(botDeliveries.id, delivery.id));
    return 'cancelled';
  }
  if (delivery.status === 'pending') {
    const wait = delivery.dueAt.getTime() - now.getTime();
    if (wait > 0) {
      await deps.queue.enqueue(
        deps.db,
        'bot.deliver',
        { delivery_id: delivery.id },
        { startAfterSeconds: Math.max(1, Math.ceil(wait / 1000)) },
      );
      return 'waiting';
    }
    // Closed to new messages: the next one opens another delivery.
    const closed = await deps.db
      .update(botDeliveries)
      .set({ status: 'sending', updatedAt: now })
      .where(and(eq(botDeliveries.id, delivery.id), eq(botDeliveries.status, 'pending')))
      .returning({ id: botDeliveries.id });
    if (closed.length === 0) return 'done';
  }
  const body = JSON.stringify(await deliveryBody(deps.db, delivery, bot.id, conversation, now));
  const outcome = await sendWebhook(
    bot.url,
    [deps.sealer.open(bot.secretSealed)],
    { id: delivery.id, type: BOT_DELIVERY_TYPE, body },
    { clock: deps.clock, timeoutMs: deps.timeoutMs, policy: deps.policy },
  );
  await deps.db
    .update(botDeliveries)
    .set({
      status: outcome.succeeded ? 'delivered' : 'sending',
      attempts: sql`${botDeliveries.attempts} + 1`,
      lastStatusCode: outcome.statusCode,
      lastError: outcome.error ?? (outcome.succeeded ? null : `answered ${outcome.statusCode}`),
      updatedAt: deps.clock.now(),
    })
    .where(eq(botDeliveries.id, delivery.id));
  if (!outcome.succeeded)
    throw new BotDeliveryFailed(`bot ${bot.id} delivery ${delivery.id}: ${outcome.error ?? `answered ${outcome.statusCode}`}`);
  return 'delivered';
}

/** What the bot gets: the conversation (what a reply through POST /v1/messages needs), its contact and the messages. */
async function deliveryBody(
  db: Db,
  delivery: typeof botDeliveries.$inferSelect,
  botId: string,
  conversation: typeof conversations.$inferSelect,
  now: Date,
) {
  const rows = await db
    .select({ id: messages.id, type: messages.type, content: messages.content, createdAt: messages.createdAt })
    .from(messages)
    .where(inArray(messages.id, delivery.messageIds));
  const order = new Map(delivery.messageIds.map((id, i) => [id, i]));
  rows.sort((a, b) => order.get(a.id)! - order.get(b.id)!);
  const [contact] = conversation.contactId
    ? await db
        .select({ id: contacts.id, name: contacts.name, phone: contacts.phoneNumber })
        .from(contacts)
        .where(eq(contacts.id, conversation.contactId))
        .limit(1)
    : [];
  return {
    type: BOT_DELIVERY_TYPE,
    delivery_id: delivery.id,
    bot_id: botId,
    session_id: delivery.sessionId,
    conversation: {
      id: conversation.id,
      channel_id: conversation.channelId,
      peer_phone: `+${conversation.peerPhone}`,
      contact: contact ?? null,
    },
    /** A reply is POST /v1/messages with these fields and its content; a hand-off is POST reply.handoff_path. */
    reply: {
      channel_id: conversation.channelId,
      to: `+${conversation.peerPhone}`,
      conversation_id: conversation.id,
      handoff_path: `/v1/conversations/${conversation.id}/handoff`,
    },
    messages: rows.map((m) => ({ id: m.id, type: m.type, content: m.content, created_at: m.createdAt.toISOString() })),
    sent_at: now.toISOString(),
  };
}
