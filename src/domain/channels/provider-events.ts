/**
 * Provider webhook deliveries: accepted (stored with a job, in one transaction, so the provider can
 * be answered at once and nothing is lost) and later applied, event by event.
 */
import { eq } from 'drizzle-orm';
import type { Db, Executor } from '../../db/client.ts';
import { channels, providerEvents } from '../../db/schema.ts';
import type { Queue } from '../../jobs/queue.ts';
import type { Clock } from '../../lib/clock.ts';
import { uuidv7 } from '../../lib/ids.ts';
import type { InboundEvent, Platform } from '../../providers/provider.ts';
import { applyTemplateDecision } from '../templates/templates.ts';
import { reloadChannel, type ChannelRow } from './channels.ts';
import { transitionChannel } from './status.ts';

/** Stores one verified delivery for a channel and enqueues its processing. Duplicates (same external id) are dropped. */
export async function acceptProviderDelivery(
  deps: { db: Db; queue: Queue; clock: Clock },
  channel: ChannelRow,
  payload: Record<string, unknown>,
  externalId: string | undefined,
): Promise<{ stored: boolean }> {
  return deps.db.transaction(async (tx) => {
    const id = uuidv7();
    const inserted = await tx
      .insert(providerEvents)
      .values({
        id,
        organizationId: channel.organizationId,
        channelId: channel.id,
        platform: channel.platform,
        externalId: externalId ?? null,
        payload,
        receivedAt: deps.clock.now(),
      })
      .onConflictDoNothing()
      .returning({ id: providerEvents.id });
    if (inserted.length === 0) return { stored: false };
    await deps.queue.enqueue(tx, 'provider.inbound', { provider_event_id: id });
    return { stored: true };
  });
}

/** What applying message events needs; the messages module provides it. */
export type MessageEventSink = {
  applyMessageEvent(tx: Executor, channel: ChannelRow, event: Extract<InboundEvent, { kind: 'message.status' | 'message.inbound' }>, at: Date): Promise<void>;
};

/** Applies one normalized provider event to its channel; returns the channel as it now is. */
export async function applyProviderEvent(
  tx: Executor,
  channel: ChannelRow,
  event: InboundEvent,
  at: Date,
  sink: Partial<MessageEventSink>,
): Promise<ChannelRow> {
  switch (event.kind) {
    case 'channel.status': {
      // A report older than the last one applied (callbacks overtake each other) is history, not news.
      if (event.timestamp && channel.statusReportedAt && event.timestamp.getTime() < channel.statusReportedAt.getTime()) return channel;
      const ref = { id: channel.id, organizationId: channel.organizationId, platform: channel.platform as Platform, status: channel.status };
      await transitionChannel(tx, ref, event.status, event.reason ?? `provider reported ${event.status}`, event.reasonCode ?? null, at);
      if (event.timestamp) await tx.update(channels).set({ statusReportedAt: event.timestamp }).where(eq(channels.id, channel.id));
      if (event.status === 'connected') {
        await tx
          .update(channels)
          .set({ reconnectAttempts: 0, lastCheckedAt: at, ...(event.phone ? { displayPhoneNumber: `+${event.phone.replace(/^\+/, '')}` } : {}) })
          .where(eq(channels.id, channel.id));
      }
      return reloadChannel(tx, channel.id);
    }
    case 'template.status':
      await applyTemplateDecision(tx, channel, event, at);
      return channel;
    case 'message.status':
    case 'message.inbound':
      await sink.applyMessageEvent?.(tx, channel, event, at);
      return channel;
    default:
      return event satisfies never;
  }
}
