/**
 * Deals from CSV (crm/csv-import.ts): each row creates a deal (sending a file again creates its deals
 * again: the dry run is the way to check one first). References are resolved by what a spreadsheet
 * holds: the pipeline and stage by name (case-insensitive) or id, the company by its domain (in any
 * form) or id, the contacts by phone number or email, the owner by a member's email or id.
 */
import { and, asc, eq, inArray, or, sql } from 'drizzle-orm';
import type { Executor } from '../../db/client.ts';
import { companies, contacts, dealContacts, deals, pipelines, pipelineStages } from '../../db/schema.ts';
import { isUuid, uuidv7 } from '../../lib/ids.ts';
import { normalizePhone } from '../../lib/phone.ts';
import type { Actor } from '../actor.ts';
import { normalizeDomain } from '../companies/fields.ts';
import { customFieldsProblem, mergeCustomFields } from '../crm/custom-fields.ts';
import { cellErrors, importCsv, type CellError, type CsvImportResult, type CsvImportSpec, type RowOutcome } from '../crm/csv-import.ts';
import { resolveOwner } from '../crm/import-refs.ts';
import { changedBy } from '../crm/records.ts';
import type { DealClockDeps } from './deals.ts';
import { DEAL_CONTACTS_MAX, DealFieldsSchema, normalizeDealFields, type DealInput } from './fields.ts';
import { enterStage } from './stage-moves.ts';

export const DEAL_IMPORT_COLUMNS = [
  'name',
  'amount',
  'currency',
  'pipeline',
  'stage',
  'company',
  'contacts',
  'owner',
  'expected_close_date',
] as const;

const ALIASES: Record<string, string> = {
  pipeline_id: 'pipeline',
  stage_id: 'stage',
  company_id: 'company',
  company_domain: 'company',
  contact: 'contacts',
  owner_email: 'owner',
  owner_user_id: 'owner',
};

type ContactRef = { kind: 'phone' | 'email'; value: string; given: string };
type Parsed = {
  input: DealInput & { name: string };
  pipeline?: string;
  stage?: string;
  company?: { id: string } | { domain: string; given: string };
  contacts: ContactRef[];
  owner?: string;
};

const FieldsSchema = DealFieldsSchema.pick({ name: true, amount: true, currency: true, expected_close_date: true, custom_fields: true });

function parse({ cells, custom }: { cells: Record<string, string>; custom: Record<string, string> }) {
  const errors: CellError[] = [];
  let amount: number | undefined;
  if (cells.amount !== undefined) {
    if (/^\d{1,15}$/.test(cells.amount)) amount = Number(cells.amount);
    else errors.push({ field: 'amount', message: 'a whole number of the currency’s minor units (cents: 1250 is 12.50)' });
  }
  if (cells.name === undefined) errors.push({ field: 'name', message: 'required' });
  if (cells.amount !== undefined && cells.currency === undefined) errors.push({ field: 'currency', message: 'required with amount' });
  if (cells.currency !== undefined && cells.amount === undefined) errors.push({ field: 'amount', message: 'required with currency' });
  const schema = FieldsSchema.safeParse({
    name: cells.name ?? 'unnamed',
    ...(amount !== undefined ? { amount } : {}),
    ...(cells.currency !== undefined ? { currency: cells.currency } : {}),
    ...(cells.expected_close_date !== undefined ? { expected_close_date: cells.expected_close_date } : {}),
    ...(Object.keys(custom).length > 0 ? { custom_fields: custom } : {}),
  });
  if (!schema.success)
    for (const i of schema.error.issues) errors.push({ field: i.path.length ? i.path.map(String).join('.') : null, message: i.message });
  const normalized = schema.success ? normalizeDealFields(schema.data) : undefined;
  if (normalized && !normalized.ok) errors.push(...cellErrors(normalized.errors));

  let company: Parsed['company'];
  if (cells.company !== undefined) {
    if (isUuid(cells.company)) company = { id: cells.company.toLowerCase() };
    else {
      const domain = normalizeDomain(cells.company);
      if (domain) company = { domain, given: cells.company };
      else errors.push({ field: 'company', message: 'a company’s domain (such as acme.com) or id' });
    }
  }
  const contactRefs: ContactRef[] = [];
  const given = (cells.contacts ?? '')
    .split(/[;|]/)
    .map((v) => v.trim())
    .filter(Boolean);
  if (given.length > DEAL_CONTACTS_MAX) errors.push({ field: 'contacts', message: `at most ${DEAL_CONTACTS_MAX} contacts` });
  for (const value of given.slice(0, DEAL_CONTACTS_MAX)) {
    if (value.includes('@')) contactRefs.push({ kind: 'email', value: value.toLowerCase(), given: value });
    else {
      const phone = normalizePhone(value);
      if (phone) contactRefs.push({ kind: 'phone', value: phone, given: value });
      else errors.push({ field: 'contacts', message: `${JSON.stringify(value)} is neither an email address nor a possible phone number` });
    }
  }
  if (errors.length > 0 || !normalized?.ok) return { ok: false as const, errors };
  return {
    ok: true as const,
    value: {
      input: { ...normalized.input, name: normalized.input.name! },
      pipeline: cells.pipeline,
      stage: cells.stage,
      company,
      contacts: contactRefs,
      owner: cells.owner,
    } satisfies Parsed,
  };
}

