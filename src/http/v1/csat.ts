/**
 * Satisfaction surveys (docs/inbox.md#satisfaction-surveys): the organization's settings, a
 * conversation's surveys, and the organization's answers (domain/csat).
 */
import { z } from 'zod';
import type { Executor } from '../../db/client.ts';
import {
  CSAT_BUTTON_MAX,
  CSAT_CHANNELS_MAX,
  CSAT_EXPIRE_HOURS_MAX,
  CSAT_LABEL_MAX,
  CSAT_QUESTION_MAX,
  CSAT_THANKS_MAX,
  DEFAULT_CSAT,
  getCsatSettings,
  updateCsatSettings,
  type CsatSettings,
} from '../../domain/csat/settings.ts';
import { CSAT_STATUSES, listConversationSurveys, listCsatResponses, surveyStatus, type CsatSurveyRow } from '../../domain/csat/surveys.ts';
import type { Clock } from '../../lib/clock.ts';
import { actorOf } from '../auth/actor.ts';
import { errorResponses } from '../errors.ts';
import { inputFrom } from '../input-location.ts';
import { dataOf, listOf, PageQuerySchema, PathId } from '../schemas.ts';
import type { App } from '../types.ts';

const TAG = 'conversations';
const read = { auth: { permission: 'messages:read' as const } };
const settingsRead = { auth: { permission: 'channels:read' as const } };
const settingsWrite = { auth: { permission: 'channels:write' as const } };

const HOW =
  'When a conversation becomes resolved (by a member, the API or a bulk action) and the survey is on for its channel, the customer is sent the question with the five ratings as a list (the official API shows a list; a linked device gets numbered text). The customer answers by choosing a row, or by writing a number from 1 to 5 (words after it are the comment), one to five stars, or a rating’s label. An answer within expire_hours rates the conversation (`csat.submitted`) and leaves it resolved; anything else opens it as usual. Nothing is sent outside the customer-service window, to a group, or while an earlier survey of the conversation is still open.';

export const CsatSettingsSchema = z
  .object({
    enabled: z.boolean(),
    question: z.string(),
    button_text: z.string().meta({ description: 'The list’s button, where the platform shows lists' }),
    rating_labels: z.array(z.string()).meta({ description: 'The labels of the ratings 1 to 5, in that order' }),
    thanks_message: z.string().nullable().meta({ description: 'Sent after an answer; null: nothing' }),
    expire_hours: z.number().int().meta({ description: 'An answer is taken this long after the request' }),
    channel_ids: z.array(z.uuid()).nullable().meta({ description: 'The channels whose conversations are asked; null: every channel' }),
  })
  .meta({ id: 'CsatSettings', description: HOW, examples: [{ ...DEFAULT_CSAT, enabled: true }] });

const Label = z.string().trim().min(1).max(CSAT_LABEL_MAX);
const UpdateCsatSettingsBody = z
  .strictObject({
    enabled: z.boolean().optional(),
    question: z.string().trim().min(1).max(CSAT_QUESTION_MAX).optional(),
    button_text: z.string().trim().min(1).max(CSAT_BUTTON_MAX).optional(),
    rating_labels: z.tuple([Label, Label, Label, Label, Label]).optional().meta({ description: 'Five labels, for the ratings 1 to 5' }),
    thanks_message: z.string().trim().min(1).max(CSAT_THANKS_MAX).nullable().optional(),
    expire_hours: z.number().int().min(1).max(CSAT_EXPIRE_HOURS_MAX).optional(),
    channel_ids: z.array(z.uuid()).max(CSAT_CHANNELS_MAX).nullable().optional(),
  })
  .meta({
    id: 'UpdateCsatSettingsRequest',
    description: 'The fields given replace the stored ones; the others stay. Applies to conversations resolved from then on.',
    examples: [{ enabled: true, expire_hours: 48 }],
  });

export const CsatSurveySchema = z
  .object({
    id: z.uuid(),
    conversation_id: z.uuid(),
    channel_id: z.uuid(),
    contact_id: z.uuid().nullable(),
    assignee_user_id: z.uuid().nullable().meta({ description: 'Who had the conversation when it was resolved' }),
    status: z.enum(CSAT_STATUSES).meta({
      description:
        'pending (decided, being sent), sent (waiting for the answer until expires_at), answered, expired (no answer in time), not_sent (reason says why: window_closed, channel_not_connected, or the refusal’s code)',
    }),
    reason: z.string().nullable(),
    request_message_id: z.uuid().nullable(),
    requested_at: z.string(),
    expires_at: z.string().nullable(),
    rating: z.number().int().nullable().meta({ description: '1 (very poor) to 5 (excellent)' }),
    comment: z.string().nullable().meta({ description: 'The words the customer wrote beside the number' }),
    answer_message_id: z.uuid().nullable(),
    answered_at: z.string().nullable(),
  })
  .meta({
    id: 'CsatSurvey',
    example: {
      id: '0196b1f2-0a00-7000-8000-0000000000f1',
      conversation_id: '0190a5b4-2a70-7c11-9d2f-5b6c7d8e9f00',
      channel_id: '0190a5b1-0a0b-7c11-9d2f-5b6c7d8e9e00',
      contact_id: '0190a5b4-1f00-7c11-9d2f-5b6c7d8e9eff',
      assignee_user_id: '0190a5b0-9a1b-7c11-9d2f-5b6c7d8e9d01',
      status: 'answered',
      reason: null,
      request_message_id: '0196b1f2-0a00-7000-8000-0000000000f3',
      requested_at: '2026-05-04T10:15:00.000Z',
      expires_at: '2026-05-05T10:15:00.000Z',
      rating: 5,
      comment: 'quick and friendly',
      answer_message_id: '0196b1f2-0a00-7000-8000-0000000000f2',
      answered_at: '2026-05-04T10:21:07.000Z',
    },
  });

