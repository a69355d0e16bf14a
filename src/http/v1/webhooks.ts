import { z } from 'zod';
import { invalid } from '../../domain/errors.ts';
import { EVENT_TYPES } from '../../domain/events/outbox.ts';
import { eventTypeCatalog } from '../../domain/webhooks/catalog.ts';
import { listDeliveries, retryMessage, sendTestMessage, ATTEMPTS_SHOWN, RETRY_SKIP_REASONS } from '../../domain/webhooks/deliveries.ts';
import { MAX_ENDPOINTS_PER_ORGANIZATION, ROTATION_OVERLAP_MS, type WebhookDeps } from '../../domain/webhooks/deps.ts';
import {
  createEndpoint,
  deleteEndpoint,
  listEndpoints,
  revealSecret,
  rotateSecret,
  updateEndpoint,
  type UnknownEventTypes,
} from '../../domain/webhooks/endpoints.ts';
import { describeSchedule, formatDuration } from '../../domain/webhooks/schedule.ts';
import { RESPONSE_EXCERPT_BYTES } from '../../domain/webhooks/send.ts';
import { actorOf } from '../auth/actor.ts';
import type { App } from '../types.ts';
import { errorResponses } from '../errors.ts';
import { inputFrom } from '../input-location.ts';
import { WEBHOOK_ENDPOINT_EXAMPLE as ENDPOINT_EXAMPLE } from '../examples.ts';
import { dataOf, IsoTimestamp, listOf, PageQuerySchema, PathId } from '../schemas.ts';
import { presentEndpoint, presentSecret, presentDelivery, presentTestResult, presentRetryResult } from './webhooks.presenters.ts';

const BASE = '/v1/settings/developer/webhooks';
const EventTypeSchema = z.enum(EVENT_TYPES);
const ENDPOINT_ID = '0196b1f0-3a2c-7d41-8e5f-6a7b8c9d0e1f';
const MESSAGE_ID = '0196b1f2-1c9e-7a01-b2c3-d4e5f6a7b8c9';
const SECRET_EXAMPLE = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';

export const EndpointSchema = z
  .object({
    id: z.uuid(),
    url: z.string().meta({ example: 'https://hooks.example.com/parley' }),
    description: z.string(),
    event_types: z.array(EventTypeSchema).meta({ description: 'The event types it receives; empty means every type' }),
    enabled: z.boolean(),
    disabled_reason: z.string().nullable().meta({
      description: 'Why it is disabled: by a user, or automatically after failing for too long (with the failure count and the last error)',
    }),
    disabled_at: z.string().nullable(),
    previous_secret_expires_at: z
      .string()
      .nullable()
      .meta({ description: 'After a rotation: until when the old secret still signs beside the new one' }),
    health: z
      .object({
        consecutive_failures: z.number().int().meta({ description: 'Failed attempts since the last success (test sends do not count)' }),
        failing_since: z.string().nullable().meta({ description: 'The first failed attempt since the last success' }),
        last_success_at: z.string().nullable().meta({ description: 'Kept to the minute' }),
        last_failure_at: z.string().nullable(),
      })
      .meta({ id: 'WebhookEndpointHealth' }),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: 'WebhookEndpoint' });

export const CreatedEndpointSchema = EndpointSchema.extend({
  secret: z.string().meta({
    description: 'The signing secret: `whsec_` + base64 of 24 random bytes. Also shown by the reveal route.',
    example: SECRET_EXAMPLE,
  }),
}).meta({ id: 'CreatedWebhookEndpoint', examples: [{ ...ENDPOINT_EXAMPLE, secret: SECRET_EXAMPLE }] });

const UrlSchema = z
  .url({ protocol: /^https?$/, error: 'expects an https URL' })
  .max(2048)
  .meta({
    description:
      'Where events are POSTed. Must be https and resolve to public addresses (checked here and again on every attempt); http, localhost and private addresses only when the service runs with ALLOW_PRIVATE_NETWORK_TARGETS=true (local development; the sandbox does not widen this).',
    example: 'https://hooks.example.com/parley',
  });
