/** The companies of the CRM: create, list (filters, sort), get, update, delete. */
import { z } from 'zod';
import {
  COMPANY_SORTS,
  createCompany,
  deleteCompany,
  getCompany,
  listCompanies,
  updateCompany,
  type CompanyClockDeps,
} from '../../domain/companies/companies.ts';
import { CompanyFieldsSchema, normalizeCompanyFields } from '../../domain/companies/fields.ts';
import { actorOf } from '../auth/actor.ts';
import { errorResponses } from '../errors.ts';
import { inputFrom } from '../input-location.ts';
import { dataOf, listOf, PageQuerySchema, PathId } from '../schemas.ts';
import type { App } from '../types.ts';
import { presentCompany } from './companies.presenters.ts';
import { crmRead, crmWrite, normalizedBody, OwnerFilter, sortParam } from './crm.schemas.ts';

const TAG = 'companies';

const AddressRecord = z
  .object({
    line1: z.string().nullable(),
    line2: z.string().nullable(),
    city: z.string().nullable(),
    region: z.string().nullable(),
    postal_code: z.string().nullable(),
    country: z.string().nullable().meta({ description: 'ISO 3166-1 alpha-2, upper case' }),
  })
  .meta({ id: 'CompanyAddress' });

export const CompanySchema = z
  .object({
    id: z.uuid(),
    name: z.string(),
    domain: z.string().nullable().meta({ description: 'Lower-case host, without `www.`; unique in the organization' }),
    phone: z.string().nullable().meta({ description: 'E.164 with the leading `+`' }),
    address: AddressRecord.nullable(),
    owner_user_id: z.uuid().nullable().meta({ description: 'The member who owns the company' }),
    custom_fields: z.record(z.string(), z.unknown()),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: 'Company' });

const CreateCompanyBody = CompanyFieldsSchema.meta({
  id: 'CreateCompanyRequest',
  description: 'Records crm.record.created (object_kind `company`). 409 naming domain when another company of the organization has it.',
  examples: [
    {
      name: 'Acme GmbH',
      domain: 'https://www.acme.com',
      phone: '+49 30 1234567',
      address: { line1: 'Friedrichstraße 123', city: 'Berlin', postal_code: '10117', country: 'de' },
      owner_user_id: '0196b1f2-0a00-7000-8000-0000000000b1',
      custom_fields: { industry: 'logistics' },
    },
    { name: 'Globex' },
  ],
});

const UpdateCompanyBody = CompanyFieldsSchema.partial().meta({
  id: 'UpdateCompanyRequest',
  description:
    'The fields to change; null or "" clears one (not the name); the address is replaced as a whole; custom_fields is merged key by key (a null value removes its key). Records crm.record.updated when something changed.',
  examples: [{ domain: 'acme.de', owner_user_id: null }, { custom_fields: { industry: 'retail', tier: null } }],
});

const Params = z.object({ companyID: PathId });

/** What the companies routes use: the database and the clock. */
export type CompanyServices = CompanyClockDeps;

export async function registerCompanyRoutes(app: App, deps: CompanyServices) {
  app.post(
    '/v1/companies',
    {
      config: crmWrite,
      schema: {
        tags: [TAG],
        summary: 'Create a company',
        description: CreateCompanyBody.description,
        body: CreateCompanyBody,
        response: { 201: dataOf(CompanySchema).describe('Created'), ...errorResponses([400, 401, 403, 409]) },
      },
    },
    async (request, reply) => {
      const input = normalizedBody(normalizeCompanyFields(request.body));
      const row = await inputFrom('body', createCompany(deps, actorOf(request), { ...input, name: request.body.name }));
      return reply.code(201).send({ data: presentCompany(row) });
    },
  );

  app.get(
    '/v1/companies',
    {
      config: crmRead,
      schema: {
        tags: [TAG],
        summary: 'List companies',
        description: 'Newest first unless `sort` says otherwise, by cursor. Filters combine.',
        querystring: PageQuerySchema.extend({
          sort: sortParam(
            COMPANY_SORTS,
            '-created_at',
            'The order: `name` (case-insensitive, in code-point order), `created_at` or `updated_at`.',
          ),
          name_prefix: z.string().min(1).max(200).optional().meta({ description: 'Names starting with this (case-insensitive)' }),
          name_contains: z.string().min(1).max(200).optional().meta({ description: 'Names holding this (case-insensitive)' }),
          domain: z
            .string()
            .min(1)
            .max(300)
            .optional()
            .meta({ description: 'The company of this domain, in any form the record takes ("https://www.acme.com" finds acme.com)' }),
          owner: OwnerFilter,
        }),
        response: { 200: listOf(CompanySchema), ...errorResponses([400, 401, 403]) },
      },
    },
    async (request) => {
      const q = request.query;
      const page = await inputFrom(
        'query',
        listCompanies(deps, actorOf(request), {
          limit: q.limit,
          cursor: q.cursor,
          sort: q.sort,
          namePrefix: q.name_prefix,
          nameContains: q.name_contains,
          domain: q.domain,
          owner: q.owner,
        }),
      );
      return { data: page.items.map(presentCompany), meta: { next_cursor: page.nextCursor } };
    },
  );

  app.get(
    '/v1/companies/:companyID',
    {
      config: crmRead,
      schema: {
        tags: [TAG],
        summary: 'Get a company',
        params: Params,
        response: { 200: dataOf(CompanySchema), ...errorResponses([401, 403, 404]) },
      },
    },
    async (request) => ({ data: presentCompany(await getCompany(deps, actorOf(request), { companyId: request.params.companyID })) }),
  );

  app.patch(
    '/v1/companies/:companyID',
    {
      config: crmWrite,
      schema: {
        tags: [TAG],
        summary: 'Update a company',
        description: UpdateCompanyBody.description,
        params: Params,
        body: UpdateCompanyBody,
        response: { 200: dataOf(CompanySchema), ...errorResponses([400, 401, 403, 404, 409]) },
      },
    },
    async (request) => {
      const fields = normalizedBody(normalizeCompanyFields(request.body));
      const row = await inputFrom('body', updateCompany(deps, actorOf(request), { companyId: request.params.companyID, fields }));
      return { data: presentCompany(row) };
    },
  );

  app.delete(
    '/v1/companies/:companyID',
    {
      config: crmWrite,
      schema: {
        tags: [TAG],
        summary: 'Delete a company',
        description: 'Its deals stay, without the company. Records crm.record.deleted.',
        params: Params,
        response: { 204: z.null().describe('Deleted'), ...errorResponses([401, 403, 404]) },
      },
    },
    async (request, reply) => {
      await deleteCompany(deps, actorOf(request), { companyId: request.params.companyID });
      return reply.code(204).send(null);
    },
  );
}
