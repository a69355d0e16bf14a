/**
 * The operator's command, as a process: `node src/cli/reset-password.ts EMAIL` (what `npm run
 * reset-password -- EMAIL` runs) on the service's own configuration and data. It prints a one-time
 * link that works; an unknown email, a missing argument and (embedded database) a running service
 * end non-zero with a clear message. Later starts of the service print the dashboard address.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { test } from 'node:test';
import { request } from '../harness.ts';
import {
  createDeployment,
  inheritedEnv,
  lockFile,
  parseWelcome,
  ROOT,
  startService,
  usingPostgres,
  type Deployment,
  type ServiceProcess,
} from './service.ts';

const CLI = path.join(ROOT, 'src', 'cli', 'reset-password.ts');
/** As package.json's script runs it. */
const HOOKS = path.join(ROOT, 'src', 'boot', 'module-hooks.ts');

type Run = { code: number | null; stdout: string; stderr: string };

/** Runs the command with the service's environment (nothing of the runner's but PATH and HOME), time-limited. */
function runCommand(deployment: Deployment, args: string[], port: number): Promise<Run> {
  const env = {
    ...inheritedEnv(),
    PORT: String(port),
    DATA_DIR: deployment.dataDir,
    ...deployment.env,
  };
  const child = spawn(process.execPath, ['--import', HOOKS, CLI, ...args], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
  child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  return new Promise((resolve) => {
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** The link the command printed, and its token. */
function linkOf(run: Run): { url: URL; token: string } {
  const match = /^ {2}(http\S+)$/m.exec(run.stdout);
  assert.ok(match, `no link in:\n${run.stdout}\n${run.stderr}`);
  const url = new URL(match[1]!);
  return { url, token: decodeURIComponent(url.hash.replace(/^#token=/, '')) };
}

test('prints a one-time link for the account; it sets a new password once; later starts print the dashboard address', async () => {
  const deployment = await createDeployment();
  let service: ServiceProcess | undefined;
  try {
    service = await startService({ dataDir: deployment.dataDir, env: deployment.env });
    await service.waitFor((out) => out.includes('  Try:'), 'the welcome banner');
    const welcome = parseWelcome(service.stdout)!;
    const port = service.port;
    // The embedded database serves one process: the operator stops the service first.
    if (!usingPostgres) assert.deepEqual(await service.stop(), { code: 0, signal: null }, service.stderr);

    const run = await runCommand(deployment, [welcome.email.toUpperCase()], port);
    assert.equal(run.code, 0, run.stderr);
    const { url, token } = linkOf(run);
    assert.equal(`${url.origin}${url.pathname}`, `http://localhost:${port}/app/reset-password`);
    assert.match(token, /^plp_[A-Za-z0-9_-]{43}$/);
    assert.match(run.stdout, new RegExp(`^Password reset link for ${welcome.email} \\(one use, valid 60 minutes`, 'm'));

    if (!usingPostgres) service = await startService({ dataDir: deployment.dataDir, env: deployment.env, port });
    await service.waitFor((out) => out.includes('Dashboard: '), 'the dashboard address');
    assert.ok(service.stdout.split('\n').includes(`Dashboard: http://localhost:${port}/app/`), service.stdout);
    const newPassword = 'the operator chose this';
    const reset = await request(service, 'POST', '/v1/auth/password-reset', { body: { token, new_password: newPassword } });
    assert.equal(reset.status, 204, reset.text);
    assert.equal((await request(service, 'POST', '/v1/auth/login', { body: { email: welcome.email, password: newPassword } })).status, 200);
    assert.equal(
      (await request(service, 'POST', '/v1/auth/login', { body: { email: welcome.email, password: welcome.password } })).status,
      401,
    );
    assert.equal(
      (await request(service, 'POST', '/v1/auth/password-reset', { body: { token, new_password: 'a second try here' } })).status,
      410,
    );
    assert.deepEqual(await service.stop(), { code: 0, signal: null }, service.stderr);
    assert.ok(!service.stdout.includes(token) && !service.stderr.includes(token), 'the token is in the service output');
  } finally {
    service?.kill();
    await service?.exited;
    await deployment.cleanup();
  }
});

test('an unknown email and a missing argument end non-zero with a clear message and no link', async () => {
  const deployment = await createDeployment();
  let service: ServiceProcess | undefined;
  try {
    // Started once, so the database holds its owner.
    service = await startService({ dataDir: deployment.dataDir, env: deployment.env });
    assert.deepEqual(await service.stop(), { code: 0, signal: null }, service.stderr);
    const unknown = await runCommand(deployment, ['nobody@example.com'], service.port);
    assert.equal(unknown.code, 1);
    assert.equal(unknown.stderr.trim(), 'parley: no account has the email "nobody@example.com"');
    assert.equal(unknown.stdout, '');
    const missing = await runCommand(deployment, [], service.port);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /usage: npm run reset-password -- EMAIL/);
  } finally {
    service?.kill();
    await service?.exited;
    await deployment.cleanup();
  }
});

test('while the service runs on the embedded database the command says to stop it first, and the service keeps serving', {
  skip: usingPostgres ? 'embedded PGlite only (this is the PostgreSQL pass)' : false,
}, async () => {
  const deployment = await createDeployment();
  let service: ServiceProcess | undefined;
  try {
    service = await startService({ dataDir: deployment.dataDir, env: deployment.env });
    const run = await runCommand(deployment, ['owner@parley.local'], service.port);
    assert.equal(run.code, 1);
    assert.equal(run.stdout, '');
    assert.match(run.stderr, /^parley: the service is running on this data folder/);
    assert.match(run.stderr, /Stop the service, run this command again/);
    assert.ok(run.stderr.includes(`process ${service.pid}`), run.stderr);
    assert.ok(run.stderr.includes(lockFile(deployment.dataDir)), run.stderr);
    assert.equal((await request(service, 'GET', '/v1/health')).status, 200);
    assert.deepEqual(await service.stop(), { code: 0, signal: null }, service.stderr);
  } finally {
    service?.kill();
    await service?.exited;
    await deployment.cleanup();
  }
});
