/**
 * Saved segments: a name and a filter over the organization's contacts (filter.ts), counted and
 * listed live (nothing is stored per contact: a segment is always what its filter finds now).
 * Each change records crm.record.* with object_kind `segment`.
 */
import { and, eq, sql } from 'drizzle-orm';
import type { Executor } from '../../db/client.ts';
import { given, listPage, listSortedPage, newestFirstBy } from '../../db/list-query.ts';
import type { Page, PageResult } from '../../db/paginate.ts';
import { contacts, segments } from '../../db/schema.ts';
import type { Clock } from '../../lib/clock.ts';
import { isUuid, uuidv7 } from '../../lib/ids.ts';
import type { Actor } from '../actor.ts';
import { withTags, type TaggedContact } from '../contacts/record.ts';
import { uniqueNames } from '../crm/unique-names.ts';
import { fieldSortOf, likeLiteral, recordCrmRecordEvent, sortValues, type SortField } from '../crm/records.ts';
import { notFound } from '../errors.ts';
import { cursorKey, sortCursorKey } from '../paging.ts';
import { compileFilter } from './compile.ts';
import type { FilterGroup } from './filter.ts';

export type SegmentRow = typeof segments.$inferSelect;
export type SegmentDeps = { db: Executor; clock: Clock };

/** How many contacts a preview shows. */
export const PREVIEW_SIZE = 20;

export const segmentNotFound = () => notFound('segment');

const recordOf = (row: SegmentRow) => ({ kind: 'segment' as const, id: row.id, displayName: row.name, organizationId: row.organizationId });

const { nameUnique, checkNameFree } = uniqueNames(segments, 'segment');

async function loadSegmentRow(db: Executor, organizationId: string, segmentId: string, lock = false): Promise<SegmentRow> {
  if (!isUuid(segmentId)) throw segmentNotFound();
  const query = db
    .select()
    .from(segments)
    .where(and(eq(segments.id, segmentId.toLowerCase()), eq(segments.organizationId, organizationId)))
    .limit(1);
  const [row] = lock ? await query.for('update') : await query;
  if (!row) throw segmentNotFound();
  return row;
}

export type SegmentInput = { name: string; description?: string | null; filter: FilterGroup };

export async function createSegment({ db, clock }: SegmentDeps, actor: Actor, input: SegmentInput): Promise<SegmentRow> {
  const org = actor.organizationId;
  return nameUnique(() =>
    db.transaction(async (tx) => {
      await checkNameFree(tx, org, input.name);
      const now = clock.now();
      const [row] = await tx
        .insert(segments)
        .values({
          id: uuidv7(),
          organizationId: org,
          name: input.name,
          description: input.description ?? null,
          filter: input.filter as Record<string, unknown>,
          createdAt: now,
          updatedAt: now,
        })
        .returning();
      await recordCrmRecordEvent(tx, 'created', recordOf(row!));
      return row!;
    }),
  );
}

export async function getSegment({ db }: Pick<SegmentDeps, 'db'>, actor: Actor, { segmentId }: { segmentId: string }): Promise<SegmentRow> {
  return loadSegmentRow(db, actor.organizationId, segmentId);
}

/** Changes what is given; records crm.record.updated when something changed. */
export async function updateSegment(
  { db, clock }: SegmentDeps,
  actor: Actor,
  { segmentId, fields }: { segmentId: string; fields: Partial<SegmentInput> },
): Promise<SegmentRow> {
  const org = actor.organizationId;
  return nameUnique(() =>
    db.transaction(async (tx) => {
      const row = await loadSegmentRow(tx, org, segmentId, true);
      if (fields.name !== undefined && fields.name !== row.name) await checkNameFree(tx, org, fields.name, row.id);
      const next = {
        name: fields.name ?? row.name,
        description: fields.description === undefined ? row.description : fields.description,
        filter: (fields.filter ?? row.filter) as Record<string, unknown>,
      };
      const changed =
        next.name !== row.name || next.description !== row.description || JSON.stringify(next.filter) !== JSON.stringify(row.filter);
      if (!changed) return row;
      const [updated] = await tx
        .update(segments)
        .set({ ...next, updatedAt: clock.now() })
        .where(and(eq(segments.id, row.id), eq(segments.organizationId, org)))
        .returning();
      await recordCrmRecordEvent(tx, 'updated', recordOf(updated!));
      return updated!;
    }),
  );
}

export async function deleteSegment({ db }: Pick<SegmentDeps, 'db'>, actor: Actor, { segmentId }: { segmentId: string }): Promise<void> {
  await db.transaction(async (tx) => {
    const row = await loadSegmentRow(tx, actor.organizationId, segmentId, true);
    await tx.delete(segments).where(and(eq(segments.id, row.id), eq(segments.organizationId, actor.organizationId)));
    await recordCrmRecordEvent(tx, 'deleted', recordOf(row));
  });
}

