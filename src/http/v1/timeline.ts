/**
 * The timelines of contacts, companies and deals (docs/crm.md): one feed, newest first, by cursor,
 * filtered by kind. The contact's answers its errors in the contacts routes' `{error, code}` shape.
 */
import { z } from 'zod';
import {
  getTimeline,
  TIMELINE_ACTIONS,
  TIMELINE_KINDS,
  type TimelineDeps,
  type TimelineKind,
  type TimelineSubject,
} from '../../domain/crm/timeline.ts';
import type { Permission } from '../../domain/permissions.ts';
import { actorOf } from '../auth/actor.ts';
import { errorResponses } from '../errors.ts';
import { listOf, PageQuerySchema, PathId } from '../schemas.ts';
import type { App } from '../types.ts';
import { ChangedBySchema } from './crm.schemas.ts';
import { presentTimelineItem } from './timeline.presenters.ts';

const CONVERSATION = '0196b1f2-0a00-7000-8000-0000000000e1';
const CHANNEL = '0196b1f2-0a00-7000-8000-0000000000c1';
const DEAL = '0196b1f2-0a00-7000-8000-000000000221';
const USER = '0196b1f2-0a00-7000-8000-0000000000b1';
const byUser = { type: 'user' as const, id: USER, user_id: USER };

const Stage = z.object({ id: z.uuid(), name: z.string() });

export const TimelineItemSchema = z
  .object({
    kind: z.enum(TIMELINE_KINDS).meta({ description: 'What the item is; one of the objects below, named after it, describes it' }),
    action: z.enum(TIMELINE_ACTIONS).meta({
      description:
        'What happened: message `received` or `sent`; comment `created`; task `created` or `completed`; deal_stage `created` (the deal began in that stage) or `changed`; consent `granted` or `revoked`; suppression `added`',
    }),
    id: z.uuid().meta({
      description:
        'The id of the record the item comes from: the message, comment, task, stage history row (GET /v1/deals/{dealID}/stage-history), consent or suppression',
    }),
    at: z.string().meta({ description: 'When it happened' }),
    message: z
      .object({
        conversation_id: z.uuid(),
        channel_id: z.uuid(),
        direction: z.enum(['inbound', 'outbound']),
        type: z.string(),
        status: z.string(),
        preview: z.string().meta({ description: 'Its text, caption or title (up to 160 characters), else `[type]`' }),
        deleted: z.boolean().meta({ description: 'Deleted for everyone by its sender' }),
      })
      .optional(),
    comment: z
      .object({
        body: z.string().meta({ description: 'Up to 280 characters of it (GET /v1/comments/{commentID} for the whole)' }),
        truncated: z.boolean(),
        record: z.object({ kind: z.string(), id: z.uuid() }).meta({ description: 'The record it is on' }),
        author: ChangedBySchema,
        edited_at: z.string().nullable(),
      })
      .optional(),
    task: z
      .object({
        title: z.string(),
        status: z.enum(['open', 'completed']).meta({ description: 'Its status now' }),
        due_at: z.string().nullable(),
        priority: z.string().nullable(),
        assignee_user_id: z.uuid().nullable(),
        created_by: ChangedBySchema,
        completed_by: ChangedBySchema.nullable(),
      })
      .optional(),
    deal_stage: z
      .object({
        deal_id: z.uuid(),
        deal_name: z.string(),
        pipeline_id: z.uuid(),
        from_stage: Stage.nullable().meta({ description: 'The stage it left; null when the deal began here' }),
        to_stage: Stage.meta({ description: 'The stage it entered (its name now, or when entered if deleted since)' }),
        changed_by: ChangedBySchema,
      })
      .optional(),
    consent: z.object({ channel: z.string(), source: z.string().nullable() }).optional(),
    suppression: z.object({ channel: z.string(), reason: z.string(), expires_at: z.string().nullable() }).optional(),
  })
  .meta({
    id: 'TimelineItem',
    examples: [
      {
        kind: 'message',
        action: 'received',
        id: '0196b1f2-0a00-7000-8000-0000000000f1',
        at: '2025-06-02T09:15:00.000Z',
        message: {
          conversation_id: CONVERSATION,
          channel_id: CHANNEL,
          direction: 'inbound',
          type: 'text',
          status: 'received',
          preview: 'Can you send the offer for 40 seats?',
          deleted: false,
        },
      },
      {
        kind: 'deal_stage',
        action: 'changed',
        id: '0196b1f2-0a00-7000-8000-000000000231',
        at: '2025-06-02T09:14:00.000Z',
        deal_stage: {
          deal_id: DEAL,
          deal_name: 'Acme: 40 seats',
          pipeline_id: '0196b1f2-0a00-7000-8000-000000000201',
          from_stage: { id: '0196b1f2-0a00-7000-8000-000000000212', name: 'Qualified' },
          to_stage: { id: '0196b1f2-0a00-7000-8000-000000000213', name: 'Proposal' },
          changed_by: byUser,
        },
      },
    ],
  });

