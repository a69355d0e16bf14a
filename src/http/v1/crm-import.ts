/** The CRM's CSV imports: POST /v1/companies/import and POST /v1/deals/import (a dry run with `?dry_run=true`). */
import type { Readable } from 'node:stream';
import { z } from 'zod';
import { validatorCompiler } from 'fastify-type-provider-zod';
import { COMPANY_IMPORT_COLUMNS, importCompanies } from '../../domain/companies/import.ts';
import { IMPORT_BATCH_ROWS, IMPORT_MAX_BYTES, IMPORT_MAX_ROW_CHARS, IMPORT_MAX_ROWS } from '../../domain/contacts/import.ts';
import type { CsvImportResult } from '../../domain/crm/csv-import.ts';
import { DEAL_IMPORT_COLUMNS, importDeals } from '../../domain/deals/import.ts';
import type { Actor } from '../../domain/actor.ts';
import { invalid } from '../../domain/errors.ts';
import type { Clock } from '../../lib/clock.ts';
import type { Executor } from '../../db/client.ts';
import { actorOf } from '../auth/actor.ts';
import { errorResponses, HttpError } from '../errors.ts';
import { inputFrom } from '../input-location.ts';
import { dataOf } from '../schemas.ts';
import { importReportFields } from './contacts.schemas.ts';
import type { App } from '../types.ts';
import { crmWrite } from './crm.schemas.ts';

const EXAMPLE_ID = '0196b1f2-0a00-7000-8000-000000000261';

export const CrmImportResultSchema = z
  .object({
    import_id: z.uuid().meta({ description: 'Also in the crm.import.committed event (none for a dry run)' }),
    object_kind: z.enum(['company', 'deal']),
    dry_run: z.boolean().meta({ description: 'true: nothing was written; the counts say what the import would do' }),
    rows: z.number().int().meta({ description: 'Data rows read (the header and blank lines are not rows)' }),
    created: z.number().int(),
    updated: z.number().int().meta({ description: 'Companies matched by domain and changed (deals are only created)' }),
    unchanged: z.number().int().meta({ description: 'Companies matched by domain that the row did not change' }),
    failed: z.number().int(),
    ...importReportFields('column'),
  })
  .meta({
    id: 'CrmImportResult',
    examples: [
      {
        import_id: EXAMPLE_ID,
        object_kind: 'deal',
        dry_run: true,
        rows: 3,
        created: 2,
        updated: 0,
        unchanged: 0,
        failed: 1,
        errors: [{ row: 2, line: 3, field: 'stage', message: 'no stage of the pipeline has this name or id' }],
        errors_truncated: false,
        truncated: false,
      },
    ],
  });

function presentResult(result: CsvImportResult): z.infer<typeof CrmImportResultSchema> {
  return {
    import_id: result.importId,
    object_kind: result.objectKind,
    dry_run: result.dryRun,
    rows: result.rows,
    created: result.created,
    updated: result.updated,
    unchanged: result.unchanged,
    failed: result.failed,
    errors: result.errors,
    errors_truncated: result.errorsTruncated,
    truncated: result.truncated,
  };
}

const COMPANY_CSV = [
  'name,domain,phone,address.city,address.country,owner,custom_fields.industry',
  'Acme GmbH,acme.com,+49 30 1234567,Berlin,DE,ana@example.com,logistics',
  'Globex,globex.example,,,,,retail',
].join('\n');

const DEAL_CSV = [
  'name,amount,currency,pipeline,stage,company,contacts,owner,expected_close_date,custom_fields.source',
  'Acme: 40 seats,1250000,EUR,Sales,Proposal,acme.com,+49 30 1234567;ana@acme.com,ana@example.com,2025-07-31,fair',
  'Globex pilot,,,,,,,,,',
].join('\n');

const Query = z.object({
  dry_run: z
    .enum(['true', 'false'])
    .optional()
    .meta({ description: '`true`: check every row as the import would (references, uniqueness) and write nothing, with no event' }),
});

type ImportServices = { db: Executor; clock: Clock };

