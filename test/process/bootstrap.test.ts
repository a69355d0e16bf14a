/**
 * First start: the service makes an organization, its owner and an API key, shows the generated
 * secrets once in a banner (never in a log line), and never again on the same data.
 */
import assert from 'node:assert/strict';
import net from 'node:net';
import { test } from 'node:test';
import { randomToken } from '../../src/lib/crypto.ts';
import { request } from '../harness.ts';
import { createDeployment, occurrences, parseWelcome, runService, startService, type ServiceProcess } from './service.ts';

/** Every stdout line is a JSON log record except the banner's; none of them may hold a secret. */
function assertNoSecretInLogs(service: ServiceProcess, secrets: string[]) {
  const logs = service.logs();
  assert.ok(logs.length > 0, 'the service logged nothing');
  for (const line of service.stdout.split('\n')) {
    if (!line.startsWith('{')) continue;
    for (const secret of secrets) assert.ok(!line.includes(secret), `a secret appears in the log line ${line}`);
  }
  for (const secret of secrets) assert.ok(!service.stderr.includes(secret), `a secret appears on stderr:\n${service.stderr}`);
}

test('the first start prints the generated credentials once, and they work; a restart prints no secret', async () => {
  const deployment = await createDeployment();
  let service: ServiceProcess | undefined;
  try {
    service = await startService({ dataDir: deployment.dataDir, env: deployment.env });
    await service.waitFor((out) => out.includes('  Try:'), 'the welcome banner');
    const welcome = parseWelcome(service.stdout);
    assert.ok(welcome, 'no welcome banner');
    assert.equal(welcome.dashboard, `http://localhost:${service.port}/app/`);
    assert.equal(welcome.email, 'owner@parley.local');
    assert.match(welcome.password, /^[A-Za-z0-9_-]{16,}$/);
    assert.match(welcome.apiKey, /^prl_[A-Za-z0-9_-]{20,}$/);
    const { password, apiKey } = welcome;

    const login = await request(service, 'POST', '/v1/auth/login', { body: { email: welcome.email, password } });
    assert.equal(login.status, 200, login.text);
    assert.match(login.headers.get('set-cookie') ?? '', /parley_session=/);
    const wrong = await request(service, 'POST', '/v1/auth/login', { body: { email: welcome.email, password: `${password}x` } });
    assert.equal(wrong.status, 401, wrong.text);

    const channels = await request(service, 'GET', '/v1/channels', { key: apiKey });
    assert.equal(channels.status, 200, channels.text);
    assert.deepEqual(channels.body.data, []);
    assert.equal((await request(service, 'GET', '/v1/channels', { key: `${apiKey}x` })).status, 401);

    const first = await service.stop();
    assert.deepEqual(first, { code: 0, signal: null }, service.stderr);
    // The banner once, each secret once (in it), and no log record holding either.
    assert.equal(occurrences(service.stdout, 'Parley is ready'), 1);
    assert.equal(occurrences(service.stdout, password), 1);
    assert.equal(occurrences(service.stdout, apiKey), 1);
    assertNoSecretInLogs(service, [password, apiKey]);
    // The requests above were logged (with the key header), yet the key is not in them.
    assert.ok(service.logs().some((l) => l.msg === 'request completed'));

    service = await startService({ dataDir: deployment.dataDir, env: deployment.env, port: service.port });
    const again = await request(service, 'GET', '/v1/channels', { key: apiKey });
    assert.equal(again.status, 200, again.text);
    assert.deepEqual(again.body.data, []);
    const relogin = await request(service, 'POST', '/v1/auth/login', { body: { email: welcome.email, password } });
    assert.equal(relogin.status, 200, relogin.text);
    assert.deepEqual(await service.stop(), { code: 0, signal: null }, service.stderr);
    assert.equal(parseWelcome(service.stdout), undefined, `a second banner:\n${service.stdout}`);
    assert.deepEqual(
      service.plainLines(),
      [`Dashboard: ${welcome.dashboard}`],
      'a later start prints the dashboard address and nothing else besides log records',
    );
    assert.ok(!service.stdout.includes(password) && !service.stdout.includes(apiKey));
    assertNoSecretInLogs(service, [password, apiKey]);
  } finally {
    service?.kill();
    await service?.exited;
    await deployment.cleanup();
  }
});

