/**
 * The test harness: a real server on a real port over a real, fresh database. PGlite in memory by
 * default; with TEST_DATABASE_URL, a new PostgreSQL database made for this server and dropped after.
 */
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statfsSync, writeFileSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import pg from 'pg';
import { loadConfig, type Config } from '../src/config.ts';
import { buildContainer, type Container } from '../src/container.ts';
import { openDatabase, type Database } from '../src/db/client.ts';
import { buildApp, type App } from '../src/http/app.ts';
import { CSRF_HEADER, csrfTokenFor } from '../src/http/auth/authenticate.ts';
import { migrate } from '../src/db/migrate.ts';
import { JOBS } from '../src/jobs/catalog.ts';
import { startQueue } from '../src/jobs/queue.ts';
import { randomToken } from '../src/lib/crypto.ts';
import { createLogger } from '../src/lib/logger.ts';
import type { Clock } from '../src/lib/clock.ts';
import type { SocketFactory } from '../src/providers/gateway/embedded/socket.ts';
import { createApiKey } from '../src/domain/api-keys/api-keys.ts';
import { createOrganization } from '../src/domain/organizations/organizations.ts';
import { PERMISSIONS, type Permission } from '../src/domain/permissions.ts';

export const OWNER_EMAIL = 'owner@example.com';
export const OWNER_PASSWORD = 'correct horse battery staple';

/** The PostgreSQL server of the PostgreSQL pass (each test server makes a database of its own there); undefined on PGlite. */
export const TEST_DATABASE_SERVER_URL = process.env.TEST_DATABASE_URL;
/** True in the PostgreSQL pass. */
export const usingPostgres = Boolean(TEST_DATABASE_SERVER_URL);

export type TestDatabase = { database: Database; url: string | undefined; drop(): Promise<void> };

/**
 * Where test PGlite databases keep their data directories: the machine's memory-backed /dev/shm when it
 * has room. A PGlite opened on a copied data directory (the production code path, DATA_DIR) costs half
 * the CPU of one loaded from an archive into memory (0.45 s against 0.8 s); on a disk every commit would
 * wait on it. Without one, the archive. Named with the process id, so the runner can remove the
 * directories of a process that died (scripts/test.ts).
 */
export const TEST_SCRATCH_PREFIX = 'parley-test-db-';
const scratch = (() => {
  try {
    const fs = statfsSync('/dev/shm');
    return fs.bavail * fs.bsize > 2 * 1024 ** 3 ? '/dev/shm' : undefined;
  } catch {
    return undefined;
  }
})();

/**
 * A fresh database with the migrations and the job queue's schema applied (nothing else: no
 * organization): a PGlite on a copy of a migrated data directory (in memory-backed /dev/shm, else
 * loaded into memory from an archive of it), or on TEST_DATABASE_URL's server a new database copied
 * from a migrated template database. Both templates are made once per set of migrations, so no test
 * server applies migrations of its own.
 */
export async function createTestDatabase(): Promise<TestDatabase> {
  const serverUrl = TEST_DATABASE_SERVER_URL;
  if (!serverUrl && scratch) {
    const dir = mkdtempSync(path.join(scratch, `${TEST_SCRATCH_PREFIX}${process.pid}-`));
    try {
      await copyMigratedPglite(path.join(dir, 'pgdata'));
      const database = await openDatabase({ kind: 'pglite', dataDir: dir });
      return {
        database,
        url: undefined,
        async drop() {
          await database.close();
          rmSync(dir, { recursive: true, force: true });
        },
      };
    } catch (err) {
      rmSync(dir, { recursive: true, force: true });
      throw err;
    }
  }
  if (!serverUrl) {
    const database = await openDatabase({ kind: 'pglite', dataDir: null, loadDataDir: await pgliteTemplate() });
    return { database, url: undefined, drop: () => database.close() };
  }
  const fresh = await createTestDatabaseUrl(serverUrl, { migrated: true });
  const database = await openDatabase({ kind: 'postgres', url: fresh.url, poolSize: 5 });
  return {
    database,
    url: fresh.url,
    async drop() {
      await database.close();
      await fresh.drop();
    },
  };
}

