import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { eq } from 'drizzle-orm';
import { eventually } from '../eventually.ts';
import { apiKeys } from '../../src/db/schema.ts';
import { PERMISSIONS } from '../../src/domain/permissions.ts';
import { checkAuthCases } from '../auth-cases.ts';
import {
  createKeyWith,
  createOtherOrganization,
  loginCookie,
  movableClock,
  request,
  startTestServer,
  type TestServer,
} from '../harness.ts';

let server: TestServer;
/** The server's clock, moved forward by hand: keys expire by it. */
const clock = movableClock();
let cookie: string;
before(async () => {
  server = await startTestServer({ clock });
  cookie = await loginCookie(server);
});
after(() => server.close());

test('a dashboard session creates a key whose secret is shown once and works at once', async () => {
  const created = await request(server, 'POST', '/v1/api-keys', {
    cookie,
    body: { name: 'CRM sync', permissions: ['channels:read', 'messages:read'] },
  });
  assert.equal(created.status, 201);
  const key = created.body.data;
  assert.match(key.secret, /^prl_[A-Za-z0-9_-]{40}$/);
  assert.equal(key.prefix, key.secret.slice(0, 8));
  assert.equal(key.last_four, key.secret.slice(-4));
  assert.deepEqual(key.permissions, ['channels:read', 'messages:read']);
  assert.equal(key.last_used_at, null);
  assert.deepEqual(key.created_by, { type: 'user', id: (await request(server, 'GET', '/v1/auth/session', { cookie })).body.data.user.id });

  const channels = await request(server, 'GET', '/v1/channels', { key: key.secret });
  assert.equal(channels.status, 200);
  assert.deepEqual(channels.body, { data: [], meta: { next_cursor: null } });

  const list = await request(server, 'GET', '/v1/api-keys', { key: server.apiKey });
  assert.equal(list.status, 200);
  const listed = list.body.data.find((k: { id: string }) => k.id === key.id);
  assert.ok(listed, 'the new key is listed');
  assert.equal(listed.secret, undefined, 'the list never shows the secret');
  assert.equal(list.text.includes(key.secret), false);
  assert.equal(list.text.includes(key.secret.slice(8, -4)), false);
  assert.ok(listed.last_used_at, 'last_used_at is set once the key was used');
});

test('the stored row holds a hash, never the secret', async () => {
  const created = await request(server, 'POST', '/v1/api-keys', {
    key: server.apiKey,
    body: { name: 'hash check', permissions: ['messages:read'] },
  });
  const { rows } = (await server.container.database.db.execute(
    // Every text column of the row, to be sure the secret is in none of them.
    (
      await import('drizzle-orm')
    ).sql`select row_to_json(k)::text as j from api_keys k where id = ${created.body.data.id}`,
  )) as unknown as { rows: Array<{ j: string }> };
  assert.equal(rows.length, 1);
  assert.equal(rows[0]!.j.includes(created.body.data.secret), false);
  assert.equal(rows[0]!.j.includes(created.body.data.secret.slice(8)), false);
});

test('revocation takes effect on the next request', async () => {
  const created = await request(server, 'POST', '/v1/api-keys', {
    key: server.apiKey,
    body: { name: 'short-lived', permissions: ['channels:read'] },
  });
  const secret = created.body.data.secret;
  assert.equal((await request(server, 'GET', '/v1/channels', { key: secret })).status, 200);
  assert.equal((await request(server, 'DELETE', `/v1/api-keys/${created.body.data.id}`, { key: server.apiKey })).status, 204);
  const after = await request(server, 'GET', '/v1/channels', { key: secret });
  assert.equal(after.status, 401);
  assert.equal(after.body.detail, 'invalid or missing API key');
  assert.equal((await request(server, 'DELETE', `/v1/api-keys/${created.body.data.id}`, { key: server.apiKey })).status, 404);
  const list = await request(server, 'GET', '/v1/api-keys', { key: server.apiKey });
  assert.equal(
    list.body.data.some((k: { id: string }) => k.id === created.body.data.id),
    false,
  );
});