const EventTypesSchema = z
  .array(z.string().max(100))
  .max(EVENT_TYPES.length)
  .meta({
    description: `Event types to receive, from the catalogue (${EVENT_TYPES.join(', ')}); empty or absent means all.`,
    example: ['message.new'],
  });
const DescriptionSchema = z.string().trim().max(500).meta({ example: 'CRM sync' });

const CreateEndpointBody = z
  .object({
    url: UrlSchema,
    description: DescriptionSchema.optional(),
    event_types: EventTypesSchema.optional(),
    enabled: z.boolean().optional().meta({ description: 'Default true' }),
  })
  .strict()
  .meta({
    id: 'CreateWebhookEndpointRequest',
    examples: [
      { url: 'https://hooks.example.com/parley', description: 'CRM sync', event_types: ['message.new', 'message.status_update'] },
      { url: 'https://hooks.example.com/all-events' },
    ],
  });

const UpdateEndpointBody = z
  .object({
    url: UrlSchema.optional(),
    description: DescriptionSchema.optional(),
    event_types: EventTypesSchema.optional(),
    enabled: z.boolean().optional(),
  })
  .strict()
  .meta({
    id: 'UpdateWebhookEndpointRequest',
    description:
      'Fields to change. `enabled: false` fails the pending deliveries (retry them by hand later); `enabled: true` clears the disabled reason and the failure count.',
    examples: [{ enabled: true }, { event_types: [] }, { url: 'https://hooks.example.com/v2/parley', description: 'CRM sync (v2)' }],
  });

export const RotatedSecretSchema = z
  .object({
    secret: z.string().meta({ description: 'The new signing secret' }),
    previous_secret_expires_at: z.string().meta({ description: 'The old secret signs beside the new one (two signatures) until then' }),
    endpoint: EndpointSchema,
  })
  .meta({
    id: 'WebhookSecretRotation',
    examples: [
      {
        secret: 'whsec_4xNq0m1b7ZgYwXJpQe2RZQxT3k2s9VhC',
        previous_secret_expires_at: '2025-06-03T10:00:00.000Z',
        endpoint: { ...ENDPOINT_EXAMPLE, previous_secret_expires_at: '2025-06-03T10:00:00.000Z' },
      },
    ],
  });

export const RevealedSecretSchema = z
  .object({
    secret: z.string(),
    previous_secret: z.string().nullable().meta({ description: 'The secret before the last rotation, while it still signs' }),
    previous_secret_expires_at: z.string().nullable(),
  })
  .meta({ id: 'WebhookSecret', examples: [{ secret: SECRET_EXAMPLE, previous_secret: null, previous_secret_expires_at: null }] });

export const AttemptSchema = z
  .object({
    id: z.uuid(),
    trigger: z.enum(['scheduled', 'manual', 'test']).meta({ description: 'The retry schedule, the retry route, or the test route' }),
    attempted_at: z.string(),
    status_code: z.number().int().nullable().meta({ description: "The receiver's status; null when no answer came (see error)" }),
    duration_ms: z.number().int(),
    response_body: z
      .string()
      .nullable()
      .meta({
        description: `The first ${RESPONSE_EXCERPT_BYTES} bytes of a 2xx text or JSON answer (UTF-8); null for any other answer, or none`,
      }),
    error: z
      .string()
      .nullable()
      .meta({ description: 'What went wrong: `HTTP 503`, `timed out after 10000 ms`, `connection refused`, `refused: ...` (SSRF guard)' }),
  })
  .meta({ id: 'WebhookAttempt' });

