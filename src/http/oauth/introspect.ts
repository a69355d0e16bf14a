/**
 * POST /v1/oauth/introspect (RFC 7662), JSON `{token}` or form. The caller is a confidential client
 * (HTTP Basic or client_id and client_secret: tokens issued to itself) or any credential holding
 * oauth:introspect in an organization the token reaches (domain/oauth/introspection.ts).
 */
import { z } from 'zod';
import type { Db } from '../../db/client.ts';
import { DomainError } from '../../domain/errors.ts';
import { authenticateClient, readClientCredentials } from '../../domain/oauth/client-auth.ts';
import type { ClientLookup } from '../../domain/oauth/client-cache.ts';
import { oauthError } from '../../domain/oauth/errors.ts';
import { INTROSPECT_PERMISSION, introspectToken, type IntrospectionCaller } from '../../domain/oauth/introspection.ts';
import type { Clock } from '../../lib/clock.ts';
import type { App } from '../types.ts';
import { errorResponses } from '../errors.ts';
import { clientAuthOf, oauthEndpointScope, TAG } from './token-endpoints.ts';

export const IntrospectRequestSchema = z
  .object({
    token: z.string().min(1).max(512).meta({ description: 'An access token (pla_) or refresh token (plr_)' }),
    token_type_hint: z
      .string()
      .max(100)
      .optional()
      .meta({ description: 'access_token or refresh_token; a hint only (RFC 7662 §2.1)', example: 'access_token' }),
    client_id: z.string().max(200).optional().meta({ description: 'client_secret_post: the confidential client' }),
    client_secret: z.string().max(512).optional().meta({ description: 'client_secret_post: its secret' }),
  })
  .meta({ id: 'IntrospectionRequest' });

export const IntrospectionSchema = z
  .object({
    active: z.boolean(),
    scope: z.string().optional().meta({ description: "The token's scopes that its client still has, space-delimited" }),
    client_id: z.string().optional(),
    sub: z.string().optional().meta({ description: 'The id of the user who authorized the client' }),
    exp: z.number().int().optional().meta({ description: 'Expiry, seconds since the epoch' }),
    iat: z.number().int().optional().meta({ description: 'Issue time, seconds since the epoch' }),
    token_type: z.enum(['Bearer', 'refresh_token']).optional(),
    organization_ids: z
      .array(z.uuid())
      .optional()
      .meta({ description: 'The organizations the token reaches (approved by the user, where they are still a member)' }),
  })
  .meta({
    id: 'Introspection',
    description:
      'RFC 7662 §2.2. An unknown, expired, revoked or rotated token, or one the caller may not see, is exactly `{active: false}`.',
  });

export type IntrospectDeps = { db: Db; clock: Clock; clients: ClientLookup };

export async function registerIntrospectRoutes(app: App, deps: IntrospectDeps): Promise<void> {
  await oauthEndpointScope(app, { formOnly: false }, (scope) => {
    scope.post(
      '/v1/oauth/introspect',
      {
        config: { auth: { optional: true }, errorShape: 'oauth' },
        schema: {
          tags: [TAG],
          summary: 'Introspect a token',
          description:
            'RFC 7662, JSON `{token}` or form-encoded. The caller authenticates as a confidential client (HTTP Basic, or client_id and client_secret in the body: it sees tokens issued to itself), ' +
            `or with an API key, access token or dashboard session holding \`${INTROSPECT_PERMISSION}\` in an organization the token reaches. An unauthenticated caller gets 401 invalid_client; ` +
            `a credential without \`${INTROSPECT_PERMISSION}\` 403 insufficient_scope.`,
          security: [{ clientBasic: [] }, { apiKey: [] }, { bearer: [] }, { session: [] }],
          consumes: ['application/json', 'application/x-www-form-urlencoded'],
          body: IntrospectRequestSchema,
          response: { 200: IntrospectionSchema, ...errorResponses([400, 401, 403], 'oauth') },
        },
      },
      async (request) => {
        const auth = clientAuthOf(request, request.body);
        let caller: IntrospectionCaller;
        const credentials = readClientCredentials(auth);
        if (credentials && credentials.method !== 'none') {
          caller = { kind: 'client', client: await authenticateClient(deps.clients, credentials) };
        } else if (request.actor) {
          caller = { kind: 'actor', actor: request.actor };
        } else {
          throw oauthError(
            'invalid_client',
            "authenticate: a confidential client's credentials, or an API key, access token or session holding oauth:introspect",
          );
        }
        if (caller.kind === 'client' && caller.client.type !== 'confidential')
          throw new DomainError('unauthenticated', 'only confidential clients introspect');
        const result = await introspectToken(deps, caller, { token: request.body.token });
        if (!result.active) return { active: false };
        return {
          active: true,
          scope: result.scope,
          client_id: result.clientId,
          sub: result.sub,
          exp: result.exp,
          iat: result.iat,
          token_type: result.tokenType,
          organization_ids: result.organizationIds,
        };
      },
    );
  });
}
