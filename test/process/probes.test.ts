/**
 * The probes of running processes, an API process and a worker-only one (which serves /livez,
 * /readyz and /metrics on its PORT and nothing else), on PostgreSQL reached through a TCP proxy:
 * ready; the proxy cut: not ready (503) within the database wait, yet alive; restored: ready again.
 * PostgreSQL only (a worker-only process needs a server database, and the embedded one cannot go away).
 */
// stores: postgres
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { eventually } from '../eventually.ts';
import { parseExposition } from '../metrics-text.ts';
import { createDeployment, runService, startService, usingPostgres, type ServiceProcess } from './service.ts';
import { startTcpProxy, throughProxy } from './tcp-proxy.ts';

const WAIT_MS = 1500;

async function get(service: ServiceProcess, path: string): Promise<{ status: number; text: string }> {
  const res = await fetch(`${service.baseUrl}${path}`, { signal: AbortSignal.timeout(10_000) });
  return { status: res.status, text: await res.text() };
}

test('API and worker-only processes: ready, not ready while the database is cut (alive all along), ready again', {
  skip: !usingPostgres && 'PostgreSQL only',
  timeout: 120_000,
}, async () => {
  const deployment = await createDeployment();
  const direct = new URL(deployment.databaseUrl!);
  const proxy = await startTcpProxy({ host: direct.hostname, port: Number(direct.port || 5432) });
  const processes: ServiceProcess[] = [];
  try {
    const env = {
      DATABASE_URL: throughProxy(deployment.databaseUrl!, proxy),
      DATABASE_TIMEOUT_MS: String(WAIT_MS),
      BOOTSTRAP_ADMIN_EMAIL: 'probes@example.com',
    };
    const api = await startService({ dataDir: deployment.dataDir, env: { ...env, ROLES: 'api' } });
    processes.push(api);
    const worker = await runService({ dataDir: deployment.dataDir, env: { ...env, ROLES: 'worker' } });
    processes.push(worker);
    await worker.waitForLog('worker started', 60_000);

    for (const service of processes) {
      assert.equal((await get(service, '/livez')).status, 200);
      assert.equal((await get(service, '/readyz')).status, 200);
      const metrics = await get(service, '/metrics');
      assert.equal(metrics.status, 200, metrics.text);
      const families = parseExposition(metrics.text).types;
      for (const name of [
        'parley_dispatch_sends_total',
        'parley_webhook_attempts_total',
        'parley_queue_ready_jobs',
        'parley_nodejs_eventloop_lag_seconds',
      ])
        assert.ok(families.has(name), name);
    }
    // The worker serves the probes and nothing else.
    const other = await get(worker, '/v1/channels');
    assert.equal(other.status, 404);
    assert.match(other.text, /worker process serves \/livez, \/readyz and \/metrics only/);

    proxy.cut();
    const cutAt = Date.now();
    for (const service of processes) {
      const res = await eventually(
        'readiness to fail',
        async () => {
          const r = await get(service, '/readyz');
          return r.status === 503 ? r : undefined;
        },
        20_000,
      );
      assert.match(JSON.parse(res.text).reason, /database/);
      assert.equal((await get(service, '/livez')).status, 200);
    }
    assert.ok(Date.now() - cutAt < WAIT_MS + 8000, `readiness took ${Date.now() - cutAt} ms to notice`);

    proxy.restore();
    for (const service of processes) {
      await eventually('readiness to come back', async () => ((await get(service, '/readyz')).status === 200 ? true : undefined), 30_000);
    }
    for (const service of processes) assert.equal(service.exit, undefined, 'a process died');
    // No probe left a line at info (successful or not): the outage itself is logged once each way.
    for (const service of processes) {
      const probeLines = service.logs().filter((l) => /\/(livez|readyz|metrics)\b/.test(JSON.stringify(l)));
      assert.deepEqual(probeLines, []);
    }
    for (const service of processes) assert.deepEqual(await service.stop(), { code: 0, signal: null });
  } finally {
    for (const service of processes) service.kill();
    await proxy.close();
    await deployment.cleanup();
  }
});
