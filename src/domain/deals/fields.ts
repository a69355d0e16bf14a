/**
 * The writable fields of a deal, one schema for every way in (POST, PATCH, and the imports to come),
 * and their normalization: the currency to a known ISO 4217 code, empty strings to null. What the
 * fields refer to (pipeline, stage, owner, company, contacts, conversation) is checked against the
 * organization's records by deals.ts.
 */
import { z } from 'zod';
import { CustomFieldsSchema, givenCustomFieldsProblem } from '../crm/custom-fields.ts';
import type { FieldError } from '../errors.ts';

/** The largest amount, in minor units: sums of thousands of them stay exact as JSON numbers. */
export const AMOUNT_MAX = 999_999_999_999_999;
export const DEAL_CONTACTS_MAX = 100;

/** ISO 4217 codes of the currencies in use (as the runtime's ICU knows them). */
export const CURRENCIES: ReadonlySet<string> = new Set(Intl.supportedValuesOf('currency'));

const isoDate = z.iso.date().refine((v) => !v.startsWith('0000'), { message: 'must be in years 0001 to 9999' });

export const DealFieldsSchema = z.strictObject({
  name: z.string().trim().min(1).max(200).meta({ example: 'Acme: 40 seats' }),
  amount: z.number().int().min(0).max(AMOUNT_MAX).nullable().optional().meta({
    description: 'In the currency’s minor units (cents: 1250000 is 12,500.00 EUR); with currency. null clears both',
    example: 1250000,
  }),
  currency: z
    .string()
    .trim()
    .max(3)
    .nullable()
    .optional()
    .meta({ description: 'ISO 4217 code (any case); required with amount', example: 'EUR' }),
  pipeline_id: z.uuid().optional().meta({
    description:
      'The pipeline; by default the stage’s pipeline, else the organization’s default pipeline. Changing it alone moves the deal to the first open stage of the new pipeline',
  }),
  stage_id: z.uuid().optional().meta({
    description: 'A stage of the pipeline; by default its first open stage. The deal’s status (open, won, lost) is the stage’s kind',
  }),
  expected_close_date: isoDate.nullable().optional().meta({ description: 'A date (YYYY-MM-DD)', example: '2025-07-31' }),
  owner_user_id: z.uuid().nullable().optional().meta({ description: 'A member of the organization; null for none' }),
  company_id: z.uuid().nullable().optional().meta({ description: 'A company of the organization' }),
  contact_ids: z
    .array(z.uuid())
    .max(DEAL_CONTACTS_MAX)
    .optional()
    .meta({ description: `Contacts of the organization, at most ${DEAL_CONTACTS_MAX}; on a change, the whole set` }),
  conversation_id: z.uuid().nullable().optional().meta({ description: 'The conversation the deal came from (of the organization)' }),
  custom_fields: CustomFieldsSchema,
});

export type DealFields = z.infer<typeof DealFieldsSchema>;

/** Normalized fields: undefined leaves a value as it is, null clears it. */
export type DealInput = {
  name?: string;
  amount?: number | null;
  currency?: string | null;
  pipelineId?: string;
  stageId?: string;
  expectedCloseDate?: string | null;
  ownerUserId?: string | null;
  companyId?: string | null;
  contactIds?: string[];
  conversationId?: string | null;
  customFields?: Record<string, unknown>;
};

export type Normalized = { ok: true; input: DealInput } | { ok: false; errors: FieldError[] };

const lower = (id: string | null | undefined) => (typeof id === 'string' ? id.toLowerCase() : id);

/** Checks what the schema cannot: a currency in use; ids in one case. */
export function normalizeDealFields(given: Partial<DealFields>): Normalized {
  const errors: FieldError[] = [];
  const input: DealInput = {};
  const fields = Object.fromEntries(Object.entries(given).map(([k, v]) => [k, v === '' ? null : v])) as Partial<DealFields>;
  if (fields.name !== undefined) input.name = fields.name;
  if (fields.amount !== undefined) input.amount = fields.amount;
  if (fields.currency !== undefined) {
    const code = fields.currency?.toUpperCase() ?? null;
    if (code !== null && !CURRENCIES.has(code))
      errors.push({ pointer: '/currency', message: 'not an ISO 4217 currency code in use (such as EUR)' });
    else input.currency = code;
  }
  if (fields.pipeline_id !== undefined) input.pipelineId = fields.pipeline_id.toLowerCase();
  if (fields.stage_id !== undefined) input.stageId = fields.stage_id.toLowerCase();
  if (fields.expected_close_date !== undefined) input.expectedCloseDate = fields.expected_close_date;
  if (fields.owner_user_id !== undefined) input.ownerUserId = lower(fields.owner_user_id);
  if (fields.company_id !== undefined) input.companyId = lower(fields.company_id);
  if (fields.contact_ids !== undefined) input.contactIds = fields.contact_ids.map((id) => id.toLowerCase());
  if (fields.conversation_id !== undefined) input.conversationId = lower(fields.conversation_id);
  if (fields.custom_fields !== undefined) {
    const problem = givenCustomFieldsProblem(fields.custom_fields);
    if (problem) errors.push({ pointer: '/custom_fields', message: problem });
    else input.customFields = fields.custom_fields;
  }
  return errors.length > 0 ? { ok: false, errors } : { ok: true, input };
}
