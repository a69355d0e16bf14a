/**
 * POST /v1/oauth/revoke (RFC 7009), JSON `{token, token_type_hint}` or form. The client the token was
 * issued to revokes it: a public client sends client_id, a confidential one its credentials.
 */
import { z } from 'zod';
import type { Db } from '../../db/client.ts';
import { authenticateClient, readClientCredentials } from '../../domain/oauth/client-auth.ts';
import type { ClientLookup } from '../../domain/oauth/client-cache.ts';
import { oauthError } from '../../domain/oauth/errors.ts';
import { revokeClientToken } from '../../domain/oauth/introspection.ts';
import type { Clock } from '../../lib/clock.ts';
import type { App } from '../types.ts';
import { errorResponses } from '../errors.ts';
import { clientAuthOf, oauthEndpointScope, TAG } from './token-endpoints.ts';

export const RevokeRequestSchema = z
  .object({
    token: z.string().min(1).max(512).meta({ description: 'An access token (pla_) or refresh token (plr_)' }),
    token_type_hint: z
      .string()
      .max(100)
      .optional()
      .meta({ description: 'access_token or refresh_token; a hint only (RFC 7009 §2.1)', example: 'refresh_token' }),
    client_id: z.string().max(200).optional().meta({
      description: 'The client the token was issued to (public clients; confidential ones may use HTTP Basic)',
      example: 'pcl_8mZk2xQv7LrT',
    }),
    client_secret: z.string().max(512).optional().meta({ description: "client_secret_post: the confidential client's secret" }),
  })
  .meta({ id: 'RevocationRequest' });

/** `forget`: this process's token cache, forgotten at once (the others hear the database's NOTIFY). */
export type RevokeDeps = { db: Db; clock: Clock; clients: ClientLookup; forget: () => void };

export async function registerRevokeRoutes(app: App, deps: RevokeDeps): Promise<void> {
  await oauthEndpointScope(app, { formOnly: false }, (scope) => {
    scope.post(
      '/v1/oauth/revoke',
      {
        config: { auth: { public: true }, errorShape: 'oauth' },
        schema: {
          tags: [TAG],
          summary: 'Revoke a token',
          description:
            'RFC 7009, JSON `{token, token_type_hint}` or form-encoded. The client the token was issued to revokes it (a public client sends client_id; a confidential one HTTP Basic or client_id and client_secret). ' +
            'An access token is revoked alone; a refresh token takes its whole grant with it (every access and refresh token of that authorization). ' +
            "An unknown, already revoked or another client's token also gets 200 (and stays as it is). Errors: 400 invalid_request, 401 invalid_client.",
          security: [],
          consumes: ['application/json', 'application/x-www-form-urlencoded'],
          body: RevokeRequestSchema,
          response: {
            200: z.object({}).meta({ id: 'RevocationResult', description: 'Empty: the token no longer works (or never did)' }),
            ...errorResponses([400, 401], 'oauth'),
          },
        },
      },
      async (request) => {
        const credentials = readClientCredentials(clientAuthOf(request, request.body));
        if (!credentials) throw oauthError('invalid_request', 'client_id is missing: the client the token was issued to revokes it');
        const client = await authenticateClient(deps.clients, credentials);
        if (await revokeClientToken(deps, client, { token: request.body.token })) deps.forget();
        return {};
      },
    );
  });
}
