/**
 * The CLI's side of the service's OAuth server, through openid-client (a certified client library:
 * the device flow's polling, `interval` and `slow_down`, and revocation): sign-in by the device flow
 * (RFC 8628) and sign-out by revocation (RFC 7009). Refreshing is the SDK's (onTokens). The client is
 * the service's first-party public client `parley-cli` (docs/DECISIONS.md 81), or an organization's
 * own with --client-id.
 */
import * as oidc from 'openid-client';
import { CliError } from './errors.ts';
import { EXIT } from './exit-codes.ts';

/** The OAuth endpoints of a Parley service at baseUrl (its issuer), for a public client. */
export function oauthConfiguration(baseUrl: string, clientId: string): oidc.Configuration {
  const config = new oidc.Configuration(
    {
      issuer: baseUrl,
      device_authorization_endpoint: `${baseUrl}/v1/oauth/device`,
      token_endpoint: `${baseUrl}/v1/oauth/token`,
      revocation_endpoint: `${baseUrl}/v1/oauth/revoke`,
    },
    clientId,
    undefined,
    oidc.None(),
  );
  // A local service (http://localhost:8080) is plain HTTP; a remote one should be https, which the
  // service's own BASE_URL decides, not this client.
  if (baseUrl.startsWith('http:')) oidc.allowInsecureRequests(config);
  return config;
}

export type DeviceStart = oidc.DeviceAuthorizationResponse;
export type Tokens = { accessToken: string; refreshToken: string | null; expiresAt: Date | null; scope: string | null };

export async function startDeviceFlow(config: oidc.Configuration, scope: string | undefined): Promise<DeviceStart> {
  try {
    return await oidc.initiateDeviceAuthorization(config, scope ? { scope } : {});
  } catch (err) {
    throw oauthFailure(err, 'could not start the login');
  }
}

/** Polls until the person decides (or the code expires); the tokens. */
export async function waitForApproval(config: oidc.Configuration, started: DeviceStart, signal?: AbortSignal): Promise<Tokens> {
  try {
    const answer = await oidc.pollDeviceAuthorizationGrant(config, started, undefined, { signal });
    const expiresIn = answer.expiresIn();
    return {
      accessToken: answer.access_token,
      refreshToken: answer.refresh_token ?? null,
      expiresAt: expiresIn === undefined ? null : new Date(Date.now() + expiresIn * 1000),
      scope: answer.scope ?? null,
    };
  } catch (err) {
    throw oauthFailure(err, 'the login did not complete');
  }
}

/** Revokes the token (a refresh token: its whole grant) at the service. */
export async function revoke(config: oidc.Configuration, token: string, hint: 'refresh_token' | 'access_token'): Promise<void> {
  try {
    await oidc.tokenRevocation(config, token, { token_type_hint: hint });
  } catch (err) {
    throw oauthFailure(err, 'could not revoke the token');
  }
}

const OAUTH_ERRORS: Record<string, string> = {
  access_denied: 'the request was denied on the verification page',
  expired_token: 'the code expired before it was approved; run `parley login` again',
  invalid_client: 'the service does not know this client id (a service older than the CLI, or a wrong --client-id)',
  unauthorized_client: 'this client may not use the device flow',
  invalid_scope: 'a scope asked for is not one the client may have',
};

function oauthFailure(err: unknown, what: string): CliError {
  if (err instanceof oidc.ResponseBodyError) {
    const reason = OAUTH_ERRORS[err.error] ?? err.error_description ?? err.error;
    return new CliError(`${what}: ${reason}`, EXIT.auth, { error: err.error, error_description: err.error_description ?? null });
  }
  const cause = (err as { cause?: { code?: string } } | undefined)?.cause;
  if (err instanceof TypeError || cause?.code) {
    return new CliError(`${what}: cannot reach the service (${cause?.code ?? (err as Error).message})`, EXIT.network, {
      error: 'connection_error',
    });
  }
  if (err instanceof Error && err.name === 'AbortError') return new CliError('interrupted', EXIT.interrupted);
  return new CliError(`${what}: ${err instanceof Error ? err.message : String(err)}`, EXIT.auth);
}
