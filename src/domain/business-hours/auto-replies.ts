/**
 * The away message and the greeting. In the transaction storing an inbound message of a contact's own
 * chat, what is owed is decided and marked on the conversation (away_sent_at: at most one away message
 * per away_every_hours, only outside business hours; greeting_sent_at: once, for a contact the message
 * created), and the `conversation.auto-reply` job is enqueued with it: a crash loses neither. The job
 * sends through acceptMessage like any other message, behind an idempotency key per conversation and
 * period (the inbound message that opened it), so a retried job sends nothing twice. Nothing is sent
 * while a bot owns the conversation (botOwnsConversation: its bot_id), decided and again when sending.
 */
import { and, eq, isNull, lte, or } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { conversations, messages } from '../../db/schema.ts';
import type { Queue } from '../../jobs/queue.ts';
import type { Logger } from '../../lib/logger.ts';
import type { Actor } from '../actor.ts';
import { PERMISSIONS } from '../permissions.ts';
import type { InboundAutoReplyRecorder } from '../messages/provider-events.ts';
import { acceptMessageOnce, type MessageDeps, type SendInput, type SendOutcome } from '../messages/accept.ts';
import { isOpen } from './hours.ts';
import { botOwnsConversation, effectiveBusinessHours } from './settings.ts';

/** Decides and marks what the message is owed, and enqueues the job sending it (none when nothing is). */
export function createAutoReplyRecorder(deps: { queue: Queue }): InboundAutoReplyRecorder {
  return async (tx, message, at) => {
    if (botOwnsConversation(message)) return;
    const settings = (await effectiveBusinessHours(tx, message.channelId))?.effective;
    if (!settings) return;
    let greeting = false;
    let away = false;
    if (settings.greeting_message && message.contactCreated) {
      const marked = await tx
        .update(conversations)
        .set({ greetingSentAt: at })
        .where(and(eq(conversations.id, message.conversationId), isNull(conversations.greetingSentAt)))
        .returning({ id: conversations.id });
      greeting = marked.length > 0;
    }
    if ((settings.away_message || settings.away_template) && !isOpen(settings, at)) {
      const since = new Date(at.getTime() - settings.away_every_hours * 3_600_000);
      // Conditional: of two messages of one conversation stored at once, one marks it.
      const marked = await tx
        .update(conversations)
        .set({ awaySentAt: at })
        .where(
          and(eq(conversations.id, message.conversationId), or(isNull(conversations.awaySentAt), lte(conversations.awaySentAt, since))),
        )
        .returning({ id: conversations.id });
      away = marked.length > 0;
    }
    if (greeting || away)
      await deps.queue.enqueue(tx, 'conversation.auto-reply', { message_id: message.id, greeting, away }, { singletonKey: message.id });
  };
}

export type AutoReplyDeps = { db: Db; messages: MessageDeps; logger?: Pick<Logger, 'warn'> };

/** The `conversation.auto-reply` job: sends the greeting, then the away message, as the settings now say. */
export async function sendAutoReplies(deps: AutoReplyDeps, input: { messageId: string; greeting: boolean; away: boolean }): Promise<void> {
  const [row] = await deps.db
    .select({ message: messages, peerPhone: conversations.peerPhone, botId: conversations.botId })
    .from(messages)
    .innerJoin(conversations, eq(conversations.id, messages.conversationId))
    .where(eq(messages.id, input.messageId))
    .limit(1);
  if (!row || botOwnsConversation(row)) return;
  const { message } = row;
  const settings = (await effectiveBusinessHours(deps.db, message.channelId))?.effective;
  if (!settings) return;
  const actor: Actor = { kind: 'system', organizationId: message.organizationId, permissions: new Set(PERMISSIONS) };
  const base = { channelId: message.channelId, to: `+${row.peerPhone}`, conversationId: message.conversationId };
  const send = async (key: string, input: Omit<SendInput, 'channelId' | 'to' | 'conversationId'>) => {
    const outcome = await acceptMessageOnce(deps.messages, actor, {
      ...base,
      ...input,
      idempotency: { key, requestHash: key },
    });
    return outcome;
  };
  const report = (what: string, outcome: SendOutcome) => {
    if (outcome.refusal)
      deps.logger?.warn({ conversation_id: message.conversationId, refusal: outcome.refusal }, `the ${what} was not sent`);
  };
  if (input.greeting && settings.greeting_message)
    report(
      'greeting',
      await send(`parley:greeting:${message.conversationId}`, { type: 'text', content: { body: settings.greeting_message } }),
    );
  if (!input.away) return;
  const key = `parley:away:${message.conversationId}:${message.id}`;
  let outcome: SendOutcome | null = null;
  if (settings.away_message) outcome = await send(key, { type: 'text', content: { body: settings.away_message } });
  // The window closed (the job ran late) or there is no text: the approved template, when one is set.
  if ((!outcome || outcome.refusal === 'window_closed') && settings.away_template)
    outcome = await send(`${key}:template`, { type: 'template', content: { template: settings.away_template } });
  if (outcome) report('away message', outcome);
}
