import { z } from 'zod';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Database } from '../../db/client.ts';
import type { Actor } from '../../domain/actor.ts';
import { invalid } from '../../domain/errors.ts';
import { EVENT_TYPES, type EventType } from '../../domain/events/outbox.ts';
import { encodeEventCursor, listEvents } from '../../domain/events/replay.ts';
import { openEventStream, type EventHub } from '../../domain/events/stream.ts';
import { PAGE_SIZE_DEFAULT, PAGE_SIZE_MAX } from '../../lib/cursor.ts';
import { actorOf } from '../auth/actor.ts';
import type { App } from '../types.ts';
import { errorResponses, HttpError } from '../errors.ts';
import { IsoTimestamp } from '../schemas.ts';
import { createSseRegistry, createStreamCaps, startSse, type StreamPlace } from '../sse.ts';
import { presentEvent } from './events.presenters.ts';

export const EventSchema = z
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
        data: {
          message_id: '0196b1f2-0a00-7000-8000-000000000001',
          status: 'delivered',
          conversation_id: '0196b1f2-0a00-7000-8000-000000000002',
        },
      },
    ],
  });

/** A page of GET /v1/events: its cursor is always set (where to read on from later), has_more says whether more are there now. */
export const EventPageSchema = z.object({
  data: z.array(EventSchema),
  meta: z.object({
    next_cursor: z.string().meta({ description: 'Where to read on from; always set' }),
    has_more: z.boolean().meta({ description: 'More events are there now' }),
  }),
});

/** What the events routes use: the database, the retention they document, the process's stream hub, and the credential check an open stream repeats. */
export type EventServices = {
  database: Pick<Database, 'db'>;
  retentionDays: number;
  hub: EventHub;
  stream: { heartbeatMs: number; retryMs?: number; maxBufferBytes?: number; maxPerCredential: number; maxPerOrganization: number };
  reauthenticate(request: FastifyRequest): Promise<Actor | undefined>;
};

/** The reconnection delay suggested to EventSource clients, and what may wait for a slow one. */
const STREAM_RETRY_MS = 2000;
const STREAM_BUFFER_BYTES = 1024 * 1024;

const EventTypeList = z
  .string()
  .max(2000)
  .superRefine((value, ctx) => {
    const unknown = value.split(',').filter((t) => !(EVENT_TYPES as readonly string[]).includes(t.trim()));
    if (unknown.length > 0)
      ctx.addIssue({
        code: 'custom',
        message: `unknown event type ${unknown.map((t) => JSON.stringify(t)).join(', ')}; one of ${EVENT_TYPES.join(', ')}`,
      });
  })
  .meta({ description: 'Comma-separated event types to receive (default: all)', example: 'message.new,message.status_update' });

