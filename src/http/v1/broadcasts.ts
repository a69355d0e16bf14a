/**
 * Broadcasts: drafts (create, list, get, update, delete), the audience's count before sending, the
 * actions (schedule, cancel, pause, resume, stop), the recipients by status and the report. Reading
 * needs messages:read; everything else messages:send (a broadcast sends messages).
 */
import { z } from 'zod';
import {
  countAudience,
  createBroadcast,
  deleteBroadcast,
  getBroadcast,
  listBroadcasts,
  moveBroadcast,
  scheduleBroadcast,
  updateBroadcast,
  type BroadcastAction,
  type BroadcastDeps,
  type BroadcastInput,
} from '../../domain/broadcasts/broadcasts.ts';
import { listRecipients } from '../../domain/broadcasts/recipients.ts';
import { broadcastReport } from '../../domain/broadcasts/report.ts';
import { retryFailed } from '../../domain/broadcasts/retries.ts';
import type { Permission } from '../../domain/permissions.ts';
import { actorOf } from '../auth/actor.ts';
import { errorResponses } from '../errors.ts';
import { inputFrom } from '../input-location.ts';
import { dataOf, listOf, PageQuerySchema, PathId } from '../schemas.ts';
import type { App } from '../types.ts';
import { presentBroadcast, presentRecipient } from './broadcasts.presenters.ts';
import { RECIPIENTS_CSV_EXAMPLE, recipientsCsv, wantsCsv } from './broadcasts.csv.ts';
import {
  AudienceCountSchema,
  BroadcastSchema,
  CreateBroadcastBody,
  ListQuery,
  RecipientSchema,
  RecipientsQuery,
  ReportQuery,
  ReportSchema,
  UpdateBroadcastBody,
} from './broadcasts.schemas.ts';

const TAG = 'broadcasts';
const read: { auth: { permission: Permission } } = { auth: { permission: 'messages:read' } };
const write: { auth: { permission: Permission } } = { auth: { permission: 'messages:send' } };
const Params = z.object({ broadcastID: PathId });

/** What the broadcasts routes use: the database, the clock, and the runner's wake. */
export type BroadcastServices = BroadcastDeps;

type Body = z.infer<typeof UpdateBroadcastBody>;

function inputOf(body: Body): Partial<BroadcastInput> {
  return {
    name: body.name,
    channelId: body.channel_id,
    template: body.template ?? body.ab_test?.variants[0],
    abTest: body.ab_test,
    audience: body.audience,
    sendAt: body.send_at === undefined ? undefined : body.send_at === null ? null : new Date(body.send_at),
    perMinute: body.per_minute,
    requireConsent: body.require_consent,
    quietHours: body.quiet_hours,
    retryMarketingLimitDays: body.retry_marketing_limit_days,
    skipOpenConversations: body.skip_open_conversations,
  };
}

const ACTIONS: Array<{ action: BroadcastAction | 'schedule' | 'retry-failed'; summary: string; description: string }> = [
  {
    action: 'schedule',
    summary: 'Schedule a broadcast',
    description:
      'A draft is sent at its send_at (now when it has none). 400 naming the field: the template not approved or its variables, an audience with nobody to send to, a send time past; 409 naming channel_id when the channel is not connected.',
  },
  { action: 'cancel', summary: 'Cancel a schedule', description: 'A scheduled broadcast goes back to draft; nothing was sent.' },
  {
    action: 'pause',
    summary: 'Pause a broadcast',
    description: 'Sending stops between two recipients (messages already handed to dispatch are sent). Records broadcast.paused.',
  },
  { action: 'resume', summary: 'Resume a broadcast', description: 'A paused broadcast goes on with its recipients not sent yet.' },
  {
    action: 'stop',
    summary: 'Stop a broadcast',
    description: 'Final: the recipients not sent yet are never sent (they stay pending in the report).',
  },
  {
    action: 'retry-failed',
    summary: 'Send the failed recipients again',
    description:
      'A completed or stopped broadcast sends its failed recipients again (refused when accepted, or their message failed; not those skipped for the marketing limit), as new messages of a new round (retry_round), at its pace and sending rules; it is sending until they are handed over. Recipients a stop left unsent stay unsent. 409 also when no recipient failed.',
  },
];