const LIMITS =
  `CSV (\`text/csv\`, UTF-8, comma, semicolon or tab separated, first line the header), up to ${IMPORT_MAX_ROWS.toLocaleString('en')} rows and ${IMPORT_MAX_BYTES / 1024 / 1024} MiB, ` +
  `read as it arrives and written in batches of ${IMPORT_BATCH_ROWS}, each committed on its own. An empty cell leaves a value as it is; \`custom_fields.<key>\` columns fill custom fields. ` +
  `Bad rows are listed (row, line, column, message) and skipped, among them a row longer than ${IMPORT_MAX_ROW_CHARS.toLocaleString('en')} characters and one holding a NUL character or an unpaired surrogate. ` +
  'With `dry_run=true` every batch is written and rolled back: the answer says what the import would do, and nothing changes. ' +
  'One crm.import.committed event (object_kind as imported) sums a real import up; no per-record events. 400 for an unknown column or an empty body, 415 for another content type.';

const ROUTES: Array<{
  path: string;
  tag: string;
  summary: string;
  description: string;
  example: string;
  run: (
    deps: ImportServices,
    actor: Actor,
    input: { body: AsyncIterable<Uint8Array | string>; dryRun: boolean },
  ) => Promise<CsvImportResult>;
}> = [
  {
    path: '/v1/companies/import',
    tag: 'companies',
    summary: 'Import companies from CSV',
    description:
      `Columns: ${COMPANY_IMPORT_COLUMNS.join(', ')} (also \`website\` for domain, \`line1\`…\`country\` for the address, \`owner_email\` or \`owner_user_id\` for owner: a member's email or user id). ` +
      'A row whose domain is a company’s updates it (custom fields merged key by key; the address cells given replace the address); any other row creates a company, its name required. ' +
      LIMITS,
    example: COMPANY_CSV,
    run: importCompanies,
  },
  {
    path: '/v1/deals/import',
    tag: 'deals',
    summary: 'Import deals from CSV',
    description:
      `Columns: ${DEAL_IMPORT_COLUMNS.join(', ')}. Each row creates a deal (a file sent again creates its deals again). ` +
      '`amount` in the currency’s minor units (cents) with `currency` (ISO 4217); `pipeline` and `stage` by name (case-insensitive) or id (default: the default pipeline, its first open stage); ' +
      '`company` a company’s domain (any form) or id; `contacts` phone numbers or emails separated by `;` or `|`, each of one contact; `owner` a member’s email or user id. ' +
      LIMITS,
    example: DEAL_CSV,
    run: importDeals,
  },
];

/** The imports read their bodies as streams, so they have their own scope: a parser that hands the request stream over unread. */
export async function registerCrmImportRoutes(app: App, deps: ImportServices) {
  await app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', (_request, payload, done) => done(null, payload));
    for (const route of ROUTES) {
      scope.post(
        route.path,
        {
          config: crmWrite,
          bodyLimit: IMPORT_MAX_BYTES,
          // The body is a stream read by the handler; the schema below documents it.
          validatorCompiler: (r) =>
            r.httpPart === 'body' ? () => true : validatorCompiler(r as unknown as Parameters<typeof validatorCompiler>[0]),
          schema: {
            tags: [route.tag],
            summary: route.summary,
            description: route.description,
            consumes: ['text/csv'],
            querystring: Query,
            body: z.string().meta({ description: 'The CSV', example: route.example }),
            response: { 200: dataOf(CrmImportResultSchema), ...errorResponses([400, 401, 403, 413, 415]) },
          },
        },
        async (request) => {
          const contentType = request.headers['content-type'] ?? '';
          const type = contentType.split(';')[0]!.trim().toLowerCase();
          const charset = /charset="?([^";]+)/i.exec(contentType)?.[1]?.toLowerCase();
          if (
            (type !== 'text/csv' && type !== 'application/csv') ||
            (charset && charset !== 'utf-8' && charset !== 'utf8' && charset !== 'us-ascii')
          )
            throw new HttpError('unsupported_media_type', 'send the import as text/csv, in UTF-8');
          if (Number(request.headers['content-length'] ?? 0) > IMPORT_MAX_BYTES)
            throw new HttpError('payload_too_large', `an import body is at most ${IMPORT_MAX_BYTES / 1024 / 1024} MiB`);
          const body = request.body as unknown as Readable | undefined;
          if (!body || typeof body[Symbol.asyncIterator] !== 'function')
            throw invalid('the import body is empty', [{ pointer: '/', location: 'body', message: 'empty' }]);
          const dryRun = (request.query as z.infer<typeof Query>).dry_run === 'true';
          return { data: presentResult(await inputFrom('body', route.run(deps, actorOf(request), { body, dryRun }))) };
        },
      );
    }
  });
}
