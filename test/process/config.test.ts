/**
 * Configuration: a wrong value stops the process before it touches anything, with exit code 1 and
 * one line per variable naming it and what it expects; and loadConfig's defaults and derivations.
 * PGlite pass only: the process stops at its configuration, before it opens any database, so the store
 * it would have used changes nothing (docs/testing.md).
 */
// stores: pglite
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { runService, type Exit, type ServiceProcess } from './service.ts';

/** Runs the service with env on top of valid defaults and returns how it ended; it must end by itself. */
async function runToExit(env: Record<string, string>, dataDir: string): Promise<{ exit: Exit; service: ServiceProcess }> {
  const service = await runService({ dataDir, env });
  try {
    const exit = await Promise.race([service.exited, new Promise<'late'>((r) => setTimeout(() => r('late'), 20_000).unref())]);
    assert.notEqual(exit, 'late', `the process did not stop\n${service.stdout}\n${service.stderr}`);
    return { exit: exit as Exit, service };
  } finally {
    service.kill();
  }
}

const cases: Array<{ env: Record<string, string>; line: RegExp }> = [
  { env: { PORT: 'abc' }, line: /^ {2}PORT: expects a port number \(got "abc"\)$/m },
  { env: { LOG_LEVEL: 'loud' }, line: /^ {2}LOG_LEVEL: expects one of fatal, error, warn, info, debug, trace, silent \(got "loud"\)$/m },
  {
    env: { DATABASE_URL: 'mysql://x' },
    line: /^ {2}DATABASE_URL: expects a postgres:\/\/ or postgresql:\/\/ connection URL \(got "mysql:\/\/x"\)$/m,
  },
  {
    env: { BASE_URL: 'ftp://x' },
    line: /^ {2}BASE_URL: expects an http\(s\) URL such as https:\/\/parley\.example\.com \(got "ftp:\/\/x"\)$/m,
  },
  { env: { MEDIA_STORE: 's3' }, line: /^ {2}S3_BUCKET: MEDIA_STORE=s3 needs the bucket to store media in$/m },
];

