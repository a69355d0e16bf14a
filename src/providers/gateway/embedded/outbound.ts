/**
 * PLACEHOLDER (the embedded-content branch replaces this file at merge): sends Parley's message
 * through the session's socket. Text only here; the full mapping of every type lives there.
 */
import type { TargetPolicy } from '../../../lib/safe-fetch.ts';
import type { OutboundMessage, Result } from '../../provider.ts';
import { jidOfPhone, libraryMessageId } from './ids.ts';
import type { EngineSocket } from './socket.ts';

export type SendContext = { targets: TargetPolicy; self?: { phone: string }; statusOf?(providerMessageId: string): Promise<string | undefined> };

export async function sendThroughSocket(socket: EngineSocket, message: OutboundMessage, _context: SendContext): Promise<Result<{ providerMessageId?: string }>> {
  if (message.type !== 'text') return { ok: false, error: { code: 'unsupported_type', title: `the embedded engine cannot send ${message.type} yet`, retryable: false } };
  const messageId = libraryMessageId(message.id);
  try {
    const sent = await socket.sendMessage(jidOfPhone(message.to), { text: String(message.content.body ?? '') }, { messageId });
    return { ok: true, value: { providerMessageId: sent?.key.id ?? messageId } };
  } catch (err) {
    // The bytes may have gone out: an answer lost, settled by the acks that name the message.
    return { ok: false, error: { code: 'network_error', title: 'the session did not confirm the send', message: (err as Error).message, retryable: true } };
  }
}
