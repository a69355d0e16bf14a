import type { Readable } from 'node:stream';
import { z } from 'zod';
import { validatorCompiler } from 'fastify-type-provider-zod';
import {
  deleteSuppression,
  listConsents,
  listSuppressions,
  putConsent,
  upsertSuppression,
  type UnknownChannelScope,
} from '../../domain/contacts/consents.ts';
import {
  deleteContact,
  findContactByPhone,
  getContact,
  listContacts,
  lookupContact,
  updateContact,
  upsertContact,
} from '../../domain/contacts/contacts.ts';
import { normalizeContactFields, type ContactFields } from '../../domain/contacts/fields.ts';
import { listContactIdentities } from '../../domain/contacts/identities.ts';
import {
  IMPORT_COLUMNS,
  IMPORT_MAX_BYTES,
  IMPORT_MAX_ROW_CHARS,
  IMPORT_MAX_ROWS,
  IMPORT_BATCH_ROWS,
  importContacts,
  type ImportFormat,
} from '../../domain/contacts/import.ts';
import { createNote, deleteNote, listNotes } from '../../domain/contacts/notes.ts';
import type { ContactClockDeps } from '../../domain/contacts/record.ts';
import { checkedFilter } from './segments.schemas.ts';
import { FILTER_PARAM_MAX, parseFilterParam } from '../../domain/segments/filter.ts';
import { addContactTag, listContactTags, removeContactTag, TAG_NAME_MAX } from '../../domain/contacts/tags.ts';
import { DomainError, invalid, notFound } from '../../domain/errors.ts';
import type { Permission } from '../../domain/permissions.ts';
import { actorOf } from '../auth/actor.ts';
import type { App } from '../types.ts';
import { errorResponses, HttpError } from '../errors.ts';
import { inputFrom, located } from '../input-location.ts';
import { dataOf, IsoTimestamp, listOf, PageQuerySchema, PathId } from '../schemas.ts';
import {
  presentConsent,
  presentContact,
  presentIdentity,
  presentImportResult,
  presentNote,
  presentSuppression,
  presentTag,
} from './contacts.presenters.ts';
import {
  AddTagBody,
  ChannelScopeSchema,
  CHANNEL_SCOPE_DOC,
  ConsentSchema,
  ContactParams,
  ContactSchema,
  CreateContactBody,
  CreateNoteBody,
  CSV_EXAMPLE,
  IdentitySchema,
  ImportResultSchema,
  LookupBody,
  NDJSON_EXAMPLE,
  NoteSchema,
  PutConsentBody,
  SuppressionSchema,
  TagSchema,
  UpdateContactBody,
  UPSERT_RULE,
  UpsertSuppressionBody,
} from './contacts.schemas.ts';

const TAG = 'contacts';

const IMPORT_TYPES: Record<string, ImportFormat> = {
  'text/csv': 'csv',
  'application/csv': 'csv',
  'application/x-ndjson': 'ndjson',
  'application/jsonl': 'ndjson',
  'application/jsonlines': 'ndjson',
};

const read: { auth: { permission: Permission }; errorShape: 'code' } = { auth: { permission: 'contacts:read' }, errorShape: 'code' };
const write: { auth: { permission: Permission }; errorShape: 'code' } = { auth: { permission: 'contacts:write' }, errorShape: 'code' };

/** Error responses: credential and permission failures are problems, the route's own errors the code shape. */
function errors(statuses: number[]) {
  return { ...errorResponses([401, 403]), ...errorResponses(statuses, 'code') };
}

function normalized(fields: ContactFields) {
  const result = normalizeContactFields(fields);
  if (!result.ok)
    throw invalid(
      `request body is invalid: ${result.errors.map((e) => `${e.pointer.slice(1)}: ${e.message}`).join('; ')}`,
      located(result.errors, 'body'),
    );
  return result.input;
}

/** A consent or suppression refused for its channel scope: a channel the organization does not have is unknown in a path, invalid in a body. */
function scopeRefusal(refusal: UnknownChannelScope['refusal'], location: 'params' | 'body'): DomainError {
  switch (refusal) {
    case 'unknown_channel':
      return location === 'params'
        ? notFound('channel')
        : invalid('channel is not a channel id of this organization, `chatapp` or `all`', [
            { pointer: '/channel', location, message: 'a channel id of this organization, `chatapp` or `all`' },
          ]);
    default:
      return refusal satisfies never;
  }
}

/** What the contacts routes use: the database and the clock. */
export type ContactServices = ContactClockDeps;

