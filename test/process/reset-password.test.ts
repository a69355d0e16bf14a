/**
 * The operator's command, as a process: `node src/cli/reset-password.ts EMAIL` (what `npm run
 * reset-password -- EMAIL` runs) on the service's own configuration and data. It prints a one-time
 * link that works; an unknown email, a missing argument and (embedded database) a running service
 * end non-zero with a clear message. Later starts of the service print the dashboard address.
 * One deployment for the file, in order (a service start costs about 2 s of CPU): its first start makes
 * the owner; the command refused while that service runs (embedded database); an unknown email and a
 * missing argument; then the link, used once.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { after, before, test } from 'node:test';
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

let deployment: Deployment;
let service: ServiceProcess | undefined;
let running = false;
let welcome: NonNullable<ReturnType<typeof parseWelcome>>;

before(async () => {
  deployment = await createDeployment();
  service = await startService({ dataDir: deployment.dataDir, env: deployment.env });
  running = true;
  await service.waitFor((out) => out.includes('  Try:'), 'the welcome banner');
  welcome = parseWelcome(service.stdout)!;
});
after(async () => {
  service?.kill();
  await service?.exited;
  await deployment?.cleanup();
});

/** The embedded database serves one process: the operator stops the service before running the command. */
async function stopForCommand(): Promise<void> {
  if (usingPostgres || !running) return;
  running = false;
  assert.deepEqual(await service!.stop(), { code: 0, signal: null }, service!.stderr);
}

test('while the service runs on the embedded database the command says to stop it first, and the service keeps serving', {
  skip: usingPostgres ? 'embedded PGlite only (this is the PostgreSQL pass)' : false,
}, async () => {
  if (!running) {
    service = await startService({ dataDir: deployment.dataDir, env: deployment.env, port: service!.port });
    running = true;
  }
  const run = await runCommand(deployment, ['owner@parley.local'], service!.port);
  assert.equal(run.code, 1);
  assert.equal(run.stdout, '');
  assert.match(run.stderr, /^parley: the service is running on this data folder/);
  assert.match(run.stderr, /Stop the service, run this command again/);
  assert.ok(run.stderr.includes(`process ${service!.pid}`), run.stderr);
  assert.ok(run.stderr.includes(lockFile(deployment.dataDir)), run.stderr);
  assert.equal((await request(service!, 'GET', '/v1/health')).status, 200);
  running = false;
  assert.deepEqual(await service!.stop(), { code: 0, signal: null }, service!.stderr);
});

test('an unknown email and a missing argument end non-zero with a clear message and no link', async () => {
  await stopForCommand();
  const unknown = await runCommand(deployment, ['nobody@example.com'], service!.port);
  assert.equal(unknown.code, 1);
  assert.equal(unknown.stderr.trim(), 'parley: no account has the email "nobody@example.com"');
  assert.equal(unknown.stdout, '');
  const missing = await runCommand(deployment, [], service!.port);
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /usage: npm run reset-password -- EMAIL/);
});

test('prints a one-time link for the account; it sets a new password once; later starts print the dashboard address', async () => {
  const port = service!.port;
  await stopForCommand();
  const run = await runCommand(deployment, [welcome.email.toUpperCase()], port);
  assert.equal(run.code, 0, run.stderr);
  const { url, token } = linkOf(run);
  assert.equal(`${url.origin}${url.pathname}`, `http://localhost:${port}/app/reset-password`);
  assert.match(token, /^plp_[A-Za-z0-9_-]{43}$/);
  assert.match(run.stdout, new RegExp(`^Password reset link for ${welcome.email} \\(one use, valid 60 minutes`, 'm'));

  if (!running) {
    service = await startService({ dataDir: deployment.dataDir, env: deployment.env, port });
    running = true;
  }
  const live = service!;
  await live.waitFor((out) => out.includes('Dashboard: '), 'the dashboard address');
  assert.ok(live.stdout.split('\n').includes(`Dashboard: http://localhost:${port}/app/`), live.stdout);
  const newPassword = 'the operator chose this';
  const reset = await request(live, 'POST', '/v1/auth/password-reset', { body: { token, new_password: newPassword } });
  assert.equal(reset.status, 204, reset.text);
  assert.equal((await request(live, 'POST', '/v1/auth/login', { body: { email: welcome.email, password: newPassword } })).status, 200);
  assert.equal((await request(live, 'POST', '/v1/auth/login', { body: { email: welcome.email, password: welcome.password } })).status, 401);
  assert.equal(
    (await request(live, 'POST', '/v1/auth/password-reset', { body: { token, new_password: 'a second try here' } })).status,
    410,
  );
  running = false;
  assert.deepEqual(await live.stop(), { code: 0, signal: null }, live.stderr);
  assert.ok(!live.stdout.includes(token) && !live.stderr.includes(token), 'the token is in the service output');
});
