/**
 * Reading deals: the list (filters, sorts, cursors of their sort) and a deal's stage history, oldest
 * stay first. Every query is scoped by the actor's organization; an id of another organization
 * matches nothing.
 */
import { eq, gte, lte, sql } from 'drizzle-orm';
import { given, listPage, listSortedPage, oldestFirstBy } from '../../db/list-query.ts';
import type { Page, PageResult } from '../../db/paginate.ts';
import { dealContacts, deals, dealStageHistory, pipelineStages } from '../../db/schema.ts';
import { isUuid } from '../../lib/ids.ts';
import type { Actor } from '../actor.ts';
import { fieldSortOf, ownerCondition, sortValues, type SortField } from '../crm/records.ts';
import { cursorKey, sortCursorKey } from '../paging.ts';
import type { StageKind } from '../pipelines/pipelines.ts';
import { dealById, dealNotFound, withContacts, type DealDeps, type DealRow, type DealView } from './records.ts';

export const DEAL_SORT_FIELDS = ['created_at', 'updated_at', 'name', 'expected_close_date'] as const;
export const DEAL_SORTS = sortValues(DEAL_SORT_FIELDS);
export type DealSort = (typeof DEAL_SORTS)[number];
export const DEAL_STATUSES = ['open', 'won', 'lost'] as const satisfies readonly StageKind[];

type ListedDeal = { deal: DealRow; status: string; probability: number; nameKey: string };

const NO_CLOSE_DATE = '9999-12-31';

const SORT_FIELDS: Record<(typeof DEAL_SORT_FIELDS)[number], SortField<ListedDeal>> = {
  created_at: { expr: deals.createdAt, type: 'timestamptz', valueOf: (r) => r.deal.createdAt.toISOString() },
  updated_at: { expr: deals.updatedAt, type: 'timestamptz', valueOf: (r) => r.deal.updatedAt.toISOString() },
  name: { expr: sql`(lower(${deals.name}) collate "C")`, type: 'text', valueOf: (r) => r.nameKey },
  // Deals without a date sort last (first, descending).
  expected_close_date: {
    expr: sql`coalesce(${deals.expectedCloseDate}, ${sql.raw(`'${NO_CLOSE_DATE}'`)}::date)`,
    type: 'date',
    valueOf: (r) => r.deal.expectedCloseDate ?? NO_CLOSE_DATE,
  },
};

export type DealListQuery = Page & {
  sort?: DealSort;
  pipelineId?: string;
  stageId?: string;
  owner?: string;
  companyId?: string;
  contactId?: string;
  conversationId?: string;
  status?: StageKind;
  expectedCloseAfter?: string;
  expectedCloseBefore?: string;
};

const idFilter = (column: Parameters<typeof eq>[0], id: string) => (isUuid(id) ? eq(column, id.toLowerCase()) : sql`false`);

/** The organization's deals, newest first unless sorted otherwise. Filters combine; an id of another organization matches nothing. */
export async function listDeals({ db }: DealDeps, actor: Actor, query: DealListQuery): Promise<PageResult<DealView>> {
  const org = actor.organizationId;
  const sort = fieldSortOf(query.sort ?? '-created_at', SORT_FIELDS, deals.id, (r) => r.deal.id);
  const page = await listSortedPage(
    db
      .select({
        deal: deals,
        status: pipelineStages.kind,
        probability: pipelineStages.probability,
        nameKey: sql<string>`lower(${deals.name})`,
      })
      .from(deals)
      .innerJoin(pipelineStages, eq(pipelineStages.id, deals.stageId))
      .$dynamic(),
    {
      where: [
        eq(deals.organizationId, org),
        given(query.pipelineId, (id) => idFilter(deals.pipelineId, id)),
        given(query.stageId, (id) => idFilter(deals.stageId, id)),
        given(query.companyId, (id) => idFilter(deals.companyId, id)),
        given(query.conversationId, (id) => idFilter(deals.conversationId, id)),
        given(query.contactId, (id) =>
          isUuid(id)
            ? sql`exists (select 1 from ${dealContacts} dc where dc.deal_id = ${deals.id} and dc.contact_id = ${id.toLowerCase()})`
            : sql`false`,
        ),
        given(query.status, (status) => eq(pipelineStages.kind, status)),
        given(query.expectedCloseAfter, (date) => gte(deals.expectedCloseDate, date)),
        given(query.expectedCloseBefore, (date) => lte(deals.expectedCloseDate, date)),
        ownerCondition(actor, deals.ownerUserId, query.owner),
      ],
      sort,
      after: sortCursorKey(query.cursor, sort),
      limit: query.limit,
    },
  );
  return { items: await withContacts(db, page.items), nextCursor: page.nextCursor };
}

export type StageHistoryRow = typeof dealStageHistory.$inferSelect;

/** A deal's stays in its stages, oldest first: the open one (left_at null) is its stage now. */
export async function listStageHistory(
  { db }: DealDeps,
  actor: Actor,
  { dealId, ...page }: { dealId: string } & Page,
): Promise<PageResult<StageHistoryRow & { currentStageName: string | null }>> {
  const deal = await dealById(db, actor.organizationId, dealId);
  if (!deal) throw dealNotFound();
  return listPage(
    db
      .select({ history: dealStageHistory, currentStageName: pipelineStages.name })
      .from(dealStageHistory)
      .leftJoin(pipelineStages, eq(pipelineStages.id, dealStageHistory.stageId))
      .$dynamic(),
    {
      where: [eq(dealStageHistory.dealId, deal.id)],
      order: oldestFirstBy(dealStageHistory.enteredAt, dealStageHistory.id),
      after: cursorKey(page.cursor),
      limit: page.limit,
      keyOf: (r) => ({ t: r.history.enteredAt, id: r.history.id }),
    },
  ).then((p) => ({ items: p.items.map((r) => ({ ...r.history, currentStageName: r.currentStageName })), nextCursor: p.nextCursor }));
}