export const DeliverySchema = z
  .object({
    id: z.uuid(),
    message_id: z
      .uuid()
      .meta({ description: 'The webhook-id header: the event id (GET /v1/events), or a test send id. The same on every attempt.' }),
    endpoint_id: z.uuid(),
    event_type: z.string(),
    test: z.boolean().meta({ description: 'Made by the test route' }),
    status: z.enum(['pending', 'succeeded', 'failed']),
    attempt_count: z.number().int(),
    next_attempt_at: z.string().nullable().meta({ description: 'While pending' }),
    last_attempt_at: z.string().nullable(),
    last_status_code: z.number().int().nullable(),
    last_error: z.string().nullable(),
    created_at: z.string(),
    updated_at: z.string(),
    attempts: z.array(AttemptSchema).meta({ description: `The latest ${ATTEMPTS_SHOWN} attempts, newest first` }),
  })
  .meta({
    id: 'WebhookDelivery',
    examples: [
      {
        id: '0196b1f2-2d0f-7b12-83c4-d5e6f7a8b9c0',
        message_id: MESSAGE_ID,
        endpoint_id: ENDPOINT_ID,
        event_type: 'message.new',
        test: false,
        status: 'pending',
        attempt_count: 1,
        next_attempt_at: '2025-06-02T09:14:05.000Z',
        last_attempt_at: '2025-06-02T09:14:00.012Z',
        last_status_code: 503,
        last_error: 'HTTP 503',
        created_at: '2025-06-02T09:14:00.004Z',
        updated_at: '2025-06-02T09:14:00.031Z',
        attempts: [
          {
            id: '0196b1f2-2d1a-7c00-8000-000000000001',
            trigger: 'scheduled',
            attempted_at: '2025-06-02T09:14:00.012Z',
            status_code: 503,
            duration_ms: 18,
            response_body: null,
            error: 'HTTP 503',
          },
        ],
      },
    ],
  });

const TestBody = z
  .object({
    event_type: EventTypeSchema.optional().meta({
      description: "The type whose example body is sent; default the endpoint's first type, else message.new",
    }),
  })
  .strict()
  .meta({ id: 'WebhookTestRequest', examples: [{ event_type: 'message.status_update' }, {}] });

export const TestResultSchema = z
  .object({
    delivery_id: z.uuid(),
    message_id: z.uuid().meta({ description: 'The webhook-id it was sent with' }),
    event_type: EventTypeSchema,
    succeeded: z.boolean().meta({ description: 'The receiver answered 2xx' }),
    attempt: AttemptSchema,
  })
  .meta({
    id: 'WebhookTestResult',
    examples: [
      {
        delivery_id: '0196b1f3-0000-7000-8000-00000000000a',
        message_id: '0196b1f3-0000-7000-8000-00000000000b',
        event_type: 'message.status_update',
        succeeded: true,
        attempt: {
          id: '0196b1f3-0000-7000-8000-00000000000c',
          trigger: 'test',
          attempted_at: '2025-06-02T09:20:00.000Z',
          status_code: 204,
          duration_ms: 42,
          response_body: null,
          error: null,
        },
      },
    ],
  });

const RetryBody = z
  .object({ endpoint_id: z.uuid().optional().meta({ description: 'Only to this endpoint' }) })
  .strict()
  .meta({ id: 'WebhookRetryRequest', examples: [{}, { endpoint_id: ENDPOINT_ID }] });

export const RetryResultSchema = z
  .object({
    message_id: z.uuid(),
    retried: z.array(z.object({ delivery_id: z.uuid(), endpoint_id: z.uuid() })).meta({ description: 'Deliveries due now' }),
    skipped: z
      .array(z.object({ endpoint_id: z.uuid(), reason: z.enum(RETRY_SKIP_REASONS) }))
      .meta({ description: 'Endpoints not sent to, and why' }),
  })
  .meta({
    id: 'WebhookRetryResult',
    examples: [
      { message_id: MESSAGE_ID, retried: [{ delivery_id: '0196b1f2-2d0f-7b12-83c4-d5e6f7a8b9c0', endpoint_id: ENDPOINT_ID }], skipped: [] },
    ],
  });

