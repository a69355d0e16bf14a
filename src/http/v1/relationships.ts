/** Relationships of the CRM: the organization's labels (create, list, get, rename, delete) and links between records (link, list a record's, get, unlink). */
import { z } from 'zod';
import {
  createLabel,
  deleteLabel,
  getLabel,
  LabelFieldsSchema,
  listLabels,
  RELATIONSHIP_KINDS,
  updateLabel,
  type LabelDeps,
} from '../../domain/relationships/labels.ts';
import { getRelationship, linkRecords, listRelationships, unlinkRecords } from '../../domain/relationships/relationships.ts';
import { actorOf } from '../auth/actor.ts';
import { errorResponses } from '../errors.ts';
import { inputFrom } from '../input-location.ts';
import { dataOf, listOf, PageQuerySchema, PathId } from '../schemas.ts';
import type { App } from '../types.ts';
import { ChangedBySchema, crmRead, crmWrite, recordOf, recordParam, RecordRefSchema } from './crm.schemas.ts';
import { presentLabel, presentRelationship } from './relationships.presenters.ts';

const TAG = 'relationships';

export const RelationshipLabelSchema = z
  .object({
    id: z.uuid(),
    name: z.string().meta({ description: 'How a link reads from its `from` record' }),
    inverse_name: z.string().nullable().meta({ description: 'How it reads from its `to` record; null: the same both ways' }),
    from_kind: z.enum(RELATIONSHIP_KINDS),
    to_kind: z.enum(RELATIONSHIP_KINDS),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: 'RelationshipLabel' });

export const RelationshipSchema = z
  .object({
    id: z.uuid(),
    label_id: z.uuid(),
    label: z.string().meta({
      description:
        'The label as read from the record the link is seen from: its name from the `from` record, its inverse (else its name) from the `to` record',
    }),
    direction: z.enum(['outgoing', 'incoming']).meta({
      description:
        '`outgoing`: the record the link is seen from is its `from` record; `incoming`: its `to` record. A link is seen from the `record` a list names, else from its `from` record',
    }),
    related: RecordRefSchema.meta({ description: 'The record at the other end, seen from that one' }),
    from: RecordRefSchema,
    to: RecordRefSchema,
    created_by: ChangedBySchema.meta({ description: 'Who linked the records' }),
    created_at: z.string(),
  })
  .meta({ id: 'Relationship' });

const EXAMPLE_IDS = {
  label: '0196b1f2-0a00-7000-8000-000000000241',
  contact: '0196b1f2-0a00-7000-8000-0000000000d1',
  company: '0196b1f2-0a00-7000-8000-000000000181',
};

const CreateLabelBody = LabelFieldsSchema.meta({
  id: 'CreateRelationshipLabelRequest',
  description:
    'A kind of link between records of two kinds. Its name is unique among the labels between the same kinds (case-insensitive; 409 naming name). Labels record no events.',
  examples: [
    { name: 'works at', inverse_name: 'employs', from_kind: 'contact', to_kind: 'company' },
    { name: 'parent of', inverse_name: 'child of', from_kind: 'company', to_kind: 'company' },
    { name: 'decision maker', inverse_name: 'decides on', from_kind: 'contact', to_kind: 'deal' },
    { name: 'colleague', from_kind: 'contact', to_kind: 'contact' },
  ],
});

const UpdateLabelBody = LabelFieldsSchema.pick({ name: true, inverse_name: true })
  .partial()
  .meta({
    id: 'UpdateRelationshipLabelRequest',
    description: 'Renames the label or its inverse (null: the same both ways); its links keep it. The kinds it links do not change.',
    examples: [{ inverse_name: 'employer of' }],
  });

const LinkBody = z
  .strictObject({
    label_id: z.uuid().meta({ description: 'A relationship label of the organization' }),
    from_id: z.uuid().meta({ description: 'A record of the label’s from_kind' }),
    to_id: z.uuid().meta({ description: 'A record of the label’s to_kind, another than from_id' }),
  })
  .meta({
    id: 'LinkRecordsRequest',
    description:
      'Links two records of the organization with a label (400 naming the field for a record or label it does not have). A pair is linked once per label (a label that reads the same both ways, between records of one kind, once whichever way round): linking again answers the existing link with 200 and no event. Records crm.relationship.linked.',
    examples: [{ label_id: EXAMPLE_IDS.label, from_id: EXAMPLE_IDS.contact, to_id: EXAMPLE_IDS.company }],
  });

const LabelParams = z.object({ labelID: PathId });
const Params = z.object({ relationshipID: PathId });

/** What the relationships routes use: the database and the clock. */
export type RelationshipServices = LabelDeps;

