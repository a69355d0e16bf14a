/** Static lists of records of one kind: create, list, get, update, delete; their entries added (many at once), removed and paged. */
import { z } from 'zod';
import {
  addListEntries,
  createList,
  deleteList,
  ENTRIES_MAX,
  getListWithCount,
  LIST_KINDS,
  LIST_SORTS,
  listListEntries,
  listLists,
  removeListEntry,
  updateList,
  type ListDeps,
} from '../../domain/lists/lists.ts';
import { actorOf } from '../auth/actor.ts';
import { errorResponses } from '../errors.ts';
import { inputFrom } from '../input-location.ts';
import { dataOf, listOf, PageQuerySchema, PathId } from '../schemas.ts';
import type { App } from '../types.ts';
import { crmRead, crmWrite, RecordRefSchema, sortParam } from './crm.schemas.ts';
import { presentList, presentListEntry } from './lists.presenters.ts';

const TAG = 'lists';

export const ListSchema = z
  .object({
    id: z.uuid(),
    name: z.string(),
    kind: z.enum(LIST_KINDS).meta({ description: 'The kind of every record in it' }),
    description: z.string().nullable(),
    entry_count: z.number().int().meta({ description: 'How many records it holds now' }),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: 'List' });

export const ListEntrySchema = z
  .object({
    record: RecordRefSchema,
    added_at: z.string(),
  })
  .meta({ id: 'ListEntry' });

const Name = z.string().trim().min(1).max(200).meta({ description: 'Unique in the organization (case-insensitive)' });
const Description = z.string().max(2000).nullable().optional();

const CreateListBody = z.object({ name: Name, kind: z.enum(LIST_KINDS), description: Description }).meta({
  id: 'CreateListRequest',
  description: 'Records crm.record.created (object_kind `list`). 409 naming name when another list has it.',
  examples: [
    { name: 'Newsletter', kind: 'contact', description: 'Who reads the monthly letter' },
    { name: 'Key accounts', kind: 'company' },
  ],
});

const UpdateListBody = z.object({ name: Name.optional(), description: Description }).meta({
  id: 'UpdateListRequest',
  description: 'Renames a list or changes its description; its kind stays. Records crm.record.updated when something changed.',
  examples: [{ name: 'Monthly newsletter' }, { description: null }],
});

const AddEntriesBody = z
  .object({
    record_ids: z
      .array(z.string().max(64))
      .min(1)
      .max(ENTRIES_MAX)
      .meta({
        description: `Up to ${ENTRIES_MAX} records of the list’s kind, of the organization (400 naming /record_ids/N otherwise; none is added then)`,
      }),
  })
  .meta({
    id: 'AddListEntriesRequest',
    description:
      'Adds the records; one already in the list stays as it was. Records crm.list.entry_added for each record added, none for those already there.',
    examples: [{ record_ids: ['0190a5b3-1111-7e4f-8a1b-2c3d4e5f6a7b', '0190a5b3-2222-7e4f-8a1b-2c3d4e5f6a7b'] }],
  });

const AddedSchema = z
  .object({
    added: z.array(z.uuid()).meta({ description: 'The records added now' }),
    existing: z.array(z.uuid()).meta({ description: 'The records that were in the list already' }),
  })
  .meta({ id: 'ListEntriesAdded' });

const Params = z.object({ listID: PathId });

/** What the lists routes use: the database and the clock. */
export type ListServices = ListDeps;

