/**
 * Companies from CSV (crm/csv-import.ts): a row whose domain is a company's updates it (an empty
 * cell leaves a value as it is; custom fields merge key by key), any other row creates one (its name
 * required). The row's address cells, when any is given, replace the address as a whole.
 */
import { isDeepStrictEqual } from 'node:util';
import { and, eq, inArray } from 'drizzle-orm';
import type { Executor } from '../../db/client.ts';
import { isUniqueViolation } from '../../db/errors.ts';
import { companies } from '../../db/schema.ts';
import { uuidv7 } from '../../lib/ids.ts';
import type { Actor } from '../actor.ts';
import { customFieldsProblem, mergeCustomFields, sameCustomFields } from '../crm/custom-fields.ts';
import { cellErrors, importCsv, type CellError, type CsvImportResult, type CsvImportSpec, type RowOutcome } from '../crm/csv-import.ts';
import { resolveOwner } from '../crm/import-refs.ts';
import type { CompanyClockDeps, CompanyRow } from './companies.ts';
import { ADDRESS_FIELDS, CompanyFieldsSchema, normalizeCompanyFields, type CompanyInput } from './fields.ts';

export const COMPANY_IMPORT_COLUMNS = ['name', 'domain', 'phone', ...ADDRESS_FIELDS.map((f) => `address.${f}`), 'owner'] as const;

const ALIASES: Record<string, string> = {
  website: 'domain',
  ...Object.fromEntries(ADDRESS_FIELDS.map((f) => [f, `address.${f}`])),
  owner_email: 'owner',
  owner_user_id: 'owner',
};

type Parsed = { input: CompanyInput; owner: string | undefined };

const FieldsSchema = CompanyFieldsSchema.partial();

function parse({ cells, custom }: { cells: Record<string, string>; custom: Record<string, string> }) {
  const address = Object.fromEntries(ADDRESS_FIELDS.flatMap((f) => (cells[`address.${f}`] ? [[f, cells[`address.${f}`]]] : [])));
  const given = {
    ...(cells.name !== undefined ? { name: cells.name } : {}),
    ...(cells.domain !== undefined ? { domain: cells.domain } : {}),
    ...(cells.phone !== undefined ? { phone: cells.phone } : {}),
    ...(Object.keys(address).length > 0 ? { address } : {}),
    ...(Object.keys(custom).length > 0 ? { custom_fields: custom } : {}),
  };
  const schema = FieldsSchema.safeParse(given);
  if (!schema.success)
    return {
      ok: false as const,
      errors: schema.error.issues.map(
        (i): CellError => ({ field: i.path.length ? i.path.map(String).join('.') : null, message: i.message }),
      ),
    };
  const normalized = normalizeCompanyFields(schema.data);
  if (!normalized.ok) return { ok: false as const, errors: cellErrors(normalized.errors) };
  return { ok: true as const, value: { input: normalized.input, owner: cells.owner } satisfies Parsed };
}

async function write(
  tx: Executor,
  batch: Parsed[],
  { actor, now, memo, dryRun }: { actor: Actor; now: Date; memo: Map<string, unknown>; dryRun: boolean },
): Promise<RowOutcome[]> {
  const org = actor.organizationId;
  const domains = [...new Set(batch.flatMap((p) => (p.input.domain ? [p.input.domain] : [])))];
  const found = domains.length
    ? await tx
        .select()
        .from(companies)
        .where(and(eq(companies.organizationId, org), inArray(companies.domain, domains)))
        .for('update')
    : [];
  const byDomain = new Map(found.map((c) => [c.domain!, c]));
  // A dry run's earlier batches were rolled back: what they would have created is remembered here.
  const madeBefore = (memo.get('domains') as Set<string> | undefined) ?? new Set<string>();
  memo.set('domains', madeBefore);
  const outcomes: RowOutcome[] = [];
  for (const p of batch) {
    const owner = await resolveOwner(tx, org, memo, p.owner);
    if (!owner.ok) {
      outcomes.push({ status: 'failed', errors: [owner.error] });
      continue;
    }
    const input = { ...p.input, ...(owner.userId ? { ownerUserId: owner.userId } : {}) };
    const match = input.domain ? byDomain.get(input.domain) : undefined;
    if (!match && dryRun && input.domain && madeBefore.has(input.domain)) {
      outcomes.push({ status: 'updated' });
      continue;
    }
    if (match) {
      const next = {
        name: input.name ?? match.name,
        phone: input.phone === undefined ? match.phone : input.phone,
        address: input.address === undefined ? match.address : input.address,
        ownerUserId: input.ownerUserId === undefined ? match.ownerUserId : input.ownerUserId,
        customFields: mergeCustomFields(match.customFields, input.customFields),
      };
      const problem = customFieldsProblem(next.customFields);
      if (problem) {
        outcomes.push({ status: 'failed', errors: [{ field: 'custom_fields', message: problem }] });
        continue;
      }
      const changed =
        next.name !== match.name ||
        next.phone !== match.phone ||
        !isDeepStrictEqual(next.address, match.address) ||
        next.ownerUserId !== match.ownerUserId ||
        !sameCustomFields(next.customFields, match.customFields);
      if (!changed) {
        outcomes.push({ status: 'unchanged' });
        continue;
      }
      const [updated] = await tx
        .update(companies)
        .set({ ...next, updatedAt: now })
        .where(and(eq(companies.id, match.id), eq(companies.organizationId, org)))
        .returning();
      byDomain.set(input.domain!, updated!);
      outcomes.push({ status: 'updated' });
      continue;
    }
    if (!input.name) {
      outcomes.push({
        status: 'failed',
        errors: [{ field: 'name', message: 'required to create a company (no company has this domain)' }],
      });
      continue;
    }
    const customFields = mergeCustomFields({}, input.customFields);
    const problem = customFieldsProblem(customFields);
    if (problem) {
      outcomes.push({ status: 'failed', errors: [{ field: 'custom_fields', message: problem }] });
      continue;
    }
    try {
      // A savepoint: a domain another import took meanwhile fails this row, not the batch.
      const row = await tx.transaction(async (sp) => {
        const [inserted] = await sp
          .insert(companies)
          .values({
            id: uuidv7(),
            organizationId: org,
            name: input.name!,
            domain: input.domain ?? null,
            phone: input.phone ?? null,
            address: input.address ?? null,
            customFields,
            ownerUserId: input.ownerUserId ?? null,
            createdAt: now,
            updatedAt: now,
          })
          .returning();
        return inserted as CompanyRow;
      });
      if (row.domain) {
        byDomain.set(row.domain, row);
        madeBefore.add(row.domain);
      }
      outcomes.push({ status: 'created' });
    } catch (err) {
      if (!isUniqueViolation(err)) throw err;
      outcomes.push({ status: 'failed', errors: [{ field: 'domain', message: 'another company has this domain' }] });
    }
  }
  return outcomes;
}

const SPEC: CsvImportSpec<Parsed> = { kind: 'company', columns: COMPANY_IMPORT_COLUMNS, aliases: ALIASES, parse, write };

/** Imports companies from a CSV stream (`dryRun`: report what it would do, write nothing). */
export function importCompanies(
  deps: CompanyClockDeps,
  actor: Actor,
  input: { body: AsyncIterable<Uint8Array | string>; dryRun: boolean },
): Promise<CsvImportResult> {
  return importCsv(deps, actor, SPEC, input);
}
