/**
 * At least once: the service is killed (SIGKILL) while an attempt is in flight; after a restart on the
 * same data the delivery is made again, with the same webhook-id, and succeeds.
 */
// stores: both
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { randomToken } from '../../src/lib/crypto.ts';
import { request } from '../harness.ts';
import { createDeployment, startService, type ServiceProcess } from '../process/service.ts';
import { eventually } from '../eventually.ts';
import { startReceiver, verifyWith } from '../webhook-receiver.ts';

test('a delivery cut off by SIGKILL is made again after the restart, with the same webhook-id', async () => {
  const deployment = await createDeployment();
  const receiver = await startReceiver();
  const apiKey = `prl_given_${randomToken(24)}`;
  // A 2 s attempt limit makes the lease 2 x 2 s + 5 s: the restarted worker may claim it 9 s after the first attempt began.
  const env = { ...deployment.env, BOOTSTRAP_API_KEY: apiKey, WEBHOOK_TIMEOUT_MS: '2000', WEBHOOK_POLL_INTERVAL_MS: '200' };
  let service: ServiceProcess | undefined;
  try {
    service = await startService({ dataDir: deployment.dataDir, env });
    const endpoint = await request(service, 'POST', '/v1/settings/developer/webhooks/endpoints', {
      key: apiKey,
      body: { url: receiver.url, event_types: ['channel.status_update'] },
    });
    assert.equal(endpoint.status, 201, endpoint.text);
    // The first attempt never gets an answer: the process dies while it waits.
    receiver.answer(() => 'hang');
    // A real route that records an event: a sandbox-bound channel is connected at once.
    const channel = await request(service, 'POST', '/v1/channels', {
      key: apiKey,
      body: { platform: 'chatapp_official', name: 'Kill test' },
    });
    assert.equal(channel.status, 201, channel.text);
    const first = await eventually('the first attempt to arrive', () => receiver.requests[0]);
    const killedAt = Date.now();
    service.child.kill('SIGKILL');
    assert.deepEqual(await service.exited, { code: null, signal: 'SIGKILL' });
    receiver.answer(() => ({ status: 200, body: 'got it' }));

    service = await startService({ dataDir: deployment.dataDir, env });
    const second = await eventually('the attempt after the restart', () => receiver.requests[1], 30_000);
    assert.equal(second.headers['webhook-id'], first.headers['webhook-id'], 'the same webhook-id: receivers deduplicate on it');
    assert.equal(second.body, first.body);
    assert.ok(Date.now() - killedAt < 30_000, 'within the lease and a restart');
    const secret = (
      await request(service, 'GET', `/v1/settings/developer/webhooks/endpoints/${endpoint.body.data.id}/secret`, { key: apiKey })
    ).body.data.secret;
    const verified = verifyWith(secret, second) as { channel_id: string; status: string };
    assert.equal(verified.channel_id, channel.body.data.id);
    assert.equal(verified.status, 'connected');
    const delivery = await eventually('the delivery to be recorded as succeeded', async () => {
      const res = await request(service!, 'GET', `/v1/settings/developer/webhooks/deliveries?message_id=${first.headers['webhook-id']}`, {
        key: apiKey,
      });
      return res.body.data[0]?.status === 'succeeded' ? res.body.data[0] : undefined;
    });
    assert.equal(delivery.attempt_count, 1, 'the cut-off attempt left no record; the one that succeeded is');
    assert.equal(delivery.attempts[0].response_body, 'got it');
    assert.equal(receiver.requests.length, 2);
    assert.deepEqual(await service.stop(), { code: 0, signal: null }, service.stderr);
  } finally {
    service?.kill();
    await service?.exited;
    await receiver.close();
    await deployment.cleanup();
  }
});
