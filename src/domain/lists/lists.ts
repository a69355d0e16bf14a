/**
 * Lists: static sets of records of one kind (contacts, companies or deals), kept by hand: entries are
 * added (many at once, idempotently) and removed. A list records crm.record.* (object_kind `list`)
 * for its own changes and crm.list.entry_added / entry_removed per entry, with its name and id (a
 * tag records the same entry events with the tag's name and no list_id: docs/crm.md "Lists").
 * A record deleted leaves its lists (the entries' foreign keys), without an event, as its links do.
 */
import { and, eq, inArray, sql } from 'drizzle-orm';
import { queryRows, type Executor } from '../../db/client.ts';
import { given, listSortedPage, listPage, newestFirstBy } from '../../db/list-query.ts';
import type { Page, PageResult } from '../../db/paginate.ts';
import { listEntries, lists } from '../../db/schema.ts';
import type { Clock } from '../../lib/clock.ts';
import { isUuid, uuidv7 } from '../../lib/ids.ts';
import type { Actor } from '../actor.ts';
import { checkRecords, nameRecords, type NamedRecordRef } from '../crm/record-refs.ts';
import { uniqueNames } from '../crm/unique-names.ts';
import { fieldSortOf, likeLiteral, recordCrmRecordEvent, sortValues, type SortField } from '../crm/records.ts';
import { notFound } from '../errors.ts';
import { recordEvents } from '../events/outbox.ts';
import { cursorKey, sortCursorKey } from '../paging.ts';

export const LIST_KINDS = ['contact', 'company', 'deal'] as const;
export type ListKind = (typeof LIST_KINDS)[number];
/** The most records one request adds. */
export const ENTRIES_MAX = 1000;

export type ListRow = typeof lists.$inferSelect;
export type ListDeps = { db: Executor; clock: Clock };

export const listNotFound = () => notFound('list');

const recordOf = (row: ListRow) => ({ kind: 'list' as const, id: row.id, displayName: row.name, organizationId: row.organizationId });

const { nameUnique, checkNameFree } = uniqueNames(lists, 'list');

/** A list of the organization, or not_found; `lock`: 'key share' while entries change, 'update' to change it. */
async function loadListRow(db: Executor, organizationId: string, listId: string, lock?: 'key share' | 'update'): Promise<ListRow> {
  if (!isUuid(listId)) throw listNotFound();
  const query = db
    .select()
    .from(lists)
    .where(and(eq(lists.id, listId.toLowerCase()), eq(lists.organizationId, organizationId)))
    .limit(1);
  const [row] = lock ? await query.for(lock) : await query;
  if (!row) throw listNotFound();
  return row;
}

export type ListInput = { name: string; kind: ListKind; description?: string | null };

export async function createList({ db, clock }: ListDeps, actor: Actor, input: ListInput): Promise<ListRow> {
  const org = actor.organizationId;
  return nameUnique(() =>
    db.transaction(async (tx) => {
      await checkNameFree(tx, org, input.name);
      const now = clock.now();
      const [row] = await tx
        .insert(lists)
        .values({
          id: uuidv7(),
          organizationId: org,
          name: input.name,
          kind: input.kind,
          description: input.description ?? null,
          createdAt: now,
          updatedAt: now,
        })
        .returning();
      await recordCrmRecordEvent(tx, 'created', recordOf(row!));
      return row!;
    }),
  );
}

export async function getList({ db }: Pick<ListDeps, 'db'>, actor: Actor, { listId }: { listId: string }): Promise<ListRow> {
  return loadListRow(db, actor.organizationId, listId);
}

/** Renames a list or changes its description (its kind stays); records crm.record.updated when something changed. */
export async function updateList(
  { db, clock }: ListDeps,
  actor: Actor,
  { listId, fields }: { listId: string; fields: { name?: string; description?: string | null } },
): Promise<ListRow> {
  const org = actor.organizationId;
  return nameUnique(() =>
    db.transaction(async (tx) => {
      const row = await loadListRow(tx, org, listId, 'update');
      if (fields.name !== undefined && fields.name !== row.name) await checkNameFree(tx, org, fields.name, row.id);
      const next = { name: fields.name ?? row.name, description: fields.description === undefined ? row.description : fields.description };
      if (next.name === row.name && next.description === row.description) return row;
      const [updated] = await tx
        .update(lists)
        .set({ ...next, updatedAt: clock.now() })
        .where(and(eq(lists.id, row.id), eq(lists.organizationId, org)))
        .returning();
      await recordCrmRecordEvent(tx, 'updated', recordOf(updated!));
      return updated!;
    }),
  );
}

