/**
 * Client authentication at the token, introspection and revocation endpoints (RFC 6749 §2.3): a
 * public client names itself by client_id (PKCE proves the rest); a confidential client sends its
 * secret by exactly one method, HTTP Basic (client_secret_basic) or the body (client_secret_post).
 * Every failure of a named client is invalid_client (401), told the same way whether the client is
 * unknown or the secret wrong.
 */
import { constantTimeEqual, sha256Hex } from '../../lib/crypto.ts';
import { oauthError } from './errors.ts';
import type { ClientLookup } from './client-cache.ts';
import type { GrantType, OAuthClient } from './vocabulary.ts';

export type ClientAuthMethod = 'none' | 'client_secret_basic' | 'client_secret_post';
export const CLIENT_AUTH_METHODS: readonly ClientAuthMethod[] = ['none', 'client_secret_basic', 'client_secret_post'];

/** What the request carried: the Authorization header (if any) and the client_id / client_secret body parameters. */
export type ClientAuthInput = { authorization: string | undefined; clientId: string | undefined; clientSecret: string | undefined };

export type ClientCredentials = { method: ClientAuthMethod; clientId: string; secret: string | undefined };

const MAX_CREDENTIAL = 512;

/** RFC 6749 §2.3.1: Basic credentials are form-encoded before base64. */
function formDecode(value: string): string | undefined {
  try {
    return decodeURIComponent(value.replace(/\+/g, ' '));
  } catch {
    return undefined;
  }
}

/** Which method the request used and what it named; refuses two methods at once or a malformed header. */
export function readClientCredentials(input: ClientAuthInput): ClientCredentials | undefined {
  const basicMatch = input.authorization === undefined ? null : /^Basic\s+([A-Za-z0-9+/=._~-]+)\s*$/i.exec(input.authorization);
  if (input.authorization !== undefined && !basicMatch) {
    throw oauthError('invalid_client', 'the Authorization header must be HTTP Basic with the client_id and client_secret', { basic: true });
  }
  if (basicMatch) {
    if (input.clientSecret !== undefined)
      throw oauthError(
        'invalid_request',
        'client credentials were sent twice (HTTP Basic and client_secret in the body): use exactly one method',
      );
    const decoded = Buffer.from(basicMatch[1]!, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    const clientId = colon > 0 ? formDecode(decoded.slice(0, colon)) : undefined;
    const secret = colon > 0 ? formDecode(decoded.slice(colon + 1)) : undefined;
    if (!clientId || !secret || clientId.length > MAX_CREDENTIAL || secret.length > MAX_CREDENTIAL) {
      throw oauthError('invalid_client', 'the HTTP Basic credentials are malformed: send base64(client_id:client_secret)', { basic: true });
    }
    if (input.clientId !== undefined && input.clientId !== clientId)
      throw oauthError('invalid_request', 'client_id in the body is not the one in the Authorization header');
    return { method: 'client_secret_basic', clientId, secret };
  }
  if (input.clientId === undefined) {
    if (input.clientSecret !== undefined) throw oauthError('invalid_request', 'client_secret was sent without client_id');
    return undefined;
  }
  if (input.clientSecret !== undefined) return { method: 'client_secret_post', clientId: input.clientId, secret: input.clientSecret };
  return { method: 'none', clientId: input.clientId, secret: undefined };
}

/** The client the credentials prove, or invalid_client. */
export async function authenticateClient(clients: ClientLookup, credentials: ClientCredentials): Promise<OAuthClient> {
  const basic = credentials.method === 'client_secret_basic';
  const refuse = () =>
    oauthError(
      'invalid_client',
      'client authentication failed: unknown client, wrong secret, or a method the client is not registered for',
      { basic },
    );
  if (credentials.clientId.length > MAX_CREDENTIAL) throw refuse();
  const client = await clients(credentials.clientId);
  if (!client) throw refuse();
  if (client.type === 'public') {
    // A public client has no secret: one that sends a secret is not who it claims.
    if (credentials.method !== 'none') throw refuse();
    return client;
  }
  if (credentials.method === 'none' || !client.secretHash || credentials.secret === undefined) throw refuse();
  if (!constantTimeEqual(sha256Hex(credentials.secret), client.secretHash)) throw refuse();
  return client;
}

/** The client authenticated from the request, which must be registered for the grant type. */
export async function authenticateClientFor(clients: ClientLookup, input: ClientAuthInput, grantType: GrantType): Promise<OAuthClient> {
  const credentials = readClientCredentials(input);
  if (!credentials)
    throw oauthError(
      'invalid_request',
      'client_id is missing: a public client sends client_id, a confidential one its credentials (HTTP Basic or client_id and client_secret)',
    );
  const client = await authenticateClient(clients, credentials);
  if (!client.grantTypes.includes(grantType))
    throw oauthError('unauthorized_client', `the client is not registered for the ${grantType} grant`);
  return client;
}
