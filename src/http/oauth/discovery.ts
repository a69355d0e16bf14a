/**
 * GET /.well-known/oauth-authorization-server (RFC 8414): public, outside /v1, issuer = BASE_URL.
 */
import { z } from 'zod';
import { CLIENT_AUTH_METHODS } from '../../domain/oauth/client-auth.ts';
import { GRANT_TYPE_VALUES } from '../../domain/oauth/vocabulary.ts';
import { PERMISSIONS } from '../../domain/permissions.ts';
import type { App } from '../types.ts';
import { TAG } from './token-endpoints.ts';

export const DISCOVERY_PATH = '/.well-known/oauth-authorization-server';

export const AuthorizationServerMetadataSchema = z
  .object({
    issuer: z.string(),
    authorization_endpoint: z.string(),
    token_endpoint: z.string(),
    device_authorization_endpoint: z.string(),
    introspection_endpoint: z.string(),
    revocation_endpoint: z.string(),
    grant_types_supported: z.array(z.string()),
    response_types_supported: z.array(z.string()),
    response_modes_supported: z.array(z.string()),
    code_challenge_methods_supported: z.array(z.string()),
    token_endpoint_auth_methods_supported: z.array(z.string()),
    introspection_endpoint_auth_methods_supported: z.array(z.string()),
    revocation_endpoint_auth_methods_supported: z.array(z.string()),
    scopes_supported: z.array(z.string()),
    authorization_response_iss_parameter_supported: z.boolean(),
    service_documentation: z.string(),
  })
  .meta({ id: 'AuthorizationServerMetadata', description: 'RFC 8414 §2' });

export function authorizationServerMetadata(baseUrl: string): z.infer<typeof AuthorizationServerMetadataSchema> {
  const base = baseUrl.replace(/\/+$/, '');
  return {
    issuer: baseUrl,
    authorization_endpoint: `${base}/v1/oauth/authorize`,
    token_endpoint: `${base}/v1/oauth/token`,
    device_authorization_endpoint: `${base}/v1/oauth/device`,
    introspection_endpoint: `${base}/v1/oauth/introspect`,
    revocation_endpoint: `${base}/v1/oauth/revoke`,
    grant_types_supported: [...GRANT_TYPE_VALUES],
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: [...CLIENT_AUTH_METHODS],
    introspection_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
    revocation_endpoint_auth_methods_supported: [...CLIENT_AUTH_METHODS],
    scopes_supported: [...PERMISSIONS],
    authorization_response_iss_parameter_supported: true,
    service_documentation: `${base}/v1/docs`,
  };
}

export async function registerDiscoveryRoutes(app: App, settings: { baseUrl: string }): Promise<void> {
  const metadata = authorizationServerMetadata(settings.baseUrl);
  app.get(
    DISCOVERY_PATH,
    {
      config: { auth: { public: true } },
      schema: {
        tags: [TAG],
        summary: 'OAuth authorization server metadata',
        description:
          'RFC 8414 discovery: the endpoints, grant types, PKCE method, client authentication methods and scopes (the permission names). The issuer is BASE_URL.',
        security: [],
        response: { 200: AuthorizationServerMetadataSchema },
      },
    },
    async (_request, reply) => {
      void reply.header('cache-control', 'public, max-age=3600');
      return metadata;
    },
  );
}
