/**
 * Companies: create, read, list, change, delete. Every query is scoped by the actor's organization;
 * another organization's company is simply not found. A domain belongs to one company of an
 * organization (409 naming it). Each change records crm.record.* with object_kind `company`.
 */
import { isDeepStrictEqual } from 'node:util';
import { and, eq, ne, sql } from 'drizzle-orm';
import type { Executor } from '../../db/client.ts';
import { isUniqueViolation } from '../../db/errors.ts';
import { given, listSortedPage } from '../../db/list-query.ts';
import type { Page, PageResult } from '../../db/paginate.ts';
import { companies } from '../../db/schema.ts';
import type { Clock } from '../../lib/clock.ts';
import { isUuid, uuidv7 } from '../../lib/ids.ts';
import type { Actor } from '../actor.ts';
import { customFieldsProblem, mergeCustomFields, sameCustomFields } from '../crm/custom-fields.ts';
import { checkOwner, fieldSortOf, likeLiteral, ownerCondition, recordCrmRecordEvent, sortValues, type SortField } from '../crm/records.ts';
import { DomainError, invalid, notFound } from '../errors.ts';
import { sortCursorKey } from '../paging.ts';
import { normalizeDomain, type CompanyInput } from './fields.ts';

export type CompanyRow = typeof companies.$inferSelect;
export type CompanyDeps = { db: Executor };
export type CompanyClockDeps = { db: Executor; clock: Clock };

export const companyNotFound = () => notFound('company');

const domainTaken = () =>
  new DomainError('conflict', 'another company already has this domain', {
    fieldErrors: [{ pointer: '/domain', message: 'already used by another company' }],
  });

const recordOf = (row: CompanyRow) => ({ kind: 'company' as const, id: row.id, displayName: row.name, organizationId: row.organizationId });

/**
 * A company of the organization, or not_found. `lock`: held (FOR KEY SHARE, as a foreign key's check
 * holds it) until the transaction ends, so a deletion under way waits, or has happened and it is not
 * found; `update`: the row is locked to be changed.
 */
export async function loadCompanyRow(
  db: Executor,
  organizationId: string,
  companyId: string,
  options: { lock?: 'key share' | 'update' } = {},
): Promise<CompanyRow | undefined> {
  if (!isUuid(companyId)) return undefined;
  const query = db
    .select()
    .from(companies)
    .where(and(eq(companies.id, companyId.toLowerCase()), eq(companies.organizationId, organizationId)))
    .limit(1);
  const [row] = options.lock ? await query.for(options.lock) : await query;
  return row;
}

export async function getCompany({ db }: CompanyDeps, actor: Actor, { companyId }: { companyId: string }): Promise<CompanyRow> {
  const row = await loadCompanyRow(db, actor.organizationId, companyId);
  if (!row) throw companyNotFound();
  return row;
}

/** Refuses a domain another company of the organization holds. */
async function checkDomainFree(tx: Executor, organizationId: string, domain: string | null | undefined, exceptId?: string): Promise<void> {
  if (!domain) return;
  const [holder] = await tx
    .select({ id: companies.id })
    .from(companies)
    .where(
      and(eq(companies.organizationId, organizationId), eq(companies.domain, domain), exceptId ? ne(companies.id, exceptId) : undefined),
    )
    .limit(1);
  if (holder) throw domainTaken();
}

/** A write that lost a race for a domain to another: the unique index refused it. */
async function domainUnique<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (isUniqueViolation(err)) throw domainTaken();
    throw err;
  }
}

function sizeChecked(customFields: Record<string, unknown>): Record<string, unknown> {
  const problem = customFieldsProblem(customFields);
  if (problem) throw invalid(`custom_fields: ${problem}`, [{ pointer: '/custom_fields', message: problem }]);
  return customFields;
}

/** Creates a company (name required); records crm.record.created. */
export async function createCompany(
  { db, clock }: CompanyClockDeps,
  actor: Actor,
  input: CompanyInput & { name: string },
): Promise<CompanyRow> {
  const org = actor.organizationId;
  return domainUnique(() =>
    db.transaction(async (tx) => {
      await checkOwner(tx, org, input.ownerUserId);
      await checkDomainFree(tx, org, input.domain);
      const now = clock.now();
      const [row] = await tx
        .insert(companies)
        .values({
          id: uuidv7(),
          organizationId: org,
          name: input.name,
          domain: input.domain ?? null,
          phone: input.phone ?? null,
          address: input.address ?? null,
          customFields: sizeChecked(mergeCustomFields({}, input.customFields)),
          ownerUserId: input.ownerUserId ?? null,
          createdAt: now,
          updatedAt: now,
        })
        .returning();
      await recordCrmRecordEvent(tx, 'created', recordOf(row!));
      return row!;
    }),
  );
}