const TimelinePage = listOf(TimelineItemSchema);

const KindsParam = z
  .string()
  .regex(
    new RegExp(`^(${TIMELINE_KINDS.join('|')})(,(${TIMELINE_KINDS.join('|')}))*$`),
    `must be kinds among ${TIMELINE_KINDS.join(', ')}, comma-separated`,
  )
  .optional()
  .meta({
    description: `Only items of these kinds, comma-separated (\`message,comment\`): ${TIMELINE_KINDS.join(', ')}. Default every kind.`,
  });

const TimelineQuerySchema = PageQuerySchema.extend({ kind: KindsParam });

const crmRead: { auth: { permission: Permission } } = { auth: { permission: 'crm:read' } };
const contactRead: { auth: { permission: Permission }; errorShape: 'code' } = { auth: { permission: 'crm:read' }, errorShape: 'code' };

const ABOUT =
  'Newest first, by cursor (stable: items that come later are listed before every cursor handed out, and items of one instant never repeat or go missing between pages); `kind` keeps only some kinds. Each item has its kind, what happened (`action`), the id of the record it comes from, its time, and an object named after its kind.';

export async function registerTimelineRoutes(app: App, deps: TimelineDeps) {
  const route = (subject: TimelineSubject['kind'], path: string, param: string, summary: string, description: string) => {
    const contact = subject === 'contact';
    app.get(
      path,
      {
        config: contact ? contactRead : crmRead,
        schema: {
          tags: [contact ? 'contacts' : subject === 'company' ? 'companies' : 'deals'],
          summary,
          description: `${description} ${ABOUT}`,
          params: z.object({ [param]: PathId }),
          querystring: TimelineQuerySchema,
          response: {
            200: TimelinePage,
            ...(contact ? { ...errorResponses([401, 403]), ...errorResponses([400, 404], 'code') } : errorResponses([400, 401, 403, 404])),
          },
        },
      },
      async (request) => {
        const q = request.query as z.infer<typeof TimelineQuerySchema>;
        const id = (request.params as Record<string, string>)[param]!;
        const kinds = q.kind ? ([...new Set(q.kind.split(','))] as TimelineKind[]) : undefined;
        const page = await getTimeline(deps, actorOf(request), { kind: subject, id }, { limit: q.limit, cursor: q.cursor, kinds });
        return { data: page.items.map(presentTimelineItem), meta: { next_cursor: page.nextCursor } };
      },
    );
  };
  route(
    'contact',
    '/v1/contacts/:contactID/timeline',
    'contactID',
    "A contact's timeline",
    'What happened with the contact: its messages, the comments on it, the tasks linked to it (created, completed), the stage changes of its deals, its consents (the latest statement per channel scope) and its suppressions (those in place). Needs crm:read.',
  );
  route(
    'company',
    '/v1/companies/:companyID/timeline',
    'companyID',
    "A company's timeline",
    'What happened with the company: the comments on it, the tasks linked to it (created, completed) and the stage changes of its deals.',
  );
  route(
    'deal',
    '/v1/deals/:dealID/timeline',
    'dealID',
    "A deal's timeline",
    'What happened with the deal: its stage changes (from its first stage on), the comments on it, the tasks linked to it (created, completed) and the messages of the conversation it came from.',
  );
}
