/**
 * The database going away under load, with the service as real processes on real PostgreSQL, in
 * both role layouts: first every connection of the test's own database terminated
 * (pg_terminate_backend), then the database made unreachable by cutting the TCP proxy the service
 * reaches it through, then restored. The processes stay up; requests meanwhile answer 503 problems
 * with Retry-After within the configured wait; health names the database; afterwards everything
 * resumes by itself, and every message acknowledged reaches the provider exactly once and is sent.
 * The same processes' probes are checked on the way (they share this topology rather than start one of
 * their own): every process ready with its metrics, a worker-only process serving the probes and
 * nothing else, not ready (503 naming the database) while it is cut yet alive all along, ready again
 * after, no probe request logged at info, and a clean exit on SIGTERM at the end.
 * PostgreSQL only (the embedded database cannot go away on its own).
 */
// stores: postgres
import assert from 'node:assert/strict';
import { test } from 'node:test';
import pg from 'pg';
import { sql } from 'drizzle-orm';
import { openDatabase } from '../../src/db/client.ts';
import { DatabaseUnavailableError } from '../../src/db/errors.ts';
import { randomToken } from '../../src/lib/crypto.ts';
import { createTestDatabaseUrl, freePort, request, TEST_DATABASE_SERVER_URL } from '../harness.ts';
import { eventually } from '../eventually.ts';
import { parseExposition } from '../metrics-text.ts';
import {} from '../messages-helpers.ts';
import { createDeployment, runService, startService, usingPostgres, type ServiceProcess } from './service.ts';
import { startTcpProxy, throughProxy } from './tcp-proxy.ts';
import { startReceiver } from '../webhook-receiver.ts';

/** DATABASE_TIMEOUT_MS for the services: no request may wait for the database longer than this. */
const WAIT_MS = 2000;
/** What a request may take on top of that on a busy machine. */
const SLACK_MS = 1500;

type Outcome = { status: number; ms: number; id?: string; retryAfter: string | null; type: string | null; body: any; phase: string };