export const SEGMENT_SORT_FIELDS = ['name', 'created_at', 'updated_at'] as const;
export const SEGMENT_SORTS = sortValues(SEGMENT_SORT_FIELDS);
export type SegmentSort = (typeof SEGMENT_SORTS)[number];

type Listed = { segment: SegmentRow; nameKey: string };
const NAME_KEY = sql<string>`(lower(${segments.name}) collate "C")`;
const SORT_FIELDS: Record<(typeof SEGMENT_SORT_FIELDS)[number], SortField<Listed>> = {
  name: { expr: NAME_KEY, type: 'text', valueOf: (r) => r.nameKey },
  created_at: { expr: segments.createdAt, type: 'timestamptz', valueOf: (r) => r.segment.createdAt.toISOString() },
  updated_at: { expr: segments.updatedAt, type: 'timestamptz', valueOf: (r) => r.segment.updatedAt.toISOString() },
};

export type SegmentListQuery = Page & { sort?: SegmentSort; namePrefix?: string };

/** The organization's segments, newest first unless sorted otherwise; `namePrefix` case-insensitive. */
export async function listSegments(
  { db }: Pick<SegmentDeps, 'db'>,
  actor: Actor,
  query: SegmentListQuery,
): Promise<PageResult<SegmentRow>> {
  const sort = fieldSortOf(query.sort ?? '-created_at', SORT_FIELDS, segments.id, (r) => r.segment.id);
  const page = await listSortedPage(
    db
      .select({ segment: segments, nameKey: sql<string>`lower(${segments.name})` })
      .from(segments)
      .$dynamic(),
    {
      where: [
        eq(segments.organizationId, actor.organizationId),
        given(query.namePrefix?.trim().toLowerCase(), (prefix) => sql`${NAME_KEY} like ${`${likeLiteral(prefix)}%`}`),
      ],
      sort,
      after: sortCursorKey(query.cursor, sort),
      limit: query.limit,
    },
  );
  return { items: page.items.map((r) => r.segment), nextCursor: page.nextCursor };
}

/** The contacts condition of a filter, for the organization now. */
function matching(actor: Actor, clock: Clock, filter: FilterGroup) {
  return and(
    eq(contacts.organizationId, actor.organizationId),
    compileFilter(filter, { organizationId: actor.organizationId, now: clock.now() }),
  )!;
}

/** How many of the organization's contacts a filter finds now. */
export async function countMatching({ db, clock }: SegmentDeps, actor: Actor, filter: FilterGroup): Promise<number> {
  const [row] = await db
    .select({ n: sql<number>`count(*)::int` })
    .from(contacts)
    .where(matching(actor, clock, filter));
  return Number(row!.n);
}

/** The count and the newest PREVIEW_SIZE contacts a filter finds (a saved segment's, or one being built). */
export async function previewMatching(
  deps: SegmentDeps,
  actor: Actor,
  filter: FilterGroup,
): Promise<{ count: number; contacts: TaggedContact[] }> {
  const [count, page] = await Promise.all([countMatching(deps, actor, filter), pageMatching(deps, actor, filter, { limit: PREVIEW_SIZE })]);
  return { count, contacts: page.items };
}

/** The contacts a filter finds, newest first, by cursor (the order and cursors of GET /v1/contacts). */
export async function pageMatching(
  { db, clock }: SegmentDeps,
  actor: Actor,
  filter: FilterGroup,
  page: Page,
): Promise<PageResult<TaggedContact>> {
  const result = await listPage(db.select().from(contacts).$dynamic(), {
    where: [matching(actor, clock, filter)],
    order: newestFirstBy(contacts.createdAt, contacts.id),
    after: cursorKey(page.cursor),
    limit: page.limit,
  });
  return { items: await withTags(db, result.items), nextCursor: result.nextCursor };
}

/** A saved segment's count now. */
export async function countSegment(
  deps: SegmentDeps,
  actor: Actor,
  { segmentId }: { segmentId: string },
): Promise<{ segment: SegmentRow; count: number }> {
  const segment = await loadSegmentRow(deps.db, actor.organizationId, segmentId);
  return { segment, count: await countMatching(deps, actor, segment.filter as FilterGroup) };
}

export async function previewSegment(
  deps: SegmentDeps,
  actor: Actor,
  { segmentId }: { segmentId: string },
): Promise<{ count: number; contacts: TaggedContact[] }> {
  const segment = await loadSegmentRow(deps.db, actor.organizationId, segmentId);
  return previewMatching(deps, actor, segment.filter as FilterGroup);
}

export async function segmentContacts(
  deps: SegmentDeps,
  actor: Actor,
  { segmentId, ...page }: Page & { segmentId: string },
): Promise<PageResult<TaggedContact>> {
  const segment = await loadSegmentRow(deps.db, actor.organizationId, segmentId);
  return pageMatching(deps, actor, segment.filter as FilterGroup, page);
}