export async function registerContactRoutes(app: App, deps: ContactServices) {
  registerContactRecordRoutes(app, deps);
  registerContactSubrecordRoutes(app, deps);
  registerContactPolicyRoutes(app, deps);
  await registerContactImportRoute(app, deps);
}

/** The contact records: create or upsert, list, look up, by phone, get, update, delete. */
function registerContactRecordRoutes(app: App, deps: ContactServices) {
  app.post(
    '/v1/contacts',
    {
      config: write,
      schema: {
        tags: [TAG],
        summary: 'Create or upsert a contact',
        description: UPSERT_RULE,
        body: CreateContactBody,
        response: {
          201: dataOf(ContactSchema).describe('Created'),
          200: dataOf(ContactSchema).describe('An existing contact matched and was updated'),
          ...errors([400, 409]),
        },
      },
    },
    async (request, reply) => {
      const { status, contact } = await inputFrom('body', upsertContact(deps, actorOf(request), normalized(request.body)));
      return reply.code(status === 'created' ? 201 : 200).send({ data: presentContact(contact) });
    },
  );

  app.get(
    '/v1/contacts',
    {
      config: read,
      schema: {
        tags: [TAG],
        summary: 'List contacts',
        description: 'Newest first, by cursor. Filters combine.',
        querystring: PageQuerySchema.extend({
          tag: z.string().min(1).max(TAG_NAME_MAX).optional().meta({ description: 'Only contacts with this tag (case-insensitive)' }),
          search: z.string().min(1).max(200).optional().meta({
            description:
              'Case-insensitive prefix of the name or email, or a prefix of the phone number in any international format ("+49 30", "004930"). Digits without + or 00 also find the numbers whose national number they are, in any country: "030 1234567" finds +49 30 1234567 (a trunk 0 dropped), "5553001234" finds +1 555 300 1234',
          }),
          external_source: z.string().min(1).max(100).optional().meta({ description: 'Only contacts from this external system' }),
          updated_after: IsoTimestamp.optional().meta({ description: 'Only contacts changed after this time' }),
          filter: z.string().min(1).max(FILTER_PARAM_MAX).optional().meta({
            description:
              'A segment filter as URL-encoded JSON (`{"and": [{"field": "tags", "op": "has", "value": "vip"}]}`): the language of saved segments, docs/crm.md "Segments". 400 naming the path at fault (`filter.and[1].op`).',
            example: '{"and":[{"field":"tags","op":"has","value":"vip"},{"field":"last_inbound_at","op":"within","value":"P30D"}]}',
          }),
        }),
        response: { 200: listOf(ContactSchema), ...errors([400]) },
      },
    },
    async (request) => {
      const q = request.query;
      const page = await listContacts(deps, actorOf(request), {
        limit: q.limit,
        cursor: q.cursor,
        tag: q.tag,
        search: q.search,
        externalSource: q.external_source,
        updatedAfter: q.updated_after ? new Date(q.updated_after) : undefined,
        filter: q.filter === undefined ? undefined : checkedFilter(parseFilterParam(q.filter), 'query'),
      });
      return { data: page.items.map(presentContact), meta: { next_cursor: page.nextCursor } };
    },
  );

  app.post(
    '/v1/contacts/lookup',
    {
      config: read,
      schema: {
        tags: [TAG],
        summary: 'Resolve a contact by identifiers',
        description: LookupBody.description,
        body: LookupBody,
        response: { 200: dataOf(ContactSchema), ...errors([400, 404, 409]) },
      },
    },
    async (request) => ({
      data: presentContact(await inputFrom('body', lookupContact(deps, actorOf(request), { identifiers: request.body.identifiers }))),
    }),
  );

  app.get(
    '/v1/contacts/phone/:phone',
    {
      config: read,
      schema: {
        tags: [TAG],
        summary: 'Get a contact by phone number',
        description:
          'The number in any common format, URL-encoded ("+49 30 123456", "0049-30-123456", "4930123456"). 400 when it is not a possible number.',
        params: z.object({ phone: z.string().min(1).max(80) }),
        response: { 200: dataOf(ContactSchema), ...errors([400, 404]) },
      },
    },
    async (request) => ({
      data: presentContact(await inputFrom('params', findContactByPhone(deps, actorOf(request), { phone: request.params.phone }))),
    }),
  );

  app.get(
    '/v1/contacts/:contactID',
    {
      config: read,
      schema: { tags: [TAG], summary: 'Get a contact', params: ContactParams, response: { 200: dataOf(ContactSchema), ...errors([404]) } },
    },
    async (request) => ({ data: presentContact(await getContact(deps, actorOf(request), { contactId: request.params.contactID })) }),
  );

  app.patch(
    '/v1/contacts/:contactID',
    {
      config: write,
      schema: {
        tags: [TAG],
        summary: 'Update a contact',
        description: 'Records crm.record.updated and contact.updated when something changed.',
        params: ContactParams,
        body: UpdateContactBody,
        response: { 200: dataOf(ContactSchema), ...errors([400, 404, 409]) },
      },
    },
    async (request) => ({
      data: presentContact(
        await inputFrom(
          'body',
          updateContact(deps, actorOf(request), { contactId: request.params.contactID, fields: normalized(request.body) }),
        ),
      ),
    }),
  );

  app.delete(
    '/v1/contacts/:contactID',
    {
      config: write,
      schema: {
        tags: [TAG],
        summary: 'Delete a contact',
        description:
          'Deletes its identities, notes, tag assignments, consents and suppressions; its messages and conversations stay, without the link. Its identifiers then find nothing. Records crm.record.deleted.',
        params: ContactParams,
        response: { 204: z.null().describe('Deleted'), ...errors([404]) },
      },
    },
    async (request, reply) => {
      await deleteContact(deps, actorOf(request), { contactId: request.params.contactID });
      return reply.code(204).send(null);
    },
  );
}

