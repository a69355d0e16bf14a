/**
 * POST /v1/oauth/token (RFC 6749 §3.2): authenticates the client, checks it is registered for the
 * grant type, and hands the request to the grant (grants/*.ts).
 */
import { authenticateClientFor, type ClientAuthInput } from './client-auth.ts';
import { oauthError } from './errors.ts';
import { redeemAuthorizationCode } from './grants/authorization-code.ts';
import { redeemDeviceCode } from './grants/device-code.ts';
import { redeemRefreshToken } from './grants/refresh-token.ts';
import type { IssuedTokens, TokenDeps } from './tokens.ts';
import { GRANT_TYPE_VALUES, GRANT_TYPES, type GrantType } from './vocabulary.ts';

/** The token request's parameters (absent ones undefined), and the Authorization header. */
export type TokenRequest = {
  authorization: string | undefined;
  grantType: string | undefined;
  clientId: string | undefined;
  clientSecret: string | undefined;
  code: string | undefined;
  redirectUri: string | undefined;
  codeVerifier: string | undefined;
  deviceCode: string | undefined;
  refreshToken: string | undefined;
  scope: string | undefined;
};

function isGrantType(value: string): value is GrantType {
  return (GRANT_TYPE_VALUES as readonly string[]).includes(value);
}

export async function exchangeToken(deps: TokenDeps, input: TokenRequest): Promise<IssuedTokens> {
  if (input.grantType === undefined) throw oauthError('invalid_request', 'grant_type is missing');
  if (!isGrantType(input.grantType)) {
    throw oauthError(
      'unsupported_grant_type',
      `grant_type ${JSON.stringify(input.grantType.slice(0, 100))} is not supported: use ${GRANT_TYPE_VALUES.join(', ')}`,
    );
  }
  const auth: ClientAuthInput = { authorization: input.authorization, clientId: input.clientId, clientSecret: input.clientSecret };
  const client = await authenticateClientFor(deps.clients, auth, input.grantType);
  switch (input.grantType) {
    case GRANT_TYPES.authorizationCode:
      return redeemAuthorizationCode(deps, client, { code: input.code, redirectUri: input.redirectUri, codeVerifier: input.codeVerifier });
    case GRANT_TYPES.deviceCode:
      return redeemDeviceCode(deps, client, { deviceCode: input.deviceCode });
    case GRANT_TYPES.refreshToken:
      return redeemRefreshToken(deps, client, { refreshToken: input.refreshToken, scope: input.scope });
    default:
      return input.grantType satisfies never;
  }
}
