/** The segments routes' records (segments.ts), typed from their response schemas. */
import type { z } from 'zod';
import type { SegmentRow } from '../../domain/segments/segments.ts';
import type { SegmentSchema } from './segments.schemas.ts';

export type SegmentRecord = z.infer<typeof SegmentSchema>;

export function presentSegment(row: SegmentRow): SegmentRecord {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    filter: row.filter as SegmentRecord['filter'],
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}