export async function registerEventRoutes(
  app: App,
  { database, retentionDays: days, hub, stream: settings, reauthenticate }: EventServices,
) {
  const db = database.db;
  const open = createSseRegistry();
  const caps = createStreamCaps({ perCredential: settings.maxPerCredential, perOrganization: settings.maxPerOrganization });
  // A refused client is told to come back after a heartbeat: the period in which streams whose clients left are found and end.
  const capRetryAfterSeconds = Math.max(1, Math.ceil(settings.heartbeatMs / 1000));
  // Open streams end when the server closes (before it waits for its connections); clients reconnect elsewhere.
  app.addHook('preClose', async () => open.endAll());

  app.get(
    '/v1/events',
    {
      config: { auth: { permission: 'webhooks:read' } },
      schema: {
        tags: ['events'],
        summary: "Replay the organization's events",
        description:
          `Events in commit order, oldest first, so a receiver that was down can catch up by reading instead of waiting for retries (\`order=desc\`: newest first, for reading the log). ` +
          `Start without a cursor (the oldest retained event) or with \`since\`, then pass \`meta.next_cursor\` each time: it is always set, also on the last page, ` +
          `so keeping it and asking again later returns only newer events. A page never gains an event before its cursor later (positions are given at commit, one transaction at a time). ` +
          `Events are kept ${days} days (EVENT_RETENTION_DAYS, at least 7); older ones, their deliveries and attempts are deleted hourly.`,
        querystring: z.object({
          limit: z.coerce
            .number()
            .int()
            .min(1)
            .max(PAGE_SIZE_MAX)
            .default(PAGE_SIZE_DEFAULT)
            .meta({ description: `Page size, 1 to ${PAGE_SIZE_MAX} (default ${PAGE_SIZE_DEFAULT})` }),
          cursor: z.string().max(512).optional().meta({ description: 'meta.next_cursor of the previous page' }),
          type: z.enum(EVENT_TYPES).optional(),
          since: IsoTimestamp.optional().meta({ description: 'Only events created at or after this time' }),
          order: z.enum(['asc', 'desc']).default('asc').meta({
            description:
              '`asc` (default): commit order, oldest first, for catching up. `desc`: newest first, for reading the log; its `next_cursor` reads on into older events (has_more false: the oldest was reached). A cursor is for the order that gave it (400 otherwise), and only an `asc` one resumes the stream.',
          }),
        }),
        response: {
          200: EventPageSchema,
          ...errorResponses([400, 401, 403]),
        },
      },
    },
    async (request) => {
      const q = request.query;
      const page = await listEvents({ db }, actorOf(request), {
        limit: q.limit,
        cursor: q.cursor,
        type: q.type,
        since: q.since ? new Date(q.since) : undefined,
        order: q.order,
      });
      if (!page.ok)
        throw invalid('cursor is not valid', [
          { pointer: '/cursor', location: 'query', message: `not a cursor returned by GET /v1/events with order=${q.order}` },
        ]);
      return { data: page.items.map(presentEvent), meta: { next_cursor: page.nextCursor, has_more: page.hasMore } };
    },
  );

  app.get(
    '/v1/events/stream',
    {
      config: { auth: { permission: 'webhooks:read', organizationQuery: 'organization_id' } },
      schema: {
        tags: ['events'],
        summary: "Stream the organization's events live (server-sent events)",
        description:
          'A `text/event-stream` of the events GET /v1/events lists, in the same commit order, as they happen; the inbox, channel and delivery views of the dashboard use it, and so can integrators. ' +
          'Each message is `id:` (a cursor, interchangeable with `meta.next_cursor` of GET /v1/events), `event:` (the event type) and `data:` (the event record GET /v1/events lists, as JSON on one line). ' +
          'Without a cursor the stream starts **now** (at the newest event; nothing older is sent). To resume, send the last id received as `Last-Event-ID` (EventSource does so by itself when it reconnects) ' +
          'or as `cursor` (for a first connection from a client that cannot set headers): the events after it come first, then live ones, none twice; the header wins over the parameter. ' +
          `A comment line \`: keepalive\` comes every ${Math.round(settings.heartbeatMs / 1000)} s (EVENT_STREAM_HEARTBEAT_MS), and the credential is checked again each time: a revoked key, token or session ends the stream. ` +
          'The stream also ends when the server shuts down, or when the client reads too slowly (over 1 MiB waiting); reconnect with Last-Event-ID. ' +
          `A server process holds at most ${settings.maxPerCredential} streams open per credential (EVENT_STREAM_MAX_PER_CREDENTIAL: an API key, an access token, a session) and ${settings.maxPerOrganization} per organization (EVENT_STREAM_MAX_PER_ORGANIZATION); past either the answer is 429 with Retry-After, and a closed stream gives its place back. ` +
          'A dashboard session (cookie) may name its organization with `organization_id` (EventSource cannot send X-Organization-Id); the same rules as the header apply. ' +
          `Events appear once the worker role has sequenced them (within milliseconds of their commit); they are kept ${days} days, so a cursor older than that resumes at the oldest kept.`,
        querystring: z.object({
          cursor: z.string().max(512).optional().meta({
            description:
              'Start after this cursor (an id of this stream, or meta.next_cursor of GET /v1/events); Last-Event-ID takes precedence',
          }),
          types: EventTypeList.optional(),
          organization_id: z
            .uuid()
            .optional()
            .meta({ description: 'The organization to stream, for a session that cannot send X-Organization-Id (EventSource)' }),
        }),
        headers: z
          .object({
            'last-event-id': z
              .string()
              .max(512)
              .optional()
              .meta({ description: 'The id of the last message received: the stream resumes after it' }),
          })
          .passthrough(),
        response: {
          200: {
            description:
              'The event stream (it stays open). Messages: `id: <cursor>`, `event: <type>`, `data: <Event as JSON>`, a blank line; first `retry: <ms>`; comments `: keepalive`.',
            content: { 'text/event-stream': { schema: z.string() } },
          },
          ...errorResponses([400, 401, 403]),
        },
      },
    },
    async (request, reply) => {
      const actor = actorOf(request);
      const header = request.headers['last-event-id'];
      const resume =
        typeof header === 'string' && header !== ''
          ? { cursor: header, pointer: '/last-event-id', location: 'headers' as const }
          : undefined;
      const cursor =
        resume ??
        (request.query.cursor === undefined ? undefined : { cursor: request.query.cursor, pointer: '/cursor', location: 'query' as const });
      const types = request.query.types?.split(',').map((t) => t.trim() as EventType);
      const place = caps.take({ credential: credentialOf(actor), organization: actor.organizationId });
      if (!('release' in place)) {
        void reply.header('retry-after', String(capRetryAfterSeconds));
        const [holder, variable] =
          place.over === 'credential'
            ? ['this credential', 'EVENT_STREAM_MAX_PER_CREDENTIAL']
            : ['this organization', 'EVENT_STREAM_MAX_PER_ORGANIZATION'];
        throw new HttpError(
          'rate_limited',
          `too many open event streams for ${holder}: the limit is ${place.cap} (${variable}); close one, or retry in ${capRetryAfterSeconds} s`,
        );
      }
      try {
        await startStream(request, reply, { actor, place, cursor, types });
      } catch (err) {
        place.release();
        throw err;
      }
    },
  );

  /** The stream itself, once it has its place (given back when the connection closes). */
  async function startStream(
    request: FastifyRequest,
    reply: FastifyReply,
    { actor, place, cursor, types }: { actor: Actor; place: StreamPlace; cursor: StreamStart | undefined; types: EventType[] | undefined },
  ) {
    const opened = await openEventStream({ database, hub }, actor, { cursor: cursor?.cursor, types });
    if (!opened.ok)
      throw invalid('cursor is not valid', [
        { pointer: cursor!.pointer, location: cursor!.location, message: 'not an id of this stream or a cursor of GET /v1/events' },
      ]);
    const sse = startSse(request, reply, {
      heartbeatMs: settings.heartbeatMs,
      retryMs: settings.retryMs ?? STREAM_RETRY_MS,
      maxBufferBytes: settings.maxBufferBytes ?? STREAM_BUFFER_BYTES,
      alive: async () => {
        const again = await reauthenticate(request).catch(() => undefined);
        return again?.organizationId === actor.organizationId;
      },
    });
    sse.onClose(() => place.release());
    open.add(sse);
    const following = opened.follow({
      write: (events) => sse.send(events.map((e) => ({ id: encodeEventCursor(e.position), event: e.type, data: presentEvent(e) }))),
      drained: () => sse.drained(),
      fail: (err) => {
        request.log.warn({ err }, 'event stream: reading events failed; ending the stream');
        sse.end();
      },
    });
    sse.onClose(() => following.stop());
  }
}

/** Where a stream starts: a cursor, and where in the request it came from (for the field error that refuses it). */
type StreamStart = { cursor: string; pointer: string; location: 'headers' | 'query' };

/** The credential a stream is counted under: the API key, the OAuth access token, or the dashboard session. */
function credentialOf(actor: Actor): string {
  switch (actor.kind) {
    case 'api_key':
      return `key:${actor.apiKeyId}`;
    case 'oauth':
      return `token:${actor.tokenId}`;
    case 'user':
      return `session:${actor.sessionId}`;
    case 'system':
      return 'system';
    default:
      return actor satisfies never;
  }
}
