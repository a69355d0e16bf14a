/**
 * PLACEHOLDER (the embedded-content branch replaces this file at merge): the library's socket events
 * as Parley's normalized inbound events. Here: plain text messages and the acks of our own sends.
 */
import { proto } from 'baileys';
import type { InboundEvent } from '../../provider.ts';
import { parleyMessageIdOf, phoneOfJid } from './ids.ts';
import type { SocketEvents } from './socket.ts';

export type SocketEvent = { [K in keyof SocketEvents]: { event: K; data: SocketEvents[K] } }[keyof SocketEvents];

export type NormalizeContext = { self?: { phone?: string; lid?: string }; groups: boolean };

const Status = proto.WebMessageInfo.Status;
const ACKS: Partial<Record<number, 'sent' | 'delivered' | 'read'>> = { [Status.SERVER_ACK]: 'sent', [Status.DELIVERY_ACK]: 'delivered', [Status.READ]: 'read', [Status.PLAYED]: 'read' };

export function normalizeSocketEvent(ref: string, input: SocketEvent, context: NormalizeContext): InboundEvent[] {
  const events: InboundEvent[] = [];
  if (input.event === 'messages.upsert') {
    for (const message of input.data.messages) {
      const jid = message.key.remoteJid ?? '';
      if (message.key.fromMe || jid.endsWith('@g.us') && !context.groups) continue;
      const from = phoneOfJid(jid);
      const text = message.message?.conversation ?? message.message?.extendedTextMessage?.text;
      if (!from || !message.key.id || !text) continue;
      events.push({
        kind: 'message.inbound',
        ref,
        providerMessageId: message.key.id,
        from,
        ...(message.pushName ? { profileName: message.pushName } : {}),
        timestamp: new Date(Number(message.messageTimestamp ?? 0) * 1000),
        type: 'text',
        content: { body: text },
      });
    }
  }
  if (input.event === 'messages.update') {
    for (const { key, update } of input.data) {
      const status = update.status === undefined || update.status === null ? undefined : ACKS[update.status];
      if (!key.fromMe || !key.id || !status) continue;
      const own = parleyMessageIdOf(key.id);
      events.push({ kind: 'message.status', ref, providerMessageId: key.id, status, timestamp: new Date(), ...(own ? { callbackData: own } : {}) });
    }
  }
  return events;
}
