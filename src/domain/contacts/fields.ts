/**
 * The writable fields of a contact, one schema for every way in (POST, PATCH, bulk import rows), and
 * their normalization: phone numbers to E.164, empty strings to null, the external id pair kept whole.
 */
import { z } from 'zod';
import { normalizePhone } from '../../lib/phone.ts';
import { CustomFieldsSchema, givenCustomFieldsProblem } from '../crm/custom-fields.ts';
import type { FieldError } from '../errors.ts';

// An empty (or blank) string is null, "no value": normalizeContactFields turns it into one.
const text = (max: number) => z.string().trim().max(max).nullable().optional();

export const ContactFieldsSchema = z.strictObject({
  phone_number: text(80).meta({
    description: 'Any common international format ("+49 30 1234567", "0049 30 1234567", "(+1) 415.555.0100"); stored in E.164 with `+`',
    example: '+49 30 1234567',
  }),
  name: text(200).meta({ example: 'Ana Souza' }),
  email: z
    .string()
    .trim()
    .max(254)
    .refine((v) => v === '' || z.regexes.email.test(v), { error: 'not an email address' })
    .nullable()
    .optional()
    .meta({ description: 'Matched case-insensitively', example: 'ana@example.com' }),
  external_source: text(100).meta({ description: 'Name of the external system; required with external_id', example: 'hubspot' }),
  external_id: text(200).meta({ description: 'Id in the external system; required with external_source', example: '81723' }),
  custom_fields: CustomFieldsSchema,
});

export type ContactFields = z.infer<typeof ContactFieldsSchema>;

/** Normalized fields: undefined leaves a value as it is, null clears it. */
export type ContactInput = {
  phoneNumber?: string | null;
  name?: string | null;
  email?: string | null;
  external?: { source: string; id: string } | null;
  customFields?: Record<string, unknown>;
};

export type Normalized = { ok: true; input: ContactInput } | { ok: false; errors: FieldError[] };

/** Checks what the schema cannot: a possible phone number, and external_source with external_id. */
export function normalizeContactFields(fields: ContactFields): Normalized {
  const errors: FieldError[] = [];
  const input: ContactInput = {};
  fields = Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, v === '' ? null : v])) as ContactFields;
  if (fields.phone_number !== undefined) {
    if (fields.phone_number === null) input.phoneNumber = null;
    else {
      const e164 = normalizePhone(fields.phone_number);
      if (e164) input.phoneNumber = e164;
      else errors.push({ pointer: '/phone_number', message: 'not a possible phone number (write it with its country code)' });
    }
  }
  if (fields.name !== undefined) input.name = fields.name;
  if (fields.email !== undefined) input.email = fields.email;
  const source = fields.external_source;
  const id = fields.external_id;
  if (source !== undefined || id !== undefined) {
    if ((source ?? null) === null && (id ?? null) === null) input.external = null;
    else if (source && id) input.external = { source, id };
    else {
      const missing = source ? 'external_id' : 'external_source';
      errors.push({ pointer: `/${missing}`, message: 'external_source and external_id go together' });
    }
  }
  if (fields.custom_fields !== undefined) {
    const problem = givenCustomFieldsProblem(fields.custom_fields);
    if (problem) errors.push({ pointer: '/custom_fields', message: problem });
    else input.customFields = fields.custom_fields;
  }
  return errors.length > 0 ? { ok: false, errors } : { ok: true, input };
}
