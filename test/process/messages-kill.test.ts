/**
 * Killing the service (SIGKILL) right after it accepted messages loses none of them, and no retry
 * makes the provider send one twice.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { sql } from 'drizzle-orm';
import { openDatabase, queryRows } from '../../src/db/client.ts';
import { randomToken } from '../../src/lib/crypto.ts';
import { freePort, request } from '../harness.ts';
import { createDeployment, startService, type ServiceProcess } from './service.ts';

test('SIGKILL after the 201s: every message is sent at most once after restart, none lost', { timeout: 180_000 }, async () => {
  const deployment = await createDeployment();
  const apiKey = `prl_kill_${randomToken(24)}`;
  const port = await freePort();
  const env = {
    ...deployment.env,
    BOOTSTRAP_ADMIN_EMAIL: 'kill@example.com',
    BOOTSTRAP_ADMIN_PASSWORD: 'kill test password',
    BOOTSTRAP_API_KEY: apiKey,
    SANDBOX_STATUS_DELAY_MS: '20',
    MESSAGE_RECONCILE_SECONDS: '15',
    RATE_LIMIT_PER_MINUTE: '0',
  };
  let service: ServiceProcess | undefined;
  try {
    service = await startService({ dataDir: deployment.dataDir, env, port });
    const channel = (await request(service, 'POST', '/v1/channels', { key: apiKey, body: { platform: 'chatapp_official', name: 'kill' } })).body.data;
    const to = '4915112349999';
    await request(service, 'POST', '/sandbox/inbound', { body: { channel_id: channel.id, from: to, type: 'text', content: { body: 'hi' } } });
    for (let i = 0; i < 100; i++) {
      const c = await request(service, 'GET', `/v1/conversations?channel_id=${channel.id}`, { key: apiKey });
      if (c.body.data[0]?.last_inbound_at) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const ids: string[] = [];
    const sends = Array.from({ length: 40 }, (_, i) =>
      request(service!, 'POST', '/v1/messages', { key: apiKey, body: { channel_id: channel.id, to, type: 'text', content: { body: `m${i}` } } }),
    );
    for (const res of await Promise.all(sends)) {
      assert.equal(res.status, 201, res.text);
      ids.push(res.body.data.id);
    }
    service.kill();
    await service.exited;

    service = await startService({ dataDir: deployment.dataDir, env, port });
    const final = new Map<string, { status: string; code?: string }>();
    const deadline = Date.now() + 120_000;
    while (final.size < ids.length && Date.now() < deadline) {
      for (const id of ids) {
        if (final.has(id)) continue;
        const res: { status: number; body: any } = await request(service, "GET", `/v1/messages/${id}`, { key: apiKey });
        assert.equal(res.status, 200, `message ${id} was lost`);
        if (res.body.data.status === 'read' || res.body.data.status === 'failed') final.set(id, { status: res.body.data.status, code: res.body.data.error?.code });
      }
      await new Promise((r) => setTimeout(r, 250));
    }
    assert.equal(final.size, ids.length, 'every message reached a final status');
    for (const [id, outcome] of final) {
      if (outcome.status === 'failed') assert.equal(outcome.code, 'outcome_unknown', `message ${id} failed with ${outcome.code}`);
    }
    const unknown = [...final.values()].filter((o) => o.status !== 'read').length;
    if (unknown > 8) {
      const sample = [...final.entries()].find(([, o]) => o.status !== 'read')![0];
      console.log(JSON.stringify((await request(service, 'GET', `/v1/messages/${sample}/status`, { key: apiKey })).body));
      console.log(service.logs().filter((l) => l.level === 'warn' || l.level === 'error').slice(0, 12).map((l) => JSON.stringify(l).slice(0, 400)).join('\n'));
    }
    // At most the sends in flight when the process died (8 workers) can end unknown.
    assert.ok(unknown <= 8, `${unknown} of ${ids.length} messages ended outcome_unknown`);
    await service.stop();
    service = undefined;

    const database = deployment.databaseUrl
      ? await openDatabase({ kind: 'postgres', url: deployment.databaseUrl })
      : await openDatabase({ kind: 'pglite', dataDir: path.join(deployment.dataDir, 'db') });
    try {
      const counts = await queryRows<{ id: string; n: number }>(
        database.db,
        sql`select body->>'biz_opaque_callback_data' as id, count(*)::int as n from sandbox_messages group by 1`,
      );
      for (const row of counts) assert.ok(row.n <= 1, `message ${row.id} reached the provider ${row.n} times`);
      const sentIds = new Set(counts.map((r) => r.id));
      for (const [id, outcome] of final) {
        if (outcome.status === 'read') assert.ok(sentIds.has(id), `message ${id} is read but the provider never got it`);
      }
    } finally {
      await database.close();
    }
  } finally {
    service?.kill();
    if (service) await service.exited;
    await deployment.cleanup();
  }
});