export type TestDatabaseUrl = { url: string; drop(): Promise<void> };

/**
 * A new database on the PostgreSQL server of serverUrl (default TEST_DATABASE_URL), not opened: for
 * handing to a spawned process as DATABASE_URL. Empty (the process applies the migrations, as a
 * first start does), or with `migrated` a copy of the migrated template. drop() removes it, closing
 * whatever connections are still open on it.
 */
export async function createTestDatabaseUrl(
  serverUrl = TEST_DATABASE_SERVER_URL,
  options: { migrated?: boolean } = {},
): Promise<TestDatabaseUrl> {
  if (!serverUrl) throw new Error('createTestDatabaseUrl needs TEST_DATABASE_URL');
  const template = options.migrated ? await postgresTemplate(serverUrl) : undefined;
  const name = `parley_test_${Date.now().toString(36)}_${randomToken(6)
    .toLowerCase()
    .replace(/[^a-z0-9]/g, '')}`;
  try {
    await withAdmin(serverUrl, (admin) => admin.query(`create database "${name}"${template ? ` template "${template}"` : ''}`));
  } catch (err) {
    // A run in another checkout, with other migrations, made its own template and dropped ours (templates of
    // other keys go when a new one is made): make ours again, once.
    if (!template || !/template database .* does not exist/.test((err as Error).message)) throw err;
    postgresTemplateName = undefined;
    const again = await postgresTemplate(serverUrl);
    await withAdmin(serverUrl, (admin) => admin.query(`create database "${name}" template "${again}"`));
  }
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: () => withAdmin(serverUrl, (admin) => admin.query(`drop database if exists "${name}" with (force)`)).then(() => undefined),
  };
}

async function withAdmin<T>(serverUrl: string, fn: (admin: pg.Client) => Promise<T>): Promise<T> {
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    return await fn(admin);
  } finally {
    await admin.end();
  }
}

/** What a migrated template holds depends on: the migrations, pg-boss's version (its schema) and the queues' options (pgboss.queue). */
function templateKey(): string {
  const migrations = new URL('../src/db/migrations/', import.meta.url);
  const hash = createHash('sha256');
  for (const file of readdirSync(migrations, { recursive: true }).map(String).sort()) {
    if (file.endsWith('.sql') || file.endsWith('.json')) hash.update(file).update(readFileSync(new URL(file, migrations)));
  }
  hash.update(JSON.parse(readFileSync(new URL('../node_modules/pg-boss/package.json', import.meta.url), 'utf8')).version);
  hash.update(JSON.stringify(Object.entries(JOBS).map(([name, job]) => [name, job.queue])));
  return hash.digest('hex').slice(0, 16);
}

/** Applies the migrations and the job queue's schema to a database, as a first start would. */
async function migrateWithQueue(database: Database): Promise<void> {
  await migrate(database);
  const queue = await startQueue(database, createLogger({ level: 'silent' }));
  await queue.stop({ graceful: false, timeoutMs: 100 });
}

let postgresTemplateName: Promise<string> | undefined;

/**
 * The migrated template database on the server, made by the first test process that needs it (the
 * others wait on an advisory lock) and kept for later runs: its name carries the template key, and
 * templates of other keys are dropped when a new one is made. It is never connected to once made,
 * so any number of CREATE DATABASE … TEMPLATE can copy it at once.
 */
