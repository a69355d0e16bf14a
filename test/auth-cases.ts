/**
 * The auth cases every route group must pass, in one helper: no credential, an unknown key, a
 * revoked key, a bearer token that is not ours (401), a key of another organization naming this one
 * (400, or 404 where the path names it), and a key without the route's permission (403). Each route
 * group's test calls it for its routes.
 */
import assert from 'node:assert/strict';
import type { Permission } from '../src/domain/permissions.ts';
import { createKeyWith, createOtherOrganization, request, type TestServer } from './harness.ts';

export type RouteCase = {
  method: string;
  path: string;
  body?: unknown;
  /** The permission the route needs; omitted for routes open to any valid credential. */
  permission?: Permission;
};

export async function checkAuthCases(server: TestServer, routes: RouteCase[]): Promise<void> {
  const revoked = await createKeyWith(server, ['api_keys:write', 'channels:read']);
  const other = await createOtherOrganization(server, 'authcases');
  const keys = await request(server, 'GET', '/v1/api-keys?limit=200', { key: server.apiKey });
  const revokedId = keys.body.data.find((k: { name: string }) => k.name.startsWith('limited api_keys:write'))?.id;
  assert.ok(revokedId, 'the key to revoke is listed');
  assert.equal((await request(server, 'DELETE', `/v1/api-keys/${revokedId}`, { key: server.apiKey })).status, 204);

  for (const route of routes) {
    const label = `${route.method} ${route.path}`;
    const send = (options: { key?: string; bearer?: string; headers?: Record<string, string> }) =>
      request(server, route.method, route.path, { body: route.body, ...options });

    for (const [name, options] of [
      ['no credential', {}],
      ['unknown key', { key: 'prl_this_key_does_not_exist_0123456789' }],
      ['revoked key', { key: revoked }],
      ['foreign bearer token', { bearer: 'not-a-token-we-issued' }],
    ] as const) {
      const res = await send(options);
      assert.equal(res.status, 401, `${label} with ${name}: expected 401, got ${res.status} ${res.text}`);
      assert.equal(res.body.detail, 'invalid or missing API key', `${label} with ${name}`);
      assert.match(res.headers.get('content-type') ?? '', /application\/problem\+json/);
    }

    // A valid key naming an organization it does not reach is no bad credential: the organization is
    // refused as for any credential (400 for the header; 404, as unknown, where the path names it).
    const foreign = await send({ key: other.apiKey, headers: { 'x-organization-id': server.organizationId } });
    const inPath = route.path.startsWith(`/v1/organizations/${server.organizationId}`);
    assert.equal(foreign.status, inPath ? 404 : 400, `${label} with a key of another organization naming this one: ${foreign.text}`);
    assert.equal(foreign.body.code, inPath ? 'not_found' : 'invalid', label);
    if (!inPath) assert.equal(foreign.body.errors?.[0]?.pointer, '/x-organization-id', label);

    if (route.permission) {
      const lacking = await createKeyWith(server, route.permission === 'messages:read' ? ['contacts:read'] : ['messages:read']);
      const res = await send({ key: lacking });
      assert.equal(res.status, 403, `${label} without ${route.permission}: expected 403, got ${res.status}`);
      assert.match(res.body.detail, new RegExp(route.permission), `${label}: the 403 names the permission`);
    }
  }
}