export const SettingsSchema = z
  .object({
    endpoints: z.array(EndpointSchema),
    event_types: z
      .array(
        z.object({
          type: EventTypeSchema,
          description: z.string(),
          example: z.record(z.string(), z.unknown()).meta({ description: 'An example body' }),
          reserved: z.boolean().meta({
            description:
              'true: nothing emits this type yet (it is listed for a source to come; it can be subscribed to and test-sent meanwhile)',
          }),
        }),
      )
      .meta({ description: 'The catalogue of event types, with the body each carries' }),
    delivery: z
      .object({
        timeout_ms: z.number().int().meta({ description: 'One attempt, the answer included' }),
        retry_delays_ms: z.array(z.number().int()).meta({
          description:
            'The wait before each automatic attempt (the first is the first attempt), each moved by up to ±retry_jitter of itself',
        }),
        retry_jitter: z.number(),
        disable_after_ms: z.number().int().meta({
          description: 'An endpoint with no success for this long (and at least disable_min_failures failed attempts) is disabled',
        }),
        disable_min_failures: z.number().int(),
        secret_rotation_overlap_ms: z.number().int(),
        max_endpoints: z.number().int(),
      })
      .meta({ id: 'WebhookDeliveryPolicy' }),
  })
  .meta({ id: 'WebhookSettings' });

export type CreateWebhookEndpointRequest = z.input<typeof CreateEndpointBody>;
export type UpdateWebhookEndpointRequest = z.input<typeof UpdateEndpointBody>;

const EndpointParams = z.object({ endpointID: PathId });
const endpointErrors = errorResponses([400, 401, 403, 404, 409]);

/** Event types outside the catalogue, named at their place in the body. */
function unknownEventTypes(refusal: UnknownEventTypes) {
  return invalid(
    `unknown event type ${refusal.unknown.map((u) => u.type).join(', ')}; the catalogue is in GET ${BASE}`,
    refusal.unknown.map((u) => ({ pointer: `/event_types/${u.index}`, location: 'body' as const, message: 'unknown event type' })),
  );
}

/** What the webhook routes use: the database, the clock, the sealer, the target policy and the delivery settings. */
export type WebhookServices = Pick<WebhookDeps, 'db' | 'clock' | 'sealer' | 'policy' | 'settings'>;