/** A contact's identities, notes and tags. */
function registerContactSubrecordRoutes(app: App, deps: ContactServices) {
  app.get(
    '/v1/contacts/:contactID/identities',
    {
      config: read,
      schema: {
        tags: [TAG],
        summary: "A contact's identities",
        description:
          'Every id the person is known by, oldest first, in one page: the phone, email and external id of the record, and the ids channels reported (chat-app ids, privacy ids, usernames). Inbound messages add them; a merge moves them.',
        params: ContactParams,
        response: { 200: listOf(IdentitySchema), ...errors([404]) },
      },
    },
    async (request) => ({
      data: (await listContactIdentities(deps, actorOf(request), { contactId: request.params.contactID })).map(presentIdentity),
      meta: { next_cursor: null },
    }),
  );

  app.get(
    '/v1/contacts/:contactID/notes',
    {
      config: read,
      schema: {
        tags: [TAG],
        summary: "A contact's notes",
        description: 'Newest first, by cursor.',
        params: ContactParams,
        querystring: PageQuerySchema,
        response: { 200: listOf(NoteSchema), ...errors([400, 404]) },
      },
    },
    async (request) => {
      const page = await listNotes(deps, actorOf(request), { contactId: request.params.contactID, ...request.query });
      return { data: page.items.map(presentNote), meta: { next_cursor: page.nextCursor } };
    },
  );

  app.post(
    '/v1/contacts/:contactID/notes',
    {
      config: write,
      schema: {
        tags: [TAG],
        summary: 'Add a note to a contact',
        params: ContactParams,
        body: CreateNoteBody,
        response: { 201: dataOf(NoteSchema), ...errors([400, 404]) },
      },
    },
    async (request, reply) =>
      reply.code(201).send({
        data: presentNote(await createNote(deps, actorOf(request), { contactId: request.params.contactID, body: request.body.body })),
      }),
  );

  app.delete(
    '/v1/contacts/:contactID/notes/:noteID',
    {
      config: write,
      schema: {
        tags: [TAG],
        summary: 'Delete a note',
        description: 'Records crm.comment.deleted.',
        params: ContactParams.extend({ noteID: PathId }),
        response: { 204: z.null().describe('Deleted'), ...errors([404]) },
      },
    },
    async (request, reply) => {
      await deleteNote(deps, actorOf(request), { contactId: request.params.contactID, noteId: request.params.noteID });
      return reply.code(204).send(null);
    },
  );

  app.get(
    '/v1/contacts/:contactID/tags',
    {
      config: read,
      schema: {
        tags: [TAG],
        summary: "A contact's tags",
        description: 'All of them, by name, in one page.',
        params: ContactParams,
        response: { 200: listOf(TagSchema), ...errors([404]) },
      },
    },
    async (request) => ({
      data: (await listContactTags(deps, actorOf(request), { contactId: request.params.contactID })).map(presentTag),
      meta: { next_cursor: null },
    }),
  );

  app.post(
    '/v1/contacts/:contactID/tags',
    {
      config: write,
      schema: {
        tags: [TAG],
        summary: 'Tag a contact',
        params: ContactParams,
        body: AddTagBody,
        response: {
          201: dataOf(TagSchema).describe('Assigned'),
          200: dataOf(TagSchema).describe('Already assigned'),
          ...errors([400, 404]),
        },
      },
    },
    async (request, reply) => {
      const { tag, created } = await inputFrom(
        'body',
        addContactTag(deps, actorOf(request), { contactId: request.params.contactID, tag: request.body.tag }),
      );
      return reply.code(created ? 201 : 200).send({ data: presentTag(tag) });
    },
  );

  app.delete(
    '/v1/contacts/:contactID/tags/:tag',
    {
      config: write,
      schema: {
        tags: [TAG],
        summary: 'Remove a tag from a contact',
        description:
          'The tag name URL-encoded (case-insensitive). The name stays in the organization. Records crm.list.entry_removed. 404 when it was not assigned.',
        params: ContactParams.extend({ tag: z.string().min(1).max(300) }),
        response: { 204: z.null().describe('Removed'), ...errors([400, 404]) },
      },
    },
    async (request, reply) => {
      await inputFrom('params', removeContactTag(deps, actorOf(request), { contactId: request.params.contactID, tag: request.params.tag }));
      return reply.code(204).send(null);
    },
  );
}

