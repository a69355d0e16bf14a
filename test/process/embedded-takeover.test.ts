/**
 * Exactly one live socket per embedded channel across worker processes. Two services share one
 * PostgreSQL database, each with scripted sockets (EMBEDDED_SOCKET_MODULE) that append a record to a
 * file when a socket opens and when it ends. The holder is killed with SIGKILL: the other takes the
 * session over within the lease's time, never while the first socket could still be live. Then a
 * third starts and the holder is stopped with SIGTERM: the session is handed over at once, not after
 * the lease. PostgreSQL only: the embedded database serves one process.
 */
// stores: postgres
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { eq } from 'drizzle-orm';
import { openDatabase } from '../../src/db/client.ts';
import { channelSessions } from '../../src/db/schema.ts';
import { randomToken } from '../../src/lib/crypto.ts';
import { eventually } from '../eventually.ts';
import { request } from '../harness.ts';
import { createDeployment, ROOT, startService, usingPostgres, type ServiceProcess } from './service.ts';

const LEASE_TTL_MS = 6000;
const POLL_MS = 500;

type Entry = { event: 'open' | 'end'; channelId: string; at: number; worker: string; pid: number };

test('a SIGKILLed holder loses its session to another worker within the lease; a SIGTERMed one hands it over at once; never two sockets', {
  timeout: 170_000,
  skip: !usingPostgres && 'needs TEST_DATABASE_URL',
}, async () => {
  const deployment = await createDeployment();
  const records = path.join(deployment.dataDir, 'sockets.jsonl');
  const apiKey = `prl_embedded_${randomToken(24)}`;
  const moduleFor = (worker: string) => {
    const file = path.join(deployment.dataDir, `socket-${worker}.ts`);
    writeFileSync(
      file,
      `import { recordingSocketFactory } from ${JSON.stringify(path.join(ROOT, 'test/embedded/scripted-socket.ts'))};\n` +
        `export const socketFactory = recordingSocketFactory(${JSON.stringify(records)}, ${JSON.stringify(worker)}, { phone: '4915100009999', name: 'Takeover' });\n`,
    );
    return file;
  };
  const env = (worker: string) => ({
    ...deployment.env,
    BOOTSTRAP_ADMIN_EMAIL: 'embedded@example.com',
    BOOTSTRAP_ADMIN_PASSWORD: 'embedded test password',
    BOOTSTRAP_API_KEY: apiKey,
    // One key for all: they read each other's sealed credentials.
    ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64'),
    EMBEDDED_SOCKET_MODULE: moduleFor(worker),
    EMBEDDED_LEASE_TTL: `${LEASE_TTL_MS}ms`,
    EMBEDDED_LEASE_RENEW: '1s',
    EMBEDDED_POLL_INTERVAL: `${POLL_MS}ms`,
    RATE_LIMIT_PER_MINUTE: '0',
  });
  const database = await openDatabase({ kind: 'postgres', url: deployment.databaseUrl!, poolSize: 2 });
  const services: ServiceProcess[] = [];
  const read = (): Entry[] =>
    existsSync(records)
      ? readFileSync(records, 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l) as Entry)
      : [];
  try {
    const a = await startService({ dataDir: deployment.dataDir, env: env('A') });
    services.push(a);
    const b = await startService({ dataDir: deployment.dataDir, env: env('B') });
    services.push(b);
    const workers = new Map([
      [a.pid, a],
      [b.pid, b],
    ]);

    // An unofficial channel without a gateway: the embedded engine's.
    const created = await request(a, 'POST', '/v1/channels', { key: apiKey, body: { platform: 'chatapp_unofficial', name: 'Takeover' } });
    assert.equal(created.status, 201, created.text);
    const id = created.body.data.id as string;
    assert.equal(created.body.data.sandbox, false);
    const connect = await request(b, 'POST', `/v1/channels/${id}/connect`, { key: apiKey });
    assert.equal(connect.status, 200, connect.text);
    await eventually(
      'the channel to connect',
      async () => (await request(a, 'GET', `/v1/channels/${id}`, { key: apiKey })).body.data.status === 'connected',
      { timeoutMs: 30_000, everyMs: 100 },
    );

    const holderPid = read()
      .filter((r) => r.event === 'open')
      .at(-1)!.pid;
    const holder = workers.get(holderPid)!;
    const other = holder === a ? b : a;
    const opensBefore = read().filter((r) => r.event === 'open').length;
    const killedAt = Date.now();
    holder.kill();
    await holder.exited;
    const takeover = await eventually(
      'the other worker to open the session',
      () => read().find((r) => r.event === 'open' && r.pid === other.pid && r.at >= killedAt),
      { timeoutMs: 30_000, everyMs: 50 },
    );
    const tookMs = takeover.at - killedAt;
    assert.ok(tookMs <= LEASE_TTL_MS + POLL_MS + 2000, `taken over after ${tookMs} ms (lease ${LEASE_TTL_MS} ms, poll ${POLL_MS} ms)`);
    assert.ok(read().filter((r) => r.event === 'open').length > opensBefore);
    const [row] = await database.db.select().from(channelSessions).where(eq(channelSessions.channelId, id));
    assert.equal(row!.wanted, true);
    await eventually(
      'the channel to be connected on the new holder',
      async () => (await request(other, 'GET', `/v1/channels/${id}`, { key: apiKey })).body.data.status === 'connected',
      { timeoutMs: 20_000 },
    );

    // A third worker; the holder stops gracefully: the session moves at once, well inside the lease.
    const c = await startService({ dataDir: deployment.dataDir, env: env('C') });
    services.push(c);
    const stoppedAt = Date.now();
    const exit = await other.stop();
    assert.equal(exit.code, 0);
    const handover = await eventually(
      'the third worker to open the session',
      () => read().find((r) => r.event === 'open' && r.pid === c.pid && r.at >= stoppedAt),
      { timeoutMs: 30_000, everyMs: 50 },
    );
    const endedByOther = read()
      .filter((r) => r.event === 'end' && r.pid === other.pid)
      .at(-1);
    assert.ok(
      endedByOther,
      `the stopping worker ended its socket: ${JSON.stringify(read())}\n${other.stdout
        .split('\n')
        .filter((l) => l.includes('embedded') || l.includes('shut'))
        .join('\n')}`,
    );
    assert.ok(handover.at >= endedByOther.at, 'opened only after the old socket ended');
    assert.ok(
      handover.at - stoppedAt < LEASE_TTL_MS / 2,
      `handed over after ${handover.at - stoppedAt} ms, not after the lease (${LEASE_TTL_MS} ms)`,
    );

    // Never two live sockets: the killed worker's sockets count as ended when it was killed.
    let live = 0;
    const events = read()
      .map((r) => ({ ...r, delta: r.event === 'open' ? 1 : -1 }))
      .concat(
        read()
          .filter(
            (r) =>
              r.pid === holderPid && r.event === 'open' && !read().some((e) => e.event === 'end' && e.pid === holderPid && e.at >= r.at),
          )
          .map((r) => ({ ...r, at: killedAt, delta: -1 })),
      )
      .sort((x, y) => x.at - y.at || x.delta - y.delta);
    for (const e of events) {
      live += e.delta;
      assert.ok(live <= 1, `two sockets live at ${new Date(e.at).toISOString()}: ${JSON.stringify(read())}`);
    }
  } finally {
    for (const service of services) service.kill();
    await Promise.all(services.map((s) => s.exited));
    await database.close();
    await deployment.cleanup();
  }
});
