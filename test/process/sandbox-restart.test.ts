/**
 * A sandbox channel across restarts that turn the sandbox off and on again (issue 32, item 16): with
 * PROVIDER_SANDBOX=false its provider address is refused and it goes to `error`; once a start has the
 * sandbox back, it recovers by itself (the worker's first watchdog run, at start), and sends and
 * inbound media work again. A default start otherwise: ALLOW_PRIVATE_NETWORK_TARGETS off.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { eventually } from '../eventually.ts';
import { request } from '../harness.ts';
import { createDeployment, parseWelcome, startService, type ServiceProcess } from './service.ts';

const CUSTOMER = '15551230101';

test('a sandbox channel put in error while the sandbox was off recovers once a start has it back', async () => {
  const deployment = await createDeployment();
  const env = { ...deployment.env, ALLOW_PRIVATE_NETWORK_TARGETS: 'false', SANDBOX_STATUS_DELAY_MS: '20' };
  let service: ServiceProcess | undefined;
  try {
    service = await startService({ dataDir: deployment.dataDir, env });
    await service.waitFor((out) => out.includes('  Try:'), 'the welcome banner');
    const key = parseWelcome(service.stdout)!.apiKey;
    const port = service.port;
    const created = await request(service, 'POST', '/v1/channels', { key, body: { platform: 'chatapp_official', name: 'Try-out' } });
    assert.equal(created.status, 201, created.text);
    assert.equal(created.body.data.status, 'connected');
    const channelId = created.body.data.id as string;
    const wrote = await request(service, 'POST', '/sandbox/inbound', {
      key,
      body: { channel_id: channelId, from: CUSTOMER, type: 'text', content: { body: 'hello' } },
    });
    assert.equal(wrote.status, 202, wrote.text);
    const inboundOf = async (type: string) => {
      const list = await request(service!, 'GET', `/v1/messages?channel_id=${channelId}&direction=inbound&limit=10`, { key });
      return (list.body.data as Array<{ type: string; media: { status: string } | null }>).find((m) => m.type === type);
    };
    await eventually("the customer's message in", () => inboundOf('text'));
    const statusOf = async () => (await request(service!, 'GET', `/v1/channels/${channelId}`, { key })).body.data;
    await service.stop();

    // The sandbox off: a send finds the provider address refused, and the channel goes to error.
    service = await startService({ dataDir: deployment.dataDir, env: { ...env, PROVIDER_SANDBOX: 'false' }, port });
    const refused = await request(service, 'POST', '/v1/messages', {
      key,
      body: { channel_id: channelId, to: CUSTOMER, type: 'text', content: { body: 'while off' } },
    });
    assert.equal(refused.status, 201, refused.text);
    await eventually('the channel in error', async () => (await statusOf()).status === 'error');
    assert.equal((await statusOf()).health.last_error_code, 'unsafe_target');
    await service.stop();

    // The sandbox back: the channel connects again without anyone touching it.
    service = await startService({ dataDir: deployment.dataDir, env, port });
    const recovered = await eventually('the channel connected again', async () => {
      const row = await statusOf();
      return row.status === 'connected' && row;
    });
    assert.equal(recovered.status_reason, 'the provider answers again');
    const image = await request(service, 'POST', '/sandbox/inbound', {
      key,
      body: { channel_id: channelId, from: CUSTOMER, type: 'image', content: { caption: 'the parcel' } },
    });
    assert.equal(image.status, 202, image.text);
    const inbound = await eventually('the inbound image downloaded', async () => {
      const found = await inboundOf('image');
      return found?.media?.status !== 'pending' && found;
    });
    assert.equal(inbound.media?.status, 'stored', JSON.stringify(inbound));
    const sent = await request(service, 'POST', '/v1/messages', {
      key,
      body: { channel_id: channelId, to: CUSTOMER, type: 'text', content: { body: 'back again' } },
    });
    assert.equal(sent.status, 201, sent.text);
    await eventually('the answer read', async () => {
      const status = await request(service!, 'GET', `/v1/messages/${sent.body.data.id}/status`, { key });
      return status.body.data.status === 'read';
    });
    assert.deepEqual(await service.stop(), { code: 0, signal: null }, service.stderr);
  } finally {
    service?.kill();
    await service?.exited;
    await deployment.cleanup();
  }
});
