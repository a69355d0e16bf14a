/**
 * OAuth clients for the flow tests, inserted as rows (the registration route is tested on its own):
 * a public client with a loopback redirect URI and every grant, unless told otherwise.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { queryRows } from '../src/db/client.ts';
import { oauthClients, oauthGrantOrganizations, oauthGrants, oauthTokens } from '../src/db/schema.ts';
import { GRANT_TYPE_VALUES, OAUTH_PREFIXES } from '../src/domain/oauth/vocabulary.ts';
import type { Permission } from '../src/domain/permissions.ts';
import { randomToken, sha256Hex } from '../src/lib/crypto.ts';
import { uuidv7 } from '../src/lib/ids.ts';
import { request, type ApiResponse, type TestServer } from './harness.ts';

export type ClientFixture = {
  /** The row id (oauth_clients.id). */
  id: string;
  clientId: string;
  name: string;
  redirectUris: string[];
  scopes: Permission[];
  /** Confidential clients only: the secret (stored hashed). */
  secret?: string;
};

export type ClientOptions = {
  name?: string;
  type?: 'public' | 'confidential';
  redirectUris?: string[];
  grantTypes?: string[];
  scopes?: Permission[];
  organizationId?: string;
};

export async function createOAuthClient(server: TestServer, options: ClientOptions = {}): Promise<ClientFixture> {
  const clientId = OAUTH_PREFIXES.clientId + randomToken(12);
  const secret = options.type === 'confidential' ? OAUTH_PREFIXES.clientSecret + randomToken(32) : undefined;
  const now = server.container.clock.now();
  const row = {
    id: uuidv7(),
    clientId,
    organizationId: options.organizationId ?? server.organizationId,
    name: options.name ?? 'Test CLI',
    type: options.type ?? 'public',
    secretHash: secret ? sha256Hex(secret) : null,
    redirectUris: options.redirectUris ?? ['http://127.0.0.1:53682/callback'],
    grantTypes: options.grantTypes ?? [...GRANT_TYPE_VALUES],
    scopes: options.scopes ?? ['channels:read', 'messages:read', 'messages:send'],
    createdAt: now,
    updatedAt: now,
  };
  await server.container.database.db.insert(oauthClients).values(row);
  if (secret) server.registerSensitive('a client secret', secret);
  return { id: row.id, clientId, name: row.name, redirectUris: row.redirectUris, scopes: row.scopes as Permission[], secret };
}

/** A PKCE pair (RFC 7636): a verifier and its S256 challenge. */
export function pkcePair(): { verifier: string; challenge: string } {
  const verifier = randomToken(32);
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/** The query of a valid authorization request for the client (PKCE, state), with any parameter changed or (undefined) left out. */
export function authorizeQuery(client: ClientFixture, changes: Record<string, string | undefined> = {}): string {
  const params: Record<string, string | undefined> = {
    response_type: 'code',
    client_id: client.clientId,
    redirect_uri: client.redirectUris[0],
    scope: client.scopes.join(' '),
    state: `state-${randomToken(6)}`,
    code_challenge: pkcePair().challenge,
    code_challenge_method: 'S256',
    ...changes,
  };
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) if (value !== undefined) query.append(name, value);
  return query.toString();
}

/** Rows of a table, for checks that a refused request stored nothing. */
export async function countRows(
  server: TestServer,
  table: 'oauth_authorization_requests' | 'oauth_device_authorizations',
): Promise<number> {
  const rows = await queryRows<{ n: number }>(server.container.database.db, sql`select count(*)::int as n from ${sql.identifier(table)}`);
  return rows[0]!.n;
}

export type GrantFixture = { id: string; accessToken: string; refreshToken: string };

/**
 * A grant as the token endpoint makes one (another helper's work: rows here until it is merged): the
 * user's approval of the client for organizations, with an access token (1 h) and a refresh token (30 days).
 */