const iso = (d: Date | null) => d?.toISOString() ?? null;

function presentSurvey(row: CsatSurveyRow, now: Date): z.infer<typeof CsatSurveySchema> {
  return {
    id: row.id,
    conversation_id: row.conversationId,
    channel_id: row.channelId,
    contact_id: row.contactId,
    assignee_user_id: row.assigneeUserId,
    status: surveyStatus(row, now),
    reason: row.reason,
    request_message_id: row.requestMessageId,
    requested_at: row.requestedAt.toISOString(),
    expires_at: iso(row.expiresAt),
    rating: row.rating,
    comment: row.comment,
    answer_message_id: row.answerMessageId,
    answered_at: iso(row.answeredAt),
  };
}

const presentSettings = (s: CsatSettings): z.infer<typeof CsatSettingsSchema> => ({ ...s });

const Rating = z.coerce.number().int().min(1).max(5);

export async function registerCsatRoutes(app: App, deps: { db: Executor; clock: Clock }) {
  app.get(
    '/v1/settings/csat',
    {
      config: settingsRead,
      schema: {
        tags: [TAG],
        summary: 'The satisfaction survey settings',
        description: `${HOW} Off until enabled. Needs channels:read.`,
        response: { 200: dataOf(CsatSettingsSchema), ...errorResponses([401, 403]) },
      },
    },
    async (request) => ({ data: presentSettings(await getCsatSettings(deps, actorOf(request))) }),
  );

  app.patch(
    '/v1/settings/csat',
    {
      config: settingsWrite,
      schema: {
        tags: [TAG],
        summary: 'Change the satisfaction survey settings',
        description: `${UpdateCsatSettingsBody.description} 400 naming the field. Needs channels:write.`,
        body: UpdateCsatSettingsBody,
        response: { 200: dataOf(CsatSettingsSchema), ...errorResponses([400, 401, 403]) },
      },
    },
    async (request) => ({
      data: presentSettings(
        await inputFrom('body', updateCsatSettings({ db: deps.db, clock: deps.clock }, actorOf(request), request.body)),
      ),
    }),
  );

  app.get(
    '/v1/conversations/:conversationID/csat-surveys',
    {
      config: read,
      schema: {
        tags: [TAG],
        summary: 'A conversation’s satisfaction surveys',
        description: 'Every survey the conversation was sent (one per resolution while the survey was on), newest first, with its answer.',
        params: z.object({ conversationID: PathId }),
        response: { 200: z.object({ data: z.array(CsatSurveySchema) }), ...errorResponses([401, 403, 404]) },
      },
    },
    async (request) => {
      const rows = await listConversationSurveys(deps, actorOf(request), request.params.conversationID);
      const now = deps.clock.now();
      return { data: rows.map((r) => presentSurvey(r, now)) };
    },
  );

  app.get(
    '/v1/csat-responses',
    {
      config: read,
      schema: {
        tags: [TAG],
        summary: 'List satisfaction answers',
        description:
          'The organization’s answered surveys, newest answer first, by channel, by the member who had the conversation, by rating and by time.',
        querystring: PageQuerySchema.extend({
          channel_id: z.string().max(64).optional(),
          assignee_user_id: z.string().max(64).optional().meta({ description: 'Who had the conversation when it was resolved' }),
          rating: z
            .union([Rating, z.array(Rating).max(5)])
            .optional()
            .meta({ description: 'One rating, or several (`rating=1&rating=2`)' }),
          since: z.iso.datetime({ offset: true }).optional().meta({ description: 'Answered at or after' }),
          until: z.iso.datetime({ offset: true }).optional().meta({ description: 'Answered at or before' }),
        }),
        response: { 200: listOf(CsatSurveySchema), ...errorResponses([400, 401, 403]) },
      },
    },
    async (request) => {
      const q = request.query;
      const page = await inputFrom(
        'query',
        listCsatResponses(
          deps,
          actorOf(request),
          {
            channelId: q.channel_id,
            assigneeUserId: q.assignee_user_id,
            ratings: q.rating === undefined ? undefined : Array.isArray(q.rating) ? q.rating : [q.rating],
            since: q.since ? new Date(q.since) : undefined,
            until: q.until ? new Date(q.until) : undefined,
          },
          { limit: q.limit, cursor: q.cursor },
        ),
      );
      const now = deps.clock.now();
      return { data: page.items.map((r) => presentSurvey(r, now)), meta: { next_cursor: page.nextCursor } };
    },
  );
}
