/**
 * A deal as every read returns it: the row with its stage's kind (the deal's status) and probability,
 * and its contacts' ids. The reads the deal routes and the board share.
 */
import { and, asc, eq, inArray, type SQL } from 'drizzle-orm';
import type { Executor } from '../../db/client.ts';
import { dealContacts, deals, pipelineStages } from '../../db/schema.ts';
import { isUuid } from '../../lib/ids.ts';
import { notFound } from '../errors.ts';
import type { StageKind } from '../pipelines/pipelines.ts';

export type DealRow = typeof deals.$inferSelect;

/** A deal with its status (its stage's kind), its stage's probability and its contacts (as they were linked, then by id). */
export type DealView = DealRow & { status: StageKind; probability: number; contactIds: string[] };

export type DealDeps = { db: Executor };

export const dealNotFound = () => notFound('deal');

/** The select of deals with their stage's kind and probability (a query in dynamic mode: joins made). */
export function dealSelect(db: Executor) {
  return db
    .select({ deal: deals, status: pipelineStages.kind, probability: pipelineStages.probability })
    .from(deals)
    .innerJoin(pipelineStages, eq(pipelineStages.id, deals.stageId))
    .$dynamic();
}

export type SelectedDeal = { deal: DealRow; status: string; probability: number };

/** The selected rows, in their order, with their contacts (one query for all). */
export async function withContacts(db: Executor, rows: SelectedDeal[]): Promise<DealView[]> {
  const byDeal = new Map<string, string[]>();
  if (rows.length > 0) {
    const links = await db
      .select({ dealId: dealContacts.dealId, contactId: dealContacts.contactId })
      .from(dealContacts)
      .where(
        inArray(
          dealContacts.dealId,
          rows.map((r) => r.deal.id),
        ),
      )
      .orderBy(asc(dealContacts.createdAt), asc(dealContacts.contactId));
    for (const l of links) byDeal.set(l.dealId, [...(byDeal.get(l.dealId) ?? []), l.contactId]);
  }
  return rows.map((r) => ({
    ...r.deal,
    status: r.status as StageKind,
    probability: r.probability,
    contactIds: byDeal.get(r.deal.id) ?? [],
  }));
}

/** The organization's deals matching a condition, as views. */
export async function selectDeals(db: Executor, organizationId: string, condition: SQL | undefined): Promise<DealView[]> {
  return withContacts(db, await dealSelect(db).where(and(eq(deals.organizationId, organizationId), condition)));
}

/** A deal of the organization, or undefined. */
export async function dealById(db: Executor, organizationId: string, dealId: string): Promise<DealView | undefined> {
  if (!isUuid(dealId)) return undefined;
  return (await selectDeals(db, organizationId, eq(deals.id, dealId.toLowerCase())))[0];
}
