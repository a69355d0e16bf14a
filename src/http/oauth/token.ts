/**
 * POST /v1/oauth/token (RFC 6749 §3.2, RFC 8628 §3.4): form bodies only; the grants are in
 * domain/oauth/grants. Success and errors are OAuth bodies, never cached.
 */
import { z } from 'zod';
import { CLIENT_AUTH_METHODS } from '../../domain/oauth/client-auth.ts';
import { exchangeToken } from '../../domain/oauth/token-request.ts';
import type { TokenDeps } from '../../domain/oauth/tokens.ts';
import { GRANT_TYPE_VALUES } from '../../domain/oauth/vocabulary.ts';
import type { App } from '../types.ts';
import { errorResponses } from '../errors.ts';
import { clientAuthOf, FORM_ONLY, oauthEndpointScope, TAG } from './token-endpoints.ts';

const param = (max: number, description: string, example?: string) =>
  z
    .string()
    .max(max)
    .optional()
    .meta({ description, ...(example ? { example } : {}) });

export const TokenRequestSchema = z
  .object({
    grant_type: param(200, `One of ${GRANT_TYPE_VALUES.join(', ')}`, 'authorization_code'),
    client_id: param(200, 'The client (public clients; confidential ones may use HTTP Basic instead)', 'pcl_8mZk2xQv7LrT'),
    client_secret: param(512, "client_secret_post: the confidential client's secret (or send it by HTTP Basic, never both)"),
    code: param(200, 'authorization_code: the code from the redirect'),
    redirect_uri: param(
      2000,
      'authorization_code: the redirect_uri of the authorization request, exactly',
      'http://127.0.0.1:53682/callback',
    ),
    code_verifier: param(128, 'authorization_code: the PKCE verifier whose S256 is the code_challenge'),
    device_code: param(200, 'device_code grant: the device code from POST /v1/oauth/device'),
    refresh_token: param(200, 'refresh_token: the refresh token (exchanged once: it is rotated)'),
    scope: param(2000, 'refresh_token: narrow the new access token to these of the granted scopes', 'channels:read'),
  })
  .nullish()
  .meta({ id: 'TokenRequest' });

export const TokenResponseSchema = z
  .object({
    access_token: z.string().meta({ description: 'Opaque, prefixed pla_; send as Authorization: Bearer' }),
    token_type: z.literal('Bearer'),
    expires_in: z.number().int().meta({ description: 'Seconds the access token lives (OAUTH_ACCESS_TOKEN_TTL)' }),
    scope: z.string().meta({ description: "The access token's scopes, space-delimited" }),
    refresh_token: z.string().optional().meta({
      description:
        'Opaque, prefixed plr_; only for clients registered for the refresh_token grant. Lives OAUTH_REFRESH_TOKEN_TTL from its issue; each refresh rotates it',
    }),
  })
  .meta({ id: 'TokenResponse' });

export async function registerTokenRoutes(app: App, deps: TokenDeps): Promise<void> {
  await oauthEndpointScope(app, { formOnly: true }, (scope) => {
    scope.post(
      '/v1/oauth/token',
      {
        config: { auth: { public: true }, errorShape: 'oauth' },
        schema: {
          tags: [TAG],
          summary: 'Get tokens (authorization code, device code, refresh token)',
          description:
            `Form-encoded only (${FORM_ONLY}; anything else is invalid_request). Client authentication: ${CLIENT_AUTH_METHODS.join(', ')} (exactly one method). ` +
            'authorization_code: code, redirect_uri and code_verifier (PKCE S256); a code works once, within its 60 s, and a code presented again revokes every token it produced. ' +
            'device_code: authorization_pending until the person decides, slow_down (the interval grows by 5 s) when polled sooner than the interval, access_denied, expired_token; the tokens once, then invalid_grant. ' +
            'refresh_token: rotation (the old refresh token stops working; presenting it again revokes the whole grant), optional scope to narrow the access token, sliding expiry. ' +
            'Errors `{error, error_description}`: 400 invalid_request, invalid_grant, unauthorized_client, unsupported_grant_type, invalid_scope, authorization_pending, slow_down, expired_token, access_denied; ' +
            '401 invalid_client (with WWW-Authenticate: Basic when Basic was used). Every answer is Cache-Control: no-store.',
          security: [],
          consumes: ['application/x-www-form-urlencoded'],
          body: TokenRequestSchema,
          response: { 200: TokenResponseSchema, ...errorResponses([400, 401], 'oauth') },
        },
      },
      async (request) => {
        const body = request.body ?? {};
        const issued = await exchangeToken(deps, {
          ...clientAuthOf(request, body),
          grantType: body.grant_type,
          code: body.code,
          redirectUri: body.redirect_uri,
          codeVerifier: body.code_verifier,
          deviceCode: body.device_code,
          refreshToken: body.refresh_token,
          scope: body.scope,
        });
        return {
          access_token: issued.accessToken,
          token_type: 'Bearer' as const,
          expires_in: issued.expiresIn,
          scope: issued.scopes.join(' '),
          ...(issued.refreshToken ? { refresh_token: issued.refreshToken } : {}),
        };
      },
    );
  });
}
