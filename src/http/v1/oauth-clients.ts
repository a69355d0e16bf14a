/**
 * OAuth client registration: /v1/oauth/clients, named by the public client_id (`pcl_…`). Problem
 * bodies like every management route (the OAuth error bodies are for the flow endpoints).
 */
import { z } from 'zod';
import {
  deleteClient,
  getClient,
  listClients,
  MAX_REDIRECT_URIS,
  registerClient,
  rotateClientSecret,
  updateClient,
  type ClientDeps,
} from '../../domain/oauth/clients.ts';
import { GRANT_TYPE_VALUES, GRANT_TYPES } from '../../domain/oauth/vocabulary.ts';
import { PERMISSIONS } from '../../domain/permissions.ts';
import { AUTHORIZE_LIMITS } from '../../domain/oauth/authorization-requests.ts';
import { actorOf } from '../auth/actor.ts';
import type { App } from '../types.ts';
import { errorResponses } from '../errors.ts';
import { inputFrom } from '../input-location.ts';
import { dataOf, listOf, PageQuerySchema, PathId } from '../schemas.ts';
import { presentClient } from './oauth-clients.presenters.ts';

const TAG = 'oauth-clients';

const GRANT_LIST = GRANT_TYPE_VALUES.map((g) => `\`${g}\``).join(', ');

const RedirectUrisSchema = z
  .array(z.string().min(1).max(AUTHORIZE_LIMITS.redirectUri))
  .max(MAX_REDIRECT_URIS)
  .meta({
    description: `Where the authorization code flow may send the browser back, each compared exactly (no wildcards, no fragment): https, or http on a loopback address for native apps (127.0.0.0/8, [::1], localhost; RFC 8252). At least one is needed for the \`${GRANT_TYPES.authorizationCode}\` grant; at most ${MAX_REDIRECT_URIS}.`,
    example: ['http://127.0.0.1:53682/callback'],
  });

const GrantTypesSchema = z
  .array(z.string().max(100))
  .min(1)
  .max(GRANT_TYPE_VALUES.length)
  .meta({
    description: `Grant types the client may use: ${GRANT_LIST}; ${GRANT_TYPES.authorizationCode} or the device grant must be among them`,
    example: [GRANT_TYPES.deviceCode, GRANT_TYPES.refreshToken],
  });

const ScopesSchema = z
  .array(z.string().max(100))
  .min(1)
  .max(PERMISSIONS.length)
  .meta({
    description: 'The scopes the client may ask for: permission names, none beyond what the registering credential holds',
    example: ['channels:read', 'messages:read', 'messages:send'],
  });

const NameSchema = z
  .string()
  .trim()
  .min(1)
  .max(100)
  .meta({ description: 'Shown to people on the consent and device pages', example: 'Parley CLI' });

export const OAuthClientSchema = z
  .object({
    client_id: z.string().meta({
      description: 'The public identifier the client sends (`pcl_…`); also the id in these paths',
      example: 'pcl_8mZk2xQv7LrT0aB1cD2eFg',
    }),
    name: z.string(),
    type: z.enum(['public', 'confidential']).meta({
      description:
        'public: no secret, PKCE required; confidential: authenticates with its secret (client_secret_basic or client_secret_post)',
    }),
    redirect_uris: z.array(z.string()),
    grant_types: z.array(z.enum(GRANT_TYPE_VALUES as [string, ...string[]])),
    scopes: z.array(z.enum(PERMISSIONS)),
    created_by: z
      .object({ type: z.literal('user'), id: z.uuid() })
      .nullable()
      .meta({ description: 'The user who registered it (null when an API key did, or the user is gone)' }),
    created_at: z.string().meta({ format: 'date-time' }),
    updated_at: z.string().meta({ format: 'date-time' }),
  })
  .meta({ id: 'OAuthClient' });

export const CreatedOAuthClientSchema = OAuthClientSchema.extend({
  client_secret: z
    .string()
    .nullable()
    .meta({ description: "A confidential client's secret (`pcs_…`): shown this once, only a hash is stored. null for a public client." }),
}).meta({ id: 'CreatedOAuthClient' });

export const ClientSecretSchema = z
  .object({
    client_id: z.string(),
    client_secret: z.string().meta({ description: 'The new secret: shown this once; the previous one stopped working' }),
  })
  .meta({ id: 'OAuthClientSecret' });

const CreateBodySchema = z
  .object({
    name: NameSchema,
    type: z
      .enum(['public', 'confidential'])
      .meta({ description: 'public (native and browser apps, PKCE) or confidential (a server that can keep a secret)' }),
    redirect_uris: RedirectUrisSchema.default([]),
    grant_types: GrantTypesSchema,
    scopes: ScopesSchema,
  })
  .meta({ id: 'CreateOAuthClientRequest' });

export type CreateOAuthClientRequest = z.input<typeof CreateBodySchema>;

const UpdateBodySchema = z
  .object({
    name: NameSchema.optional(),
    redirect_uris: RedirectUrisSchema.optional(),
    grant_types: GrantTypesSchema.optional(),
    scopes: ScopesSchema.optional(),
  })
  .meta({ id: 'UpdateOAuthClientRequest' });

