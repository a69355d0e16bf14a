/** What the CRM routes' presenters share: who changed a record, and a record named by kind and id. */
import type { z } from 'zod';
import type { NamedRecordRef } from '../../domain/crm/record-refs.ts';
import type { ChangedByType } from '../../domain/crm/records.ts';
import type { ChangedBySchema, RecordRefSchema } from './crm.schemas.ts';

export type ChangedByRecord = z.infer<typeof ChangedBySchema>;
export type RecordRefRecord = z.infer<typeof RecordRefSchema>;

export function presentChangedBy(type: string, id: string | null, userId: string | null): ChangedByRecord {
  return { type: type as ChangedByType, id, user_id: userId };
}

export function presentRecordRef(ref: NamedRecordRef): RecordRefRecord {
  return { kind: ref.kind, id: ref.id, display_name: ref.displayName };
}
