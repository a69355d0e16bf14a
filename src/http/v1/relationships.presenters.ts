/** The relationships routes' records (relationships.ts): the presenters of labels and links, typed from the response schemas. */
import type { z } from 'zod';
import type { LabelRow, RelationshipKind } from '../../domain/relationships/labels.ts';
import type { RelationshipView } from '../../domain/relationships/relationships.ts';
import { presentChangedBy, presentRecordRef } from './crm.presenters.ts';
import type { RelationshipLabelSchema, RelationshipSchema } from './relationships.ts';

export type RelationshipLabelRecord = z.infer<typeof RelationshipLabelSchema>;
export type RelationshipRecord = z.infer<typeof RelationshipSchema>;

export function presentLabel(row: LabelRow): RelationshipLabelRecord {
  return {
    id: row.id,
    name: row.name,
    inverse_name: row.inverseName,
    from_kind: row.fromKind as RelationshipKind,
    to_kind: row.toKind as RelationshipKind,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

export function presentRelationship(view: RelationshipView): RelationshipRecord {
  const { row } = view;
  return {
    id: row.id,
    label_id: row.labelId,
    label: view.seenLabel,
    direction: view.direction,
    related: presentRecordRef(view.related),
    from: presentRecordRef(view.from),
    to: presentRecordRef(view.to),
    created_by: presentChangedBy(row.createdByType, row.createdById, row.createdByUserId),
    created_at: row.createdAt.toISOString(),
  };
}
