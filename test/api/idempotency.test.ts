/**
 * Idempotency-Key on every authenticated POST and PATCH (src/http/idempotency.ts): a retry under the same
 * key answers the first answer again and does nothing twice; a key is the credential's own; a secret
 * shown once is never stored nor shown again; a request left running holds its key for a lease only.
 */
// stores: both
import assert from 'node:assert/strict';
import { sql } from 'drizzle-orm';
import { after, before, test } from 'node:test';
import { queryRows } from '../../src/db/client.ts';
import { purgeIdempotencyKeys } from '../../src/db/idempotent-requests.ts';
import { IN_FLIGHT_LEASE_MS } from '../../src/http/idempotency.ts';
import {
  createKeyWith,
  createOtherOrganization,
  loginCookie,
  movableClock,
  request,
  startTestServer,
  type TestServer,
} from '../harness.ts';

const clock = movableClock();
let server: TestServer;
before(async () => {
  server = await startTestServer({ clock });
});
after(async () => server?.close());

async function newContact(name: string): Promise<string> {
  const res = await request(server, 'POST', '/v1/contacts', {
    key: server.apiKey,
    body: { phone_number: `+3906${Math.floor(Math.random() * 1e8)}`, name },
  });
  assert.ok(res.status === 201 || res.status === 200, res.text);
  return res.body.data.id;
}

async function notesOf(contactId: string, key = server.apiKey): Promise<string[]> {
  const res = await request(server, 'GET', `/v1/contacts/${contactId}/notes?limit=200`, { key });
  assert.equal(res.status, 200, res.text);
  return res.body.data.map((note: { body: string }) => note.body);
}

test('a retry with the same key answers the first answer again, marked replayed, and creates nothing twice', async () => {
  const contact = await newContact('Retried');
  const note = (key: string, body = 'Called back.') =>
    request(server, 'POST', `/v1/contacts/${contact}/notes`, { key: server.apiKey, headers: { 'idempotency-key': key }, body: { body } });

  const first = await note('note-1');
  assert.equal(first.status, 201, first.text);
  assert.equal(first.headers.get('idempotent-replayed'), null);
  const again = await note('note-1');
  assert.equal(again.status, 201, again.text);
  assert.equal(again.headers.get('idempotent-replayed'), 'true');
  assert.deepEqual(again.body, first.body, 'the same answer, the same note');
  assert.match(again.headers.get('content-type') ?? '', /application\/json/);
  assert.deepEqual(await notesOf(contact), ['Called back.']);

  // Another key is another request; no key at all is never deduplicated.
  assert.equal((await note('note-2')).status, 201);
  assert.equal(
    (await request(server, 'POST', `/v1/contacts/${contact}/notes`, { key: server.apiKey, body: { body: 'Called back.' } })).status,
    201,
  );
  assert.equal((await notesOf(contact)).length, 3);

  // The same key with another body is refused, naming the reason, and changes nothing.
  const other = await note('note-1', 'Something else.');
  assert.equal(other.status, 409, other.text);
  assert.match(JSON.stringify(other.body), /Idempotency-Key was already used with a different request/);
  assert.equal((await notesOf(contact)).length, 3);
});

test("PATCH takes a key too; a key is the credential's own: another key or organization runs its own request", async () => {
  const contact = await newContact('Patched');
  const patch = (key: string, name: string) =>
    request(server, 'PATCH', `/v1/contacts/${contact}`, { key, headers: { 'idempotency-key': 'patch-1' }, body: { name } });
  const first = await patch(server.apiKey, 'First name');
  assert.equal(first.status, 200, first.text);
  const replayed = await patch(server.apiKey, 'First name');
  assert.equal(replayed.headers.get('idempotent-replayed'), 'true');

  // A second key of the same organization: the same key string is its own, so its request runs.
  const second = await createKeyWith(server, ['contacts:read', 'contacts:write']);
  const byOther = await patch(second, 'Second name');
  assert.equal(byOther.status, 200, byOther.text);
  assert.equal(byOther.headers.get('idempotent-replayed'), null);
  assert.equal(byOther.body.data.name, 'Second name');

  // Another organization under the same key string learns nothing of the first: its contact is unknown to it.
  const stranger = await createOtherOrganization(server, 'idem');
  const foreign = await request(server, 'PATCH', `/v1/contacts/${contact}`, {
    key: stranger.apiKey,
    headers: { 'idempotency-key': 'patch-1' },
    body: { name: 'First name' },
  });
  assert.equal(foreign.status, 404, foreign.text);
  assert.equal(foreign.headers.get('idempotent-replayed'), null);
});