test('a key revoked by another process stops working here as soon as the database says so', async () => {
  const created = await request(server, 'POST', '/v1/api-keys', {
    key: server.apiKey,
    body: { name: 'elsewhere', permissions: ['channels:read'] },
  });
  const secret = created.body.data.secret;
  // Used once, so this process has it cached.
  assert.equal((await request(server, 'GET', '/v1/channels', { key: secret })).status, 200);
  // Revoked as another process would: straight in the database, this process not told directly.
  await server.container.database.db.update(apiKeys).set({ revokedAt: new Date() }).where(eq(apiKeys.id, created.body.data.id));
  const status = await eventually(
    'the cached key to be refused after its revocation',
    async () => {
      const { status } = await request(server, 'GET', '/v1/channels', { key: secret });
      return status === 200 ? undefined : status;
    },
    { timeoutMs: 5000, everyMs: 20 },
  );
  assert.equal(status, 401);
});

test('a key with an expiry stops working after it', async () => {
  const past = await request(server, 'POST', '/v1/api-keys', {
    key: server.apiKey,
    body: { name: 'expired', permissions: ['channels:read'], expires_at: new Date(clock.now().getTime() - 1000).toISOString() },
  });
  assert.equal(past.status, 400);
  assert.equal(past.body.errors[0].pointer, '/expires_at');
  const soon = await request(server, 'POST', '/v1/api-keys', {
    key: server.apiKey,
    body: { name: 'soon', permissions: ['channels:read'], expires_at: new Date(clock.now().getTime() + 1500).toISOString() },
  });
  assert.equal(soon.status, 201);
  assert.equal((await request(server, 'GET', '/v1/channels', { key: soon.body.data.secret })).status, 200);
  clock.advance(1600);
  assert.equal((await request(server, 'GET', '/v1/channels', { key: soon.body.data.secret })).status, 401);
});

test('creating needs api_keys:write and never grants a permission the creator lacks', async () => {
  const reader = await createKeyWith(server, ['channels:read']);
  const denied = await request(server, 'POST', '/v1/api-keys', { key: reader, body: { name: 'x', permissions: ['channels:read'] } });
  assert.equal(denied.status, 403);
  assert.match(denied.body.detail, /api_keys:write/);

  const writer = await createKeyWith(server, ['api_keys:write', 'messages:read']);
  const escalate = await request(server, 'POST', '/v1/api-keys', {
    key: writer,
    body: { name: 'x', permissions: ['messages:read', 'messages:send'] },
  });
  assert.equal(escalate.status, 403);
  assert.match(escalate.body.detail, /messages:send/);
  assert.doesNotMatch(escalate.body.detail, /messages:read/);

  const ok = await request(server, 'POST', '/v1/api-keys', { key: writer, body: { name: 'child', permissions: ['messages:read'] } });
  assert.equal(ok.status, 201);
  assert.equal(ok.body.data.created_by.type, 'api_key');
});

test('nobody revokes a key holding a permission they lack; an owner session revokes any key', async () => {
  const writer = await createKeyWith(server, ['api_keys:write']);
  const full = await createKeyWith(server, [...PERMISSIONS]);
  const fullId = (await request(server, 'GET', '/v1/api-keys?limit=200', { key: server.apiKey })).body.data.find(
    (k: { permissions: string[]; name: string }) => k.name.startsWith('limited ') && k.permissions.length === PERMISSIONS.length,
  ).id;
  const denied = await request(server, 'DELETE', `/v1/api-keys/${fullId}`, { key: writer });
  assert.equal(denied.status, 403);
  assert.match(denied.body.detail, /messages:send/);
  assert.doesNotMatch(denied.body.detail, /api_keys:write/);
  assert.ok(denied.body.permissions.includes('channels:write'));
  assert.equal((await request(server, 'GET', '/v1/channels', { key: full })).status, 200, 'the stronger key still works');

  // A key within the revoker's own permissions may go.
  const peer = await request(server, 'POST', '/v1/api-keys', { key: writer, body: { name: 'peer', permissions: ['api_keys:write'] } });
  assert.equal(peer.status, 201);
  assert.equal((await request(server, 'DELETE', `/v1/api-keys/${peer.body.data.id}`, { key: writer })).status, 204);

  const bySession = await request(server, 'DELETE', `/v1/api-keys/${fullId}`, { cookie });
  assert.equal(bySession.status, 204);
  assert.equal((await request(server, 'GET', '/v1/channels', { key: full })).status, 401);
});