export async function registerListRoutes(app: App, deps: ListServices) {
  app.post(
    '/v1/lists',
    {
      config: crmWrite,
      schema: {
        tags: [TAG],
        summary: 'Create a list',
        description: CreateListBody.description,
        body: CreateListBody,
        response: { 201: dataOf(ListSchema).describe('Created'), ...errorResponses([400, 401, 403, 409]) },
      },
    },
    async (request, reply) => {
      const row = await inputFrom('body', createList(deps, actorOf(request), request.body));
      return reply.code(201).send({ data: presentList({ ...row, entryCount: 0 }) });
    },
  );

  app.get(
    '/v1/lists',
    {
      config: crmRead,
      schema: {
        tags: [TAG],
        summary: 'List lists',
        description: 'Newest first unless `sort` says otherwise, by cursor. Filters combine.',
        querystring: PageQuerySchema.extend({
          sort: sortParam(
            LIST_SORTS,
            '-created_at',
            'The order: `name` (case-insensitive, in code-point order), `created_at` or `updated_at`.',
          ),
          kind: z.enum(LIST_KINDS).optional().meta({ description: 'Only lists of this kind of record' }),
          name_prefix: z.string().min(1).max(200).optional().meta({ description: 'Names starting with this (case-insensitive)' }),
        }),
        response: { 200: listOf(ListSchema), ...errorResponses([400, 401, 403]) },
      },
    },
    async (request) => {
      const q = request.query;
      const page = await inputFrom(
        'query',
        listLists(deps, actorOf(request), { limit: q.limit, cursor: q.cursor, sort: q.sort, kind: q.kind, namePrefix: q.name_prefix }),
      );
      return { data: page.items.map(presentList), meta: { next_cursor: page.nextCursor } };
    },
  );

  app.get(
    '/v1/lists/:listID',
    {
      config: crmRead,
      schema: {
        tags: [TAG],
        summary: 'Get a list',
        params: Params,
        response: { 200: dataOf(ListSchema), ...errorResponses([401, 403, 404]) },
      },
    },
    async (request) => ({ data: presentList(await getListWithCount(deps, actorOf(request), { listId: request.params.listID })) }),
  );

  app.patch(
    '/v1/lists/:listID',
    {
      config: crmWrite,
      schema: {
        tags: [TAG],
        summary: 'Update a list',
        description: UpdateListBody.description,
        params: Params,
        body: UpdateListBody,
        response: { 200: dataOf(ListSchema), ...errorResponses([400, 401, 403, 404, 409]) },
      },
    },
    async (request) => {
      const actor = actorOf(request);
      await inputFrom('body', updateList(deps, actor, { listId: request.params.listID, fields: request.body }));
      return { data: presentList(await getListWithCount(deps, actor, { listId: request.params.listID })) };
    },
  );

  app.delete(
    '/v1/lists/:listID',
    {
      config: crmWrite,
      schema: {
        tags: [TAG],
        summary: 'Delete a list',
        description: 'Its entries go with it (its records stay). Records crm.record.deleted, and no entry events.',
        params: Params,
        response: { 204: z.null().describe('Deleted'), ...errorResponses([401, 403, 404]) },
      },
    },
    async (request, reply) => {
      await deleteList(deps, actorOf(request), { listId: request.params.listID });
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/v1/lists/:listID/entries',
    {
      config: crmWrite,
      schema: {
        tags: [TAG],
        summary: 'Add records to a list',
        description: AddEntriesBody.description,
        params: Params,
        body: AddEntriesBody,
        response: { 200: dataOf(AddedSchema), ...errorResponses([400, 401, 403, 404]) },
      },
    },
    async (request) => {
      const result = await inputFrom(
        'body',
        addListEntries(deps, actorOf(request), { listId: request.params.listID, recordIds: request.body.record_ids }),
      );
      return { data: result };
    },
  );

  app.get(
    '/v1/lists/:listID/entries',
    {
      config: crmRead,
      schema: {
        tags: [TAG],
        summary: 'List a list’s entries',
        description: 'Newest entry first, by cursor; each record with its name now.',
        params: Params,
        querystring: PageQuerySchema,
        response: { 200: listOf(ListEntrySchema), ...errorResponses([400, 401, 403, 404]) },
      },
    },
    async (request) => {
      const q = request.query;
      const page = await inputFrom(
        'query',
        listListEntries(deps, actorOf(request), { listId: request.params.listID, limit: q.limit, cursor: q.cursor }),
      );
      return { data: page.items.map(presentListEntry), meta: { next_cursor: page.nextCursor } };
    },
  );

  app.delete(
    '/v1/lists/:listID/entries/:recordID',
    {
      config: crmWrite,
      schema: {
        tags: [TAG],
        summary: 'Remove a record from a list',
        description: 'Records crm.list.entry_removed. 404 when the record is not in the list.',
        params: z.object({ listID: PathId, recordID: PathId }),
        response: { 204: z.null().describe('Removed'), ...errorResponses([401, 403, 404]) },
      },
    },
    async (request, reply) => {
      await removeListEntry(deps, actorOf(request), { listId: request.params.listID, recordId: request.params.recordID });
      return reply.code(204).send(null);
    },
  );
}
