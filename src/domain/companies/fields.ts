/**
 * The writable fields of a company, one schema for every way in (POST, PATCH, and the imports to come),
 * and their normalization: the domain to its lower-case host, the phone to E.164, the address's country
 * to an ISO 3166-1 code, empty strings to null.
 */
import { domainToASCII, domainToUnicode } from 'node:url';
import { z } from 'zod';
import { normalizePhone } from '../../lib/phone.ts';
import { CustomFieldsSchema, givenCustomFieldsProblem } from '../crm/custom-fields.ts';
import type { FieldError } from '../errors.ts';

// An empty (or blank) string is null, "no value".
const text = (max: number) => z.string().trim().max(max).nullable().optional();

export const ADDRESS_FIELDS = ['line1', 'line2', 'city', 'region', 'postal_code', 'country'] as const;
export type CompanyAddress = Record<(typeof ADDRESS_FIELDS)[number], string | null>;

export const AddressSchema = z
  .strictObject({
    line1: text(200).meta({ example: 'Friedrichstraße 123' }),
    line2: text(200),
    city: text(100).meta({ example: 'Berlin' }),
    region: text(100).meta({ description: 'State, province or county' }),
    postal_code: text(20).meta({ example: '10117' }),
    country: text(2).meta({ description: 'ISO 3166-1 alpha-2 code, any case', example: 'DE' }),
  })
  .meta({ description: 'Replaced as a whole on a write; null clears it' });

export const CompanyFieldsSchema = z.strictObject({
  name: z.string().trim().min(1).max(200).meta({ example: 'Acme GmbH' }),
  domain: text(300).meta({
    description:
      'The web domain, or a URL of it ("https://www.acme.com/about"): stored as its lower-case host without `www.`; unique in the organization (409 naming domain)',
    example: 'acme.com',
  }),
  phone: text(80).meta({ description: 'Any common international format; stored in E.164 with `+`', example: '+49 30 1234567' }),
  address: AddressSchema.nullable().optional(),
  owner_user_id: z.uuid().nullable().optional().meta({ description: 'A member of the organization; null for none' }),
  custom_fields: CustomFieldsSchema,
});

export type CompanyFields = z.infer<typeof CompanyFieldsSchema>;
export type CompanyFieldsUpdate = Partial<CompanyFields>;

/** Normalized fields: undefined leaves a value as it is, null clears it. */
export type CompanyInput = {
  name?: string;
  domain?: string | null;
  phone?: string | null;
  address?: CompanyAddress | null;
  ownerUserId?: string | null;
  customFields?: Record<string, unknown>;
};

const regions = new Intl.DisplayNames(['en'], { type: 'region', fallback: 'none' });

/**
 * A domain's normal form: the host of a URL or a bare name, lower case, without `www.`, a port or a
 * trailing dot, in Unicode ("münchen.de"); undefined when it is no domain name (one label, an IP address).
 */
export function normalizeDomain(value: string): string | undefined {
  let host = value.trim().toLowerCase();
  host = host.replace(/^[a-z][a-z0-9+.-]*:\/\//, '').split(/[/?#]/)[0]!;
  host = host
    .replace(/^[^@]*@/, '')
    .replace(/:\d*$/, '')
    .replace(/\.$/, '')
    .replace(/^www\./, '');
  const ascii = domainToASCII(host);
  if (!ascii || ascii.length > 253) return undefined;
  const labels = ascii.split('.');
  if (labels.length < 2 || /^\d+$/.test(labels.at(-1)!)) return undefined;
  if (!labels.every((l) => /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/.test(l))) return undefined;
  return domainToUnicode(ascii);
}

export type Normalized<T> = { ok: true; input: T } | { ok: false; errors: FieldError[] };

/** Checks what the schema cannot: a domain name, a possible phone number, a known country. */
export function normalizeCompanyFields(given: CompanyFieldsUpdate): Normalized<CompanyInput> {
  const errors: FieldError[] = [];
  const input: CompanyInput = {};
  const fields = Object.fromEntries(Object.entries(given).map(([k, v]) => [k, v === '' ? null : v])) as CompanyFieldsUpdate;
  if (fields.name !== undefined) input.name = fields.name;
  if (fields.domain !== undefined) {
    if (fields.domain === null) input.domain = null;
    else {
      const domain = normalizeDomain(fields.domain);
      if (domain) input.domain = domain;
      else errors.push({ pointer: '/domain', message: 'not a domain name (such as acme.com)' });
    }
  }
  if (fields.phone !== undefined) {
    if (fields.phone === null) input.phone = null;
    else {
      const e164 = normalizePhone(fields.phone);
      if (e164) input.phone = e164;
      else errors.push({ pointer: '/phone', message: 'not a possible phone number (write it with its country code)' });
    }
  }
  if (fields.address !== undefined) {
    if (fields.address === null) input.address = null;
    else {
      const address = Object.fromEntries(
        ADDRESS_FIELDS.map((k) => [k, fields.address![k] === '' || fields.address![k] === undefined ? null : fields.address![k]!]),
      ) as CompanyAddress;
      if (address.country) {
        address.country = address.country.toUpperCase();
        if (!/^[A-Z]{2}$/.test(address.country) || !regions.of(address.country))
          errors.push({ pointer: '/address/country', message: 'not an ISO 3166-1 alpha-2 country code (such as DE)' });
      }
      input.address = ADDRESS_FIELDS.every((k) => address[k] === null) ? null : address;
    }
  }
  if (fields.owner_user_id !== undefined) input.ownerUserId = fields.owner_user_id?.toLowerCase() ?? null;
  if (fields.custom_fields !== undefined) {
    const problem = givenCustomFieldsProblem(fields.custom_fields);
    if (problem) errors.push({ pointer: '/custom_fields', message: problem });
    else input.customFields = fields.custom_fields;
  }
  return errors.length > 0 ? { ok: false, errors } : { ok: true, input };
}
