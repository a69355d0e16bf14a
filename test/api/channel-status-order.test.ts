/**
 * Gateway session reports can overtake each other (callbacks are retried and run concurrently): a
 * report older than the last one applied must not move the channel back.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import { eq } from 'drizzle-orm';
import { channels } from '../../src/db/schema.ts';
import { signBody } from '../../src/providers/signature.ts';
import { request, startTestServer, type TestServer } from '../harness.ts';
import { eventually } from '../eventually.ts';
import { pairedGatewayChannel } from '../messages-helpers.ts';

let server: TestServer;
before(async () => {
  server = await startTestServer({ worker: true });
});
after(() => server.close());

test('a late session report older than the last applied one changes nothing; a newer one applies', async () => {
  const { id } = await pairedGatewayChannel(server, 'ordered');
  const [row] = await server.container.database.db.select().from(channels).where(eq(channels.id, id));
  const secret = (JSON.parse(server.container.sealer.open(row!.credentialsEncrypted!)) as { callback_secret: string }).callback_secret;
  const session = (row!.settings as { session: string }).session;
  const report = async (status: string, at: Date) => {
    const payload = JSON.stringify({ event: 'session.status', session, timestamp: at.toISOString(), payload: { status } });
    const res = await request(server, 'POST', `/v1/providers/chatapp_unofficial/webhook/${id}`, {
      rawBody: payload,
      headers: { 'x-gateway-signature': signBody(secret, payload), 'x-gateway-event-id': randomUUID() },
    });
    assert.ok(res.status < 300, res.text);
  };
  const statusOf = async () => (await request(server, 'GET', `/v1/channels/${id}`, { key: server.apiKey })).body.data.status as string;

  // The QR step of the pairing, reported an hour ago, arrives after the channel is connected.
  await report('SCAN_QR', new Date(Date.now() - 3_600_000));
  // A newer report is applied, whichever of the two is handled first.
  await report('STOPPED', new Date(Date.now() + 1000));
  await eventually('the newer report', async () => ((await statusOf()) === 'disconnected' ? true : undefined));
  const history = (await request(server, 'GET', `/v1/channels/${id}/status`, { key: server.apiKey })).body.data.history as Array<{ to: string; at: string }>;
  // Newest first in the answer; oldest first here.
  const steps = history.map((h) => h.to).reverse();
  const connected = steps.lastIndexOf('connected');
  assert.ok(connected >= 0, JSON.stringify(history));
  assert.deepEqual(steps.slice(connected), ['connected', 'disconnected'], `the stale report moved the channel: ${JSON.stringify(history)}`);
  assert.equal(await statusOf(), 'disconnected');
});