for (const layout of ['api,worker', 'api + worker'] as const) {
  test(`database restarted and unreachable under load (${layout}): no crash, fast 503s, nothing acknowledged lost`, {
    skip: !usingPostgres && 'PostgreSQL only',
    timeout: 120_000,
  }, async () => {
    const deployment = await createDeployment();
    const direct = deployment.databaseUrl!;
    const target = new URL(direct);
    const proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
    const apiKey = `prl_outage_${randomToken(24)}`;
    const port = await freePort();
    const env = {
      // The worker's sandbox calls back to the API's address, not its own.
      BASE_URL: `http://127.0.0.1:${port}`,
      DATABASE_URL: throughProxy(direct, proxy),
      DATABASE_TIMEOUT_MS: String(WAIT_MS),
      BOOTSTRAP_ADMIN_EMAIL: 'outage@example.com',
      BOOTSTRAP_ADMIN_PASSWORD: 'outage test password',
      BOOTSTRAP_API_KEY: apiKey,
      SANDBOX_STATUS_DELAY_MS: '20',
      RATE_LIMIT_PER_MINUTE: '0',
      // The webhook receiver is on loopback.
      ALLOW_PRIVATE_NETWORK_TARGETS: 'true',
    };
    const receiver = await startReceiver();
    const processes: ServiceProcess[] = [];
    let stopping = false;
    /** Fails at once, with the process's output, when one has died. */
    const alive = (when: string) => {
      for (const p of processes) assert.equal(p.exit, undefined, `a process died ${when}${describe(p)}`);
    };
    const admin = new pg.Client({ connectionString: TEST_DATABASE_SERVER_URL });
    await admin.connect();
    try {
      const api = await startService({
        dataDir: deployment.dataDir,
        port,
        env: { ...env, ROLES: layout === 'api,worker' ? 'api,worker' : 'api' },
      });
      processes.push(api);
      if (layout === 'api + worker') {
        const worker = await runService({ dataDir: deployment.dataDir, port: await freePort(), env: { ...env, ROLES: 'worker' } });
        processes.push(worker);
        await worker.waitForLog('worker started', 60_000);
      }
      await probesReady(processes);
      if (layout === 'api + worker') {
        // The worker serves the probes and nothing else.
        const other = await get(processes[1]!, '/v1/channels');
        assert.equal(other.status, 404);
        assert.match(other.text, /worker process serves \/livez, \/readyz and \/metrics only/);
      }
      const server = { baseUrl: api.baseUrl };
      // Both kinds of provider: the gateway takes an idempotency key, the official API does not (a
      // send whose answer was lost is settled by asking it).
      const gateway = await gatewayChannel(server, apiKey);
      const official = await officialChannel(server, apiKey, CUSTOMER);
      const endpoint = await request(server, 'POST', '/v1/settings/developer/webhooks/endpoints', {
        key: apiKey,
        body: { url: receiver.url, event_types: ['message.sent'] },
      });
      assert.equal(endpoint.status, 201, endpoint.text);

      // Load: four senders at once until told to stop.
      const outcomes: Outcome[] = [];
      let phase = 'before';
      let n = 0;
      const sender = async () => {
        while (!stopping) {
          const started = performance.now();
          let res: Response;
          let text: string;
          try {
            res = await fetch(`${api.baseUrl}/v1/messages`, {
              method: 'POST',
              headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
              body: JSON.stringify({
                channel_id: n % 2 === 0 ? gateway : official,
                to: CUSTOMER,
                type: 'text',
                content: { body: `m${n++}` },
              }),
            });
            text = await res.text();
          } catch (err) {
            // The API is gone: recorded, and the checks below say so.
            outcomes.push({ status: 0, ms: performance.now() - started, retryAfter: null, type: null, body: String(err), phase });
            await new Promise((r) => setTimeout(r, 250));
            continue;
          }
          const body = text ? JSON.parse(text) : undefined;
          outcomes.push({
            status: res.status,
            ms: performance.now() - started,
            id: res.status < 300 ? body.data.id : undefined,
            retryAfter: res.headers.get('retry-after'),
            type: res.headers.get('content-type'),
            body,
            phase,
          });
          // A refused request is retried a little later, as a client told Retry-After would.
          if (res.status >= 300) await new Promise((r) => setTimeout(r, 100));
        }
      };
      const senders = Array.from({ length: 4 }, sender);
      const acknowledged = () => outcomes.filter((o) => o.id !== undefined).length;
      await eventually('messages accepted before the outage', async () => (acknowledged() >= 20 ? true : undefined));

      // Every connection the services hold is terminated, as a restart does.
      phase = 'terminated';
      const terminated = await admin.query(
        'select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()',
        [target.pathname.slice(1)],
      );
      assert.ok(terminated.rowCount! > 0, 'the services had connections to terminate');
      const before = acknowledged();
      await eventually(
        'messages accepted again after the connections were terminated',
        async () => (alive('after its connections were terminated'), acknowledged() >= before + 20 ? true : undefined),
        20_000,
      );
      alive('when its connections were terminated');

      // Unreachable: every connection cut, new ones refused.
      phase = 'cut';
      proxy.cut();
      const cutTime = Date.now();
      const cutAt = outcomes.length;
      await eventually(
        'refused sends while the database is unreachable',
        async () => (
          alive('while the database was unreachable'), outcomes.slice(cutAt).filter((o) => o.status === 503).length >= 12 ? true : undefined
        ),
        20_000,
      );
      const health = await timed(() => request(server, 'GET', '/v1/health'));
      assert.equal(health.res.status, 503, health.res.text);
      assert.equal(health.res.body.components.database.status, 'down', health.res.text);
      assert.ok(
        !health.res.text.includes('127.0.0.1') && !health.res.text.includes(`:${proxy.port}`),
        `health does not show where the database is: ${health.res.text}`,
      );
      assert.ok(health.ms < WAIT_MS + SLACK_MS, `health took ${health.ms} ms`);
      const list = await timed(() => request(server, 'GET', '/v1/messages', { key: apiKey }));
      assert.equal(list.res.status, 503, list.res.text);
      assertUnavailable(list.res.body, list.res.headers.get('retry-after'), list.res.headers.get('content-type'));
      // Every process: not ready (naming the database) within the wait, and alive.
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
      assert.ok(Date.now() - cutTime < WAIT_MS + 8000, `readiness took ${Date.now() - cutTime} ms to notice`);
      alive('while the database was unreachable');

      phase = 'restored';
      proxy.restore();
      const healthy = await eventually(
        'health again',
        async () => {
          alive('while the database came back');
          const res = await request(server, 'GET', '/v1/health');
          return res.status === 200 ? res.body : undefined;
        },
        30_000,
      );
      assert.equal(healthy.components.queue.status, 'up', JSON.stringify(healthy));
      for (const service of processes) {
        await eventually('readiness to come back', async () => ((await get(service, '/readyz')).status === 200 ? true : undefined), 30_000);
      }
      // The outage is logged once each way, not once per connection or request.
      assert.equal(
        api.logs().filter((l) => l.msg.startsWith('database unreachable')).length,
        1,
        'one log line when the database went away',
      );
      await api.waitForLog(/^database reachable again/, 10_000);
      const beforeRestore = acknowledged();
      await eventually(
        'messages accepted after the database came back',
        async () => (alive('after the database came back'), acknowledged() >= beforeRestore + 20 ? true : undefined),
        30_000,
      );
      stopping = true;
      await Promise.all(senders);

      // While the database was away: only acknowledgements (accepted before the cut) or fast 503 problems.
      for (const o of outcomes) {
        if (o.status === 201 || o.status === 202) continue;
        assert.equal(o.status, 503, `a send answered ${o.status} in phase ${o.phase}: ${JSON.stringify(o.body)}`);
        assertUnavailable(o.body, o.retryAfter, o.type);
      }
      const slowest = Math.max(...outcomes.filter((o) => o.phase !== 'before').map((o) => o.ms));
      assert.ok(slowest < WAIT_MS + SLACK_MS, `a send took ${Math.round(slowest)} ms, more than the ${WAIT_MS} ms allowed`);

      // Nothing acknowledged is lost: every one is sent (the dispatcher resumed by itself), and those
      // accepted after the outage are also delivered: the provider's status callbacks ran as pg-boss
      // jobs, so the job queue works again. (Callbacks caught by the outage come later, when pg-boss
      // expires the jobs it could not settle: at least once, not within this test.)
      const ids = outcomes.filter((o) => o.id !== undefined).map((o) => o.id!);
      const after = new Set(outcomes.filter((o) => o.id !== undefined && o.phase === 'restored').map((o) => o.id!));
      const pending = new Set(ids);
      const last = new Map<string, string>();
      await eventually(
        `${ids.length} acknowledged messages to be sent`,
        async () => {
          for (const id of pending) {
            const res = await request(server, 'GET', `/v1/messages/${id}`, { key: apiKey });
            assert.equal(res.status, 200, `message ${id} was lost: ${res.text}`);
            const status = res.body.data.status as string;
            last.set(id, status);
            assert.notEqual(status, 'failed', `message ${id} failed: ${res.text}`);
            if (['delivered', 'read'].includes(status) || (!after.has(id) && status === 'sent')) pending.delete(id);
          }
          return pending.size === 0 ? true : undefined;
        },
        60_000,
      ).catch((err: Error) => {
        const statuses = [...pending].map((id) => `${after.has(id) ? 'after' : 'before'} ${last.get(id)}`);
        throw new Error(
          `${err.message}: ${pending.size} still ${JSON.stringify(Object.fromEntries([...Map.groupBy(statuses, (s) => s)].map(([k, v]) => [k, v.length])))}${processes.map(describe).join('')}`,
        );
      });
      // The webhook engine resumed too: every message.sent event reached the endpoint at least once.
      await eventually(
        'a message.sent webhook for every acknowledged message',
        async () => {
          const bodies = receiver.requests.map((r) => r.body).join('\n');
          return ids.every((id) => bodies.includes(id)) ? true : undefined;
        },
        30_000,
      );
      const provider = new pg.Client({ connectionString: direct });
      await provider.connect();
      try {
        // Our id travels as the gateway's idempotency key and as the official API's callback data.
        const rows = (
          await provider.query<{ key: string; n: number }>(
            `select coalesce(idempotency_key, body->>'biz_opaque_callback_data') as key, count(*)::int as n from sandbox_messages where direction = 'outbound' group by 1`,
          )
        ).rows;
        const counts = new Map(rows.map((r) => [r.key, r.n]));
        for (const id of ids) assert.equal(counts.get(id), 1, `message ${id} reached the provider ${counts.get(id) ?? 0} times`);
      } finally {
        await provider.end();
      }
      alive('during the test');
      // No probe left a line at info (successful or not): the outage itself is logged once each way.
      for (const service of processes) {
        const probeLines = service.logs().filter((l) => /\/(livez|readyz|metrics)\b/.test(JSON.stringify(l)));
        assert.deepEqual(probeLines, []);
      }
      for (const service of processes) assert.deepEqual(await service.stop(), { code: 0, signal: null }, describe(service));
    } finally {
      stopping = true;
      for (const p of processes) p.kill();
      await Promise.all(processes.map((p) => p.exited));
      await proxy.close();
      await receiver.close();
      await admin.end();
      await deployment.cleanup();
    }
  });
}