export async function registerRelationshipRoutes(app: App, deps: RelationshipServices) {
  app.post(
    '/v1/relationship-labels',
    {
      config: crmWrite,
      schema: {
        tags: [TAG],
        summary: 'Create a relationship label',
        description: CreateLabelBody.description,
        body: CreateLabelBody,
        response: { 201: dataOf(RelationshipLabelSchema).describe('Created'), ...errorResponses([400, 401, 403, 409]) },
      },
    },
    async (request, reply) => {
      const b = request.body;
      const label = await inputFrom(
        'body',
        createLabel(deps, actorOf(request), { name: b.name, inverseName: b.inverse_name, fromKind: b.from_kind, toKind: b.to_kind }),
      );
      return reply.code(201).send({ data: presentLabel(label) });
    },
  );

  app.get(
    '/v1/relationship-labels',
    {
      config: crmRead,
      schema: {
        tags: [TAG],
        summary: 'List relationship labels',
        description: 'Oldest first, by cursor.',
        querystring: PageQuerySchema.extend({
          from_kind: z.enum(RELATIONSHIP_KINDS).optional().meta({ description: 'Labels of links from records of this kind' }),
          to_kind: z.enum(RELATIONSHIP_KINDS).optional().meta({ description: 'Labels of links to records of this kind' }),
        }),
        response: { 200: listOf(RelationshipLabelSchema), ...errorResponses([400, 401, 403]) },
      },
    },
    async (request) => {
      const q = request.query;
      const page = await listLabels(deps, actorOf(request), { limit: q.limit, cursor: q.cursor, fromKind: q.from_kind, toKind: q.to_kind });
      return { data: page.items.map(presentLabel), meta: { next_cursor: page.nextCursor } };
    },
  );

  app.get(
    '/v1/relationship-labels/:labelID',
    {
      config: crmRead,
      schema: {
        tags: [TAG],
        summary: 'Get a relationship label',
        params: LabelParams,
        response: { 200: dataOf(RelationshipLabelSchema), ...errorResponses([401, 403, 404]) },
      },
    },
    async (request) => ({ data: presentLabel(await getLabel(deps, actorOf(request), { labelId: request.params.labelID })) }),
  );

  app.patch(
    '/v1/relationship-labels/:labelID',
    {
      config: crmWrite,
      schema: {
        tags: [TAG],
        summary: 'Rename a relationship label',
        description: UpdateLabelBody.description,
        params: LabelParams,
        body: UpdateLabelBody,
        response: { 200: dataOf(RelationshipLabelSchema), ...errorResponses([400, 401, 403, 404, 409]) },
      },
    },
    async (request) => {
      const label = await inputFrom(
        'body',
        updateLabel(deps, actorOf(request), {
          labelId: request.params.labelID,
          fields: { name: request.body.name, inverseName: request.body.inverse_name },
        }),
      );
      return { data: presentLabel(label) };
    },
  );

  app.delete(
    '/v1/relationship-labels/:labelID',
    {
      config: crmWrite,
      schema: {
        tags: [TAG],
        summary: 'Delete a relationship label',
        description: 'With its links: each records crm.relationship.unlinked.',
        params: LabelParams,
        response: { 204: z.null().describe('Deleted'), ...errorResponses([401, 403, 404]) },
      },
    },
    async (request, reply) => {
      await deleteLabel(deps, actorOf(request), { labelId: request.params.labelID });
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/v1/relationships',
    {
      config: crmWrite,
      schema: {
        tags: [TAG],
        summary: 'Link two records',
        description: LinkBody.description,
        body: LinkBody,
        response: {
          200: dataOf(RelationshipSchema).describe('Linked already: the existing link'),
          201: dataOf(RelationshipSchema).describe('Linked'),
          ...errorResponses([400, 401, 403]),
        },
      },
    },
    async (request, reply) => {
      const { view, created } = await inputFrom(
        'body',
        linkRecords(deps, actorOf(request), { labelId: request.body.label_id, fromId: request.body.from_id, toId: request.body.to_id }),
      );
      return reply.code(created ? 201 : 200).send({ data: presentRelationship(view) });
    },
  );

  app.get(
    '/v1/relationships',
    {
      config: crmRead,
      schema: {
        tags: [TAG],
        summary: 'List relationships',
        description:
          'Newest first, by cursor. With `record`, the record’s links in both directions, each seen from it (`direction`, `label` as read from its side, `related`: the other record); else every link, seen from its `from` record.',
        querystring: PageQuerySchema.extend({
          record: recordParam(RELATIONSHIP_KINDS, 'The links of this record, from it and to it.'),
          label_id: z.uuid().optional().meta({ description: 'The links of this label' }),
        }),
        response: { 200: listOf(RelationshipSchema), ...errorResponses([400, 401, 403]) },
      },
    },
    async (request) => {
      const q = request.query;
      const page = await listRelationships(deps, actorOf(request), {
        limit: q.limit,
        cursor: q.cursor,
        record: recordOf(q.record),
        labelId: q.label_id,
      });
      return { data: page.items.map(presentRelationship), meta: { next_cursor: page.nextCursor } };
    },
  );

  app.get(
    '/v1/relationships/:relationshipID',
    {
      config: crmRead,
      schema: {
        tags: [TAG],
        summary: 'Get a relationship',
        description: 'Seen from its `from` record.',
        params: Params,
        response: { 200: dataOf(RelationshipSchema), ...errorResponses([401, 403, 404]) },
      },
    },
    async (request) => ({
      data: presentRelationship(await getRelationship(deps, actorOf(request), { relationshipId: request.params.relationshipID })),
    }),
  );

  app.delete(
    '/v1/relationships/:relationshipID',
    {
      config: crmWrite,
      schema: {
        tags: [TAG],
        summary: 'Unlink two records',
        description: 'Deletes the link; records crm.relationship.unlinked.',
        params: Params,
        response: { 204: z.null().describe('Deleted'), ...errorResponses([401, 403, 404]) },
      },
    },
    async (request, reply) => {
      await unlinkRecords(deps, actorOf(request), { relationshipId: request.params.relationshipID });
      return reply.code(204).send(null);
    },
  );
}
