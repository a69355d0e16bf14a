/**
 * The sandbox gateway's common send (a new idempotency key, a message it takes as it is) is inserted
 * with the sends of the moment, its session and API key checked by the insert itself: no lookup of the
 * session first. That lookup was one of the five or six statements a message cost PostgreSQL in the
 * pipeline benchmark (DECISIONS 62). Whatever the path, a send is stored only for a working session
 * driven by the key it came with.
 */
// stores: both
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sql } from 'drizzle-orm';
import pg from 'pg';
import { queryRows } from '../../src/db/client.ts';
import type { SandboxGatewaySession } from '../../src/sandbox/contract.ts';
import { request, startTestServer, usingPostgres, type TestServer } from '../harness.ts';

let server: TestServer;
let working: SandboxGatewaySession;
let other: SandboxGatewaySession;
let stopped: SandboxGatewaySession;

before(async () => {
  // No status callbacks while the tests look (they would read the sandbox's tables too).
  server = await startTestServer({ env: { SANDBOX_STATUS_DELAY_MS: '600000' } });
  const db = server.container.database.db;
  [working, other, stopped] = [
    await server.container.sandbox!.provisionGatewaySession(db),
    await server.container.sandbox!.provisionGatewaySession(db),
    await server.container.sandbox!.provisionGatewaySession(db),
  ];
  // Paired, as a scanned QR leaves them.
  for (const [s, phone] of [
    [working, '15550101001'],
    [other, '15550101002'],
  ] as const) {
    await db.execute(sql`update sandbox_accounts set status = 'WORKING', display_phone_number = ${phone} where id = ${s.session}`);
  }
});
after(() => server.close());

const send = (path: SandboxGatewaySession, bearer: string | undefined, key: string) =>
  request(server, 'POST', `/sandbox/gateway/sessions/${path.session}/messages`, {
    bearer,
    body: { to: '4915112340001', type: 'text', content: { body: 'hi' }, idempotency_key: key },
  });

const stored = async (key: string) =>
  (
    await queryRows<{ account_id: string }>(
      server.container.database.db,
      sql`select account_id from sandbox_messages where idempotency_key = ${key}`,
    )
  ).map((r) => r.account_id);

test('a send is stored only for a working session driven by the key it came with', async () => {
  const created = await send(working, working.apiKey, 'k-1');
  assert.equal(created.status, 201, created.text);
  assert.deepEqual(await stored('k-1'), [working.session]);
  const again = await send(working, working.apiKey, 'k-1');
  assert.equal(again.status, 200, again.text);
  assert.equal(again.body.id, created.body.id);

  // Another working session's key on this session's path: not its session.
  const cross = await send(working, other.apiKey, 'k-2');
  assert.equal(cross.status, 404, cross.text);
  assert.equal(cross.body.error.code, 'not_found');
  const wrong = await send(working, 'gwk_wrong', 'k-3');
  assert.equal(wrong.status, 401, wrong.text);
  const none = await send(working, undefined, 'k-4');
  assert.equal(none.status, 401, none.text);
  const unpaired = await send(stopped, stopped.apiKey, 'k-5');
  assert.equal(unpaired.status, 409, unpaired.text);
  assert.equal(unpaired.body.error.code, 'session_not_working');
  for (const key of ['k-2', 'k-3', 'k-4', 'k-5']) assert.deepEqual(await stored(key), [], `nothing stored for ${key}`);
});

/** The statements on the sandbox's tables while `fn` runs (every pg client of this process). */
async function sandboxStatements(fn: () => Promise<unknown>): Promise<string[]> {
  const texts: string[] = [];
  const query = pg.Client.prototype.query;
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    const text = typeof args[0] === 'string' ? args[0] : (args[0] as { text?: string } | null)?.text;
    if (text) texts.push(text.replace(/\s+/g, ' ').trim());
    return (query as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof query;
  try {
    await fn();
  } finally {
    pg.Client.prototype.query = query;
  }
  return texts.filter((t) => t.includes('sandbox_'));
}

test('the common send reads no session before its insert; a repeated key is inserted once, then looked up', {
  skip: !usingPostgres && 'counts the statements sent to PostgreSQL',
}, async () => {
  let res: Awaited<ReturnType<typeof send>> | undefined;
  const first = await sandboxStatements(async () => (res = await send(working, working.apiKey, 'k-count')));
  assert.equal(res!.status, 201, res!.text);
  assert.match(
    first[0] ?? '',
    /^insert into sandbox_messages/,
    `the statements on the sandbox's tables: ${first.map((t) => t.slice(0, 60)).join(' | ')}`,
  );
  assert.equal(first.length, 1);

  const again = await sandboxStatements(async () => (res = await send(working, working.apiKey, 'k-count')));
  assert.equal(res!.status, 200, res!.text);
  const inserts = again.filter((t) => t.startsWith('insert into sandbox_messages'));
  assert.equal(inserts.length, 1, `the statements on the sandbox's tables: ${again.map((t) => t.slice(0, 60)).join(' | ')}`);
});