type StageRow = typeof pipelineStages.$inferSelect;
type PipelineRow = typeof pipelines.$inferSelect;

/** The stage a row names: a stage (by id or name) of its pipeline (by id or name, else the stage's, else the default), or the pipeline's first open stage. */
function resolveStage(p: Parsed, all: PipelineRow[], stages: StageRow[]): { ok: true; stage: StageRow } | { ok: false; error: CellError } {
  let pipeline: PipelineRow | undefined;
  if (p.pipeline !== undefined) {
    const key = p.pipeline.toLowerCase();
    const named = all.filter((x) => x.id === key || x.name.toLowerCase() === key);
    if (named.length > 1) return { ok: false, error: { field: 'pipeline', message: 'more than one pipeline has this name: give its id' } };
    pipeline = named[0];
    if (!pipeline) return { ok: false, error: { field: 'pipeline', message: 'no pipeline of this organization has this name or id' } };
  }
  if (p.stage !== undefined) {
    const key = p.stage.toLowerCase();
    const byId = stages.find((s) => s.id === key);
    if (byId && (!pipeline || byId.pipelineId === pipeline.id)) return { ok: true, stage: byId };
    const home = pipeline ?? all.find((x) => x.isDefault);
    const byName = stages.find((s) => s.pipelineId === home?.id && s.name.toLowerCase() === key);
    if (byName) return { ok: true, stage: byName };
    return {
      ok: false,
      error: { field: 'stage', message: `no stage of the ${pipeline ? 'pipeline' : 'default pipeline'} has this name or id` },
    };
  }
  const home = pipeline ?? all.find((x) => x.isDefault);
  const first = stages.filter((s) => s.pipelineId === home?.id && s.kind === 'open').sort((a, b) => a.position - b.position)[0];
  if (!first) return { ok: false, error: { field: 'pipeline', message: 'required: the organization has no default pipeline' } };
  return { ok: true, stage: first };
}