test('the database handle: a transaction whose connection is terminated, a cut and a restore; LISTEN is back by itself', {
  skip: !usingPostgres && 'PostgreSQL only',
  timeout: 60_000,
}, async () => {
  const fresh = await createTestDatabaseUrl();
  const target = new URL(fresh.url);
  const proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
  const events: string[] = [];
  const database = await openDatabase({
    kind: 'postgres',
    url: throughProxy(fresh.url, proxy),
    waitMs: WAIT_MS,
    onDown: () => events.push('down'),
    onUp: () => events.push('up'),
  });
  const admin = new pg.Client({ connectionString: fresh.url });
  await admin.connect();
  try {
    const notified: Array<string | undefined> = [];
    const stop = await database.listen('outage_test', (payload) => notified.push(payload));
    let resumed = 0;
    database.availability.onAvailable(() => resumed++);

    // A client checked out of the pool (a transaction's) whose backend is terminated between statements.
    let terminated = 0;
    const failed = await database.db
      .transaction(async (tx) => {
        await tx.execute(sql`select 1`);
        // The transaction's own connection: the next statement goes once it has seen its end.
        const client = (tx as unknown as { session: { client: pg.PoolClient } }).session.client;
        const ended = new Promise((resolve) => client.once('end', resolve));
        terminated = (
          await admin.query(
            `select pg_terminate_backend(pid) from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()`,
          )
        ).rowCount!;
        await ended;
        await tx.execute(sql`select 1`);
      })
      .then(
        () => undefined,
        (err: unknown) => err,
      );
    assert.ok(terminated >= 2, 'the transaction and the listener were terminated');
    assert.ok(failed, 'the transaction failed');
    // A lone terminated connection is not an outage: the probe answers, and the pool serves again.
    await database.ping();
    assert.equal(database.availability.up(), true);
    await eventually('LISTEN again after its connection was terminated', async () => {
      await admin.query(`notify outage_test, 'one'`);
      return notified.includes('one') ? true : undefined;
    });

    proxy.cut();
    await eventually('the outage noticed', async () => {
      await database.ping().catch(() => undefined);
      return database.availability.up() ? undefined : true;
    });
    // Known down: a query fails at once, without waiting for a connection.
    const started = performance.now();
    await assert.rejects(
      database.db.execute(sql`select 1`),
      (err: unknown) => err instanceof DatabaseUnavailableError || (err as Error).cause instanceof DatabaseUnavailableError,
    );
    assert.ok(performance.now() - started < 100, 'failed fast');
    assert.match(database.availability.reason() ?? '', /ECONNRESET|ECONNREFUSED|terminated/);

    proxy.restore();
    await eventually('the database up again', async () => (database.availability.up() ? true : undefined), 10_000);
    assert.equal(resumed, 1, 'onAvailable listeners were called once');
    assert.deepEqual(events, ['down', 'up']);
    await database.ping();
    await eventually('LISTEN again after the cut', async () => {
      await admin.query(`notify outage_test, 'two'`);
      return notified.includes('two') ? true : undefined;
    });
    assert.ok(notified.includes(undefined), 'the listener was told it may have missed notifications');
    await stop();
  } finally {
    await admin.end();
    await database.close();
    await proxy.close();
    await fresh.drop();
  }
});

