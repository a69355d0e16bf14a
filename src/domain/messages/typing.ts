/**
 * A typing indicator in answer to a customer's message: a `presence` (typing) message to its sender,
 * in its conversation, naming it (official channels show typing as they mark it read). It is
 * accepted like any message: the channel's support matrix, window and the CRM's rules apply.
 */
import type { Actor } from '../actor.ts';
import { DomainError } from '../errors.ts';
import { acceptMessage, type MessageDeps, type SendOutcome } from './accept.ts';
import { loadMessage } from './messages.ts';

export async function showTyping(deps: MessageDeps, actor: Actor, messageId: string): Promise<SendOutcome> {
  const message = await loadMessage(deps, actor, messageId);
  if (message.direction !== 'inbound' || !message.fromPhone || !message.providerMessageId)
    throw new DomainError('conflict', 'typing answers a message the customer sent; this one is outbound');
  return acceptMessage(deps, actor, {
    channelId: message.channelId,
    to: message.fromPhone,
    conversationId: message.conversationId,
    type: 'presence',
    content: { state: 'typing', message_id: message.providerMessageId },
  });
}
