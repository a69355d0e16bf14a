/**
 * The contacts routes' records: the response schemas and the presenters that turn the domain's rows
 * into them (the record types are inferred from the schemas).
 */
import { z } from 'zod';
import { CONSENT_STATES, type ConsentRow, type ConsentState, type SuppressionState } from '../../domain/contacts/consents.ts';
import { IDENTITY_TYPES, type IdentityRow } from '../../domain/contacts/identities.ts';
import { IMPORT_MAX_BYTES, IMPORT_MAX_REPORTED_ERRORS, IMPORT_MAX_ROWS, type ImportResult } from '../../domain/contacts/import.ts';
import { NOTE_AUTHOR_TYPES, type NoteAuthor, type NoteRow } from '../../domain/contacts/notes.ts';
import type { TaggedContact } from '../../domain/contacts/record.ts';
import type { TagAssignment } from '../../domain/contacts/tags.ts';

export const EXAMPLE_ID = '0196a0e2-7c1e-7a59-9a4c-2f5d3f3b8a10';
export const EXAMPLE_CHANNEL = '0196a0e1-1b2c-7d3e-8f40-5a6b7c8d9e0f';

export const ContactSchema = z
  .object({
    id: z.uuid(),
    phone_number: z.string().nullable().meta({ description: 'E.164 with the leading `+`', example: '+4930123456' }),
    name: z.string().nullable(),
    email: z.string().nullable(),
    external_source: z.string().nullable(),
    external_id: z.string().nullable(),
    custom_fields: z.record(z.string(), z.unknown()),
    tags: z.array(z.string()).meta({ description: 'Names of the tags assigned' }),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({
    id: 'Contact',
    examples: [
      {
        id: EXAMPLE_ID,
        phone_number: '+4930123456',
        name: 'Ana Souza',
        email: 'ana@example.com',
        external_source: 'hubspot',
        external_id: '81723',
        custom_fields: { plan: 'pro' },
        tags: ['vip'],
        created_at: '2025-05-01T09:30:00.000Z',
        updated_at: '2025-05-02T10:00:00.000Z',
      },
    ],
  });

export const IdentitySchema = z
  .object({
    type: z.enum(IDENTITY_TYPES).meta({
      description:
        'phone (E.164), chatapp_id (the chat app\'s user id, usually the number\'s digits), linked_id and business_scoped_user_id (the chat app\'s privacy ids), username, email (lower-case), external_id (with source)',
    }),
    value: z.string(),
    source: z.string().nullable().meta({ description: 'The external system of an external_id' }),
    created_at: z.string(),
  })
  .meta({ id: 'ContactIdentity', examples: [{ type: 'chatapp_id', value: '4930123456', source: null, created_at: '2025-05-01T09:30:00.000Z' }] });

export const NoteSchema = z
  .object({
    id: z.uuid(),
    contact_id: z.uuid(),
    body: z.string(),
    author: z.object({ type: z.enum(NOTE_AUTHOR_TYPES), id: z.uuid().nullable() }).meta({ description: 'The user or API key that wrote it' }),
    created_at: z.string(),
  })
  .meta({
    id: 'ContactNote',
    examples: [{ id: EXAMPLE_ID, contact_id: EXAMPLE_ID, body: 'Asked for a callback on Monday.', author: { type: 'user', id: EXAMPLE_CHANNEL }, created_at: '2025-05-02T10:00:00.000Z' }],
  });

export const TagSchema = z
  .object({ name: z.string(), assigned_at: z.string() })
  .meta({ id: 'ContactTag', examples: [{ name: 'vip', assigned_at: '2025-05-02T10:00:00.000Z' }] });

export const ConsentSchema = z
  .object({
    channel: z.string().meta({ description: 'A channel id, `chatapp` or `all`' }),
    state: z.enum(CONSENT_STATES),
    source: z.string().nullable().meta({ description: 'Where the consent was given or revoked' }),
    recorded_at: z.string().meta({ description: 'When it was given or revoked' }),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({
    id: 'ContactConsent',
    examples: [{ channel: 'chatapp', state: 'revoked', source: 'replied STOP', recorded_at: '2025-05-02T10:00:00.000Z', created_at: '2025-05-01T09:30:00.000Z', updated_at: '2025-05-02T10:00:00.000Z' }],
  });

export const SuppressionSchema = z
  .object({
    channel: z.string().meta({ description: 'A channel id, `chatapp` or `all`' }),
    reason: z.string(),
    expires_at: z.string().nullable().meta({ description: 'When it lapses; null: until lifted' }),
    active: z.boolean().meta({ description: 'false once expires_at has passed' }),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({
    id: 'ContactSuppression',
    examples: [{ channel: 'all', reason: 'legal hold', expires_at: null, active: true, created_at: '2025-05-01T09:30:00.000Z', updated_at: '2025-05-01T09:30:00.000Z' }],
  });

export const ImportResultSchema = z
  .object({
    import_id: z.uuid().meta({ description: 'Also in the crm.import.committed event' }),
    format: z.enum(['csv', 'ndjson']),
    rows: z.number().int().meta({ description: 'Data rows read (a CSV header and blank lines are not rows)' }),
    created: z.number().int(),
    updated: z.number().int(),
    unchanged: z.number().int().meta({ description: 'Rows that matched a contact and changed nothing' }),
    failed: z.number().int(),
    errors: z
      .array(
        z.object({
          row: z.number().int().meta({ description: '1-based data row number' }),
          line: z.number().int().meta({ description: 'The line of the file the row starts on' }),
          field: z.string().nullable().meta({ description: 'The field at fault (custom_fields.<key> for a custom field); null for the row as a whole' }),
          message: z.string(),
        }),
      )
      .meta({ description: `The rows not imported and why, by row; at most ${IMPORT_MAX_REPORTED_ERRORS}` }),
    errors_truncated: z.boolean().meta({ description: 'More rows failed than errors lists' }),
    truncated: z.boolean().meta({ description: `The body went past ${IMPORT_MAX_ROWS} rows or ${IMPORT_MAX_BYTES / 1024 / 1024} MiB; the rows from the one named in errors on were not read` }),
  })
  .meta({
    id: 'ContactImportResult',
    examples: [
      {
        import_id: EXAMPLE_ID,
        format: 'csv',
        rows: 3,
        created: 1,
        updated: 1,
        unchanged: 0,
        failed: 1,
        errors: [{ row: 3, line: 4, field: 'phone_number', message: 'not a possible phone number (write it with its country code)' }],
        errors_truncated: false,
        truncated: false,
      },
    ],
  });

export type ContactRecord = z.infer<typeof ContactSchema>;
export type IdentityRecord = z.infer<typeof IdentitySchema>;
export type NoteRecord = z.infer<typeof NoteSchema>;
export type TagRecord = z.infer<typeof TagSchema>;
export type ConsentRecord = z.infer<typeof ConsentSchema>;
export type SuppressionRecord = z.infer<typeof SuppressionSchema>;
export type ImportResultRecord = z.infer<typeof ImportResultSchema>;

export function presentContact(contact: TaggedContact): ContactRecord {
  return {
    id: contact.id,
    phone_number: contact.phoneNumber,
    name: contact.name,
    email: contact.email,
    external_source: contact.externalSource,
    external_id: contact.externalId,
    custom_fields: contact.customFields,
    tags: contact.tags,
    created_at: contact.createdAt.toISOString(),
    updated_at: contact.updatedAt.toISOString(),
  };
}

export function presentIdentity(row: IdentityRow): IdentityRecord {
  return { type: row.type, value: row.value, source: row.source === '' ? null : row.source, created_at: row.createdAt.toISOString() };
}

export function presentNote(row: NoteRow): NoteRecord {
  return {
    id: row.id,
    contact_id: row.contactId,
    body: row.body,
    author: { type: row.authorType as NoteAuthor['type'], id: row.authorId },
    created_at: row.createdAt.toISOString(),
  };
}

export function presentTag(tag: TagAssignment): TagRecord {
  return { name: tag.name, assigned_at: tag.assignedAt.toISOString() };
}

export function presentConsent(row: ConsentRow): ConsentRecord {
  return {
    channel: row.channel,
    state: row.state as ConsentState,
    source: row.source,
    recorded_at: row.recordedAt.toISOString(),
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

export function presentSuppression(row: SuppressionState): SuppressionRecord {
  return {
    channel: row.channel,
    reason: row.reason,
    expires_at: row.expiresAt?.toISOString() ?? null,
    active: row.active,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

export function presentImportResult(result: ImportResult): ImportResultRecord {
  return {
    import_id: result.importId,
    format: result.format,
    rows: result.rows,
    created: result.created,
    updated: result.updated,
    unchanged: result.unchanged,
    failed: result.failed,
    errors: result.errors,
    errors_truncated: result.errorsTruncated,
    truncated: result.truncated,
  };
}