test('bad bodies are 400 naming the field; names keep unicode and quotes intact', async () => {
  const cases: Array<[unknown, string]> = [
    [{ permissions: ['messages:read'] }, '/name'],
    [{ name: '', permissions: ['messages:read'] }, '/name'],
    [{ name: 'x'.repeat(101), permissions: ['messages:read'] }, '/name'],
    [{ name: 'x', permissions: [] }, '/permissions'],
    [{ name: 'x', permissions: 'messages:read' }, '/permissions'],
    [{ name: 'x', permissions: ['messages:fly'] }, '/permissions'],
    [{ name: 'x', permissions: ['messages:read'], expires_at: 'tomorrow' }, '/expires_at'],
  ];
  for (const [body, pointer] of cases) {
    const res = await request(server, 'POST', '/v1/api-keys', { key: server.apiKey, body });
    assert.equal(res.status, 400, JSON.stringify(body));
    assert.ok(
      res.body.errors.some((e: { pointer: string }) => e.pointer === pointer),
      `${JSON.stringify(body)} names ${pointer}: ${res.text}`,
    );
  }
  const name = `Zoë's "primary" key 🔑 <script>alert('x')</script> \\ ; DROP TABLE api_keys; --`;
  const created = await request(server, 'POST', '/v1/api-keys', { key: server.apiKey, body: { name, permissions: ['messages:read'] } });
  assert.equal(created.status, 201);
  assert.equal(created.body.data.name, name);
  const list = await request(server, 'GET', '/v1/api-keys?limit=200', { key: server.apiKey });
  assert.ok(list.body.data.some((k: { name: string }) => k.name === name));
});

test('the list pages with an opaque cursor and no key appears twice', async () => {
  for (let i = 0; i < 5; i++) {
    await request(server, 'POST', '/v1/api-keys', { key: server.apiKey, body: { name: `page ${i}`, permissions: ['messages:read'] } });
  }
  const seen: string[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const res: { status: number; body: { data: Array<{ id: string }>; meta: { next_cursor: string | null } } } = await request(
      server,
      'GET',
      `/v1/api-keys?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      { key: server.apiKey },
    );
    assert.equal(res.status, 200, JSON.stringify(res.body) + server.logs.filter((l) => l.includes('"error"')).join('\n'));
    assert.ok(res.body.data.length <= 2);
    seen.push(...res.body.data.map((k) => k.id));
    cursor = res.body.meta.next_cursor;
    pages++;
  } while (cursor && pages < 50);
  assert.equal(new Set(seen).size, seen.length);
  const all = await request(server, 'GET', '/v1/api-keys?limit=200', { key: server.apiKey });
  assert.deepEqual(
    seen,
    all.body.data.map((k: { id: string }) => k.id),
  );
  assert.equal((await request(server, 'GET', '/v1/api-keys?cursor=garbage', { key: server.apiKey })).status, 400);
  assert.equal((await request(server, 'GET', '/v1/api-keys?limit=0', { key: server.apiKey })).status, 400);
  assert.equal((await request(server, 'GET', '/v1/api-keys?limit=201', { key: server.apiKey })).status, 400);
});

test("another organization's keys are invisible and cannot be revoked", async () => {
  const other = await createOtherOrganization(server);
  const mine = await request(server, 'POST', '/v1/api-keys', {
    key: server.apiKey,
    body: { name: 'mine', permissions: ['channels:read'] },
  });
  const theirList = await request(server, 'GET', '/v1/api-keys?limit=200', { key: other.apiKey });
  assert.equal(theirList.status, 200, theirList.text);
  assert.equal(
    theirList.body.data.some((k: { id: string }) => k.id === mine.body.data.id),
    false,
  );
  const revoke = await request(server, 'DELETE', `/v1/api-keys/${mine.body.data.id}`, { key: other.apiKey });
  assert.equal(revoke.status, 404);
  assert.equal(revoke.body.detail, 'API key not found');
  assert.equal((await request(server, 'GET', '/v1/channels', { key: mine.body.data.secret })).status, 200);
});

test('auth cases for the API key routes', async () => {
  await checkAuthCases(server, [
    { method: 'GET', path: '/v1/api-keys', permission: 'api_keys:read' },
    { method: 'POST', path: '/v1/api-keys', permission: 'api_keys:write', body: { name: 'x', permissions: ['messages:read'] } },
    { method: 'DELETE', path: '/v1/api-keys/00000000-0000-0000-0000-000000000000', permission: 'api_keys:write' },
    { method: 'GET', path: '/v1/channels', permission: 'channels:read' },
  ]);
});