test('a service started while the database cannot be reached waits for it, and starts by itself when it is back', {
  skip: !usingPostgres && 'PostgreSQL only',
  timeout: 90_000,
}, async () => {
  const deployment = await createDeployment();
  const direct = new URL(deployment.databaseUrl!);
  const proxy = await startTcpProxy({ host: direct.hostname, port: Number(direct.port || 5432) });
  proxy.cut();
  let service: ServiceProcess | undefined;
  try {
    service = await runService({
      dataDir: deployment.dataDir,
      env: {
        DATABASE_URL: throughProxy(deployment.databaseUrl!, proxy),
        BOOTSTRAP_ADMIN_EMAIL: 'late@example.com',
        BOOTSTRAP_ADMIN_PASSWORD: 'late start password',
      },
    });
    // Twice: it keeps waiting rather than giving up after one try.
    await service.waitFor(
      (stdout) => (stdout.match(/the database cannot be reached; waiting for it/g) ?? []).length >= 2,
      'two waits for the database',
      30_000,
    );
    assert.equal(service.exit, undefined, `the service gave up${describe(service)}`);
    proxy.restore();
    await service.waitReady(60_000);
    const health = await request(service, 'GET', '/v1/health');
    assert.equal(health.status, 200, health.text);
  } finally {
    service?.kill();
    await service?.exited;
    await proxy.close();
    await deployment.cleanup();
  }
});

