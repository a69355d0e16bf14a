/**
 * The events of links between records (crm.relationship.linked / unlinked), and the removal of every
 * link of a label with theirs. What both the links (relationships.ts) and their labels (labels.ts) use.
 */
import { and, eq } from 'drizzle-orm';
import type { Executor } from '../../db/client.ts';
import { relationshipLabels, relationships } from '../../db/schema.ts';
import { recordEvents, type EventBodies } from '../events/outbox.ts';

export type RelationshipRow = typeof relationships.$inferSelect;
type LabelNames = Pick<typeof relationshipLabels.$inferSelect, 'name' | 'inverseName'>;

/** The body of a link's event: its label as read from each end, and the two records. */
export function relationshipBody(row: RelationshipRow, label: LabelNames): EventBodies['crm.relationship.linked'] {
  return {
    relationship_id: row.id,
    label_id: row.labelId,
    label: label.name,
    inverse_label: label.inverseName,
    from_object_kind: row.fromKind,
    from_record_id: row.fromId,
    to_object_kind: row.toKind,
    to_record_id: row.toId,
    organization_id: row.organizationId,
  };
}

/** Deletes every link of the label, recording crm.relationship.unlinked for each (one statement); returns how many. */
export async function unlinkAll(tx: Executor, label: LabelNames & { id: string; organizationId: string }): Promise<number> {
  const gone = await tx
    .delete(relationships)
    .where(and(eq(relationships.labelId, label.id), eq(relationships.organizationId, label.organizationId)))
    .returning();
  await recordEvents(
    tx,
    label.organizationId,
    gone
      .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : 1))
      .map((row) => ({ type: 'crm.relationship.unlinked' as const, body: relationshipBody(row, label) })),
  );
  return gone.length;
}