/** A contact's consents and suppressions (the send policy's inputs). */
function registerContactPolicyRoutes(app: App, deps: ContactServices) {
  app.put(
    '/v1/contacts/:contactID/consent/:channel',
    {
      config: write,
      schema: {
        tags: [TAG],
        summary: "Set a contact's consent for a channel",
        description: `${CHANNEL_SCOPE_DOC} One consent per scope: 201 when new, 200 when replaced. 404 for a channel id the organization does not have.`,
        params: ContactParams.extend({ channel: ChannelScopeSchema }),
        body: PutConsentBody,
        response: {
          201: dataOf(ConsentSchema).describe('Recorded'),
          200: dataOf(ConsentSchema).describe('Replaced'),
          ...errors([400, 404]),
        },
      },
    },
    async (request, reply) => {
      const b = request.body;
      const result = await inputFrom(
        'body',
        putConsent(deps, actorOf(request), {
          contactId: request.params.contactID,
          channel: request.params.channel,
          state: b.state,
          source: b.source || null,
          at: b.at ? new Date(b.at) : undefined,
        }),
      );
      if (!result.ok) throw scopeRefusal(result.refusal, 'params');
      return reply.code(result.created ? 201 : 200).send({ data: presentConsent(result.consent) });
    },
  );

  app.get(
    '/v1/contacts/:contactID/consents',
    {
      config: read,
      schema: {
        tags: [TAG],
        summary: "A contact's consents",
        description: 'One per channel scope, in one page.',
        params: ContactParams,
        response: { 200: listOf(ConsentSchema), ...errors([404]) },
      },
    },
    async (request) => ({
      data: (await listConsents(deps, actorOf(request), { contactId: request.params.contactID })).map(presentConsent),
      meta: { next_cursor: null },
    }),
  );

  app.get(
    '/v1/contacts/:contactID/suppressions',
    {
      config: read,
      schema: {
        tags: [TAG],
        summary: "A contact's suppressions",
        description: 'One per channel scope, lapsed ones too (active false), in one page.',
        params: ContactParams,
        response: { 200: listOf(SuppressionSchema), ...errors([404]) },
      },
    },
    async (request) => ({
      data: (await listSuppressions(deps, actorOf(request), { contactId: request.params.contactID })).map(presentSuppression),
      meta: { next_cursor: null },
    }),
  );

  app.post(
    '/v1/contacts/:contactID/suppressions',
    {
      config: write,
      schema: {
        tags: [TAG],
        summary: 'Suppress sending to a contact',
        description: `${CHANNEL_SCOPE_DOC} Or \`marketing\` (marketing sends skip the contact). 400 for a channel id the organization does not have. Records contact.suppressed when the contact was not suppressed there (no suppression, or a lapsed one); replacing a live one's reason or expiry records nothing.`,
        params: ContactParams,
        body: UpsertSuppressionBody,
        response: {
          201: dataOf(SuppressionSchema).describe('Created'),
          200: dataOf(SuppressionSchema).describe('Updated'),
          ...errors([400, 404]),
        },
      },
    },
    async (request, reply) => {
      const b = request.body;
      const result = await inputFrom(
        'body',
        upsertSuppression(deps, actorOf(request), {
          contactId: request.params.contactID,
          channel: b.channel,
          reason: b.reason,
          expiresAt: b.expires_at ? new Date(b.expires_at) : null,
        }),
      );
      if (!result.ok) throw scopeRefusal(result.refusal, 'body');
      return reply.code(result.created ? 201 : 200).send({ data: presentSuppression(result.suppression) });
    },
  );

  app.delete(
    '/v1/contacts/:contactID/suppressions/:channel',
    {
      config: write,
      schema: {
        tags: [TAG],
        summary: 'Lift a suppression',
        description: 'Any suppression, an opt-out’s too (the scope `marketing`). Records contact.unsuppressed.',
        params: ContactParams.extend({ channel: ChannelScopeSchema }),
        response: { 204: z.null().describe('Lifted'), ...errors([404]) },
      },
    },
    async (request, reply) => {
      await deleteSuppression(deps, actorOf(request), { contactId: request.params.contactID, channel: request.params.channel });
      return reply.code(204).send(null);
    },
  );
}