function postgresTemplate(serverUrl: string): Promise<string> {
  postgresTemplateName ??= withAdmin(serverUrl, async (admin) => {
    const name = `parley_template_${templateKey()}`;
    // One key for every run on this server: the template is made once.
    await admin.query('select pg_advisory_lock(7263001)');
    try {
      const found = await admin.query('select 1 from pg_database where datname = $1', [name]);
      if (found.rowCount === 0) {
        const building = `${name}_building`;
        await admin.query(`drop database if exists "${building}" with (force)`);
        await admin.query(`create database "${building}"`);
        const url = new URL(serverUrl);
        url.pathname = `/${building}`;
        const database = await openDatabase({ kind: 'postgres', url: url.toString(), poolSize: 2 });
        try {
          await migrateWithQueue(database);
        } finally {
          await database.close();
        }
        await admin.query(`alter database "${building}" rename to "${name}"`);
        const stale = await admin.query<{ datname: string }>(
          "select datname from pg_database where starts_with(datname, 'parley_template_') and datname <> $1",
          [name],
        );
        // Another checkout's run may be copying one right now: that drop fails and waits for a later run.
        for (const { datname } of stale.rows) await admin.query(`drop database if exists "${datname}"`).catch(() => undefined);
      }
      return name;
    } finally {
      await admin.query('select pg_advisory_unlock(7263001)');
    }
  });
  return postgresTemplateName;
}

let template: Promise<Blob> | undefined;

/**
 * A migrated PGlite data directory (with the job queue's schema), made once and kept in the temp
 * folder under the template key: a fresh PGlite takes seconds to initialise, a copy of this takes a
 * fraction of one.
 */
function pgliteTemplate(): Promise<Blob> {
  template ??= (async () => {
    const file = path.join(tmpdir(), `parley-pglite-template-${templateKey()}.tar`);
    if (existsSync(file)) return new Blob([readFileSync(file)]);
    const database = await openDatabase({ kind: 'pglite', dataDir: null });
    await migrateWithQueue(database);
    const dump = await database.dumpDataDir!();
    await database.close();
    const partial = `${file}.${process.pid}.partial`;
    writeFileSync(partial, Buffer.from(await dump.arrayBuffer()));
    renameSync(partial, file);
    return dump;
  })();
  return template;
}

let migratedDirectory: Promise<string> | undefined;

/**
 * Puts a migrated PGlite data directory at `pgdata` (a copy of one made from the template once per
 * template key, in the temp folder), for a service process that would otherwise initialise and
 * migrate an empty one.
 */