test('BOOTSTRAP_ADMIN_EMAIL, BOOTSTRAP_ADMIN_PASSWORD and BOOTSTRAP_API_KEY are used as given and never printed', async () => {
  const deployment = await createDeployment();
  const email = 'admin@example.com';
  const password = `pw-${randomToken(12)}`;
  const apiKey = `prl_given_${randomToken(24)}`;
  let service: ServiceProcess | undefined;
  try {
    service = await startService({
      dataDir: deployment.dataDir,
      env: { ...deployment.env, BOOTSTRAP_ADMIN_EMAIL: email, BOOTSTRAP_ADMIN_PASSWORD: password, BOOTSTRAP_API_KEY: apiKey },
    });
    await service.waitFor((out) => out.includes('  Try:'), 'the welcome banner');

    const login = await request(service, 'POST', '/v1/auth/login', { body: { email, password } });
    assert.equal(login.status, 200, login.text);
    const channels = await request(service, 'GET', '/v1/channels', { key: apiKey });
    assert.equal(channels.status, 200, channels.text);
    assert.deepEqual(channels.body.data, []);
    // No generated owner besides the given one.
    const generated = await request(service, 'POST', '/v1/auth/login', { body: { email: 'owner@parley.local', password } });
    assert.equal(generated.status, 401, generated.text);

    assert.deepEqual(await service.stop(), { code: 0, signal: null }, service.stderr);
    const welcome = parseWelcome(service.stdout);
    assert.ok(welcome, 'no welcome banner');
    assert.equal(welcome.email, email);
    assert.equal(welcome.password, '(BOOTSTRAP_ADMIN_PASSWORD)');
    assert.equal(welcome.apiKey, '(BOOTSTRAP_API_KEY)');
    assert.ok(!service.stdout.includes(password), 'the given password was printed');
    assert.ok(!service.stdout.includes(apiKey), 'the given API key was printed');
    assertNoSecretInLogs(service, [password, apiKey]);
  } finally {
    service?.kill();
    await service?.exited;
    await deployment.cleanup();
  }
});

test('a first start that fails after bootstrapping (port taken) still shows the generated credentials, which then work', async () => {
  const deployment = await createDeployment();
  const blocker = net.createServer();
  await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
  const port = (blocker.address() as net.AddressInfo).port;
  let service: ServiceProcess | undefined;
  try {
    service = await runService({ dataDir: deployment.dataDir, env: deployment.env, port });
    const exit = await Promise.race([service.exited, new Promise<'late'>((r) => setTimeout(() => r('late'), 30_000).unref())]);
    assert.deepEqual(exit, { code: 1, signal: null }, service.stdout);
    assert.match(service.stderr, new RegExp(`^parley: .*EADDRINUSE.*${port}`, 'm'));
    const welcome = parseWelcome(service.stdout);
    assert.ok(welcome, `the credentials of the failed first start were never shown:\n${service.stdout}`);
    await new Promise((resolve) => blocker.close(resolve));

    service = await startService({ dataDir: deployment.dataDir, env: deployment.env });
    assert.equal(parseWelcome(service.stdout), undefined);
    const channels = await request(service, 'GET', '/v1/channels', { key: welcome.apiKey });
    assert.equal(channels.status, 200, channels.text);
    const login = await request(service, 'POST', '/v1/auth/login', { body: { email: welcome.email, password: welcome.password } });
    assert.equal(login.status, 200, login.text);
    assert.deepEqual(await service.stop(), { code: 0, signal: null }, service.stderr);
  } finally {
    blocker.close();
    service?.kill();
    await service?.exited;
    await deployment.cleanup();
  }
});
