import { z } from 'zod';
import { createApiKey, listApiKeys, revokeApiKey, type ApiKeyAuthenticator, type ApiKeyDeps } from '../../domain/api-keys/api-keys.ts';
import { PERMISSION_DESCRIPTIONS, PERMISSIONS } from '../../domain/permissions.ts';
import { actorOf } from '../auth/actor.ts';
import type { App } from '../types.ts';
import { errorResponses } from '../errors.ts';
import { inputFrom } from '../input-location.ts';
import { dataOf, IsoTimestamp, listOf, PageQuerySchema, PathId } from '../schemas.ts';
import { presentApiKey } from './api-keys.presenters.ts';

const PERMISSION_LIST = PERMISSIONS.map((p) => `\`${p}\`: ${PERMISSION_DESCRIPTIONS[p]}`).join('; ');

export const ApiKeySchema = z
  .object({
    id: z.uuid(),
    name: z.string(),
    prefix: z.string().meta({ description: 'The first characters of the secret', example: 'prl_Ab3x' }),
    last_four: z.string().meta({ description: 'The last 4 characters of the secret', example: 'x9Qz' }),
    permissions: z.array(z.enum(PERMISSIONS)),
    created_at: z.string().meta({ format: 'date-time' }),
    last_used_at: z.string().nullable().meta({ description: 'Kept to the minute' }),
    expires_at: z.string().nullable(),
    created_by: z.object({ type: z.enum(['user', 'api_key']), id: z.uuid() }).nullable(),
  })
  .meta({ id: 'ApiKey' });

export const CreatedApiKeySchema = ApiKeySchema.extend({
  secret: z.string().meta({ description: 'The key itself. Shown this once; only a hash is stored.', example: 'prl_Ab3x...x9Qz' }),
}).meta({ id: 'CreatedApiKey' });

const CreateApiKeyBodySchema = z
  .object({
    name: z.string().trim().min(1).max(100).meta({ example: 'CRM sync' }),
    permissions: z
      .array(z.string())
      .min(1)
      .max(PERMISSIONS.length)
      .meta({
        description: `Permission names (the same as the OAuth scopes): ${PERMISSION_LIST}`,
        example: ['messages:send', 'messages:read'],
      }),
    expires_at: IsoTimestamp.optional().meta({ description: 'When the key stops working (optional)' }),
  })
  .meta({ id: 'CreateApiKeyRequest' });

/** What the API key routes use: the database, the clock, and the key cache to forget on a change. */
export type ApiKeyServices = ApiKeyDeps & { apiKeys: Pick<ApiKeyAuthenticator, 'forget'> };

export async function registerApiKeyRoutes(app: App, services: ApiKeyServices) {
  const { apiKeys, ...deps } = services;

  app.post(
    '/v1/api-keys',
    {
      config: { auth: { permission: 'api_keys:write' }, idempotency: 'no-replay' },
      schema: {
        tags: ['api-keys'],
        summary: 'Create an API key',
        description:
          'Needs a dashboard session or a credential holding `api_keys:write`. A key never gets a permission its creator lacks (403 naming it). The secret is in this response only.',
        body: CreateApiKeyBodySchema,
        response: { 201: dataOf(CreatedApiKeySchema), ...errorResponses([400, 401, 403]) },
      },
    },
    async (request, reply) => {
      const { row, secret } = await inputFrom(
        'body',
        createApiKey(deps, actorOf(request), {
          name: request.body.name,
          permissions: request.body.permissions,
          expiresAt: request.body.expires_at ? new Date(request.body.expires_at) : undefined,
        }),
        'location-last',
      );
      // A secret may have been refused (and remembered as unknown) before: this process forgets now, others by NOTIFY.
      apiKeys.forget();
      return reply.code(201).send({ data: { ...presentApiKey(row), secret } });
    },
  );

  app.get(
    '/v1/api-keys',
    {
      config: { auth: { permission: 'api_keys:read' } },
      schema: {
        tags: ['api-keys'],
        summary: 'List API keys',
        description: 'Active keys of the organization, newest first. Secrets are never shown again: only prefix and last four characters.',
        querystring: PageQuerySchema,
        response: { 200: listOf(ApiKeySchema), ...errorResponses([400, 401, 403]) },
      },
    },
    async (request) => {
      const page = await listApiKeys(deps, actorOf(request), request.query);
      return { data: page.items.map(presentApiKey), meta: { next_cursor: page.nextCursor } };
    },
  );

  app.delete(
    '/v1/api-keys/:keyID',
    {
      config: { auth: { permission: 'api_keys:write' } },
      schema: {
        tags: ['api-keys'],
        summary: 'Revoke an API key',
        description:
          'Takes effect on the next request made with the key. A credential may only revoke a key whose permissions it holds all of (403 naming the others); owners and admins by dashboard session revoke any key.',
        params: z.object({ keyID: PathId }),
        response: { 204: z.null().describe('Revoked'), ...errorResponses([401, 403, 404]) },
      },
    },
    async (request, reply) => {
      await revokeApiKey(deps, actorOf(request), { keyId: request.params.keyID });
      // Other processes hear of it from the database; this one forgets now.
      apiKeys.forget();
      return reply.code(204).send(null);
    },
  );
}