/** Changes the fields given (null clears one); records crm.record.updated when something changed. */
export async function updateCompany(
  { db, clock }: CompanyClockDeps,
  actor: Actor,
  { companyId, fields }: { companyId: string; fields: CompanyInput },
): Promise<CompanyRow> {
  const org = actor.organizationId;
  return domainUnique(() =>
    db.transaction(async (tx) => {
      const row = await loadCompanyRow(tx, org, companyId, { lock: 'update' });
      if (!row) throw companyNotFound();
      if (fields.ownerUserId !== undefined && fields.ownerUserId !== row.ownerUserId) await checkOwner(tx, org, fields.ownerUserId);
      if (fields.domain !== undefined && fields.domain !== row.domain) await checkDomainFree(tx, org, fields.domain, row.id);
      const next = {
        name: fields.name ?? row.name,
        domain: fields.domain === undefined ? row.domain : fields.domain,
        phone: fields.phone === undefined ? row.phone : fields.phone,
        address: fields.address === undefined ? row.address : fields.address,
        ownerUserId: fields.ownerUserId === undefined ? row.ownerUserId : fields.ownerUserId,
        customFields: sizeChecked(mergeCustomFields(row.customFields, fields.customFields)),
      };
      const changed =
        next.name !== row.name ||
        next.domain !== row.domain ||
        next.phone !== row.phone ||
        !isDeepStrictEqual(next.address, row.address) ||
        next.ownerUserId !== row.ownerUserId ||
        !sameCustomFields(next.customFields, row.customFields);
      if (!changed) return row;
      const [updated] = await tx
        .update(companies)
        .set({ ...next, updatedAt: clock.now() })
        .where(and(eq(companies.id, row.id), eq(companies.organizationId, org)))
        .returning();
      await recordCrmRecordEvent(tx, 'updated', recordOf(updated!));
      return updated!;
    }),
  );
}

/** Deletes a company; its deals stay, without the company. Records crm.record.deleted. */
export async function deleteCompany({ db }: CompanyDeps, actor: Actor, { companyId }: { companyId: string }): Promise<void> {
  await db.transaction(async (tx) => {
    const row = await loadCompanyRow(tx, actor.organizationId, companyId, { lock: 'update' });
    if (!row) throw companyNotFound();
    // Deals lose the link (the foreign key sets it null).
    await tx.delete(companies).where(and(eq(companies.id, row.id), eq(companies.organizationId, actor.organizationId)));
    await recordCrmRecordEvent(tx, 'deleted', recordOf(row));
  });
}

export const COMPANY_SORT_FIELDS = ['name', 'created_at', 'updated_at'] as const;
export const COMPANY_SORTS = sortValues(COMPANY_SORT_FIELDS);
export type CompanySort = (typeof COMPANY_SORTS)[number];

type ListedCompany = { company: CompanyRow; nameKey: string };

const NAME_KEY = sql<string>`(lower(${companies.name}) collate "C")`;

const SORT_FIELDS: Record<(typeof COMPANY_SORT_FIELDS)[number], SortField<ListedCompany>> = {
  name: { expr: NAME_KEY, type: 'text', valueOf: (r) => r.nameKey },
  created_at: { expr: companies.createdAt, type: 'timestamptz', valueOf: (r) => r.company.createdAt.toISOString() },
  updated_at: { expr: companies.updatedAt, type: 'timestamptz', valueOf: (r) => r.company.updatedAt.toISOString() },
};

export type CompanyListQuery = Page & {
  sort?: CompanySort;
  namePrefix?: string;
  nameContains?: string;
  domain?: string;
  owner?: string;
};

/**
 * The organization's companies, newest first unless sorted otherwise (name: case-insensitive, in
 * code-point order; then id). Filters combine: a name prefix or part (case-insensitive), the domain
 * (in any form normalizeDomain reads), the owner (`me`, `none` or a user id).
 */
export async function listCompanies({ db }: CompanyDeps, actor: Actor, query: CompanyListQuery): Promise<PageResult<CompanyRow>> {
  const sort = fieldSortOf(query.sort ?? '-created_at', SORT_FIELDS, companies.id, (r) => r.company.id);
  const domain = query.domain === undefined ? undefined : normalizeDomain(query.domain);
  if (query.domain !== undefined && !domain)
    throw invalid('domain is not a domain name', [{ pointer: '/domain', message: 'not a domain name (such as acme.com)' }]);
  const page = await listSortedPage(
    db
      .select({ company: companies, nameKey: sql<string>`lower(${companies.name})` })
      .from(companies)
      .$dynamic(),
    {
      where: [
        eq(companies.organizationId, actor.organizationId),
        given(query.namePrefix?.trim().toLowerCase(), (prefix) => sql`${NAME_KEY} like ${`${likeLiteral(prefix)}%`}`),
        given(query.nameContains?.trim().toLowerCase(), (part) => sql`lower(${companies.name}) like ${`%${likeLiteral(part)}%`}`),
        given(domain, (d) => eq(companies.domain, d)),
        ownerCondition(actor, companies.ownerUserId, query.owner),
      ],
      sort,
      after: sortCursorKey(query.cursor, sort),
      limit: query.limit,
    },
  );
  return { items: page.items.map((r) => r.company), nextCursor: page.nextCursor };
}
