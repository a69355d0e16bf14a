/**
 * The embedded database's lock: one process per DATA_DIR; a second one refuses to start and says
 * why, a lock left by a dead process is taken over. With DATABASE_URL there is no such lock.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { acquireDirLock, LockedError } from '../../src/lib/dir-lock.ts';
import { randomToken } from '../../src/lib/crypto.ts';
import { request } from '../harness.ts';
import { createDeployment, lockFile, runService, startService, usingPostgres, type ServiceProcess } from './service.ts';

const embeddedOnly = usingPostgres ? 'embedded PGlite only (this is the PostgreSQL pass)' : false;
const postgresOnly = usingPostgres ? false : 'needs TEST_DATABASE_URL';

test('a second process on the same DATA_DIR refuses to start, naming the lock and DATABASE_URL; the first keeps serving', {
  skip: embeddedOnly,
}, async () => {
  const deployment = await createDeployment();
  let first: ServiceProcess | undefined;
  let second: ServiceProcess | undefined;
  try {
    first = await startService({ dataDir: deployment.dataDir });
    const lock = lockFile(deployment.dataDir);
    assert.equal(readFileSync(lock, 'utf8'), String(first.pid));

    second = await runService({ dataDir: deployment.dataDir });
    const exit = await Promise.race([second.exited, new Promise<'late'>((r) => setTimeout(() => r('late'), 20_000).unref())]);
    assert.notEqual(exit, 'late', 'the second process did not stop');
    assert.deepEqual(exit, { code: 1, signal: null });
    const message = second.stderr.trim();
    assert.match(message, /^parley: /);
    assert.ok(message.includes(lock), `the message does not name the lock file: ${message}`);
    assert.ok(message.includes(`process ${first.pid}`), `the message does not name the holder: ${message}`);
    assert.ok(message.includes('DATABASE_URL'), `the message does not suggest DATABASE_URL: ${message}`);
    assert.ok(!second.stdout.includes('Server listening'), second.stdout);

    // The first is untouched: still serving, still holding its lock.
    assert.equal(first.exit, undefined);
    const health = await request(first, 'GET', '/v1/health');
    assert.equal(health.status, 200, health.text);
    assert.equal(health.body.components.database.status, 'up');
    assert.equal(readFileSync(lock, 'utf8'), String(first.pid));
    assert.deepEqual(await first.stop(), { code: 0, signal: null }, first.stderr);
    assert.equal(existsSync(lock), false);
  } finally {
    first?.kill();
    second?.kill();
    await Promise.all([first?.exited, second?.exited]);
    await deployment.cleanup();
  }
});

test('the lock of a killed process is taken over, and the data is still there', { skip: embeddedOnly }, async () => {
  const deployment = await createDeployment();
  const apiKey = `prl_given_${randomToken(24)}`;
  const env = { BOOTSTRAP_API_KEY: apiKey };
  let service: ServiceProcess | undefined;
  try {
    service = await startService({ dataDir: deployment.dataDir, env });
    assert.equal((await request(service, 'GET', '/v1/channels', { key: apiKey })).status, 200);
    const deadPid = service.pid;
    service.child.kill('SIGKILL');
    assert.deepEqual(await service.exited, { code: null, signal: 'SIGKILL' });
    const lock = lockFile(deployment.dataDir);
    assert.equal(readFileSync(lock, 'utf8'), String(deadPid), 'the killed process left no lock behind');

    service = await startService({ dataDir: deployment.dataDir, env });
    assert.equal(readFileSync(lock, 'utf8'), String(service.pid));
    const channels = await request(service, 'GET', '/v1/channels', { key: apiKey });
    assert.equal(channels.status, 200, channels.text);
    assert.deepEqual(await service.stop(), { code: 0, signal: null }, service.stderr);
    assert.equal(existsSync(lock), false);
  } finally {
    service?.kill();
    await service?.exited;
    await deployment.cleanup();
  }
});

test('acquireDirLock: held by a live process it throws, stale or unreadable it is taken over, release removes only its own', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'parley-lock-'));
  try {
    const file = path.join(dir, 'parley.lock');
    // Held by a live process (this test runner's parent is alive, and is not us).
    writeFileSync(file, String(process.ppid));
    assert.throws(
      () => acquireDirLock(file),
      (err: unknown) =>
        err instanceof LockedError && err.message.includes(`process ${process.ppid}`) && err.message.includes('DATABASE_URL'),
    );
    assert.equal(readFileSync(file, 'utf8'), String(process.ppid));

    // Stale: a pid that is not running (pid_max on Linux is at most 2^22).
    writeFileSync(file, String(2 ** 22 + 1));
    const lock = acquireDirLock(file);
    assert.equal(readFileSync(file, 'utf8'), String(process.pid));
    lock.release();
    assert.equal(existsSync(file), false);

    // Left empty by a process that died between creating and writing it.
    writeFileSync(file, '');
    const again = acquireDirLock(file);
    assert.equal(readFileSync(file, 'utf8'), String(process.pid));
    // Someone else's lock by now: release leaves it alone.
    writeFileSync(file, String(process.ppid));
    again.release();
    assert.equal(readFileSync(file, 'utf8'), String(process.ppid));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('with DATABASE_URL there is no lock: two processes share one DATA_DIR and one database', { skip: postgresOnly }, async () => {
  const deployment = await createDeployment();
  const apiKey = `prl_given_${randomToken(24)}`;
  const env = { ...deployment.env, BOOTSTRAP_API_KEY: apiKey };
  let first: ServiceProcess | undefined;
  let second: ServiceProcess | undefined;
  try {
    first = await startService({ dataDir: deployment.dataDir, env });
    second = await startService({ dataDir: deployment.dataDir, env });
    assert.equal(existsSync(lockFile(deployment.dataDir)), false);
    for (const service of [first, second]) {
      const res = await request(service, 'GET', '/v1/channels', { key: apiKey });
      assert.equal(res.status, 200, res.text);
    }
    assert.deepEqual(await first.stop(), { code: 0, signal: null }, first.stderr);
    assert.deepEqual(await second.stop(), { code: 0, signal: null }, second.stderr);
  } finally {
    first?.kill();
    second?.kill();
    await Promise.all([first?.exited, second?.exited]);
    await deployment.cleanup();
  }
});