/** The bulk import (CSV or JSON lines, read as a stream). */
async function registerContactImportRoute(app: App, deps: ContactServices) {
  // The import reads its body as a stream, so it has its own scope: a parser that hands the request
  // stream over unread, and its own size limit (the global one is for JSON bodies).
  await app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', (_request, payload, done) => done(null, payload));
    scope.post(
      '/v1/contacts/import',
      {
        config: write,
        bodyLimit: IMPORT_MAX_BYTES,
        // The body is a stream read by the handler; the schema below documents it.
        validatorCompiler: (route) =>
          route.httpPart === 'body' ? () => true : validatorCompiler(route as unknown as Parameters<typeof validatorCompiler>[0]),
        schema: {
          tags: [TAG],
          summary: 'Import contacts in bulk',
          description:
            `CSV (\`text/csv\`, UTF-8, comma, semicolon or tab separated, first line the header) or JSON lines (\`application/x-ndjson\`, one object per line with the fields of POST /v1/contacts), ` +
            `up to ${IMPORT_MAX_ROWS.toLocaleString('en')} rows and ${IMPORT_MAX_BYTES / 1024 / 1024} MiB. CSV columns: ${IMPORT_COLUMNS.join(', ')} (\`phone\` for phone_number, in JSON lines too) and \`custom_fields.<key>\`; ` +
            'an empty cell leaves a value as it is. `tags` (a CSV cell, or a JSON lines key holding a string or an array of names) adds tags to the contact, never removes one: names separated by `;` or `|`, matched case-insensitively like POST /v1/contacts/{contactID}/tags; a row that only adds a tag counts as updated, and no crm.list event is recorded. Each row is upserted with the rule of POST /v1/contacts; bad rows are listed (row, field, message) and skipped, ' +
            `among them a row longer than ${IMPORT_MAX_ROW_CHARS.toLocaleString('en')} characters and one holding a NUL character or an unpaired surrogate. ` +
            `The body is read as it arrives and written in batches of ${IMPORT_BATCH_ROWS}, each batch committed on its own: an import cut off midway keeps the batches written, ` +
            'and sending the file again is safe. One crm.import.committed event sums it up (no per-contact events). 400 for an unknown CSV column or an empty body, 415 for another content type.',
          consumes: ['text/csv', 'application/x-ndjson'],
          body: z.string().meta({ description: `The CSV, or the JSON lines, such as:\n\n${NDJSON_EXAMPLE}`, example: CSV_EXAMPLE }),
          response: { 200: dataOf(ImportResultSchema), ...errors([400, 413, 415]) },
        },
      },
      async (request) => {
        const type = (request.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
        const format = IMPORT_TYPES[type];
        const charset = /charset="?([^";]+)/i.exec(request.headers['content-type'] ?? '')?.[1]?.toLowerCase();
        if (!format || (charset && charset !== 'utf-8' && charset !== 'utf8' && charset !== 'us-ascii')) {
          throw new HttpError('unsupported_media_type', 'send the import as text/csv or application/x-ndjson, in UTF-8');
        }
        const length = Number(request.headers['content-length'] ?? 0);
        if (length > IMPORT_MAX_BYTES)
          throw new HttpError('payload_too_large', `an import body is at most ${IMPORT_MAX_BYTES / 1024 / 1024} MiB`);
        const body = request.body as unknown as Readable | undefined;
        if (!body || typeof (body as Readable)[Symbol.asyncIterator] !== 'function')
          throw invalid('the import body is empty', [{ pointer: '/', location: 'body', message: 'empty' }]);
        return { data: presentImportResult(await inputFrom('body', importContacts(deps, actorOf(request), { format, body }))) };
      },
    );
  });
}
