/** The event routes' records (events.ts): the presenters that turn the domain's rows into them, typed from the response schemas. */
import type { z } from 'zod';
import type { EventType } from '../../domain/events/outbox.ts';
import type { EventItem } from '../../domain/events/replay.ts';
import type { EventPageSchema, EventSchema } from './events.ts';

export type EventRecord = z.infer<typeof EventSchema>;
export type EventPageRecord = z.infer<typeof EventPageSchema>;

export function presentEvent(event: EventItem): EventRecord {
  return { id: event.id, type: event.type as EventType, created_at: event.createdAt.toISOString(), data: event.payload };
}
