/**
 * GET /metrics: who may read it (loopback only by default, METRICS_TOKEN, METRICS_ALLOW), the text
 * format with every family docs/operations.md promises, and values that move with what happens:
 * requests by route pattern, a message waiting in its queue, a send by platform and outcome, a
 * webhook attempt by endpoint, channel states.
 */
// stores: both
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { eventually } from '../eventually.ts';
import { request, startTestServer, usingPostgres, type TestServer } from '../harness.ts';
import { pairedGatewayChannel, send, waitForStatus } from '../messages-helpers.ts';
import { parseExposition, sampleValue, type Exposition } from '../metrics-text.ts';
import { startReceiver, type Receiver } from '../webhook-receiver.ts';
import { dispatchEvents } from '../../src/domain/webhooks/dispatch.ts';

let server: TestServer;
let receiver: Receiver;
before(async () => {
  server = await startTestServer({ worker: true, env: { SANDBOX_STATUS_DELAY_MS: '20', WEBHOOK_POLL_INTERVAL_MS: '100' } });
  receiver = await startReceiver();
});
after(async () => {
  await server.close();
  await receiver.close();
});

async function scrape(target: TestServer = server, headers: Record<string, string> = {}): Promise<Exposition> {
  const res = await fetch(`${target.baseUrl}/metrics`, { headers });
  const text = await res.text();
  assert.equal(res.status, 200, text);
  assert.match(res.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
  return parseExposition(text);
}

/** The families docs/operations.md lists, with their type. */
const FAMILIES: Record<string, string> = {
  parley_http_request_duration_seconds: 'histogram',
  parley_queue_ready_jobs: 'gauge',
  parley_queue_deferred_jobs: 'gauge',
  parley_queue_oldest_ready_age_seconds: 'gauge',
  parley_dispatch_sends_total: 'counter',
  parley_provider_request_duration_seconds: 'histogram',
  parley_webhook_attempts_total: 'counter',
  parley_webhook_attempt_duration_seconds: 'histogram',
  parley_webhook_backlog_deliveries: 'gauge',
  parley_webhook_backlog_oldest_age_seconds: 'gauge',
  parley_channels: 'gauge',
  parley_database_up: 'gauge',
  parley_metrics_snapshot_ok: 'gauge',
  parley_nodejs_eventloop_lag_seconds: 'gauge',
  parley_nodejs_eventloop_lag_p99_seconds: 'gauge',
  parley_process_resident_memory_bytes: 'gauge',
};

test('the text format with every promised family; pool families on PostgreSQL only', async () => {
  const m = await scrape();
  for (const [name, type] of Object.entries(FAMILIES)) assert.equal(m.types.get(name), type, `family ${name}`);
  assert.equal(sampleValue(m, 'parley_database_up'), 1);
  assert.equal(sampleValue(m, 'parley_metrics_snapshot_ok'), 1);
  // Every pg-boss queue and the service's own queue tables, empty ones as zeros.
  for (const kind of ['provider.inbound', 'sandbox.callback', 'message.dispatch', 'webhook.dispatch', 'webhook.delivery']) {
    assert.notEqual(sampleValue(m, 'parley_queue_ready_jobs', { kind }), undefined, `queue ${kind}`);
  }
  if (usingPostgres) {
    assert.equal(m.types.get('parley_db_pool_connections'), 'gauge');
    assert.equal(sampleValue(m, 'parley_db_pool_max_connections'), server.container.database.poolStats!().max);
    assert.ok((sampleValue(m, 'parley_db_pool_max_connections') ?? 0) > 0);
    assert.ok((sampleValue(m, 'parley_db_pool_connections', { state: 'idle' }) ?? -1) >= 0);
    assert.equal(sampleValue(m, 'parley_db_pool_waiting_queries'), 0);
  } else {
    assert.equal(m.types.get('parley_db_pool_connections'), undefined, 'the embedded database has no pool');
  }
});

test('requests are counted by route pattern and status, never by raw URL', async () => {
  const series = { method: 'GET', route: '/v1/channels', status: '200' };
  const before = sampleValue(await scrape(), 'parley_http_request_duration_seconds_count', series) ?? 0;
  assert.equal((await request(server, 'GET', '/v1/channels', { key: server.apiKey })).status, 200);
  assert.equal((await request(server, 'GET', '/v1/channels', { key: server.apiKey })).status, 200);
  const id = '0190a5b2-0000-7000-8000-00000000abcd';
  assert.equal((await request(server, 'GET', `/v1/messages/${id}`, { key: server.apiKey })).status, 404);
  assert.equal((await request(server, 'GET', '/v1/no-such-route/abcdef123', { key: server.apiKey })).status, 404);
  const m = await scrape();
  assert.equal(sampleValue(m, 'parley_http_request_duration_seconds_count', series), before + 2);
  assert.ok((sampleValue(m, 'parley_http_request_duration_seconds_sum', series) ?? 0) > 0);
  assert.equal(
    sampleValue(m, 'parley_http_request_duration_seconds_count', { method: 'GET', route: '/v1/messages/:messageID', status: '404' }),
    1,
  );
  assert.ok((sampleValue(m, 'parley_http_request_duration_seconds_count', { method: 'GET', route: 'unmatched', status: '404' }) ?? 0) >= 1);
  const routes = new Set(m.samples.filter((s) => s.name === 'parley_http_request_duration_seconds_count').map((s) => s.labels.route));
  assert.ok(![...routes].some((r) => r?.includes(id) || r?.includes('abcdef123')), `a raw URL became a label: ${[...routes].join(', ')}`);
});

test('what waits shows in its queue with its age: a message to send, an event to dispatch, a delivery per endpoint', async () => {
  const quiet = await startTestServer({ worker: true, env: { SANDBOX_STATUS_DELAY_MS: '20' } });
  try {
    const channel = await pairedGatewayChannel(quiet, 'Queued');
    const endpoint = await request(quiet, 'POST', '/v1/settings/developer/webhooks/endpoints', {
      key: quiet.apiKey,
      body: { url: receiver.url, event_types: ['message.sent'] },
    });
    assert.equal(endpoint.status, 201, endpoint.text);
    const endpointId = endpoint.body.data.id as string;
    // No webhook engine: the message.sent event waits to be dispatched.
    await quiet.container.webhookEngine.stop({ graceful: true, timeoutMs: 1000 });
    const first = await send(quiet, { channel_id: channel.id, to: '4915112340101', type: 'text', content: { body: 'sent' } });
    assert.equal(first.status, 201, first.text);
    // Read: the sandbox reports nothing more, so no event comes after these.
    await waitForStatus(quiet, first.body.data.id, 'read');
    await eventually('the events waiting for dispatch', async () => {
      const m = await scrape(quiet);
      return (sampleValue(m, 'parley_queue_ready_jobs', { kind: 'webhook.dispatch' }) ?? 0) >= 2 ? true : undefined;
    });
    // Dispatched (as the engine would), not delivered: the delivery waits for its endpoint.
    await dispatchEvents(quiet.container.database, quiet.container.clock);
    // No dispatcher: the next message waits to be sent.
    await quiet.container.dispatcher.stop({ timeoutMs: 1000 });
    const second = await send(quiet, { channel_id: channel.id, to: '4915112340102', type: 'text', content: { body: 'waits' } });
    assert.equal(second.status, 201, second.text);
    await eventually('the message and the delivery in their queues', async () => {
      const m = await scrape(quiet);
      const ok =
        sampleValue(m, 'parley_queue_ready_jobs', { kind: 'message.dispatch' }) === 1 &&
        (sampleValue(m, 'parley_queue_oldest_ready_age_seconds', { kind: 'message.dispatch' }) ?? 0) > 0 &&
        sampleValue(m, 'parley_queue_ready_jobs', { kind: 'webhook.dispatch' }) === 0 &&
        sampleValue(m, 'parley_queue_ready_jobs', { kind: 'webhook.delivery' }) === 1 &&
        sampleValue(m, 'parley_webhook_backlog_deliveries', { endpoint_id: endpointId }) === 1 &&
        (sampleValue(m, 'parley_webhook_backlog_oldest_age_seconds', { endpoint_id: endpointId }) ?? 0) > 0;
      return ok ? true : undefined;
    });
  } finally {
    await quiet.close();
  }
});

test('a send counts by platform and outcome; webhook attempts by endpoint and outcome; channels by platform and status', async () => {
  const failing = await startReceiver();
  try {
    failing.answer(() => ({ status: 500 }));
    const endpoint = async (url: string) => {
      const res = await request(server, 'POST', '/v1/settings/developer/webhooks/endpoints', {
        key: server.apiKey,
        body: { url, event_types: ['message.sent'] },
      });
      assert.equal(res.status, 201, res.text);
      return res.body.data.id as string;
    };
    const good = await endpoint(receiver.url);
    const bad = await endpoint(failing.url);
    const sentBefore = sampleValue(await scrape(), 'parley_dispatch_sends_total', { platform: 'chatapp_unofficial', outcome: 'sent' }) ?? 0;
    const channel = await pairedGatewayChannel(server, 'Metrics');
    const res = await send(server, { channel_id: channel.id, to: '4915112340103', type: 'text', content: { body: 'hello' } });
    assert.equal(res.status, 201, res.text);
    await waitForStatus(server, res.body.data.id, 'sent');
    const m = await eventually('the send, the attempts and the channel counted', async () => {
      const m = await scrape();
      const ok =
        sampleValue(m, 'parley_dispatch_sends_total', { platform: 'chatapp_unofficial', outcome: 'sent' }) === sentBefore + 1 &&
        (sampleValue(m, 'parley_provider_request_duration_seconds_count', {
          platform: 'chatapp_unofficial',
          operation: 'send',
          outcome: 'sent',
        }) ?? 0) >= 1 &&
        sampleValue(m, 'parley_webhook_attempts_total', { endpoint_id: good, outcome: 'succeeded' }) === 1 &&
        sampleValue(m, 'parley_webhook_attempts_total', { endpoint_id: bad, outcome: 'retry' }) === 1 &&
        sampleValue(m, 'parley_channels', { platform: 'chatapp_unofficial', status: 'connected' }) === 1;
      return ok ? m : undefined;
    });
    assert.equal(sampleValue(m, 'parley_webhook_attempts_total', { endpoint_id: good, outcome: 'retry' }), undefined);
    assert.ok((sampleValue(m, 'parley_webhook_attempt_duration_seconds_count', { outcome: 'succeeded' }) ?? 0) >= 1);
    assert.ok((sampleValue(m, 'parley_webhook_attempt_duration_seconds_count', { outcome: 'retry' }) ?? 0) >= 1);
  } finally {
    await failing.close();
  }
});

test('by default only loopback clients that came through no proxy may read the metrics', async () => {
  for (const header of ['x-forwarded-for', 'forwarded', 'x-real-ip']) {
    const res = await request(server, 'GET', '/metrics', {
      headers: { [header]: header === 'forwarded' ? 'for=203.0.113.9' : '203.0.113.9' },
    });
    assert.equal(res.status, 403, `${header}: ${res.text}`);
    assert.match(res.headers.get('content-type') ?? '', /application\/problem\+json/);
    assert.match(res.body.detail, /loopback/);
  }
});

test('METRICS_TOKEN: 401 without the bearer token or with another, 200 with it', async () => {
  const token = 'metrics-token-0123456789abcdef';
  const other = await startTestServer({ env: { METRICS_TOKEN: token } });
  try {
    other.registerSensitive('the metrics token', token);
    const refused: Array<Record<string, string>> = [
      {},
      { authorization: 'Bearer metrics-token-0123456789abcdeX' },
      { authorization: token },
      { 'x-api-key': other.apiKey },
    ];
    for (const headers of refused) {
      const res = await request(other, 'GET', '/metrics', { headers });
      assert.equal(res.status, 401, `${JSON.stringify(Object.keys(headers))}: ${res.text}`);
      assert.equal(res.headers.get('www-authenticate'), 'Bearer realm="metrics"');
      assert.match(res.body.detail, /METRICS_TOKEN/);
    }
    // A token holder may scrape through a proxy: the token is the rule, not the address.
    const m = await scrape(other, { authorization: `Bearer ${token}`, 'x-forwarded-for': '203.0.113.9' });
    assert.equal(sampleValue(m, 'parley_database_up'), 1);
  } finally {
    await other.close();
  }
});

test('METRICS_ALLOW: 403 outside the listed ranges, 200 inside', async () => {
  const outside = await startTestServer({ env: { METRICS_ALLOW: '10.0.0.0/8, 2001:db8::/32' } });
  try {
    const res = await request(outside, 'GET', '/metrics');
    assert.equal(res.status, 403, res.text);
    assert.match(res.body.detail, /METRICS_ALLOW/);
  } finally {
    await outside.close();
  }
  const inside = await startTestServer({ env: { METRICS_ALLOW: '10.0.0.0/8,127.0.0.1' } });
  try {
    // An allow-list is the rule: a proxy's headers do not matter then (TRUST_PROXY decides the client address).
    await scrape(inside, { 'x-forwarded-for': '10.1.2.3' });
  } finally {
    await inside.close();
  }
});

test('METRICS_TOKEN and METRICS_ALLOW together: both must hold', async () => {
  const token = 'metrics-token-both-0123456789';
  const both = await startTestServer({ env: { METRICS_TOKEN: token, METRICS_ALLOW: '10.0.0.0/8' } });
  try {
    both.registerSensitive('the metrics token', token);
    assert.equal((await request(both, 'GET', '/metrics', { headers: { authorization: `Bearer ${token}` } })).status, 403);
    assert.equal((await request(both, 'GET', '/metrics')).status, 401);
  } finally {
    await both.close();
  }
});

test('the probes and the metrics are outside the public OpenAPI document and log no line at info', async () => {
  const doc = await request(server, 'GET', '/v1/openapi.json');
  assert.equal(doc.status, 200);
  for (const path of ['/metrics', '/livez', '/readyz']) assert.equal(doc.body.paths[path], undefined, path);
  const marker = `probe-${Date.now()}`;
  for (const path of ['/livez', '/readyz', '/metrics']) {
    const res = await fetch(`${server.baseUrl}${path}`, { headers: { 'x-request-id': marker } });
    assert.equal(res.status, 200, path);
    await res.arrayBuffer();
  }
  assert.deepEqual(
    server.logs.filter((line) => line.includes(marker)),
    [],
  );
});