async function write(
  tx: Executor,
  batch: Parsed[],
  { actor, now, memo }: { actor: Actor; now: Date; memo: Map<string, unknown> },
): Promise<RowOutcome[]> {
  const org = actor.organizationId;
  const all = await tx.select().from(pipelines).where(eq(pipelines.organizationId, org));
  // Held (FOR KEY SHARE) as a deal's creation holds its stage: none is deleted under the batch.
  const stages = await tx
    .select()
    .from(pipelineStages)
    .where(eq(pipelineStages.organizationId, org))
    .orderBy(asc(pipelineStages.position))
    .for('key share');
  const companyIds = [...new Set(batch.flatMap((p) => (p.company && 'id' in p.company ? [p.company.id] : [])))];
  const companyDomains = [...new Set(batch.flatMap((p) => (p.company && 'domain' in p.company ? [p.company.domain] : [])))];
  const foundCompanies =
    companyIds.length + companyDomains.length > 0
      ? await tx
          .select({ id: companies.id, domain: companies.domain })
          .from(companies)
          .where(
            and(
              eq(companies.organizationId, org),
              or(
                companyIds.length ? inArray(companies.id, companyIds) : undefined,
                companyDomains.length ? inArray(companies.domain, companyDomains) : undefined,
              ),
            ),
          )
          .for('key share')
      : [];
  const phones = [...new Set(batch.flatMap((p) => p.contacts.filter((c) => c.kind === 'phone').map((c) => c.value)))];
  const emails = [...new Set(batch.flatMap((p) => p.contacts.filter((c) => c.kind === 'email').map((c) => c.value)))];
  const foundContacts =
    phones.length + emails.length > 0
      ? await tx
          .select({ id: contacts.id, phone: contacts.phoneNumber, email: sql<string | null>`lower(${contacts.email})` })
          .from(contacts)
          .where(
            and(
              eq(contacts.organizationId, org),
              or(
                phones.length ? inArray(contacts.phoneNumber, phones) : undefined,
                emails.length ? inArray(sql`lower(${contacts.email})`, emails) : undefined,
              ),
            ),
          )
          .for('key share')
      : [];
  const by = changedBy(actor);
  const outcomes: RowOutcome[] = [];
  for (const p of batch) {
    const errors: CellError[] = [];
    const stage = resolveStage(p, all, stages);
    if (!stage.ok) errors.push(stage.error);
    let companyId: string | undefined;
    if (p.company) {
      const c = p.company;
      companyId = foundCompanies.find((f) => ('id' in c ? f.id === c.id : f.domain === c.domain))?.id;
      if (!companyId) errors.push({ field: 'company', message: 'no company of this organization has this domain or id' });
    }
    const contactIds: string[] = [];
    for (const ref of p.contacts) {
      const matches = foundContacts.filter((f) => (ref.kind === 'phone' ? f.phone === ref.value : f.email === ref.value));
      if (matches.length === 1) contactIds.push(matches[0]!.id);
      else
        errors.push({
          field: 'contacts',
          message:
            matches.length === 0
              ? `no contact has ${ref.kind === 'phone' ? 'the number' : 'the email'} ${ref.given}`
              : `more than one contact has the email ${ref.given}: link it by phone number`,
        });
    }
    const owner = await resolveOwner(tx, org, memo, p.owner);
    if (!owner.ok) errors.push(owner.error);
    const customFields = mergeCustomFields({}, p.input.customFields);
    const problem = customFieldsProblem(customFields);
    if (problem) errors.push({ field: 'custom_fields', message: problem });
    if (errors.length > 0 || !stage.ok) {
      outcomes.push({ status: 'failed', errors });
      continue;
    }
    const id = uuidv7();
    await tx.insert(deals).values({
      id,
      organizationId: org,
      name: p.input.name,
      amount: p.input.amount ?? null,
      currency: p.input.amount === undefined || p.input.amount === null ? null : (p.input.currency ?? null),
      customFields,
      pipelineId: stage.stage.pipelineId,
      stageId: stage.stage.id,
      stageEnteredAt: now,
      expectedCloseDate: p.input.expectedCloseDate ?? null,
      ownerUserId: owner.ok ? (owner.userId ?? null) : null,
      companyId: companyId ?? null,
      conversationId: null,
      createdAt: now,
      updatedAt: now,
    });
    const unique = [...new Set(contactIds)];
    if (unique.length > 0)
      await tx.insert(dealContacts).values(unique.map((contactId) => ({ dealId: id, contactId, organizationId: org, createdAt: now })));
    await enterStage(tx, org, [id], { pipelineId: stage.stage.pipelineId, stageId: stage.stage.id, stageName: stage.stage.name }, now, by);
    outcomes.push({ status: 'created' });
  }
  return outcomes;
}

const SPEC: CsvImportSpec<Parsed> = { kind: 'deal', columns: DEAL_IMPORT_COLUMNS, aliases: ALIASES, parse, write };

/** Imports deals from a CSV stream (`dryRun`: report what it would do, write nothing). */
export function importDeals(
  deps: DealClockDeps,
  actor: Actor,
  input: { body: AsyncIterable<Uint8Array | string>; dryRun: boolean },
): Promise<CsvImportResult> {
  return importCsv(deps, actor, SPEC, input);
}
