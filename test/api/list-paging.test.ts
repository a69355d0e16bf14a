/**
 * The organization lists page like every other list: your organizations, an organization's members,
 * its pending invitations and your sessions. Walking them with a small limit gives every row exactly
 * once, in the documented order, rows sharing a time included (the id breaks the tie); the last page
 * says so; a cursor we did not make is a 400 naming /cursor.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { eq, inArray } from 'drizzle-orm';
import { invitations, memberships, organizations, users } from '../../src/db/schema.ts';
import { openSession } from '../../src/domain/sessions/sessions.ts';
import { uuidv7 } from '../../src/lib/ids.ts';
import { loginCookie, OWNER_EMAIL, request, startTestServer, type RequestOptions, type TestServer } from '../harness.ts';
import { createGrant, createOAuthClient } from '../oauth-client-fixture.ts';

let server: TestServer;
let cookie: string;
let ownerId: string;

before(async () => {
  server = await startTestServer();
  cookie = await loginCookie(server);
  const [owner] = await server.container.database.db.select({ id: users.id }).from(users).where(eq(users.email, OWNER_EMAIL));
  ownerId = owner!.id;
});
after(async () => {
  await server?.close();
});

const db = () => server.container.database.db;
/** A time shared by several seeded rows, so only the id orders them. */
const TIE = new Date(Date.now() - 3_600_000);
const FORGED = Buffer.from(JSON.stringify({ t: '2020-01-01T00:00:00.000Z', id: "x' or 1=1 --" })).toString('base64url');

/** Every row of a list, page by page with `limit`; each page but the last is full and hands on a cursor. */
async function walk<T>(path: string, as: RequestOptions, limit: number): Promise<T[]> {
  const rows: T[] = [];
  let cursor: string | null | undefined;
  for (let pages = 0; pages < 100; pages++) {
    const res = await request(server, 'GET', `${path}?limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`, as);
    assert.equal(res.status, 200, `${path}: ${res.text}`);
    const page = res.body as { data: T[]; meta: { next_cursor: string | null } };
    assert.ok(page.data.length <= limit, `${path}: a page of at most ${limit}`);
    rows.push(...page.data);
    cursor = page.meta.next_cursor;
    if (cursor === null) return rows;
    assert.equal(page.data.length, limit, `${path}: only the last page is short`);
  }
  assert.fail(`${path}: no last page`);
}

async function refusesForgedCursor(path: string, as: RequestOptions) {
  const res = await request(server, 'GET', `${path}?cursor=${FORGED}`, as);
  assert.equal(res.status, 400, `${path}: ${res.text}`);
  assert.deepEqual(
    res.body.errors.map((e: { pointer: string; location: string }) => [e.location, e.pointer]),
    [['query', '/cursor']],
  );
}

const byTimeThenId =
  <T>(time: (r: T) => string, id: (r: T) => string) =>
  (a: T, b: T) =>
    time(a) < time(b) ? -1 : time(a) > time(b) ? 1 : id(a) < id(b) ? -1 : id(a) > id(b) ? 1 : 0;

async function seedUser(i: number): Promise<string> {
  const id = uuidv7();
  await db()
    .insert(users)
    .values({ id, email: `paging-${i}@example.com`, name: `Paging ${i}`, passwordHash: 'not a hash', createdAt: TIE, updatedAt: TIE });
  return id;
}

test('members page oldest first (joined time, then user id): every member once, forged cursors refused', async () => {
  for (let i = 0; i < 7; i++) {
    const userId = await seedUser(i);
    // Four join at the same instant, the others a second apart.
    const joined = i < 4 ? TIE : new Date(TIE.getTime() + i * 1000);
    await db().insert(memberships).values({ organizationId: server.organizationId, userId, role: 'member', createdAt: joined });
  }
  const path = `/v1/organizations/${server.organizationId}/members`;
  const all = await walk<{ user_id: string; joined_at: string }>(path, { key: server.apiKey }, 100);
  assert.equal(all.length, 8, 'the owner and seven members');
  const expected = [...all]
    .sort(
      byTimeThenId(
        (m) => m.joined_at,
        (m) => m.user_id,
      ),
    )
    .map((m) => m.user_id);
  assert.deepEqual(
    all.map((m) => m.user_id),
    expected,
    'one page is already in the documented order',
  );
  for (const limit of [1, 3]) {
    assert.deepEqual(
      (await walk<{ user_id: string }>(path, { key: server.apiKey }, limit)).map((m) => m.user_id),
      expected,
      `limit ${limit}`,
    );
  }
  await refusesForgedCursor(path, { key: server.apiKey });
});

