/**
 * What the dispatcher writes for a send. A send the provider took moves the message out of `queued`,
 * and that `sent` write ends its dispatch lease too: no lease release follows it. A send that is
 * due again (a provider fault) is still released to its next time. Statements are counted where the
 * service makes them (the database's drizzle executor), not timed.
 */
// stores: both
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sql, type SQL } from 'drizzle-orm';
import { queryRows } from '../../src/db/client.ts';
import { request, startTestServer, type TestServer } from '../harness.ts';
import { eventually } from '../eventually.ts';
import { pairedGatewayChannel, send, waitForStatus } from '../messages-helpers.ts';

let server: TestServer;
let releases = 0;

before(async () => {
  // Statuses after `sent` far off: the messages stay `sent` while the test looks at them.
  server = await startTestServer({ worker: true, env: { SANDBOX_STATUS_DELAY_MS: '600000', SANDBOX_FAULT_INJECTION: 'true' } });
  const db = server.container.database.db as unknown as {
    execute(query: SQL): Promise<unknown>;
    dialect: { sqlToQuery(query: SQL): { sql: string } };
  };
  const execute = db.execute.bind(db);
  db.execute = (query: SQL) => {
    if (/update messages m set dispatch_at = r\.dispatch_at/.test(db.dialect.sqlToQuery(query).sql)) releases++;
    return execute(query);
  };
});
after(() => server.close());

const leases = (ids: string[]) =>
  queryRows<{ id: string; status: string; dispatch_at: Date | null }>(
    server.container.database.db,
    sql`select id::text, status, dispatch_at from messages where id in (${sql.join(
      ids.map((id) => sql`${id}::uuid`),
      sql`, `,
    )})`,
  );

test('sends the provider took end their lease in their `sent` write: no release statement, nothing left due', {
  timeout: 60_000,
}, async () => {
  const channel = await pairedGatewayChannel(server, 'writes');
  releases = 0;
  const answers = await Promise.all(
    Array.from({ length: 6 }, (_, i) =>
      send(server, {
        channel_id: channel.id,
        to: `+4915112377${String(i).padStart(2, '0')}`,
        type: 'text',
        content: { body: `lease ${i}` },
      }),
    ),
  );
  assert.ok(
    answers.every((a) => a.status === 201),
    answers.map((a) => a.text).join('\n'),
  );
  const ids = answers.map((a) => a.body.data.id as string);
  for (const id of ids) await waitForStatus(server, id, 'sent');
  // The dispatcher settles a send after its `sent` write resolves: wait until none is held.
  await eventually('the sends settled', async () =>
    (await leases(ids)).every((r) => r.status === 'sent' && r.dispatch_at === null) ? true : undefined,
  );
  assert.equal(releases, 0, `${releases} lease release statements for ${ids.length} sends already written as sent`);
});

test('a send the provider refused for now is released to its next attempt', { timeout: 60_000 }, async () => {
  const channel = await pairedGatewayChannel(server, 'writes, faults');
  const session = (await request(server, 'GET', `/v1/channels/${channel.id}`, { key: server.apiKey })).body.data.settings.session as string;
  // The sandbox gateway answers this session's next send with a 500 (a provider fault: tried again later).
  const fault = await request(server, 'PUT', '/sandbox/faults', { body: { rules: [{ fault: 'error', account: session, times: 1 }] } });
  assert.equal(fault.status, 200, fault.text);
  releases = 0;
  const sent = await send(server, { channel_id: channel.id, to: '+491511237799', type: 'text', content: { body: 'refused once' } });
  assert.equal(sent.status, 201, sent.text);
  const id = sent.body.data.id as string;
  await eventually('the refused attempt released to its next time', async () => {
    const [row] = await leases([id]);
    return row && row.status === 'queued' && row.dispatch_at !== null && releases > 0 ? true : undefined;
  });
  await waitForStatus(server, id, 'sent');
});
