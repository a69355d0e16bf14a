/**
 * RFC 6749 §5.2 errors of the token, introspection and revocation endpoints, as DomainErrors the
 * HTTP layer writes as `{error, error_description}` (http/errors.ts, shape 'oauth'): invalid_client
 * is a 401, every other one a 400.
 */
import { DomainError } from '../errors.ts';

export type OAuthErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'unauthorized_client'
  | 'unsupported_grant_type'
  | 'invalid_scope'
  | 'authorization_pending'
  | 'slow_down'
  | 'expired_token'
  | 'access_denied';

/** `basic`: the client authenticated with HTTP Basic, so a 401 says WWW-Authenticate: Basic (RFC 6749 §5.2). */
export function oauthError(error: OAuthErrorCode, description: string, options: { basic?: boolean } = {}): DomainError {
  return new DomainError(error === 'invalid_client' ? 'unauthenticated' : 'invalid', description, {
    extra: { oauth_error: error, ...(options.basic ? { basic_auth: true } : {}) },
  });
}