test("your organizations page in the order you joined them; an API key sees its own, an OAuth token its grant's oldest first; forged cursors refused", async () => {
  for (let i = 0; i < 5; i++) {
    const id = uuidv7();
    await db()
      .insert(organizations)
      .values({ id, name: `Paging org ${i}`, createdAt: TIE, updatedAt: TIE });
    await db()
      .insert(memberships)
      .values({ organizationId: id, userId: ownerId, role: 'member', createdAt: i < 3 ? TIE : new Date(TIE.getTime() + i * 1000) });
  }
  const created = await request(server, 'POST', '/v1/organizations', { cookie, body: { name: 'Made today' } });
  assert.equal(created.status, 201, created.text);
  const memberOf = await db()
    .select({ id: memberships.organizationId, joined: memberships.createdAt })
    .from(memberships)
    .where(eq(memberships.userId, ownerId));
  const expected = memberOf
    .map((m) => ({ id: m.id, joined: m.joined.toISOString() }))
    .sort(
      byTimeThenId(
        (m) => m.joined,
        (m) => m.id,
      ),
    )
    .map((m) => m.id);
  assert.equal(expected.length, 7);
  for (const limit of [1, 2, 50]) {
    assert.deepEqual(
      (await walk<{ id: string }>('/v1/organizations', { cookie }, limit)).map((o) => o.id),
      expected,
      `limit ${limit}`,
    );
  }
  assert.deepEqual(
    (await walk<{ id: string }>('/v1/organizations', { key: server.apiKey }, 1)).map((o) => o.id),
    [server.organizationId],
  );

  // An OAuth token: the organizations its grant reaches, oldest first (then id).
  const client = await createOAuthClient(server, { scopes: ['members:read'] });
  const grant = await createGrant(server, { client, userId: ownerId, organizationIds: expected });
  const reached = await db()
    .select({ id: organizations.id, created: organizations.createdAt })
    .from(organizations)
    .where(inArray(organizations.id, expected));
  const byAge = reached
    .map((o) => ({ id: o.id, t: o.created.toISOString() }))
    .sort(
      byTimeThenId(
        (o) => o.t,
        (o) => o.id,
      ),
    )
    .map((o) => o.id);
  const asToken = { bearer: grant.accessToken, headers: { 'x-organization-id': server.organizationId } };
  for (const limit of [1, 3])
    assert.deepEqual(
      (await walk<{ id: string }>('/v1/organizations', asToken, limit)).map((o) => o.id),
      byAge,
      `token, limit ${limit}`,
    );
  await refusesForgedCursor('/v1/organizations', { cookie });
  await refusesForgedCursor('/v1/organizations', { key: server.apiKey });
});

test('pending invitations page newest first (then id), only pending ones; forged cursors refused', async () => {
  const pending: Array<{ id: string; created: Date }> = [];
  for (let i = 0; i < 6; i++) {
    const id = uuidv7();
    const created = i < 3 ? TIE : new Date(TIE.getTime() + i * 1000);
    // Every third one is gone (cancelled): not listed.
    const revokedAt = i % 3 === 2 ? new Date() : null;
    await db()
      .insert(invitations)
      .values({
        id,
        organizationId: server.organizationId,
        email: `invitee-${i}@example.com`,
        role: 'member',
        tokenHash: `hash-${id}`,
        createdAt: created,
        expiresAt: new Date(Date.now() + 86_400_000),
        revokedAt,
      });
    if (!revokedAt) pending.push({ id, created });
  }
  const expected = pending
    .map((p) => ({ id: p.id, t: p.created.toISOString() }))
    .sort(
      byTimeThenId(
        (p) => p.t,
        (p) => p.id,
      ),
    )
    .reverse()
    .map((p) => p.id);
  const path = `/v1/organizations/${server.organizationId}/invitations`;
  for (const limit of [1, 3, 50]) {
    assert.deepEqual(
      (await walk<{ id: string }>(path, { key: server.apiKey }, limit)).map((i) => i.id),
      expected,
      `limit ${limit}`,
    );
  }
  await refusesForgedCursor(path, { key: server.apiKey });
});

test('your sessions page newest first (then id), this one marked; forged cursors refused', async () => {
  const clock = { now: () => TIE };
  for (let i = 0; i < 4; i++)
    await openSession({ db: db(), clock, ttlHours: 24 }, { userId: ownerId, organizationId: server.organizationId, ip: '127.0.0.1' });
  const all = await walk<{ id: string; created_at: string; current: boolean }>('/v1/auth/sessions', { cookie }, 50);
  assert.ok(all.length >= 5, 'the login session and the four opened');
  assert.equal(all.filter((s) => s.current).length, 1);
  const expected = [...all]
    .sort(
      byTimeThenId(
        (s) => s.created_at,
        (s) => s.id,
      ),
    )
    .reverse()
    .map((s) => s.id);
  assert.deepEqual(
    all.map((s) => s.id),
    expected,
    'one page is already in the documented order',
  );
  for (const limit of [1, 2]) {
    assert.deepEqual(
      (await walk<{ id: string }>('/v1/auth/sessions', { cookie }, limit)).map((s) => s.id),
      expected,
      `limit ${limit}`,
    );
  }
  await refusesForgedCursor('/v1/auth/sessions', { cookie });
});