test('a wrong value stops the process with exit code 1 and a line naming the variable and what it expects', async () => {
  const root = mkdtempSync(path.join(tmpdir(), 'parley-config-'));
  try {
    await Promise.all(
      cases.map(async ({ env, line }, i) => {
        const dataDir = path.join(root, `data-${i}`);
        const { exit, service } = await runToExit(env, dataDir);
        const name = Object.keys(env)[0]!;
        assert.deepEqual(exit, { code: 1, signal: null }, `${name}: ${service.stderr}`);
        assert.match(service.stderr, /^parley: invalid configuration\n/);
        assert.match(service.stderr, line);
        assert.equal(service.stderr.trim().split('\n').length, 2, service.stderr);
        // Stopped before anything ran: no log, no data directory.
        assert.equal(service.stdout, '');
        assert.equal(existsSync(dataDir), false, `${name}: DATA_DIR was created`);
      }),
    );
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('several wrong values are all named at once, and secret values are never shown', async () => {
  const root = mkdtempSync(path.join(tmpdir(), 'parley-config-'));
  try {
    const password = 'tiny7ch';
    const dbPassword = 'hunter2-db-secret';
    const { exit, service } = await runToExit(
      {
        PORT: 'abc',
        LOG_LEVEL: 'loud',
        BOOTSTRAP_ADMIN_PASSWORD: password,
        BOOTSTRAP_API_KEY: 'short-key',
        DATABASE_URL: `mysql://parley:${dbPassword}@db.internal/parley`,
      },
      path.join(root, 'data'),
    );
    assert.deepEqual(exit, { code: 1, signal: null });
    for (const name of ['PORT', 'LOG_LEVEL', 'BOOTSTRAP_ADMIN_PASSWORD', 'BOOTSTRAP_API_KEY', 'DATABASE_URL']) {
      assert.match(service.stderr, new RegExp(`^ {2}${name}: expects `, 'm'), `${name} is not named:\n${service.stderr}`);
    }
    assert.ok(!service.stderr.includes(password), `the password is shown:\n${service.stderr}`);
    assert.ok(!service.stderr.includes('short-key'), `the API key is shown:\n${service.stderr}`);
    assert.ok(!service.stderr.includes(dbPassword), `the database password is shown:\n${service.stderr}`);
    assert.ok(service.stderr.includes('db.internal'), 'the database URL should still be recognisable');
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('loadConfig: defaults', () => {
  const config = loadConfig({});
  assert.equal(config.port, 8080);
  assert.equal(config.host, '0.0.0.0');
  assert.equal(config.baseUrl, 'http://localhost:8080');
  assert.equal(config.appUrl, 'http://localhost:8080/app');
  assert.equal(config.dataDir, './data');
  assert.equal(config.databaseUrl, undefined);
  assert.equal(config.logLevel, 'info');
  assert.deepEqual(config.roles, ['api', 'worker']);
  assert.equal(config.secureCookies, false);
  assert.equal(config.trustProxy, false);
  assert.equal(config.shutdownTimeoutMs, 10_000);
  assert.deepEqual(config.bootstrap, {
    organizationName: 'My organization',
    adminEmail: undefined,
    adminPassword: undefined,
    apiKey: undefined,
  });
});

test('loadConfig: the media store is the filesystem under DATA_DIR by default, or an S3 bucket with its settings checked together', () => {
  assert.deepEqual(loadConfig({ DATA_DIR: '/var/lib/parley' }).media, { store: 'fs', dir: path.join('/var/lib/parley', 'media') });
  assert.deepEqual(loadConfig({ MEDIA_DIR: '/srv/media' }).media, { store: 'fs', dir: '/srv/media' });
  assert.deepEqual(
    loadConfig({
      MEDIA_STORE: 's3',
      S3_BUCKET: 'parley-media',
      S3_ENDPOINT: 'http://minio:9000/',
      S3_ACCESS_KEY_ID: 'id',
      S3_SECRET_ACCESS_KEY: 'secret',
      S3_PREFIX: 'p/',
    }).media,
    {
      store: 's3',
      bucket: 'parley-media',
      region: 'us-east-1',
      endpoint: 'http://minio:9000',
      accessKeyId: 'id',
      secretAccessKey: 'secret',
      forcePathStyle: true,
      prefix: 'p/',
    },
  );
  const aws = loadConfig({ MEDIA_STORE: 's3', S3_BUCKET: 'parley-media', S3_REGION: 'eu-central-1' }).media;
  assert.deepEqual(aws.store === 's3' && [aws.endpoint, aws.forcePathStyle, aws.region, aws.prefix], [
    undefined,
    false,
    'eu-central-1',
    '',
  ]);
  const problems = (env: Record<string, string>) => {
    try {
      loadConfig(env);
      return [];
    } catch (err) {
      return (err as ConfigError).problems;
    }
  };
  assert.deepEqual(problems({ MEDIA_STORE: 's3' }), ['S3_BUCKET: MEDIA_STORE=s3 needs the bucket to store media in']);
  assert.deepEqual(problems({ MEDIA_STORE: 's3', S3_BUCKET: 'b-1', S3_ACCESS_KEY_ID: 'id' }), [
    'S3_SECRET_ACCESS_KEY: S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY are set together or not at all (value hidden)',
  ]);
  assert.match(problems({ MEDIA_STORE: 'disk' })[0]!, /^MEDIA_STORE: expects fs or s3/);
  assert.match(problems({ MEDIA_STORE: 's3', S3_BUCKET: 'No_Such' })[0]!, /^S3_BUCKET: expects a bucket name/);
  for (const prefix of ['../x', '../', 'a/./', 'a'])
    assert.match(problems({ S3_PREFIX: prefix })[0] ?? '', /^S3_PREFIX: expects path segments ending in \//, prefix);
});

test('loadConfig: APP_URL follows BASE_URL (or PORT), and empty or blank values count as unset', () => {
  const config = loadConfig({ BASE_URL: 'https://parley.example.com/', PORT: '9000' });
  assert.equal(config.port, 9000);
  assert.equal(config.baseUrl, 'https://parley.example.com');
  assert.equal(config.appUrl, 'https://parley.example.com/app');
  assert.equal(config.secureCookies, true);
  assert.equal(loadConfig({ PORT: '9000' }).appUrl, 'http://localhost:9000/app');
  assert.equal(loadConfig({ BASE_URL: 'https://api.example.com', APP_URL: 'https://app.example.com/' }).appUrl, 'https://app.example.com');
  // A stray space must not turn into 0: a random port, no rate limit, no shutdown grace.
  const blank = loadConfig({ PORT: '', LOG_LEVEL: '', RATE_LIMIT_PER_MINUTE: ' ', SHUTDOWN_TIMEOUT_MS: ' ' });
  assert.equal(blank.port, 8080);
  assert.equal(blank.logLevel, 'info');
  assert.equal(loadConfig({ PORT: ' ' }).port, 8080);
  assert.equal(blank.rateLimitPerMinute, 6000);
  assert.equal(blank.shutdownTimeoutMs, 10_000);
  assert.deepEqual(loadConfig({ TRUST_PROXY: 'yes', ROLES: ' worker ' }).trustProxy, { hops: 1 });
  assert.deepEqual(loadConfig({ ROLES: ' worker ' }).roles, ['worker']);
  assert.deepEqual(loadConfig({ ROLES: 'api', DATABASE_URL: 'postgres://db/parley' }).roles, ['api']);
  assert.throws(
    () => loadConfig({ ROLES: 'api' }),
    (err: Error & { problems?: string[] }) => (err.problems?.[0] ?? '').startsWith('ROLES: the embedded database serves one process'),
  );
});

test('loadConfig: TRUST_PROXY is off, one proxy (true), a number of proxies, or the proxies by address', () => {
  const trust = (value: string | undefined) => loadConfig({ TRUST_PROXY: value }).trustProxy;
  for (const off of [undefined, 'false', 'no', 'off', '0']) assert.equal(trust(off), false, String(off));
  for (const one of ['true', 'TRUE', 'yes', 'on', '1']) assert.deepEqual(trust(one), { hops: 1 }, one);
  assert.deepEqual(trust('3'), { hops: 3 });
  assert.deepEqual(trust(' 10.0.0.1, 172.16.0.0/12 ,fd00::/8,loopback'), {
    proxies: ['10.0.0.1', '172.16.0.0/12', 'fd00::/8', 'loopback'],
  });
  for (const bad of ['maybe', '100', '-1', '10.0.0.0/33', ',', '10.0.0.1,nope', '127.1']) {
    assert.throws(
      () => loadConfig({ TRUST_PROXY: bad }),
      (err: unknown) => err instanceof ConfigError && err.problems.length === 1 && err.problems[0]!.startsWith('TRUST_PROXY: expects '),
      bad,
    );
  }
});

test('loadConfig: every bad variable is named at once, each with what it expects', () => {
  const env = {
    PORT: 'abc',
    LOG_LEVEL: 'loud',
    DATABASE_URL: 'mysql://x',
    BASE_URL: 'ftp://x',
    ROLES: 'api,cron',
    TRUST_PROXY: 'maybe',
    DATA_DIR: '/tmp/ok',
  };
  let error: unknown;
  try {
    loadConfig(env);
  } catch (err) {
    error = err;
  }
  assert.ok(error instanceof ConfigError, `expected a ConfigError, got ${String(error)}`);
  const named = error.problems.map((p) => p.slice(0, p.indexOf(':'))).sort();
  assert.deepEqual(named, ['BASE_URL', 'DATABASE_URL', 'LOG_LEVEL', 'PORT', 'ROLES', 'TRUST_PROXY']);
  for (const problem of error.problems) assert.match(problem, /^[A-Z_]+: expects .+ \((got ".*"|value hidden)\)$/, problem);
  assert.ok(error.problems.includes('PORT: expects a port number (got "abc")'));
  assert.ok(
    error.problems.some(
      (p) => p.startsWith('TRUST_PROXY: expects true (one proxy), false, a number of proxies') && p.endsWith('(got "maybe")'),
    ),
  );
  // Out-of-range and empty-list values say what is expected too, not a generic message.
  for (const [name, value] of [
    ['PORT', '70000'],
    ['PORT', '1.5'],
    ['ROLES', ','],
    ['BOOTSTRAP_ADMIN_EMAIL', 'nope'],
  ] as const) {
    assert.throws(
      () => loadConfig({ [name]: value }),
      (err: unknown) => err instanceof ConfigError && err.problems.length === 1 && err.problems[0]!.startsWith(`${name}: expects `),
      `${name}=${value}`,
    );
  }
});

test('loadConfig: the request limits default from RATE_LIMIT_PER_MINUTE (0 turns off each one not set on its own); REDIS_URL picks Redis', () => {
  const defaults = loadConfig({});
  assert.deepEqual(defaults.rateLimits, { apiKeyPerMinute: 6000, oauthClientPerMinute: 6000, userPerMinute: 6000, addressPerMinute: 600 });
  assert.equal(defaults.loginRateLimitPerMinute, 20);
  assert.equal(defaults.redis, undefined);
  const scaled = loadConfig({ RATE_LIMIT_PER_MINUTE: '100', RATE_LIMIT_OAUTH_CLIENT_PER_MINUTE: '7' });
  assert.deepEqual(scaled.rateLimits, { apiKeyPerMinute: 100, oauthClientPerMinute: 7, userPerMinute: 100, addressPerMinute: 600 });
  const off = loadConfig({ RATE_LIMIT_PER_MINUTE: '0', RATE_LIMIT_ADDRESS_PER_MINUTE: '50' });
  assert.deepEqual(off.rateLimits, { apiKeyPerMinute: 0, oauthClientPerMinute: 0, userPerMinute: 0, addressPerMinute: 50 });
  assert.equal(off.loginRateLimitPerMinute, 0);
  assert.equal(loadConfig({ RATE_LIMIT_PER_MINUTE: '0', LOGIN_RATE_LIMIT_PER_MINUTE: '5' }).loginRateLimitPerMinute, 5);
  assert.deepEqual(loadConfig({ REDIS_URL: 'redis://127.0.0.1:6379/2' }).redis, { url: 'redis://127.0.0.1:6379/2', keyPrefix: 'parley:' });
  assert.throws(
    () => loadConfig({ REDIS_URL: 'http://user:hunter2@127.0.0.1:6379', RATE_LIMIT_API_KEY_PER_MINUTE: '-1' }),
    (err: Error & { problems?: string[] }) =>
      err.problems?.length === 2 &&
      err.problems.some((p) => p.startsWith('REDIS_URL: expects a redis:// or rediss:// URL') && !p.includes('hunter2')) &&
      err.problems.some((p) => p.startsWith('RATE_LIMIT_API_KEY_PER_MINUTE:')),
  );
});