export async function copyMigratedPglite(pgdata: string): Promise<void> {
  migratedDirectory ??= (async () => {
    const dir = path.join(tmpdir(), `parley-pglite-migrated-${templateKey()}`);
    if (!existsSync(path.join(dir, 'PG_VERSION'))) {
      const building = `${dir}.${process.pid}.partial`;
      rmSync(building, { recursive: true, force: true });
      const database = await PGlite.create(building, { loadDataDir: await pgliteTemplate() });
      await database.close();
      try {
        renameSync(building, dir);
      } catch {
        // Another test process made it meanwhile.
        rmSync(building, { recursive: true, force: true });
      }
    }
    return dir;
  })();
  cpSync(await migratedDirectory, pgdata, { recursive: true });
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

export type TestServer = {
  baseUrl: string;
  config: Config;
  container: Container;
  app: App;
  /** The all-permission key of the bootstrapped organization. */
  apiKey: string;
  organizationId: string;
  /** The server database's URL (PostgreSQL runs; undefined on PGlite), for tests that need a connection of their own. */
  databaseUrl: string | undefined;
  /** Every log line the server wrote, for checks that secrets never appear. */
  logs: string[];
  /** Values that must never appear in this server's logs (value -> what it is); close() fails when one does. */
  sensitive: Map<string, string>;
  /** Adds values the log audit looks for; request() adds the credentials, secrets and personal values it sees. */
  registerSensitive(what: string, ...values: Array<string | undefined>): void;
  close(): Promise<void>;
};

/** Running servers by base URL, so request() can register what it sends and receives. */
const running = new Map<string, TestServer>();

/** Values shorter than this are too common to mean anything when found in a log. */
const AUDIT_MIN_LENGTH = 6;

/** The log lines' findings: which registered values appear, by what they are (the values themselves are not repeated). */
export function auditLogs(logs: readonly string[], sensitive: ReadonlyMap<string, string>): string[] {
  const findings: string[] = [];
  for (const [value, what] of sensitive) {
    const forms = [value, JSON.stringify(value).slice(1, -1), encodeURIComponent(value.toWellFormed())];
    // A value of digits only (a PIN, a code) counts where it stands alone, not inside a longer number
    // such as a response time's decimals.
    const numeric = /^\d+$/.test(value) ? new RegExp(`(?<![\\d.])${value}(?![\\d.])`) : undefined;
    const line = logs.find((l) => (numeric ? numeric.test(l) : forms.some((f) => l.includes(f))));
    if (line !== undefined) findings.push(`${what} appears in a log line: ${line.slice(0, 300)}`);
  }
  return findings;
}

/** A clock that runs with real time and is moved forward by hand: expiry tests move it instead of sleeping. */
export function movableClock(): Clock & { advance(ms: number): void } {
  let shiftMs = 0;
  return { now: () => new Date(Date.now() + shiftMs), advance: (ms) => void (shiftMs += ms) };
}

export type TestServerOptions = {
  env?: Record<string, string>;
  clock?: Clock;
  worker?: boolean;
  /** The embedded engine's sockets (test/embedded/scripted-socket.ts); without it the real library's would be used. */
  socketFactory?: SocketFactory;
};

/** Tests never open a real linked-device connection: a test that pairs passes a scripted socket. */
const refuseSockets: SocketFactory = () => {
  throw new Error('tests open no real linked-device sockets: pass socketFactory (test/embedded/scripted-socket.ts) to startTestServer');
};

/** Starts the whole service (API, and the worker when asked) on a free port over a fresh database. */
export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  const port = await freePort();
  const dataDir = mkdtempSync(path.join(tmpdir(), 'parley-test-'));
  const apiKey = `prl_test_${randomToken(24)}`;
  const config = loadConfig({
    PORT: String(port),
    HOST: '127.0.0.1',
    BASE_URL: `http://127.0.0.1:${port}`,
    DATA_DIR: dataDir,
    LOG_LEVEL: 'info',
    BOOTSTRAP_ADMIN_EMAIL: OWNER_EMAIL,
    BOOTSTRAP_ADMIN_PASSWORD: OWNER_PASSWORD,
    BOOTSTRAP_API_KEY: apiKey,
    RATE_LIMIT_PER_MINUTE: '0',
    // Route tests send many bad credentials on purpose (test/auth-cases.ts); the limit's own tests turn it on.
    AUTH_FAILURE_LIMIT_PER_MINUTE: '0',
    // Test receivers, gateways and media servers listen on loopback; the SSRF tests set it false.
    ALLOW_PRIVATE_NETWORK_TARGETS: 'true',
    // A test's server closes when its tests are done: an answer a test left unread is cut soon.
    SHUTDOWN_TIMEOUT_MS: '200',
    ...options.env,
  });
  const logs: string[] = [];
  const destination = new Writable({
    write(chunk, _encoding, callback) {
      logs.push(...String(chunk).split('\n').filter(Boolean));
      callback();
    },
  });
  const testDb = await createTestDatabase();
  const container = await buildContainer(config, {
    database: testDb.database,
    logger: createLogger({ level: config.logLevel, destination }),
    clock: options.clock,
    socketFactory: options.socketFactory ?? refuseSockets,
  });
  if (options.worker) await container.queue.work(container.jobHandlers());
  const app = await buildApp(container);
  await app.listen({ port, host: '127.0.0.1' });
  const result = container.bootstrapResult;
  if (!result.created) throw new Error('test database was not empty');
  let closed = false;
  const sensitive = new Map<string, string>();
  const registerSensitive = (what: string, ...values: Array<string | undefined>) => {
    for (const value of values) if (value && value.length >= AUDIT_MIN_LENGTH && !sensitive.has(value)) sensitive.set(value, what);
  };
  registerSensitive('the bootstrap API key', apiKey);
  registerSensitive('the owner password', OWNER_PASSWORD);
  registerSensitive('the encryption key', config.encryptionKey);
  const server: TestServer = {
    baseUrl: config.baseUrl,
    config,
    container,
    app,
    apiKey,
    organizationId: result.organizationId,
    databaseUrl: testDb.url,
    logs,
    sensitive,
    registerSensitive,
    async close() {
      if (closed) return;
      closed = true;
      running.delete(config.baseUrl);
      await app.close();
      // Graceful: a handler still running when the database goes away would wait on it forever.
      await container.queue.stop({ graceful: true, timeoutMs: 5000 });
      await container.counters.close();
      await testDb.drop();
      rmSync(dataDir, { recursive: true, force: true });
      // The log audit: every test file's server logs are searched for what its tests sent and got. It
      // fails the file through the exit code rather than by throwing, so the caller's cleanup still runs.
      const findings = auditLogs(logs, sensitive);
      if (findings.length > 0) {
        process.stderr.write(`log audit failed (test/harness.ts):\n${findings.join('\n')}\n`);
        process.exitCode = 1;
      }
    },
  };
  running.set(config.baseUrl, server);
  return server;
}

