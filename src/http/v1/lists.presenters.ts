/** The lists routes' records (lists.ts), typed from their response schemas. */
import type { z } from 'zod';
import type { ListEntry, ListWithCount } from '../../domain/lists/lists.ts';
import type { ListEntrySchema, ListSchema } from './lists.ts';

export type ListRecord = z.infer<typeof ListSchema>;
export type ListEntryRecord = z.infer<typeof ListEntrySchema>;

export function presentList(row: ListWithCount): ListRecord {
  return {
    id: row.id,
    name: row.name,
    kind: row.kind as ListRecord['kind'],
    description: row.description,
    entry_count: row.entryCount,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

export function presentListEntry(entry: ListEntry): ListEntryRecord {
  return {
    record: { kind: entry.record.kind, id: entry.record.id, display_name: entry.record.displayName },
    added_at: entry.addedAt.toISOString(),
  };
}
