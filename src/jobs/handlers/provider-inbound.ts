/**
 * Applies one verified provider webhook delivery: channel status changes, template decisions and
 * message events, each in Parley's normalized form, in one transaction with the delivery marked done.
 */
import { eq } from 'drizzle-orm';
import type { Container } from '../../container.ts';
import { providerEvents } from '../../db/schema.ts';
import { findChannel, type ChannelRow } from '../../domain/channels/channels.ts';
import { applyProviderEvent, type MessageEventSink } from '../../domain/channels/provider-events.ts';
import { UnknownMessageError } from '../../domain/messages/provider-sink.ts';
import { normalizeGatewayCallback } from '../../providers/gateway/inbound.ts';
import { normalizeOfficialWebhook } from '../../providers/official/inbound.ts';
import type { InboundEvent } from '../../providers/provider.ts';

/** The events of a stored delivery that belong to its channel. */
export function eventsForChannel(platform: string, payload: unknown, channel: ChannelRow): InboundEvent[] {
  const events = platform === 'chatapp_official' ? normalizeOfficialWebhook(payload) : normalizeGatewayCallback(payload);
  const waba = channel.settings.waba_id;
  return events.filter((e) => e.ref === channel.providerRef || (e.kind === 'template.status' && waba !== undefined && e.ref === String(waba)));
}

/** How long a status for an unknown message is retried (its send may not have committed yet). */
const UNKNOWN_MESSAGE_GRACE_MS = 120_000;

export function providerInboundHandler(container: Container, sink: MessageEventSink) {
  const { database, clock, logger } = container;
  return async ({ provider_event_id }: { provider_event_id: string }) => {
    const [stored] = await database.db.select().from(providerEvents).where(eq(providerEvents.id, provider_event_id)).limit(1);
    if (!stored || stored.processedAt) return;
    // A database error throws (the job is retried); only a deleted channel drops the event.
    const channel = await findChannel(database.db, stored.channelId);
    if (!channel) return;
    const events = eventsForChannel(stored.platform, stored.payload, channel);
    try {
      await database.db.transaction(async (tx) => {
        let current = channel;
        for (const event of events) current = await applyProviderEvent(tx, current, event, clock.now(), sink);
        await tx.update(providerEvents).set({ processedAt: clock.now() }).where(eq(providerEvents.id, stored.id));
      });
    } catch (err) {
      if (!(err instanceof UnknownMessageError)) throw err;
      if (clock.now().getTime() - stored.receivedAt.getTime() < UNKNOWN_MESSAGE_GRACE_MS) throw err;
      // Still unknown after the grace period (a message sent outside Parley): apply the events one
      // by one and skip those about unknown messages.
      let current = channel;
      const skipped: string[] = [];
      for (const event of events) {
        try {
          current = await database.db.transaction((tx) => applyProviderEvent(tx, current, event, clock.now(), sink));
        } catch (inner) {
          if (!(inner instanceof UnknownMessageError)) throw inner;
          skipped.push(inner.message);
        }
      }
      logger.warn({ provider_event_id, skipped }, 'statuses for unknown messages ignored');
      await database.db.update(providerEvents).set({ processedAt: clock.now(), error: skipped.join('; ').slice(0, 1000) }).where(eq(providerEvents.id, stored.id));
    }
    logger.debug({ provider_event_id, channel_id: channel.id, events: events.length }, 'applied provider events');
  };
}
