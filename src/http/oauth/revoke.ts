/**
 * POST /v1/oauth/revoke (RFC 7009), JSON `{token, token_type_hint}` or form. The token's holder revokes
 * it with the body alone (possession is the proof); client credentials, when sent, must authenticate,
 * and then only that client's tokens are revoked.
 */
import { z } from 'zod';
import type { Db } from '../../db/client.ts';
import { authenticateClient, readClientCredentials } from '../../domain/oauth/client-auth.ts';
import type { ClientLookup } from '../../domain/oauth/client-cache.ts';
import { revokeClientToken, type Revoker } from '../../domain/oauth/introspection.ts';
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
      description:
        'Optional: the client the token was issued to (public clients; confidential ones may use HTTP Basic). When given, the client must authenticate and only its own tokens are revoked',
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
            'RFC 7009, JSON `{token, token_type_hint}` or form-encoded. Whoever holds a token may revoke it with that body alone: possession is the proof. ' +
            'Client credentials are optional; when sent (a public client its client_id, a confidential one HTTP Basic or client_id and client_secret) they must authenticate, and only that client’s tokens are revoked. ' +
            'An access token is revoked alone; a refresh token takes its whole grant with it (every access and refresh token of that authorization). ' +
            "An unknown or already revoked token, or another client's when credentials are sent, also gets 200 (and stays as it is). Errors: 400 invalid_request, 401 invalid_client.",
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
        const revoker: Revoker = credentials
          ? { kind: 'client', client: await authenticateClient(deps.clients, credentials) }
          : { kind: 'holder' };
        if (await revokeClientToken(deps, revoker, { token: request.body.token })) deps.forget();
        return {};
      },
    );
  });
}