/** Deletes a list and its entries (its records stay); records crm.record.deleted only. */
export async function deleteList({ db }: Pick<ListDeps, 'db'>, actor: Actor, { listId }: { listId: string }): Promise<void> {
  await db.transaction(async (tx) => {
    const row = await loadListRow(tx, actor.organizationId, listId, 'update');
    await tx.delete(lists).where(and(eq(lists.id, row.id), eq(lists.organizationId, actor.organizationId)));
    await recordCrmRecordEvent(tx, 'deleted', recordOf(row));
  });
}

export const LIST_SORT_FIELDS = ['name', 'created_at', 'updated_at'] as const;
export const LIST_SORTS = sortValues(LIST_SORT_FIELDS);
export type ListSort = (typeof LIST_SORTS)[number];

export type ListWithCount = ListRow & { entryCount: number };
type Listed = { list: ListRow; nameKey: string; entryCount: number };
const NAME_KEY = sql<string>`(lower(${lists.name}) collate "C")`;
const ENTRY_COUNT = sql<number>`(select count(*)::int from list_entries le where le.list_id = ${lists.id})`;
const SORT_FIELDS: Record<(typeof LIST_SORT_FIELDS)[number], SortField<Listed>> = {
  name: { expr: NAME_KEY, type: 'text', valueOf: (r) => r.nameKey },
  created_at: { expr: lists.createdAt, type: 'timestamptz', valueOf: (r) => r.list.createdAt.toISOString() },
  updated_at: { expr: lists.updatedAt, type: 'timestamptz', valueOf: (r) => r.list.updatedAt.toISOString() },
};

export type ListListQuery = Page & { sort?: ListSort; kind?: ListKind; namePrefix?: string };

/** The organization's lists with their entry counts, newest first unless sorted otherwise; filtered by kind and name prefix. */
export async function listLists({ db }: Pick<ListDeps, 'db'>, actor: Actor, query: ListListQuery): Promise<PageResult<ListWithCount>> {
  const sort = fieldSortOf(query.sort ?? '-created_at', SORT_FIELDS, lists.id, (r) => r.list.id);
  const page = await listSortedPage(
    db
      .select({ list: lists, nameKey: sql<string>`lower(${lists.name})`, entryCount: ENTRY_COUNT })
      .from(lists)
      .$dynamic(),
    {
      where: [
        eq(lists.organizationId, actor.organizationId),
        given(query.kind, (kind) => eq(lists.kind, kind)),
        given(query.namePrefix?.trim().toLowerCase(), (prefix) => sql`${NAME_KEY} like ${`${likeLiteral(prefix)}%`}`),
      ],
      sort,
      after: sortCursorKey(query.cursor, sort),
      limit: query.limit,
    },
  );
  return { items: page.items.map((r) => ({ ...r.list, entryCount: Number(r.entryCount) })), nextCursor: page.nextCursor };
}

/** A list with its entry count. */
export async function getListWithCount(deps: Pick<ListDeps, 'db'>, actor: Actor, { listId }: { listId: string }): Promise<ListWithCount> {
  const row = await loadListRow(deps.db, actor.organizationId, listId);
  const [count] = await deps.db.select({ n: sql<number>`count(*)::int` }).from(listEntries).where(eq(listEntries.listId, row.id));
  return { ...row, entryCount: Number(count!.n) };
}

const entryEvent = (type: 'crm.list.entry_added' | 'crm.list.entry_removed', list: ListRow, recordId: string) => ({
  type,
  body: { list: list.name, list_id: list.id, record_id: recordId, object_kind: list.kind, organization_id: list.organizationId },
});

/**
 * Adds records of the list's kind (all or none: an id that is not one of the organization's records
 * of that kind is refused at /record_ids/N). Idempotent: a record already in the list stays as it
 * was, with no event. Answers the ids added and those already there, in the order given.
 */