const SECRET_FIELD = /password|secret|token|api_key|apikey|pin|^code$|credential/i;
const PERSONAL_FIELD = /^(email|phone|phone_number|to|from|to_phone|full_name|external_id|body|caption|reason|source)$/i;

/** Registers the credentials, secrets and personal values a request carries or its answer shows. */
function registerExchange(server: TestServer, path: string, headers: Record<string, string>, sent: unknown, received: unknown): void {
  server.registerSensitive('an X-Api-Key', headers['x-api-key']);
  server.registerSensitive('a bearer token', headers.authorization?.replace(/^Bearer\s+/i, ''));
  for (const part of (headers.cookie ?? '').split(';')) server.registerSensitive('a session cookie', part.split('=')[1]?.trim());
  const contacts = path.startsWith('/v1/contacts');
  const walk = (value: unknown, key: string, depth: number, secretScope: boolean) => {
    if (depth > 6 || value === null || value === undefined) return;
    if (typeof value === 'string') {
      if (secretScope || SECRET_FIELD.test(key)) server.registerSensitive(`a secret (${key})`, value);
      else if (PERSONAL_FIELD.test(key) || (contacts && key === 'name')) server.registerSensitive(`a personal value (${key})`, value);
      return;
    }
    if (Array.isArray(value)) for (const item of value) walk(item, key, depth + 1, secretScope);
    else if (typeof value === 'object') {
      for (const [k, v] of Object.entries(value)) walk(v, k, depth + 1, secretScope || /^credentials$/i.test(k));
    }
  };
  walk(sent, '', 0, false);
  // What the server hands out once: key secrets, webhook secrets, tokens.
  const data = (received as { data?: Record<string, unknown> } | undefined)?.data;
  if (data && typeof data === 'object' && !Array.isArray(data)) {
    for (const [k, v] of Object.entries(data))
      if (typeof v === 'string' && SECRET_FIELD.test(k)) server.registerSensitive(`a secret the server returned (${k})`, v);
  }
}

export type ApiResponse<T = any> = { status: number; headers: Headers; body: T; text: string };

export type RequestOptions = {
  body?: unknown;
  /** A raw body sent as is (with the given content type, default application/json). */
  rawBody?: string | Buffer;
  contentType?: string;
  key?: string;
  cookie?: string;
  bearer?: string;
  headers?: Record<string, string>;
  /** false: a write with a session cookie goes without the X-CSRF-Token header the dashboard sends. */
  csrf?: boolean;
};