export async function registerWebhookRoutes(app: App, deps: WebhookServices) {
  const { settings } = deps;
  const now = () => deps.clock.now();

  const deliveryDoc =
    `Each event is POSTed as JSON: the flat body of the Events table, the type in header \`webhook-event-type\`. ` +
    `Headers (Standard Webhooks): \`webhook-id\` (the event id; the same on every attempt, so deduplicate on it), \`webhook-timestamp\` (unix seconds), ` +
    `\`webhook-signature\` (\`v1,\` + base64 of HMAC-SHA256 over \`{webhook-id}.{webhook-timestamp}.{body}\` keyed with the base64-decoded part of the secret after \`whsec_\`; ` +
    `two space-separated signatures for 24 hours after a rotation), each also under \`x-parley-webhook-id\`, \`x-parley-webhook-timestamp\`, \`x-parley-webhook-signature\` and \`x-parley-event-type\`. ` +
    `Any 2xx within ${formatDuration(settings.timeoutMs)} is a success; redirects are not followed. Otherwise it is retried: ${describeSchedule(settings.retrySchedule)} ` +
    `(±${Math.round(settings.retryJitter * 100)} % jitter), then \`failed\` (retry by hand). An endpoint with no success for ${formatDuration(settings.disableAfterMs)} ` +
    `and at least ${settings.disableMinFailures} failures is disabled, with the reason in its record.`;

  app.get(
    BASE,
    {
      config: { auth: { permission: 'webhooks:read' } },
      schema: {
        tags: ['webhooks'],
        summary: 'List webhook settings: the endpoints and the event type catalogue',
        description: deliveryDoc,
        response: { 200: dataOf(SettingsSchema), ...errorResponses([401, 403]) },
      },
    },
    async (request) => {
      const rows = await listEndpoints(deps, actorOf(request));
      return {
        data: {
          endpoints: rows.map((r) => presentEndpoint(r, now())),
          event_types: eventTypeCatalog().map((t) => ({
            type: t.type,
            description: t.description,
            example: t.example as Record<string, unknown>,
            reserved: t.reserved,
          })),
          delivery: {
            timeout_ms: settings.timeoutMs,
            retry_delays_ms: [...settings.retrySchedule],
            retry_jitter: settings.retryJitter,
            disable_after_ms: settings.disableAfterMs,
            disable_min_failures: settings.disableMinFailures,
            secret_rotation_overlap_ms: ROTATION_OVERLAP_MS,
            max_endpoints: MAX_ENDPOINTS_PER_ORGANIZATION,
          },
        },
      };
    },
  );

  app.post(
    `${BASE}/endpoints`,
    {
      config: { auth: { permission: 'webhooks:write' }, idempotency: 'no-replay' },
      schema: {
        tags: ['webhooks'],
        summary: 'Create a webhook endpoint',
        description: `Answers with the signing secret. At most ${MAX_ENDPOINTS_PER_ORGANIZATION} endpoints per organization (409). ${deliveryDoc}`,
        body: CreateEndpointBody,
        response: { 201: dataOf(CreatedEndpointSchema), ...endpointErrors },
      },
    },
    async (request, reply) => {
      const b = request.body;
      const result = await inputFrom(
        'body',
        createEndpoint(deps, actorOf(request), { url: b.url, description: b.description, eventTypes: b.event_types, enabled: b.enabled }),
      );
      if (!result.ok) throw unknownEventTypes(result);
      return reply.code(201).send({ data: { ...presentEndpoint(result.row, now()), secret: result.secret } });
    },
  );

  app.patch(
    `${BASE}/endpoints/:endpointID`,
    {
      config: { auth: { permission: 'webhooks:write' } },
      schema: {
        tags: ['webhooks'],
        summary: 'Update a webhook endpoint',
        params: EndpointParams,
        body: UpdateEndpointBody,
        response: { 200: dataOf(EndpointSchema), ...endpointErrors },
      },
    },
    async (request) => {
      const b = request.body;
      const result = await inputFrom(
        'body',
        updateEndpoint(deps, actorOf(request), {
          endpointId: request.params.endpointID,
          url: b.url,
          description: b.description,
          eventTypes: b.event_types,
          enabled: b.enabled,
        }),
      );
      if (!result.ok) throw unknownEventTypes(result);
      return { data: presentEndpoint(result.row, now()) };
    },
  );

  app.delete(
    `${BASE}/endpoints/:endpointID`,
    {
      config: { auth: { permission: 'webhooks:write' } },
      schema: {
        tags: ['webhooks'],
        summary: 'Delete a webhook endpoint',
        description: 'Its deliveries and their attempts go with it; attempts in flight finish.',
        params: EndpointParams,
        response: { 204: z.null().describe('Deleted'), ...errorResponses([401, 403, 404]) },
      },
    },
    async (request, reply) => {
      await deleteEndpoint(deps, actorOf(request), { endpointId: request.params.endpointID });
      return reply.code(204).send(null);
    },
  );

  app.post(
    `${BASE}/endpoints/:endpointID/rotate-secret`,
    {
      config: { auth: { permission: 'webhooks:write' }, idempotency: 'no-replay' },
      schema: {
        tags: ['webhooks'],
        summary: "Rotate an endpoint's signing secret",
        description:
          "Answers with the new secret. For the next 24 hours every message carries two signatures, the new secret's and the old one's (space-separated in `webhook-signature`), so receivers can switch without losing a message; then only the new one. Rotating again within the 24 hours drops the oldest secret at once.",
        params: EndpointParams,
        response: { 200: dataOf(RotatedSecretSchema), ...errorResponses([401, 403, 404]) },
      },
    },
    async (request) => {
      const { row, secret, previousSecretExpiresAt } = await rotateSecret(deps, actorOf(request), {
        endpointId: request.params.endpointID,
      });
      return { data: { secret, previous_secret_expires_at: previousSecretExpiresAt.toISOString(), endpoint: presentEndpoint(row, now()) } };
    },
  );

  app.get(
    `${BASE}/endpoints/:endpointID/secret`,
    {
      config: { auth: { permission: 'webhooks:write' } },
      schema: {
        tags: ['webhooks'],
        summary: "Reveal an endpoint's signing secret",
        description:
          'Needs `webhooks:write`: in the dashboard that is owners and admins (members hold only `webhooks:read`); API keys and OAuth tokens need the permission (scope) itself. During a rotation overlap the previous secret is shown too.',
        params: EndpointParams,
        response: { 200: dataOf(RevealedSecretSchema), ...errorResponses([401, 403, 404]) },
      },
    },
    async (request) => ({ data: presentSecret(await revealSecret(deps, actorOf(request), { endpointId: request.params.endpointID })) }),
  );

  app.post(
    `${BASE}/endpoints/:endpointID/test`,
    {
      config: { auth: { permission: 'webhooks:write' } },
      schema: {
        tags: ['webhooks'],
        summary: 'Send a test delivery',
        description:
          "Sends the catalogue's example body of the event type now, signed like any message, with a new webhook-id and header `x-parley-webhook-test: true`, also to a disabled endpoint. Answers with the attempt's outcome (200 whatever the receiver said). It is logged as a delivery with `test: true`, not retried automatically, and does not count toward disabling.",
        params: EndpointParams,
        body: TestBody.nullish(),
        response: { 200: dataOf(TestResultSchema), ...errorResponses([400, 401, 403, 404]) },
      },
    },
    async (request) => ({
      data: presentTestResult(
        await sendTestMessage(deps, actorOf(request), { endpointId: request.params.endpointID, eventType: request.body?.event_type }),
      ),
    }),
  );

  app.get(
    `${BASE}/deliveries`,
    {
      config: { auth: { permission: 'webhooks:read' } },
      schema: {
        tags: ['webhooks'],
        summary: 'List deliveries with their attempts',
        description: 'Newest first. A delivery is one message (event or test send) to one endpoint, with its status and attempts.',
        querystring: PageQuerySchema.extend({
          endpoint_id: z.string().max(64).optional(),
          event_type: EventTypeSchema.optional(),
          status: z.enum(['pending', 'succeeded', 'failed']).optional(),
          message_id: z.string().max(64).optional().meta({ description: 'The webhook-id (= the event id)' }),
          since: IsoTimestamp.optional().meta({ description: 'Created at or after' }),
          until: IsoTimestamp.optional().meta({ description: 'Created before' }),
        }),
        response: { 200: listOf(DeliverySchema), ...errorResponses([400, 401, 403]) },
      },
    },
    async (request) => {
      const q = request.query;
      const page = await listDeliveries(deps, actorOf(request), {
        limit: q.limit,
        cursor: q.cursor,
        endpointId: q.endpoint_id,
        eventType: q.event_type,
        status: q.status,
        messageId: q.message_id,
        since: q.since ? new Date(q.since) : undefined,
        until: q.until ? new Date(q.until) : undefined,
      });
      return { data: page.items.map(presentDelivery), meta: { next_cursor: page.nextCursor } };
    },
  );

  app.post(
    `${BASE}/deliveries/:messageID/retry`,
    {
      config: { auth: { permission: 'webhooks:write' } },
      schema: {
        tags: ['webhooks'],
        summary: 'Retry a message',
        description:
          'messageID is the webhook-id: an event id (GET /v1/events) or a test send id. The message is sent again, now, to every endpoint where it has not succeeded: failed and pending deliveries get an attempt at once (a failed one gets that one attempt, trigger `manual`, and stays failed if it fails; a pending one keeps the rest of its schedule), and for an event, enabled endpoints whose filter matches but that never had it get a new delivery (with the whole schedule). It keeps its webhook-id. Disabled endpoints and attempts in flight are skipped and listed. 404 when the organization has no such message.',
        params: z.object({ messageID: PathId }),
        body: RetryBody.nullish(),
        response: { 202: dataOf(RetryResultSchema), ...errorResponses([400, 401, 403, 404]) },
      },
    },
    async (request, reply) => {
      const result = await retryMessage(deps, actorOf(request), {
        messageId: request.params.messageID,
        endpointId: request.body?.endpoint_id,
      });
      return reply.code(202).send({ data: presentRetryResult(result) });
    },
  );
}
