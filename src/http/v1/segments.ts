/**
 * Saved segments: create, list, get, update, delete; a segment's live count, its preview (the count
 * and 20 contacts), its contacts by cursor; and the preview of a filter not saved (the builder's).
 * The records and the count need crm:read / crm:write; what answers contacts needs contacts:read too
 * (the preview and the contacts page: reading contact records is that permission's).
 */
import { z } from 'zod';
import type { Permission } from '../../domain/permissions.ts';
import { parseFilter } from '../../domain/segments/filter.ts';
import {
  countSegment,
  createSegment,
  deleteSegment,
  getSegment,
  listSegments,
  previewMatching,
  previewSegment,
  segmentContacts,
  SEGMENT_SORTS,
  updateSegment,
  type SegmentDeps,
} from '../../domain/segments/segments.ts';
import { actorOf } from '../auth/actor.ts';
import { errorResponses } from '../errors.ts';
import { inputFrom } from '../input-location.ts';
import { dataOf, listOf, PageQuerySchema, PathId } from '../schemas.ts';
import type { App } from '../types.ts';
import { presentContact } from './contacts.presenters.ts';
import { ContactSchema } from './contacts.schemas.ts';
import { crmRead, crmWrite, sortParam } from './crm.schemas.ts';
import { presentSegment } from './segments.presenters.ts';
import {
  checkedFilter,
  CreateSegmentBody,
  PreviewBody,
  SegmentCountSchema,
  SegmentPreviewSchema,
  SegmentSchema,
  UpdateSegmentBody,
} from './segments.schemas.ts';

const TAG = 'segments';
const contactsRead: { auth: { permission: Permission } } = { auth: { permission: 'contacts:read' } };
const Params = z.object({ segmentID: PathId });

/** What the segments routes use: the database and the clock. */
export type SegmentServices = SegmentDeps;

