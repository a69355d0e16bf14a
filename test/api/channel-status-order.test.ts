/**
 * Gateway session reports can overtake each other (callbacks are retried and run concurrently): a
 * report older than the last one applied must not move the channel back.
 */
// stores: both
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import { eq, sql } from 'drizzle-orm';
import pg from 'pg';
import { channelDeps } from '../../src/container.ts';
import { queryRows } from '../../src/db/client.ts';
import { channels, providerEvents } from '../../src/db/schema.ts';
import { checkChannelHealth } from '../../src/domain/channels/watchdog.ts';
import { signBody } from '../../src/providers/signature.ts';
import { request, startTestServer, usingPostgres, type TestServer } from '../harness.ts';
import { eventually } from '../eventually.ts';
import { pairedGatewayChannel } from '../messages-helpers.ts';

let server: TestServer;
before(async () => {
  server = await startTestServer({ worker: true });
});
after(() => server.close());

/** Reports a gateway session status for the channel, stamped `at`, as its gateway would. */
async function sessionReporter(id: string) {
  const [row] = await server.container.database.db.select().from(channels).where(eq(channels.id, id));
  const secret = (JSON.parse(server.container.sealer.open(row!.credentialsEncrypted!)) as { callback_secret: string }).callback_secret;
  const session = (row!.settings as { session: string }).session;
  return async (status: string, at: Date) => {
    const payload = JSON.stringify({ event: 'session.status', session, timestamp: at.toISOString(), payload: { status } });
    const res = await request(server, 'POST', `/v1/providers/chatapp_unofficial/webhook/${id}`, {
      rawBody: payload,
      headers: { 'x-gateway-signature': signBody(secret, payload), 'x-gateway-event-id': randomUUID() },
    });
    assert.ok(res.status < 300, res.text);
  };
}

test('a late session report older than the last applied one changes nothing; a newer one applies', async () => {
  const { id } = await pairedGatewayChannel(server, 'ordered');
  const report = await sessionReporter(id);
  const statusOf = async () => (await request(server, 'GET', `/v1/channels/${id}`, { key: server.apiKey })).body.data.status as string;

  // The QR step of the pairing, reported an hour ago, arrives after the channel is connected.
  await report('SCAN_QR', new Date(Date.now() - 3_600_000));
  // A newer report is applied, whichever of the two is handled first.
  await report('STOPPED', new Date(Date.now() + 1000));
  await eventually('the newer report', async () => ((await statusOf()) === 'disconnected' ? true : undefined));
  const history = (await request(server, 'GET', `/v1/channels/${id}/status`, { key: server.apiKey })).body.data.history as Array<{
    to: string;
    at: string;
  }>;
  // Newest first in the answer; oldest first here.
  const steps = history.map((h) => h.to).reverse();
  const connected = steps.lastIndexOf('connected');
  assert.ok(connected >= 0, JSON.stringify(history));
  assert.deepEqual(steps.slice(connected), ['connected', 'disconnected'], `the stale report moved the channel: ${JSON.stringify(history)}`);
  assert.equal(await statusOf(), 'disconnected');
});

test('a report handled while a newer one commits is judged against the newer one, and the time of the last report never goes back', {
  skip: !usingPostgres && 'needs a second connection to hold the channel row (PostgreSQL)',
}, async () => {
  const created = await request(server, 'POST', '/v1/channels', {
    key: server.apiKey,
    body: { platform: 'chatapp_unofficial', name: 'racing', sandbox: true },
  });
  assert.equal(created.status, 201, created.text);
  const id = created.body.data.id as string;
  const connect = await request(server, 'POST', `/v1/channels/${id}/connect`, { key: server.apiKey });
  assert.equal(connect.status, 200, connect.text);
  assert.equal(connect.body.data.channel.status, 'pairing');
  const report = await sessionReporter(id);
  const unprocessed = async () =>
    (
      await queryRows<{ n: number }>(
        server.container.database.db,
        sql`select count(*)::int as n from provider_events where channel_id = ${id} and processed_at is null`,
      )
    )[0]!.n;
  // The gateway's own report of the QR step (sent when pairing started) is applied first.
  await eventually('the pairing start reported', async () => {
    const [stored] = await queryRows<{ n: number }>(
      server.container.database.db,
      sql`select count(*)::int as n from provider_events where channel_id = ${id}`,
    );
    return stored!.n > 0 && (await unprocessed()) === 0 ? true : undefined;
  });
  // Both later than anything applied so far.
  const scanQrAt = new Date(Date.now() + 60_000);
  const pairedAt = new Date(Date.now() + 120_000);

  // Another handler applies the phone's pairing (reported later) and has not committed yet...
  const other = new pg.Client({ connectionString: server.databaseUrl });
  await other.connect();
  try {
    await other.query('begin');
    await other.query(`update channels set status = 'connected', status_reported_at = $2 where id = $1`, [id, pairedAt]);
    // ...while the QR step's report (older) is handled: it waits for the row.
    await report('SCAN_QR', scanQrAt);
    await eventually('the older report to wait for the channel row', async () => {
      const waiting = await other.query(`select count(*)::int as n from pg_locks where not granted and pid <> pg_backend_pid()`);
      return waiting.rows[0].n > 0 ? true : undefined;
    });
    await other.query('commit');
  } finally {
    await other.end();
  }
  await eventually('the older report handled', async () => ((await unprocessed()) === 0 ? true : undefined));
  // The same old report once more (a retried callback): still older than the pairing.
  await report('SCAN_QR', scanQrAt);
  await eventually('the repeated report handled', async () => ((await unprocessed()) === 0 ? true : undefined));

  const [after] = await server.container.database.db.select().from(channels).where(eq(channels.id, id));
  assert.equal(after!.status, 'connected', 'an older report moved the channel back');
  assert.equal(after!.statusReportedAt?.toISOString(), pairedAt.toISOString(), 'the time of the last applied report went back');
});

test('a session state the watchdog read counts as a report of when it asked: a callback older than that, arriving later, changes nothing', async () => {
  const { id } = await pairedGatewayChannel(server, 'watched');
  const report = await sessionReporter(id);
  const statusOf = async () => (await request(server, 'GET', `/v1/channels/${id}`, { key: server.apiKey })).body.data.status as string;
  const handled = () =>
    eventually('the report to be handled', async () => {
      const rows = await server.container.database.db.select().from(providerEvents).where(eq(providerEvents.channelId, id));
      return rows.every((r) => r.processedAt) ? true : undefined;
    });
  const start = Date.now();
  // The gateway says the session shows a QR again (the sandbox's session is in fact still paired).
  await report('SCAN_QR', new Date(start + 10_000));
  await eventually('the QR step', async () => ((await statusOf()) === 'pairing' ? true : undefined));
  // A minute on, the watchdog asks the gateway: the session works, and the channel is connected again.
  await checkChannelHealth({
    ...channelDeps(server.container),
    clock: { now: () => new Date(start + 60_000) },
    logger: server.container.logger,
  });
  assert.equal(await statusOf(), 'connected');
  // A QR step stamped before that check is delivered only now: older news than what the check saw.
  await report('SCAN_QR', new Date(start + 30_000));
  await handled();
  assert.equal(await statusOf(), 'connected', 'the older report did not undo what the check saw');
});
