/**
 * What a stored provider delivery (provider_events.payload) holds. Since version 2 it is the
 * delivery's events for its channel, normalized once on receipt; rows from earlier versions hold the
 * provider's raw body, which the job normalizes (once) when it applies them.
 */
import type { InboundEvent } from '../../providers/provider.ts';

export const STORED_VERSION = 2;

export type StoredDelivery = { version: typeof STORED_VERSION; events: unknown[] };

/** The events as JSON the database stores (times as ISO strings). */
export function storedDelivery(events: InboundEvent[]): StoredDelivery {
  return { version: STORED_VERSION, events: JSON.parse(JSON.stringify(events)) as unknown[] };
}

/** The events of a stored delivery, or undefined when the row holds a raw body (stored before version 2). */
export function eventsOfStored(payload: Record<string, unknown>): InboundEvent[] | undefined {
  if (payload.version !== STORED_VERSION || !Array.isArray(payload.events)) return undefined;
  return payload.events.map((stored) => {
    const event = { ...(stored as Record<string, unknown>) };
    for (const key of ['timestamp', 'nextRetryAt', 'lastSeen', 'mutedUntil'])
      if (typeof event[key] === 'string') event[key] = new Date(event[key] as string);
    return event as InboundEvent;
  });
}