export async function registerBroadcastRoutes(app: App, deps: BroadcastServices) {
  app.post(
    '/v1/broadcasts',
    {
      config: write,
      schema: {
        tags: [TAG],
        summary: 'Create a broadcast',
        description: CreateBroadcastBody.description,
        body: CreateBroadcastBody,
        response: { 201: dataOf(BroadcastSchema).describe('Created'), ...errorResponses([400, 401, 403, 409]) },
      },
    },
    async (request, reply) => {
      const row = await inputFrom('body', createBroadcast(deps, actorOf(request), inputOf(request.body) as BroadcastInput));
      return reply.code(201).send({ data: presentBroadcast(row) });
    },
  );

  app.get(
    '/v1/broadcasts',
    {
      config: read,
      schema: {
        tags: [TAG],
        summary: 'List broadcasts',
        description: 'Newest first, by cursor; `status` filters.',
        querystring: PageQuerySchema.extend(ListQuery.shape),
        response: { 200: listOf(BroadcastSchema), ...errorResponses([400, 401, 403]) },
      },
    },
    async (request) => {
      const q = request.query;
      const page = await inputFrom('query', listBroadcasts(deps, actorOf(request), { limit: q.limit, cursor: q.cursor, status: q.status }));
      return { data: page.items.map(presentBroadcast), meta: { next_cursor: page.nextCursor } };
    },
  );

  app.get(
    '/v1/broadcasts/:broadcastID',
    {
      config: read,
      schema: {
        tags: [TAG],
        summary: 'Get a broadcast',
        params: Params,
        response: { 200: dataOf(BroadcastSchema), ...errorResponses([401, 403, 404]) },
      },
    },
    async (request) => ({
      data: presentBroadcast(await getBroadcast(deps, actorOf(request), { broadcastId: request.params.broadcastID })),
    }),
  );

  app.patch(
    '/v1/broadcasts/:broadcastID',
    {
      config: write,
      schema: {
        tags: [TAG],
        summary: 'Update a draft broadcast',
        description: UpdateBroadcastBody.description,
        params: Params,
        body: UpdateBroadcastBody,
        response: { 200: dataOf(BroadcastSchema), ...errorResponses([400, 401, 403, 404, 409]) },
      },
    },
    async (request) => {
      const row = await inputFrom(
        'body',
        updateBroadcast(deps, actorOf(request), { broadcastId: request.params.broadcastID, fields: inputOf(request.body) }),
      );
      return { data: presentBroadcast(row) };
    },
  );

  app.delete(
    '/v1/broadcasts/:broadcastID',
    {
      config: write,
      schema: {
        tags: [TAG],
        summary: 'Delete a draft broadcast',
        description: 'Only a draft; a broadcast that was scheduled stays as the record of what was sent (409).',
        params: Params,
        response: { 204: z.null().describe('Deleted'), ...errorResponses([401, 403, 404, 409]) },
      },
    },
    async (request, reply) => {
      await deleteBroadcast(deps, actorOf(request), { broadcastId: request.params.broadcastID });
      return reply.code(204).send(null);
    },
  );

  app.get(
    '/v1/broadcasts/:broadcastID/audience-count',
    {
      config: read,
      schema: {
        tags: [TAG],
        summary: 'Count a broadcast’s audience',
        description:
          'The recipients its audience resolves to now, and of them how many would be sent to and how many skipped by reason (the same resolution that freezes it when sending starts).',
        params: Params,
        response: { 200: dataOf(AudienceCountSchema), ...errorResponses([401, 403, 404]) },
      },
    },
    async (request) => {
      const counted = await countAudience(deps, actorOf(request), { broadcastId: request.params.broadcastID });
      return { data: { ...counted, counted_at: deps.clock.now().toISOString() } };
    },
  );

  for (const { action, summary, description } of ACTIONS) {
    app.post(
      `/v1/broadcasts/:broadcastID/${action}`,
      {
        config: write,
        schema: {
          tags: [TAG],
          summary,
          description: `${description} 409 when the broadcast's status does not allow it.`,
          params: Params,
          response: {
            200: dataOf(BroadcastSchema),
            ...errorResponses(action === 'schedule' ? [400, 401, 403, 404, 409] : [401, 403, 404, 409]),
          },
        },
      },
      async (request) => {
        const broadcastId = request.params.broadcastID;
        const actor = actorOf(request);
        const row =
          action === 'schedule'
            ? await inputFrom('body', scheduleBroadcast(deps, actor, { broadcastId }))
            : action === 'retry-failed'
              ? await retryFailed(deps, actor, { broadcastId })
              : await moveBroadcast(deps, actor, { broadcastId, action });
        return { data: presentBroadcast(row) };
      },
    );
  }

  app.get(
    '/v1/broadcasts/:broadcastID/recipients',
    {
      config: read,
      schema: {
        tags: [TAG],
        summary: 'List a broadcast’s recipients',
        description:
          'In send order, by cursor; `status` filters. Empty until sending starts (the audience is frozen then). A recipient’s status follows its message’s. As CSV (`Accept: text/csv` or `format=csv`): every recipient of the status at once, streamed, one line each with a header line; no paging.',
        params: Params,
        querystring: PageQuerySchema.extend(RecipientsQuery.shape),
        response: {
          200: {
            description: 'A page of recipients (JSON), or all of them (CSV)',
            content: {
              'application/json': { schema: listOf(RecipientSchema) },
              'text/csv': { schema: z.string().meta({ example: RECIPIENTS_CSV_EXAMPLE }) },
            },
          },
          ...errorResponses([400, 401, 403, 404]),
        },
      },
    },
    async (request, reply) => {
      const q = request.query;
      const actor = actorOf(request);
      const broadcastId = request.params.broadcastID;
      if (q.format === 'csv' || (q.format === undefined && wantsCsv(request.headers.accept))) {
        // Found (or 404) before the first byte: an error after it could not be a problem document.
        await getBroadcast(deps, actor, { broadcastId });
        void reply
          .type('text/csv; charset=utf-8')
          .header('content-disposition', `attachment; filename="broadcast-${broadcastId.toLowerCase()}-recipients.csv"`);
        return reply.send(recipientsCsv(deps, actor, { broadcastId, status: q.status }) as unknown as string);
      }
      const page = await inputFrom(
        'query',
        listRecipients(deps, actor, {
          broadcastId,
          limit: q.limit,
          cursor: q.cursor,
          status: q.status,
        }),
      );
      return { data: page.items.map(presentRecipient), meta: { next_cursor: page.nextCursor } };
    },
  );

  app.get(
    '/v1/broadcasts/:broadcastID/report',
    {
      config: read,
      schema: {
        tags: [TAG],
        summary: 'A broadcast’s report',
        description:
          'As of now: its recipients by status, the skipped by reason, the failed by error code, the rates over the messages sent (delivered, read, replied within 72 hours, failed), the recipients who opted out of marketing after it started, the messages over time, and per A/B variant.',
        params: Params,
        querystring: ReportQuery,
        response: { 200: dataOf(ReportSchema), ...errorResponses([400, 401, 403, 404]) },
      },
    },
    async (request) => {
      const report = await broadcastReport({ db: deps.db, now: deps.clock.now() }, actorOf(request), {
        broadcastId: request.params.broadcastID,
        bucket: request.query.bucket,
      });
      return {
        data: {
          broadcast: presentBroadcast(report.broadcast),
          recipients: report.total,
          by_status: report.byStatus,
          skipped: report.skipped,
          sent: report.sent,
          rates: report.rates,
          failed_by_code: report.failedByCode,
          opted_out: report.optedOut,
          over_time: { bucket: report.bucket, points: report.overTime },
          variants: report.variants.map((v) => ({
            variant: v.variant,
            template: v.template,
            recipients: v.recipients,
            by_status: v.byStatus,
            sent: v.sent,
            rates: v.rates,
          })),
        },
      };
    },
  );
}
