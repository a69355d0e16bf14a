/** The companies routes' records (companies.ts): the presenter that turns the domain's rows into them, typed from the response schema. */
import type { z } from 'zod';
import type { CompanyRow } from '../../domain/companies/companies.ts';
import type { CompanyAddress } from '../../domain/companies/fields.ts';
import type { CompanySchema } from './companies.ts';

export type CompanyRecord = z.infer<typeof CompanySchema>;

export function presentCompany(row: CompanyRow): CompanyRecord {
  return {
    id: row.id,
    name: row.name,
    domain: row.domain,
    phone: row.phone,
    address: (row.address as CompanyAddress | null) ?? null,
    owner_user_id: row.ownerUserId,
    custom_fields: row.customFields,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}
