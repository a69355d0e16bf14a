/**
 * The contacts routes' records: the presenters that turn the domain's rows into them. The record
 * types are inferred from the response schemas (contacts.schemas.ts).
 */
import type { z } from 'zod';
import type { ConsentRow, ConsentState, SuppressionState } from '../../domain/contacts/consents.ts';
import type { IdentityRow } from '../../domain/contacts/identities.ts';
import type { ImportResult } from '../../domain/contacts/import.ts';
import { noteAuthor, type NoteRow } from '../../domain/contacts/notes.ts';
import type { TaggedContact } from '../../domain/contacts/record.ts';
import type { TagAssignment } from '../../domain/contacts/tags.ts';
import type {
  ConsentSchema,
  ContactSchema,
  IdentitySchema,
  ImportResultSchema,
  NoteSchema,
  SuppressionSchema,
  TagSchema,
} from './contacts.schemas.ts';

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
    contact_id: row.recordId,
    body: row.body,
    author: noteAuthor(row),
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
    message_id: row.messageId,
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