const ClientParams = z.object({ clientID: PathId.meta({ description: 'The client_id (`pcl_…`)' }) });

const WHO = 'Needs `oauth_clients:write` (owners and admins by dashboard session)';

/** The client routes' services: the domain's deps, and the process's OAuth access cache to forget after a change (other processes hear of it from the database). */
export type ClientServices = ClientDeps & { forget: () => void };

export async function registerOAuthClientRoutes(app: App, services: ClientServices) {
  const { forget, ...deps } = services;
  app.post(
    '/v1/oauth/clients',
    {
      config: { auth: { permission: 'oauth_clients:write' }, idempotency: 'no-replay' },
      schema: {
        tags: [TAG],
        summary: 'Register an OAuth client',
        description:
          `${WHO}. A public client gets no secret and must use PKCE (S256); a confidential client's \`client_secret\` is in this response only. ` +
          'A client never gets a scope its registering credential lacks (403 naming it). Every bad field is named in `errors`, and nothing is stored.',
        body: CreateBodySchema,
        response: { 201: dataOf(CreatedOAuthClientSchema), ...errorResponses([400, 401, 403]) },
      },
    },
    async (request, reply) => {
      const body = request.body;
      const { client, secret } = await inputFrom(
        'body',
        registerClient(deps, actorOf(request), {
          name: body.name,
          type: body.type,
          redirectUris: body.redirect_uris,
          grantTypes: body.grant_types,
          scopes: body.scopes,
        }),
      );
      return reply.code(201).send({ data: { ...presentClient(client), client_secret: secret ?? null } });
    },
  );

  app.get(
    '/v1/oauth/clients',
    {
      config: { auth: { permission: 'oauth_clients:read' } },
      schema: {
        tags: [TAG],
        summary: 'List OAuth clients',
        description: "The organization's clients, newest first. Secrets are never shown again.",
        querystring: PageQuerySchema,
        response: { 200: listOf(OAuthClientSchema), ...errorResponses([400, 401, 403]) },
      },
    },
    async (request) => {
      const page = await listClients(deps, actorOf(request), request.query);
      return { data: page.items.map(presentClient), meta: { next_cursor: page.nextCursor } };
    },
  );

  app.get(
    '/v1/oauth/clients/:clientID',
    {
      config: { auth: { permission: 'oauth_clients:read' } },
      schema: {
        tags: [TAG],
        summary: 'Get an OAuth client',
        description: "Another organization's client is not found.",
        params: ClientParams,
        response: { 200: dataOf(OAuthClientSchema), ...errorResponses([400, 401, 403, 404]) },
      },
    },
    async (request) => ({ data: presentClient(await getClient(deps, actorOf(request), { clientId: request.params.clientID })) }),
  );

  app.patch(
    '/v1/oauth/clients/:clientID',
    {
      config: { auth: { permission: 'oauth_clients:write' } },
      schema: {
        tags: [TAG],
        summary: 'Change an OAuth client',
        description:
          `${WHO}, and every scope the client holds. Members left out keep their value; the result is checked as a whole (the authorization code grant still needs a redirect URI). ` +
          "Narrower scopes narrow what the client's existing tokens can do from their next request; a removed redirect URI or grant type refuses new flows that use it.",
        params: ClientParams,
        body: UpdateBodySchema,
        response: { 200: dataOf(OAuthClientSchema), ...errorResponses([400, 401, 403, 404]) },
      },
    },
    async (request) => {
      const body = request.body;
      const client = await inputFrom(
        'body',
        updateClient(deps, actorOf(request), {
          clientId: request.params.clientID,
          name: body.name,
          redirectUris: body.redirect_uris,
          grantTypes: body.grant_types,
          scopes: body.scopes,
        }),
      );
      forget();
      return { data: presentClient(client) };
    },
  );

  app.post(
    '/v1/oauth/clients/:clientID/secret',
    {
      config: { auth: { permission: 'oauth_clients:write' }, idempotency: 'no-replay' },
      schema: {
        tags: [TAG],
        summary: "Rotate a confidential client's secret",
        description: `${WHO}, and every scope the client holds. The new secret is in this response only; the old one stops working at once (tokens already issued keep working). A public client has no secret (409).`,
        params: ClientParams,
        response: { 200: dataOf(ClientSecretSchema), ...errorResponses([400, 401, 403, 404, 409]) },
      },
    },
    async (request) => {
      const { client, secret } = await rotateClientSecret(deps, actorOf(request), { clientId: request.params.clientID });
      forget();
      return { data: { client_id: client.clientId, client_secret: secret } };
    },
  );

  app.delete(
    '/v1/oauth/clients/:clientID',
    {
      config: { auth: { permission: 'oauth_clients:write' } },
      schema: {
        tags: [TAG],
        summary: 'Delete an OAuth client',
        description: `${WHO}, and every scope the client holds. Revokes every token issued to it and every grant users gave it; its authorization requests and device authorizations in flight can no longer be approved or redeemed.`,
        params: ClientParams,
        response: { 204: z.null().describe('Deleted'), ...errorResponses([400, 401, 403, 404]) },
      },
    },
    async (request, reply) => {
      await deleteClient(deps, actorOf(request), { clientId: request.params.clientID });
      forget();
      return reply.code(204).send(null);
    },
  );
}
