/**
 * Links between two records with a label (a contact works at a company, a deal's decision maker):
 * made once per pair and label, listed for a record in both directions with the label as read from
 * its side, deleted. crm.relationship.linked / unlinked record each. A record deleted takes its links
 * with it (foreign keys), with no unlinked events: its crm.record.deleted says so (DECISIONS 99).
 */
import { and, eq, or, sql } from 'drizzle-orm';
import type { Executor } from '../../db/client.ts';
import { given, listPage, newestFirstBy } from '../../db/list-query.ts';
import type { Page, PageResult } from '../../db/paginate.ts';
import { relationshipLabels, relationships } from '../../db/schema.ts';
import type { Clock } from '../../lib/clock.ts';
import { isUuid, uuidv7 } from '../../lib/ids.ts';
import type { Actor } from '../actor.ts';
import { checkRecords, nameRecords, type NamedRecordRef, type RecordKind, type RecordRef } from '../crm/record-refs.ts';
import { changedBy } from '../crm/records.ts';
import { invalid, notFound } from '../errors.ts';
import { recordEvent } from '../events/outbox.ts';
import { cursorKey } from '../paging.ts';
import { loadLabelRow, type LabelRow } from './labels.ts';
import { relationshipBody, type RelationshipRow } from './unlink.ts';

export type RelationshipDeps = { db: Executor; clock: Clock };

/**
 * A link as seen from one of its records (its `from` record unless a list was asked for another):
 * `direction` outgoing when that record is its `from`, the label as read from there, and the record
 * at the other end.
 */
export type RelationshipView = {
  row: RelationshipRow;
  label: Pick<LabelRow, 'name' | 'inverseName'>;
  from: NamedRecordRef;
  to: NamedRecordRef;
  direction: 'outgoing' | 'incoming';
  seenLabel: string;
  related: NamedRecordRef;
};

export const relationshipNotFound = () => notFound('relationship');

const bad = (pointer: string, message: string): never => {
  throw invalid(`${pointer.slice(1)}: ${message}`, [{ pointer, message }]);
};

/** The views of the rows, seen from `record` (or from each one's `from` record), with their labels and records named. */
async function viewsOf(
  db: Executor,
  organizationId: string,
  rows: Array<{ row: RelationshipRow; label: Pick<LabelRow, 'name' | 'inverseName'> }>,
  record?: RecordRef,
): Promise<RelationshipView[]> {
  const named = await nameRecords(
    db,
    organizationId,
    rows.flatMap(({ row }) => [
      { kind: row.fromKind as RecordKind, id: row.fromId },
      { kind: row.toKind as RecordKind, id: row.toId },
    ]),
  );
  return rows.map(({ row, label }, i) => {
    const from = named[2 * i]!;
    const to = named[2 * i + 1]!;
    const incoming = record !== undefined && row.toId === record.id.toLowerCase() && row.toKind === record.kind;
    return {
      row,
      label,
      from,
      to,
      direction: incoming ? 'incoming' : 'outgoing',
      seenLabel: incoming ? (label.inverseName ?? label.name) : label.name,
      related: incoming ? from : to,
    };
  });
}

const withLabel = (db: Executor) =>
  db
    .select({ row: relationships, label: { name: relationshipLabels.name, inverseName: relationshipLabels.inverseName } })
    .from(relationships)
    .innerJoin(relationshipLabels, eq(relationshipLabels.id, relationships.labelId))
    .$dynamic();

/**
 * Links two records with a label: `from` a record of the label's from kind, `to` one of its to kind,
 * both the organization's (400 naming the field otherwise). The pair is linked once per label (a label
 * that reads the same both ways, between records of one kind, once whichever way round): linking
 * again answers the link there is, `created` false, with no event.
 */