test('a streamed body (an import) is told by its length and type: a retry is replayed, another length refused', async () => {
  const csv = 'phone,name\n+390611112222,Imported Once\n';
  const send = (body: string) =>
    request(server, 'POST', '/v1/contacts/import', {
      key: server.apiKey,
      headers: { 'idempotency-key': 'import-1' },
      rawBody: body,
      contentType: 'text/csv',
    });
  const first = await send(csv);
  assert.equal(first.status, 200, first.text);
  assert.equal(first.body.data.created, 1);
  const again = await send(csv);
  assert.equal(again.headers.get('idempotent-replayed'), 'true');
  assert.deepEqual(again.body, first.body);
  assert.equal((await send(`${csv}+390633334444,Another\n`)).status, 409);
});

test('a malformed key is a 400 naming the header, and nothing is done', async () => {
  const contact = await newContact('Malformed');
  const res = await request(server, 'POST', `/v1/contacts/${contact}/notes`, {
    key: server.apiKey,
    headers: { 'idempotency-key': 'has spaces' },
    body: { body: 'x' },
  });
  assert.equal(res.status, 400, res.text);
  assert.match(res.text, /idempotency-key/i);
  assert.deepEqual(await notesOf(contact), []);
});

test('a route whose answer holds a secret shown once keeps no body: a retry is a 409 without the secret, and no second key is made', async () => {
  const create = () =>
    request(server, 'POST', '/v1/api-keys', {
      key: server.apiKey,
      headers: { 'idempotency-key': 'key-once' },
      body: { name: 'Retried key', permissions: ['contacts:read'] },
    });
  const first = await create();
  assert.equal(first.status, 201, first.text);
  const secret: string = first.body.data.secret;
  assert.ok(secret);
  const retry = await create();
  assert.equal(retry.status, 409, retry.text);
  assert.ok(!retry.text.includes(secret), 'the secret is not shown again');
  assert.match(retry.text, /already succeeded/);
  const keys = await request(server, 'GET', '/v1/api-keys?limit=200', { key: server.apiKey });
  assert.equal(keys.body.data.filter((k: { name: string }) => k.name === 'Retried key').length, 1);
  const stored = await queryRows<{ body: string | null; status_code: number }>(
    server.container.database.db,
    sql`select body, status_code from idempotent_requests where key = 'key-once'`,
  );
  assert.deepEqual(stored, [{ body: null, status_code: 201 }], 'only that it succeeded is stored');
});

test('a first request still running holds its key (409, Retry-After); one abandoned past the lease is run again', async () => {
  const contact = await newContact('Abandoned');
  // A first request that died midway: its row says started, and nothing was done.
  const scope = `api_key:${(await request(server, 'GET', '/v1/api-keys?limit=200', { key: server.apiKey })).body.data.find((k: { name: string }) => k.name === 'Bootstrap key').id}`;
  const body = { body: 'After the crash.' };
  const send = () =>
    request(server, 'POST', `/v1/contacts/${contact}/notes`, { key: server.apiKey, headers: { 'idempotency-key': 'crashed' }, body });
  // The real request first claims and completes; then the row is set back to started, as a crash would leave it.
  assert.equal((await send()).status, 201);
  await server.container.database.db.execute(
    sql`update idempotent_requests set state = 'started', status_code = null, body = null, started_at = ${clock.now()}
         where key = 'crashed' and scope = ${scope}`,
  );
  const running = await send();
  assert.equal(running.status, 409, running.text);
  assert.equal(running.headers.get('retry-after'), '1');
  assert.match(running.text, /still running/);

  clock.advance(IN_FLIGHT_LEASE_MS + 1_000);
  const rerun = await send();
  assert.equal(rerun.status, 201, rerun.text);
  assert.equal(rerun.headers.get('idempotent-replayed'), null, 'run again, not replayed');
  assert.equal((await send()).headers.get('idempotent-replayed'), 'true', 'and its answer kept');
});

