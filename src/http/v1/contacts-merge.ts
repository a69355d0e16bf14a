/**
 * Merging a duplicate contact into another: the merge (contacts:write) and its preview
 * (contacts:read), with one body, so a client shows the preview of exactly the merge it then asks for.
 */
import { z } from 'zod';
import {
  MERGE_CONFLICT_KINDS,
  MERGE_MOVE_KINDS,
  MERGE_RESOLUTIONS,
  mergeDuplicateContact,
  previewContactMerge,
} from '../../domain/contacts/merge-duplicate.ts';
import type { ContactClockDeps } from '../../domain/contacts/record.ts';
import type { Permission } from '../../domain/permissions.ts';
import { actorOf } from '../auth/actor.ts';
import { errorResponses } from '../errors.ts';
import { dataOf } from '../schemas.ts';
import type { App } from '../types.ts';
import { presentContact } from './contacts.presenters.ts';
import { presentPreview } from './contacts-merge.presenters.ts';
import { ContactParams, ContactSchema } from './contacts.schemas.ts';

const TAG = 'contacts';
const read: { auth: { permission: Permission }; errorShape: 'code' } = { auth: { permission: 'contacts:read' }, errorShape: 'code' };
const write: { auth: { permission: Permission }; errorShape: 'code' } = { auth: { permission: 'contacts:write' }, errorShape: 'code' };

const errors = (statuses: number[]) => ({ ...errorResponses([401, 403]), ...errorResponses(statuses, 'code') });

const SURVIVOR = '0196a0e2-7c1e-7a59-9a4c-2f5d3f3b8a10';
const DUPLICATE = '0196a0e2-7c1e-7a59-9a4c-2f5d3f3b8a11';

const MergeBody = z
  .strictObject({
    duplicate_id: z.uuid().meta({ description: 'The duplicate: a contact of the organization other than the one in the path' }),
  })
  .meta({
    id: 'MergeContactRequest',
    description:
      'The duplicate to merge into the contact in the path (the survivor). 400 naming duplicate_id for a contact the organization does not have (another organization’s included: contacts of two organizations never merge) or for the survivor itself.',
    examples: [{ duplicate_id: DUPLICATE }],
  });

const contactExample = {
  id: SURVIVOR,
  phone_number: '+4930123456',
  name: 'Ana Souza',
  email: null,
  external_source: null,
  external_id: null,
  custom_fields: { plan: 'pro' },
  tags: ['vip'],
  created_at: '2025-05-01T09:30:00.000Z',
  updated_at: '2025-05-02T10:00:00.000Z',
};

const MergeConflictSchema = z
  .object({
    kind: z.enum(MERGE_CONFLICT_KINDS).meta({
      description:
        '`field` (name, email, phone_number, external_id), `custom_field` (a key), `identity` (two identities of one type: two phone numbers, two chat-app ids), `consent` or `suppression` (one channel scope)',
    }),
    name: z.string().meta({
      description: 'The field, the custom field key, the identity type (`external_id:source` for external ids) or the channel scope',
    }),
    survivor: z
      .array(z.string())
      .meta({ description: 'The survivor’s value(s): a custom field as JSON, a suppression’s end time or `until lifted`' }),
    duplicate: z.array(z.string()).meta({ description: 'The duplicate’s value(s)' }),
    resolution: z.enum(MERGE_RESOLUTIONS).meta({
      description:
        'What the merge keeps: the survivor’s value (fields: the survivor’s filled ones stay), the duplicate’s (the later consent, the longer suppression), or both (identities: the survivor is known by both)',
    }),
  })
  .meta({ id: 'ContactMergeConflict' });

export const MergePreviewSchema = z
  .object({
    survivor: ContactSchema,
    duplicate: ContactSchema,
    result: ContactSchema,
    moves: z
      .object(
        Object.fromEntries(MERGE_MOVE_KINDS.map((k) => [k, z.number().int()])) as Record<(typeof MERGE_MOVE_KINDS)[number], z.ZodNumber>,
      )
      .meta({
        description:
          'What moves from the duplicate to the survivor, counted per kind (tags, consents, deals, tasks: those the survivor does not have already; relationships: those that would not link the survivor to itself)',
      }),
    conflicts: z.array(MergeConflictSchema),
  })
  .meta({
    id: 'ContactMergePreview',
    examples: [
      {
        survivor: contactExample,
        duplicate: {
          ...contactExample,
          id: DUPLICATE,
          phone_number: '+4930987654',
          name: 'Ana S.',
          email: 'ana@example.com',
          custom_fields: { plan: 'basic' },
          tags: ['newsletter'],
        },
        result: { ...contactExample, email: 'ana@example.com', updated_at: '2025-06-02T09:15:00.000Z' },
        moves: {
          identities: 2,
          comments: 1,
          tags: 1,
          consents: 1,
          suppressions: 0,
          conversations: 1,
          messages: 14,
          deals: 1,
          tasks: 0,
          relationships: 1,
        },
        conflicts: [
          { kind: 'field', name: 'name', survivor: ['Ana Souza'], duplicate: ['Ana S.'], resolution: 'survivor_kept' },
          { kind: 'field', name: 'phone_number', survivor: ['+4930123456'], duplicate: ['+4930987654'], resolution: 'survivor_kept' },
          { kind: 'custom_field', name: 'plan', survivor: ['"pro"'], duplicate: ['"basic"'], resolution: 'survivor_kept' },
          { kind: 'identity', name: 'phone', survivor: ['+4930123456'], duplicate: ['+4930987654'], resolution: 'both_kept' },
        ],
      },
    ],
  });

export async function registerContactMergeRoutes(app: App, deps: ContactClockDeps) {
  app.post(
    '/v1/contacts/:contactID/merge/preview',
    {
      config: read,
      schema: {
        tags: [TAG],
        summary: 'Preview a merge of contacts',
        description:
          'What POST /v1/contacts/{contactID}/merge with the same body would do, changing nothing: both contacts, the survivor as it would be (`result`: its empty fields filled from the duplicate’s, the tags of both), what would move counted per kind, and where the two disagree with the side the merge keeps.',
        params: ContactParams,
        body: MergeBody,
        response: { 200: dataOf(MergePreviewSchema), ...errors([400, 404]) },
      },
    },
    async (request) => {
      const preview = await previewContactMerge(deps, actorOf(request), {
        contactId: request.params.contactID,
        duplicateId: request.body.duplicate_id,
      });
      return { data: presentPreview(preview) };
    },
  );

  app.post(
    '/v1/contacts/:contactID/merge',
    {
      config: write,
      schema: {
        tags: [TAG],
        summary: 'Merge a duplicate into a contact',
        description:
          'The contact in the path survives. The duplicate’s identities, comments (notes), tags, consents (per channel scope the later statement wins), suppressions (the longer one wins), conversations, messages, deals, tasks and relationships move to it; its fields fill the survivor’s empty ones (custom fields key by key, the survivor’s values first); then it is deleted. Records crm.record.deleted and contact.merged for the duplicate, contact.updated and crm.record.updated for the survivor. Preview it first with POST /v1/contacts/{contactID}/merge/preview.',
        params: ContactParams,
        body: MergeBody,
        response: { 200: dataOf(ContactSchema).describe('The survivor, merged'), ...errors([400, 404]) },
      },
    },
    async (request) => {
      const contact = await mergeDuplicateContact(deps, actorOf(request), {
        contactId: request.params.contactID,
        duplicateId: request.body.duplicate_id,
      });
      return { data: presentContact(contact) };
    },
  );
}