function assertUnavailable(body: any, retryAfter: string | null, type: string | null) {
  assert.equal(body?.status, 503, JSON.stringify(body));
  assert.equal(body?.code, 'unavailable', JSON.stringify(body));
  assert.equal(typeof body?.request_id, 'string');
  assert.match(type ?? '', /^application\/problem\+json/);
  assert.match(retryAfter ?? '', /^\d+$/, 'Retry-After names the seconds to wait');
}

async function timed<T>(fn: () => Promise<T>): Promise<{ res: T; ms: number }> {
  const started = performance.now();
  const res = await fn();
  return { res, ms: performance.now() - started };
}

function describe(p: ServiceProcess): string {
  return `\n--- stdout (tail) ---\n${p.stdout.slice(-3000)}\n--- stderr ---\n${p.stderr.slice(-3000)}`;
}

const CUSTOMER = '4915112340000';

/** An official channel bound to the sandbox, with the customer's window open (they wrote first). */
async function officialChannel(server: { baseUrl: string }, apiKey: string, customer: string): Promise<string> {
  const res = await request(server, 'POST', '/v1/channels', {
    key: apiKey,
    body: { platform: 'chatapp_official', name: 'outage official' },
  });
  assert.equal(res.status, 201, res.text);
  const id = res.body.data.id as string;
  const inbound = await request(server, 'POST', '/sandbox/inbound', {
    key: apiKey,
    body: { channel_id: id, from: customer, type: 'text', content: { body: 'hi' } },
  });
  assert.ok(inbound.status < 300, inbound.text);
  await eventually('the customer window', async () =>
    (await request(server, 'GET', `/v1/conversations?channel_id=${id}`, { key: apiKey })).body.data[0]?.last_inbound_at ? true : undefined,
  );
  return id;
}

/** A gateway channel bound to the sandbox, paired: its sends carry our id as the idempotency key, so a retry never sends twice. */
async function gatewayChannel(server: { baseUrl: string }, apiKey: string): Promise<string> {
  const res = await request(server, 'POST', '/v1/channels', {
    key: apiKey,
    body: { platform: 'chatapp_unofficial', name: 'outage', sandbox: true },
  });
  assert.equal(res.status, 201, res.text);
  const id = res.body.data.id as string;
  const connect = await request(server, 'POST', `/v1/channels/${id}/connect`, { key: apiKey });
  assert.equal(connect.status, 200, connect.text);
  const scan = await request(server, 'POST', '/sandbox/gateway/scan', { body: { qr: connect.body.data.qr.qr } });
  assert.ok(scan.status < 300, scan.text);
  // Set-up, before any outage: the worker is a process of its own that a loaded machine starts slowly
  // (CI once took over 20 s here), so the wait is longer than eventually's default.
  await eventually(
    'pairing',
    async () => ((await request(server, 'GET', `/v1/channels/${id}`, { key: apiKey })).body.data.status === 'connected' ? true : undefined),
    60_000,
  );
  return id;
}

async function get(service: ServiceProcess, path: string): Promise<{ status: number; text: string }> {
  const res = await fetch(`${service.baseUrl}${path}`, { signal: AbortSignal.timeout(10_000) });
  return { status: res.status, text: await res.text() };
}

/** Every process alive and ready, its metrics exposed with the families of both roles. */
async function probesReady(processes: readonly ServiceProcess[]): Promise<void> {
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
}
