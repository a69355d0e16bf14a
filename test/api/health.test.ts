import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { request, startTestServer, type TestServer } from '../harness.ts';

let server: TestServer;
before(async () => {
  server = await startTestServer();
});
after(() => server.close());

test('GET /v1/health answers 200 without a credential while the database answers', async () => {
  const res = await request(server, 'GET', '/v1/health');
  assert.equal(res.status, 200);
  assert.equal(res.body.status, 'ok');
  assert.equal(res.body.components.database.status, 'up');
  assert.equal(res.body.components.queue.status, 'up');
});

test('GET /v1/health answers 503 naming the database when it stops answering', async () => {
  const other = await startTestServer();
  try {
    await other.container.queue.stop({ graceful: false, timeoutMs: 100 });
    await other.container.database.close();
    const res = await request(other, 'GET', '/v1/health');
    assert.equal(res.status, 503);
    assert.equal(res.body.status, 'unavailable');
    assert.equal(res.body.components.database.status, 'down');
    assert.ok(res.body.components.database.error);
  } finally {
    await other.app.close();
  }
});
