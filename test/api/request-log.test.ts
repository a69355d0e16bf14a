/**
 * One log line per request at the default level (info), written when the answer is sent; none for a
 * successful health check or probe (a failing probe is quiet too: test/process/database-outage.test.ts), one for
 * a failing health check or a refused metrics read.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { request, startTestServer, type TestServer } from '../harness.ts';

let server: TestServer;
before(async () => {
  server = await startTestServer({ env: { METRICS_TOKEN: 'metrics-token-for-the-log-test' } });
});
after(() => server.close());

const linesOf = (requestId: string) =>
  server.logs.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.request_id === requestId);

/** The lines of a request once its answer is logged (the line is written after the answer is sent). */
async function loggedLines(requestId: string, expected: number): Promise<Array<Record<string, unknown>>> {
  const deadline = Date.now() + 5000;
  while (linesOf(requestId).length < expected && Date.now() < deadline) await new Promise((r) => setImmediate(r));
  return linesOf(requestId);
}

test('a request writes one line at info: method, URL, status, time, route and request id', async () => {
  const res = await request(server, 'GET', '/v1/channels?limit=5', { key: server.apiKey, headers: { 'x-request-id': 'one-line-1' } });
  assert.equal(res.status, 200);
  const lines = await loggedLines('one-line-1', 1);
  assert.equal(lines.length, 1, JSON.stringify(lines));
  const [line] = lines;
  assert.equal(line!.level, 'info');
  assert.equal(line!.msg, 'request completed');
  assert.equal(line!.method, 'GET');
  assert.equal(line!.url, '/v1/channels?limit=5');
  assert.equal(line!.status, 200);
  assert.equal(line!.route, '/v1/channels');
  assert.equal(typeof line!.ms, 'number');

  // A refusal and an unknown route are one line each too.
  assert.equal((await request(server, 'GET', '/v1/channels', { headers: { 'x-request-id': 'one-line-2' } })).status, 401);
  assert.equal((await request(server, 'GET', '/v1/no-such-route', { headers: { 'x-request-id': 'one-line-3' } })).status, 404);
  const refused = await loggedLines('one-line-2', 1);
  const unknown = await loggedLines('one-line-3', 1);
  assert.deepEqual(
    refused.map((l) => [l.msg, l.status, l.route]),
    [['request completed', 401, '/v1/channels']],
  );
  assert.deepEqual(
    unknown.map((l) => [l.msg, l.status, l.route]),
    [['request completed', 404, null]],
  );
});

test('a successful health check or probe writes no line at info; a refused metrics read writes one', async () => {
  for (const [path, id] of [
    ['/v1/health', 'quiet-1'],
    ['/livez', 'quiet-2'],
    ['/readyz', 'quiet-3'],
  ] as const) {
    assert.equal((await request(server, 'GET', path, { headers: { 'x-request-id': id } })).status, 200, path);
  }
  // A request after them, logged: their lines (had they any) would be written by now.
  await request(server, 'GET', '/v1/channels', { key: server.apiKey, headers: { 'x-request-id': 'quiet-after' } });
  await loggedLines('quiet-after', 1);
  assert.deepEqual([...linesOf('quiet-1'), ...linesOf('quiet-2'), ...linesOf('quiet-3')], []);

  const refused = await request(server, 'GET', '/metrics', {
    headers: { 'x-request-id': 'probe-failing', authorization: 'Bearer not-the-metrics-token' },
  });
  assert.ok(refused.status >= 400, String(refused.status));
  const lines = await loggedLines('probe-failing', 1);
  assert.deepEqual(
    lines.map((l) => [l.level, l.msg, l.status, l.route]),
    [['info', 'request completed', refused.status, '/metrics']],
  );
});