export async function addListEntries(
  { db, clock }: ListDeps,
  actor: Actor,
  { listId, recordIds }: { listId: string; recordIds: string[] },
): Promise<{ added: string[]; existing: string[] }> {
  const org = actor.organizationId;
  return db.transaction(async (tx) => {
    const list = await loadListRow(tx, org, listId, 'key share');
    const kind = list.kind as ListKind;
    const refs = await checkRecords(
      tx,
      org,
      recordIds.map((id) => ({ kind, id })),
      (i) => `/record_ids/${i}`,
    );
    const ids = [...new Set(refs.map((r) => r.id))];
    const now = clock.now();
    const inserted = await tx
      .insert(listEntries)
      .values(ids.map((recordId) => ({ listId: list.id, organizationId: org, recordKind: kind, recordId, createdAt: now })))
      .onConflictDoNothing()
      .returning({ recordId: listEntries.recordId });
    const added = new Set(inserted.map((r) => r.recordId));
    const order = ids.filter((id) => added.has(id));
    await recordEvents(
      tx,
      org,
      order.map((id) => entryEvent('crm.list.entry_added', list, id)),
    );
    return { added: order, existing: ids.filter((id) => !added.has(id)) };
  });
}

/** Removes a record from a list; not_found when it is not in it. Records crm.list.entry_removed. */
export async function removeListEntry(
  { db }: Pick<ListDeps, 'db'>,
  actor: Actor,
  { listId, recordId }: { listId: string; recordId: string },
): Promise<void> {
  await db.transaction(async (tx) => {
    const list = await loadListRow(tx, actor.organizationId, listId, 'key share');
    const removed = isUuid(recordId)
      ? await tx
          .delete(listEntries)
          .where(and(eq(listEntries.listId, list.id), eq(listEntries.recordId, recordId.toLowerCase())))
          .returning({ recordId: listEntries.recordId })
      : [];
    if (removed.length === 0) throw notFound('list entry');
    await recordEvents(tx, actor.organizationId, [entryEvent('crm.list.entry_removed', list, removed[0]!.recordId)]);
  });
}

export type ListEntry = { record: NamedRecordRef; addedAt: Date };

/** A list's entries, newest first, by cursor, each with its record's name now. */
export async function listListEntries(
  { db }: Pick<ListDeps, 'db'>,
  actor: Actor,
  { listId, ...page }: Page & { listId: string },
): Promise<PageResult<ListEntry>> {
  const list = await loadListRow(db, actor.organizationId, listId);
  const result = await listPage(
    db.select({ recordId: listEntries.recordId, createdAt: listEntries.createdAt, id: listEntries.recordId }).from(listEntries).$dynamic(),
    {
      where: [eq(listEntries.listId, list.id)],
      order: newestFirstBy(listEntries.createdAt, listEntries.recordId),
      after: cursorKey(page.cursor),
      limit: page.limit,
    },
  );
  const named = await nameRecords(
    db,
    actor.organizationId,
    result.items.map((r) => ({ kind: list.kind as ListKind, id: r.recordId })),
  );
  return { items: result.items.map((r, i) => ({ record: named[i]!, addedAt: r.createdAt })), nextCursor: result.nextCursor };
}

/**
 * When contacts are merged into one, their list entries come to the survivor (a list that has the
 * survivor already keeps its entry), in the caller's transaction, before the merged are deleted. The
 * survivor's new entries record crm.list.entry_added; the merged contacts' entries go with them, as
 * their crm.record.deleted says.
 */
export async function moveContactListEntries(tx: Executor, organizationId: string, mergedIds: string[], into: string): Promise<void> {
  if (mergedIds.length === 0) return;
  const moved = await queryRows<{ list_id: string }>(
    tx,
    sql`insert into list_entries (list_id, organization_id, record_kind, record_id, created_at)
    select list_id, organization_id, 'contact', ${into}::uuid, min(created_at) from list_entries
     where organization_id = ${organizationId} and record_kind = 'contact'
       and record_id in (${sql.join(
         mergedIds.map((id) => sql`${id}::uuid`),
         sql`, `,
       )})
     group by list_id, organization_id
    on conflict do nothing
    returning list_id`,
  );
  if (moved.length === 0) return;
  const rows = await tx
    .select()
    .from(lists)
    .where(
      and(
        eq(lists.organizationId, organizationId),
        inArray(
          lists.id,
          moved.map((m) => m.list_id),
        ),
      ),
    )
    .orderBy(lists.id);
  await recordEvents(
    tx,
    organizationId,
    rows.map((list) => entryEvent('crm.list.entry_added', list, into)),
  );
}