export async function registerSegmentRoutes(app: App, deps: SegmentServices) {
  app.post(
    '/v1/segments',
    {
      config: crmWrite,
      schema: {
        tags: [TAG],
        summary: 'Create a segment',
        description: CreateSegmentBody.description,
        body: CreateSegmentBody,
        response: { 201: dataOf(SegmentSchema).describe('Created'), ...errorResponses([400, 401, 403, 409]) },
      },
    },
    async (request, reply) => {
      const { name, description } = request.body;
      const filter = checkedFilter(parseFilter(request.body.filter), 'body');
      const row = await inputFrom('body', createSegment(deps, actorOf(request), { name, description, filter }));
      return reply.code(201).send({ data: presentSegment(row) });
    },
  );

  app.get(
    '/v1/segments',
    {
      config: crmRead,
      schema: {
        tags: [TAG],
        summary: 'List segments',
        description: 'Newest first unless `sort` says otherwise, by cursor.',
        querystring: PageQuerySchema.extend({
          sort: sortParam(
            SEGMENT_SORTS,
            '-created_at',
            'The order: `name` (case-insensitive, in code-point order), `created_at` or `updated_at`.',
          ),
          name_prefix: z.string().min(1).max(200).optional().meta({ description: 'Names starting with this (case-insensitive)' }),
        }),
        response: { 200: listOf(SegmentSchema), ...errorResponses([400, 401, 403]) },
      },
    },
    async (request) => {
      const q = request.query;
      const page = await inputFrom(
        'query',
        listSegments(deps, actorOf(request), { limit: q.limit, cursor: q.cursor, sort: q.sort, namePrefix: q.name_prefix }),
      );
      return { data: page.items.map(presentSegment), meta: { next_cursor: page.nextCursor } };
    },
  );

  app.post(
    '/v1/segments/preview',
    {
      config: contactsRead,
      schema: {
        tags: [TAG],
        summary: 'Preview a filter',
        description:
          'The count and the newest 20 contacts of a filter not saved: what a segment builder shows while it is edited. Needs contacts:read. Records nothing.',
        body: PreviewBody,
        response: { 200: dataOf(SegmentPreviewSchema), ...errorResponses([400, 401, 403]) },
      },
    },
    async (request) => {
      const filter = checkedFilter(parseFilter(request.body.filter), 'body');
      const preview = await previewMatching(deps, actorOf(request), filter);
      return { data: { count: preview.count, contacts: preview.contacts.map(presentContact) } };
    },
  );

  app.get(
    '/v1/segments/:segmentID',
    {
      config: crmRead,
      schema: {
        tags: [TAG],
        summary: 'Get a segment',
        params: Params,
        response: { 200: dataOf(SegmentSchema), ...errorResponses([401, 403, 404]) },
      },
    },
    async (request) => ({ data: presentSegment(await getSegment(deps, actorOf(request), { segmentId: request.params.segmentID })) }),
  );

  app.patch(
    '/v1/segments/:segmentID',
    {
      config: crmWrite,
      schema: {
        tags: [TAG],
        summary: 'Update a segment',
        description: UpdateSegmentBody.description,
        params: Params,
        body: UpdateSegmentBody,
        response: { 200: dataOf(SegmentSchema), ...errorResponses([400, 401, 403, 404, 409]) },
      },
    },
    async (request) => {
      const { name, description, filter } = request.body;
      const fields = {
        name,
        description,
        filter: filter === undefined ? undefined : checkedFilter(parseFilter(filter), 'body'),
      };
      const row = await inputFrom('body', updateSegment(deps, actorOf(request), { segmentId: request.params.segmentID, fields }));
      return { data: presentSegment(row) };
    },
  );

  app.delete(
    '/v1/segments/:segmentID',
    {
      config: crmWrite,
      schema: {
        tags: [TAG],
        summary: 'Delete a segment',
        description: 'The contacts stay. Records crm.record.deleted.',
        params: Params,
        response: { 204: z.null().describe('Deleted'), ...errorResponses([401, 403, 404]) },
      },
    },
    async (request, reply) => {
      await deleteSegment(deps, actorOf(request), { segmentId: request.params.segmentID });
      return reply.code(204).send(null);
    },
  );

  app.get(
    '/v1/segments/:segmentID/count',
    {
      config: crmRead,
      schema: {
        tags: [TAG],
        summary: 'Count a segment',
        description: 'How many contacts the segment finds now (counted on each request).',
        params: Params,
        response: { 200: dataOf(SegmentCountSchema), ...errorResponses([401, 403, 404]) },
      },
    },
    async (request) => {
      const { count } = await countSegment(deps, actorOf(request), { segmentId: request.params.segmentID });
      return { data: { count, counted_at: deps.clock.now().toISOString() } };
    },
  );

  app.get(
    '/v1/segments/:segmentID/preview',
    {
      config: contactsRead,
      schema: {
        tags: [TAG],
        summary: 'Preview a segment',
        description: 'Its count now and its newest 20 contacts. Needs contacts:read.',
        params: Params,
        response: { 200: dataOf(SegmentPreviewSchema), ...errorResponses([401, 403, 404]) },
      },
    },
    async (request) => {
      const preview = await previewSegment(deps, actorOf(request), { segmentId: request.params.segmentID });
      return { data: { count: preview.count, contacts: preview.contacts.map(presentContact) } };
    },
  );

  app.get(
    '/v1/segments/:segmentID/contacts',
    {
      config: contactsRead,
      schema: {
        tags: [TAG],
        summary: 'List a segment’s contacts',
        description: 'The contacts it finds now, newest first, by cursor (as GET /v1/contacts). Needs contacts:read.',
        params: Params,
        querystring: PageQuerySchema,
        response: { 200: listOf(ContactSchema), ...errorResponses([400, 401, 403, 404]) },
      },
    },
    async (request) => {
      const q = request.query;
      const page = await inputFrom(
        'query',
        segmentContacts(deps, actorOf(request), { segmentId: request.params.segmentID, limit: q.limit, cursor: q.cursor }),
      );
      return { data: page.items.map(presentContact), meta: { next_cursor: page.nextCursor } };
    },
  );
}