export async function linkRecords(
  { db, clock }: RelationshipDeps,
  actor: Actor,
  input: { labelId: string; fromId: string; toId: string },
): Promise<{ view: RelationshipView; created: boolean }> {
  const org = actor.organizationId;
  return db.transaction(async (tx) => {
    const label = await loadLabelRow(tx, org, input.labelId, { lock: 'key share' });
    if (!label) return bad('/label_id', 'not a relationship label of this organization');
    const fromId = input.fromId.toLowerCase();
    const toId = input.toId.toLowerCase();
    if (fromId === toId) bad('/to_id', 'a record is not linked to itself');
    await checkRecords(tx, org, [{ kind: label.fromKind as RecordKind, id: fromId }], () => '/from_id');
    await checkRecords(tx, org, [{ kind: label.toKind as RecordKind, id: toId }], () => '/to_id');
    const symmetric = label.inverseName === null && label.fromKind === label.toKind;
    // Two links of one pair made at once, each way round, would both find none: one waits for the other.
    if (symmetric)
      await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${[label.id, ...[fromId, toId].sort()].join(':')}, 0))`);
    const [existing] = await withLabel(tx).where(
      and(
        eq(relationships.labelId, label.id),
        or(
          and(eq(relationships.fromId, fromId), eq(relationships.toId, toId)),
          symmetric ? and(eq(relationships.fromId, toId), eq(relationships.toId, fromId)) : undefined,
        ),
      ),
    );
    if (existing) return { view: (await viewsOf(tx, org, [existing]))[0]!, created: false };
    const by = changedBy(actor);
    const [row] = await tx
      .insert(relationships)
      .values({
        id: uuidv7(),
        organizationId: org,
        labelId: label.id,
        fromKind: label.fromKind,
        fromId,
        toKind: label.toKind,
        toId,
        createdByType: by.type,
        createdById: by.id,
        createdByUserId: by.userId,
        createdAt: clock.now(),
      })
      .onConflictDoNothing()
      .returning();
    // A link made meanwhile by another request (the unique index held this one back): it is the answer.
    if (!row) {
      const [made] = await withLabel(tx).where(
        and(eq(relationships.labelId, label.id), eq(relationships.fromId, fromId), eq(relationships.toId, toId)),
      );
      return { view: (await viewsOf(tx, org, [made!]))[0]!, created: false };
    }
    await recordEvent(tx, org, 'crm.relationship.linked', relationshipBody(row, label));
    return { view: (await viewsOf(tx, org, [{ row, label }]))[0]!, created: true };
  });
}

export async function getRelationship(
  { db }: Pick<RelationshipDeps, 'db'>,
  actor: Actor,
  { relationshipId }: { relationshipId: string },
): Promise<RelationshipView> {
  const [found] = isUuid(relationshipId)
    ? await withLabel(db).where(
        and(eq(relationships.id, relationshipId.toLowerCase()), eq(relationships.organizationId, actor.organizationId)),
      )
    : [];
  if (!found) throw relationshipNotFound();
  return (await viewsOf(db, actor.organizationId, [found]))[0]!;
}

/**
 * The organization's links, newest first: with `record`, that record's in both directions, each seen
 * from it; with `labelId`, that label's. An id of another organization matches nothing.
 */
export async function listRelationships(
  { db }: Pick<RelationshipDeps, 'db'>,
  actor: Actor,
  query: Page & { record?: RecordRef; labelId?: string },
): Promise<PageResult<RelationshipView>> {
  const org = actor.organizationId;
  const page = await listPage(withLabel(db), {
    where: [
      eq(relationships.organizationId, org),
      given(query.labelId, (id) => (isUuid(id) ? eq(relationships.labelId, id.toLowerCase()) : sql`false`)),
      given(query.record, (ref) => {
        const id = ref.id.toLowerCase();
        return isUuid(id)
          ? or(
              and(eq(relationships.fromId, id), eq(relationships.fromKind, ref.kind)),
              and(eq(relationships.toId, id), eq(relationships.toKind, ref.kind)),
            )!
          : sql`false`;
      }),
    ],
    order: newestFirstBy(relationships.createdAt, relationships.id),
    after: cursorKey(query.cursor),
    limit: query.limit,
    keyOf: (r) => ({ t: r.row.createdAt, id: r.row.id }),
  });
  return { items: await viewsOf(db, org, page.items, query.record), nextCursor: page.nextCursor };
}

/** Deletes a link; records crm.relationship.unlinked. */
export async function unlinkRecords(
  { db }: Pick<RelationshipDeps, 'db'>,
  actor: Actor,
  { relationshipId }: { relationshipId: string },
): Promise<void> {
  await db.transaction(async (tx) => {
    const [gone] = isUuid(relationshipId)
      ? await tx
          .delete(relationships)
          .where(and(eq(relationships.id, relationshipId.toLowerCase()), eq(relationships.organizationId, actor.organizationId)))
          .returning()
      : [];
    if (!gone) throw relationshipNotFound();
    const [label] = await tx
      .select({ name: relationshipLabels.name, inverseName: relationshipLabels.inverseName })
      .from(relationshipLabels)
      .where(eq(relationshipLabels.id, gone.labelId));
    await recordEvent(tx, actor.organizationId, 'crm.relationship.unlinked', relationshipBody(gone, label!));
  });
}