test('answers of 4xx are kept; a dashboard session has keys of its own; keys end after 24 hours and are purged', async () => {
  const unknown = '00000000-0000-7000-8000-000000000000';
  const missing = () =>
    request(server, 'POST', `/v1/contacts/${unknown}/notes`, {
      key: server.apiKey,
      headers: { 'idempotency-key': 'four-oh-four' },
      body: { body: 'x' },
    });
  assert.equal((await missing()).status, 404);
  const again = await missing();
  assert.equal(again.status, 404);
  assert.equal(again.headers.get('idempotent-replayed'), 'true');

  const contact = await newContact('Session');
  const cookie = await loginCookie(server);
  const bySession = () =>
    request(server, 'POST', `/v1/contacts/${contact}/notes`, {
      cookie,
      headers: { 'idempotency-key': 'session-1' },
      body: { body: 'From the inbox.' },
    });
  assert.equal((await bySession()).status, 201);
  assert.equal((await bySession()).headers.get('idempotent-replayed'), 'true');
  assert.deepEqual(await notesOf(contact), ['From the inbox.']);

  clock.advance(25 * 3_600_000);
  // Past 24 hours the key is a new key: the request runs again.
  const later = await bySession();
  assert.equal(later.status, 201);
  assert.equal(later.headers.get('idempotent-replayed'), null);
  assert.equal((await notesOf(contact)).length, 2);

  clock.advance(25 * 3_600_000);
  const removed = await purgeIdempotencyKeys({ db: server.container.database.db }, new Date(clock.now().getTime() - 24 * 3_600_000));
  assert.ok(removed > 0);
  const left = await queryRows<{ n: number }>(server.container.database.db, sql`select count(*)::int as n from idempotent_requests`);
  assert.equal(left[0]!.n, 0);
});

test('the document shows Idempotency-Key on every authenticated POST and PATCH, and every answer with a secret shown once is never replayed', async () => {
  const doc = (await request(server, 'GET', '/v1/openapi.json')).body;
  const schemas = doc.components.schemas as Record<string, any>;
  /** Whether a response schema holds a value shown once (its description says so, or it is a bare secret or token). */
  const holdsSecret = (schema: any, depth = 0): boolean => {
    if (!schema || typeof schema !== 'object' || depth > 8) return false;
    if (schema.$ref) return holdsSecret(schemas[schema.$ref.split('/').pop()], depth + 1);
    for (const [name, property] of Object.entries((schema.properties ?? {}) as Record<string, any>)) {
      if (/^(secret|client_secret|token)$/.test(name) || /shown (this )?once|only in this answer/i.test(property.description ?? ''))
        return true;
      if (holdsSecret(property, depth + 1)) return true;
    }
    return ['items', 'anyOf', 'oneOf', 'allOf'].some((k) => [schema[k] ?? []].flat().some((s: any) => holdsSecret(s, depth + 1)));
  };
  const modes = new Map(server.app.routeSummaries.map((route) => [`${route.method} ${route.url.replace(/:(\w+)/g, '{$1}')}`, route]));
  const secretRoutes: string[] = [];
  for (const [path, ops] of Object.entries(doc.paths as Record<string, Record<string, any>>)) {
    for (const [method, op] of Object.entries(ops)) {
      if (method !== 'post' && method !== 'patch') continue;
      const where = `${method.toUpperCase()} ${path}`;
      const route = modes.get(where);
      assert.ok(route, `${where} is a route`);
      if (route.public || route.optional) continue;
      const header = (op.parameters ?? []).find((p: any) => p.in === 'header' && p.name === 'idempotency-key');
      assert.ok(header, `${where} documents Idempotency-Key`);
      assert.ok(op.responses['409'], `${where} documents its 409`);
      const secretful = Object.entries(op.responses as Record<string, any>)
        .filter(([status]) => status.startsWith('2'))
        .some(([, response]) => holdsSecret(response.content?.['application/json']?.schema));
      if (secretful) secretRoutes.push(where);
      assert.equal(
        route.idempotency === 'no-replay',
        secretful && route.idempotency !== 'own',
        `${where}: answers shown once are never replayed`,
      );
    }
  }
  assert.ok(
    secretRoutes.includes('POST /v1/api-keys') && secretRoutes.length >= 5,
    `found the routes with secrets: ${secretRoutes.join(', ')}`,
  );
});