export async function createGrant(
  server: TestServer,
  options: {
    client: Pick<ClientFixture, 'id' | 'scopes'>;
    userId: string;
    organizationIds: string[];
    scopes?: Permission[];
    createdAt?: Date;
  },
): Promise<GrantFixture> {
  const db = server.container.database.db;
  const now = options.createdAt ?? server.container.clock.now();
  const id = uuidv7();
  const scopes = options.scopes ?? options.client.scopes;
  const accessToken = OAUTH_PREFIXES.accessToken + randomToken(32);
  const refreshToken = OAUTH_PREFIXES.refreshToken + randomToken(32);
  server.registerSensitive('an access token', accessToken);
  server.registerSensitive('a refresh token', refreshToken);
  await db.insert(oauthGrants).values({ id, clientId: options.client.id, userId: options.userId, scopes, createdAt: now });
  await db.insert(oauthGrantOrganizations).values(options.organizationIds.map((organizationId) => ({ grantId: id, organizationId })));
  const refreshId = uuidv7();
  await db.insert(oauthTokens).values([
    {
      id: refreshId,
      grantId: id,
      kind: 'refresh',
      tokenHash: sha256Hex(refreshToken),
      scopes,
      createdAt: now,
      expiresAt: new Date(now.getTime() + 30 * 86_400_000),
    },
    {
      id: uuidv7(),
      grantId: id,
      kind: 'access',
      tokenHash: sha256Hex(accessToken),
      scopes,
      parentId: refreshId,
      createdAt: now,
      expiresAt: new Date(now.getTime() + 3_600_000),
    },
  ]);
  return { id, accessToken, refreshToken };
}

export type DeviceStart = {
  device_code: string;
  user_code: string;
  verification_uri: string;
  verification_uri_complete: string;
  expires_in: number;
  interval: number;
};

/**
 * A device authorization request (POST /v1/oauth/device) as JSON or as a form, which must succeed; its
 * device code is registered with the log audit.
 */
export async function startDeviceFlow(
  server: TestServer,
  body: Record<string, string>,
  as: 'json' | 'form' = 'json',
): Promise<DeviceStart> {
  const res =
    as === 'json'
      ? await request(server, 'POST', '/v1/oauth/device', { body })
      : await request(server, 'POST', '/v1/oauth/device', {
          rawBody: new URLSearchParams(body).toString(),
          contentType: 'application/x-www-form-urlencoded',
        });
  assert.equal(res.status, 200, res.text);
  server.registerSensitive('a device code', res.body.device_code);
  return res.body;
}

/** The signed-in user (cookie) approves a user code for the organizations. */
export function approveDevice(server: TestServer, cookie: string, userCode: string, organizationIds: string[]): Promise<ApiResponse> {
  return request(server, 'POST', '/v1/oauth/device/approve', { cookie, body: { user_code: userCode, organization_ids: organizationIds } });
}

export type DeviceTokens = { access_token: string; refresh_token?: string; expires_in?: number; scope?: string; token_type?: string };

/**
 * Tokens by the device flow through the real routes: started for the client, approved by the cookie's
 * user for the organizations, exchanged at the token endpoint (a form, as RFC 8628 has it); the tokens
 * are registered with the log audit.
 */
export async function deviceFlowTokens(
  server: TestServer,
  options: { clientId: string; cookie: string; organizationIds: string[]; scope?: string },
): Promise<DeviceTokens> {
  const started = await startDeviceFlow(server, { client_id: options.clientId, ...(options.scope ? { scope: options.scope } : {}) });
  const approved = await approveDevice(server, options.cookie, started.user_code, options.organizationIds);
  assert.equal(approved.status, 200, approved.text);
  const res = await request(server, 'POST', '/v1/oauth/token', {
    rawBody: new URLSearchParams({
      grant_type: 'urn:ietf:params:oauth:grant-type:device_code',
      device_code: started.device_code,
      client_id: options.clientId,
    }).toString(),
    contentType: 'application/x-www-form-urlencoded',
  });
  assert.equal(res.status, 200, res.text);
  server.registerSensitive('an access token', res.body.access_token);
  server.registerSensitive('a refresh token', res.body.refresh_token);
  return res.body;
}
