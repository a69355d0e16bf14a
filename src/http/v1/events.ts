import { z } from 'zod';
import type { Executor } from '../../db/client.ts';
import { invalid } from '../../domain/errors.ts';
import { EVENT_TYPES, type EventType } from '../../domain/events/outbox.ts';
import { listEvents, type EventItem } from '../../domain/events/replay.ts';
import { PAGE_SIZE_DEFAULT, PAGE_SIZE_MAX } from '../../lib/cursor.ts';
import { actorOf, type App } from '../app.ts';
import { errorResponses } from '../errors.ts';
import { IsoTimestamp } from '../schemas.ts';

const EventSchema = z
  .object({
    id: z.uuid().meta({ description: 'The event id: the webhook-id of its deliveries' }),
    type: z.enum(EVENT_TYPES),
    created_at: z.string(),
    data: z.record(z.string(), z.unknown()).meta({ description: 'The body its webhooks carry (the Events table)' }),
  })
  .meta({
    id: 'Event',
    examples: [
      {
        id: '0196b1f2-1c9e-7a01-b2c3-d4e5f6a7b8c9',
        type: 'message.status_update',
        created_at: '2025-06-02T09:14:00.000Z',
        data: { message_id: '0196b1f2-0a00-7000-8000-000000000001', status: 'delivered', conversation_id: '0196b1f2-0a00-7000-8000-000000000002' },
      },
    ],
  });

export type EventRecord = z.infer<typeof EventSchema>;

export function presentEvent(event: EventItem): EventRecord {
  return { id: event.id, type: event.type as EventType, created_at: event.createdAt.toISOString(), data: event.payload };
}

/** What the events route uses: the database, and the retention it documents. */
export type EventServices = { db: Executor; retentionDays: number };

export async function registerEventRoutes(app: App, { db, retentionDays: days }: EventServices) {

  app.get(
    '/v1/events',
    {
      config: { auth: { permission: 'webhooks:read' } },
      schema: {
        tags: ['events'],
        summary: "Replay the organization's events",
        description:
          `Events in commit order, oldest first, so a receiver that was down can catch up by reading instead of waiting for retries. ` +
          `Start without a cursor (the oldest retained event) or with \`since\`, then pass \`meta.next_cursor\` each time: it is always set, also on the last page, ` +
          `so keeping it and asking again later returns only newer events. A page never gains an event before its cursor later (positions are given at commit, one transaction at a time). ` +
          `Events are kept ${days} days (EVENT_RETENTION_DAYS, at least 7); older ones, their deliveries and attempts are deleted hourly.`,
        querystring: z.object({
          limit: z.coerce.number().int().min(1).max(PAGE_SIZE_MAX).default(PAGE_SIZE_DEFAULT).meta({ description: `Page size, 1 to ${PAGE_SIZE_MAX} (default ${PAGE_SIZE_DEFAULT})` }),
          cursor: z.string().max(512).optional().meta({ description: 'meta.next_cursor of the previous page' }),
          type: z.enum(EVENT_TYPES).optional(),
          since: IsoTimestamp.optional().meta({ description: 'Only events created at or after this time' }),
        }),
        response: {
          200: z.object({
            data: z.array(EventSchema),
            meta: z.object({
              next_cursor: z.string().meta({ description: 'Where to read on from; always set' }),
              has_more: z.boolean().meta({ description: 'More events are there now' }),
            }),
          }),
          ...errorResponses([400, 401, 403]),
        },
      },
    },
    async (request) => {
      const q = request.query;
      const page = await listEvents({ db }, actorOf(request), { limit: q.limit, cursor: q.cursor, type: q.type, since: q.since ? new Date(q.since) : undefined });
      if (!page.ok) throw invalid('cursor is not valid', [{ pointer: '/cursor', location: 'query', message: 'not a cursor returned by GET /v1/events' }]);
      return { data: page.items.map(presentEvent), meta: { next_cursor: page.nextCursor, has_more: page.hasMore } };
    },
  );
}
