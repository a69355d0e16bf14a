/** Comments on the CRM's records (contacts, companies, deals, tasks, conversations): create, list, get, edit (the author), delete. */
import { z } from 'zod';
import {
  COMMENT_BODY_MAX,
  COMMENT_KINDS,
  createComment,
  deleteComment,
  getComment,
  listComments,
  updateComment,
  type CommentClockDeps,
} from '../../domain/comments/comments.ts';
import { actorOf } from '../auth/actor.ts';
import { errorResponses } from '../errors.ts';
import { inputFrom } from '../input-location.ts';
import { dataOf, listOf, PageQuerySchema, PathId } from '../schemas.ts';
import type { App } from '../types.ts';
import { presentComment } from './comments.presenters.ts';
import { ChangedBySchema, crmRead, crmWrite, recordOf, recordParam, RecordRefSchema } from './crm.schemas.ts';

const TAG = 'comments';

export const CommentSchema = z
  .object({
    id: z.uuid(),
    record: RecordRefSchema.meta({ description: 'The record it is on' }),
    body: z.string(),
    author: ChangedBySchema.meta({ description: 'Who wrote it: a user, an API key, or an OAuth client for its user' }),
    created_at: z.string(),
    edited_at: z.string().nullable().meta({ description: 'When its author last changed it; null if never' }),
  })
  .meta({ id: 'Comment' });

const Body = z
  .string()
  .trim()
  .min(1)
  .max(COMMENT_BODY_MAX)
  .meta({ description: `Text, 1 to ${COMMENT_BODY_MAX} characters` });

const CreateCommentBody = z
  .strictObject({
    record: z.strictObject({ kind: z.enum(COMMENT_KINDS), id: z.uuid() }).meta({ description: 'A record of the organization' }),
    body: Body,
  })
  .meta({
    id: 'CreateCommentRequest',
    description:
      'Comments on a record of the organization (400 naming record.id for one it does not have). A contact’s comments are its notes (GET /v1/contacts/{contactID}/notes). Records crm.comment.created.',
    examples: [{ record: { kind: 'deal', id: '0196b1f2-0a00-7000-8000-000000000221' }, body: 'They want to start in July.' }],
  });

const UpdateCommentBody = z.strictObject({ body: Body }).meta({
  id: 'UpdateCommentRequest',
  description: 'Its author only (403 for anyone else). Records crm.comment.updated when the body changed.',
  examples: [{ body: 'They want to start in August.' }],
});

const Params = z.object({ commentID: PathId });

/** What the comments routes use: the database and the clock. */
export type CommentServices = CommentClockDeps;

export async function registerCommentRoutes(app: App, deps: CommentServices) {
  app.post(
    '/v1/comments',
    {
      config: crmWrite,
      schema: {
        tags: [TAG],
        summary: 'Comment on a record',
        description: CreateCommentBody.description,
        body: CreateCommentBody,
        response: { 201: dataOf(CommentSchema).describe('Created'), ...errorResponses([400, 401, 403]) },
      },
    },
    async (request, reply) => {
      const { record, body } = request.body;
      const comment = await inputFrom(
        'body',
        createComment(deps, actorOf(request), { record: { kind: record.kind, id: record.id }, body }),
      );
      return reply.code(201).send({ data: presentComment(comment) });
    },
  );

  app.get(
    '/v1/comments',
    {
      config: crmRead,
      schema: {
        tags: [TAG],
        summary: 'List comments',
        description: 'Newest first, by cursor: a record’s (`record`), or every comment of the organization.',
        querystring: PageQuerySchema.extend({ record: recordParam(COMMENT_KINDS, 'The comments on this record.') }),
        response: { 200: listOf(CommentSchema), ...errorResponses([400, 401, 403]) },
      },
    },
    async (request) => {
      const q = request.query;
      const page = await listComments(deps, actorOf(request), { limit: q.limit, cursor: q.cursor, record: recordOf(q.record) });
      return { data: page.items.map(presentComment), meta: { next_cursor: page.nextCursor } };
    },
  );

  app.get(
    '/v1/comments/:commentID',
    {
      config: crmRead,
      schema: {
        tags: [TAG],
        summary: 'Get a comment',
        params: Params,
        response: { 200: dataOf(CommentSchema), ...errorResponses([401, 403, 404]) },
      },
    },
    async (request) => ({ data: presentComment(await getComment(deps, actorOf(request), { commentId: request.params.commentID })) }),
  );

  app.patch(
    '/v1/comments/:commentID',
    {
      config: crmWrite,
      schema: {
        tags: [TAG],
        summary: 'Edit a comment',
        description: UpdateCommentBody.description,
        params: Params,
        body: UpdateCommentBody,
        response: { 200: dataOf(CommentSchema), ...errorResponses([400, 401, 403, 404]) },
      },
    },
    async (request) => {
      const comment = await updateComment(deps, actorOf(request), { commentId: request.params.commentID, body: request.body.body });
      return { data: presentComment(comment) };
    },
  );

  app.delete(
    '/v1/comments/:commentID',
    {
      config: crmWrite,
      schema: {
        tags: [TAG],
        summary: 'Delete a comment',
        description: 'Anyone who may write the CRM deletes a comment, as a contact’s notes always were. Records crm.comment.deleted.',
        params: Params,
        response: { 204: z.null().describe('Deleted'), ...errorResponses([401, 403, 404]) },
      },
    },
    async (request, reply) => {
      await deleteComment(deps, actorOf(request), { commentId: request.params.commentID });
      return reply.code(204).send(null);
    },
  );
}