/** The headers the dashboard sends with a write on a session: the cookie and its CSRF token. */
export function withCsrf(headers: Record<string, string>, method: string): Record<string, string> {
  const session = /parley_session=([^;\s]+)/.exec(headers.cookie ?? '');
  if (!session || method === 'GET' || method === 'HEAD' || Object.keys(headers).some((h) => h.toLowerCase() === CSRF_HEADER))
    return headers;
  return { ...headers, [CSRF_HEADER]: csrfTokenFor(session[1]!) };
}

/** One HTTP request to the server, JSON in and out. */
export async function request<T = any>(
  server: { baseUrl: string },
  method: string,
  path: string,
  options: RequestOptions = {},
): Promise<ApiResponse<T>> {
  const headers: Record<string, string> = { accept: 'application/json', ...options.headers };
  if (options.key !== undefined) headers['x-api-key'] = options.key;
  if (options.cookie !== undefined) headers.cookie = options.cookie;
  if (options.bearer !== undefined) headers.authorization = `Bearer ${options.bearer}`;
  if (options.csrf !== false) Object.assign(headers, withCsrf(headers, method));
  let body: string | Buffer | undefined;
  if (options.rawBody !== undefined) {
    body = options.rawBody;
    headers['content-type'] = options.contentType ?? 'application/json';
  } else if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['content-type'] = options.contentType ?? 'application/json';
  }
  const response = await fetch(server.baseUrl + path, { method, headers, body: body as BodyInit | undefined, redirect: 'manual' });
  const text = await response.text();
  let parsed: unknown = undefined;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  const known = running.get(server.baseUrl);
  if (known) {
    registerExchange(known, path, headers, options.body, parsed);
    const session = /parley_session=([^;]+)/.exec(response.headers.get('set-cookie') ?? '');
    known.registerSensitive('a session cookie', session?.[1]);
  }
  return { status: response.status, headers: response.headers, body: parsed as T, text };
}

/** Logs in and returns the Cookie header value of the new session. */
export async function loginCookie(server: TestServer, email = OWNER_EMAIL, password = OWNER_PASSWORD): Promise<string> {
  const res = await request(server, 'POST', '/v1/auth/login', { body: { email, password } });
  if (res.status !== 200) throw new Error(`login failed: ${res.status} ${res.text}`);
  const setCookie = res.headers.get('set-cookie') ?? '';
  const match = /parley_session=([^;]+)/.exec(setCookie);
  if (!match) throw new Error('no session cookie');
  return `parley_session=${match[1]}`;
}

/** A second organization with its own owner and all-permission key, for isolation checks. */
export async function createOtherOrganization(server: TestServer, label = 'other') {
  const db = server.container.database.db;
  const clock = server.container.clock;
  const email = `${label}-${randomToken(4).toLowerCase()}@example.com`;
  const { organizationId, userId } = await createOrganization(
    { db, clock },
    { name: `${label} org`, owner: { email, name: `${label} owner`, password: OWNER_PASSWORD } },
  );
  const { secret } = await createApiKey(
    { db, clock },
    { kind: 'system', organizationId, permissions: new Set(PERMISSIONS) },
    { name: `${label} key`, permissions: [...PERMISSIONS] },
  );
  return { organizationId, userId, email, password: OWNER_PASSWORD, apiKey: secret };
}

/** An API key of the bootstrapped organization holding only the given permissions. */
export async function createKeyWith(server: TestServer, permissions: Permission[]): Promise<string> {
  const { secret } = await createApiKey(
    { db: server.container.database.db, clock: server.container.clock },
    { kind: 'system', organizationId: server.organizationId, permissions: new Set(PERMISSIONS) },
    { name: `limited ${permissions.join(' ')}`, permissions },
  );
  return secret;
}
