/**
 * What the webhook benchmarks share: a fresh PostgreSQL database, the service as its own process
 * (`node src/main.ts`, as deployed), a receiver on 127.0.0.1 that counts, times and spot-checks
 * signatures, a producer that records events the way the service does (recordEvent in a
 * transaction), and a plain POST sender for the baseline. Loopback only.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { Webhook } from 'standardwebhooks';
import { openDatabase, type Database } from '../../src/db/client.ts';
import { randomToken } from '../../src/lib/crypto.ts';
import { machine } from '../bench-report.ts';
import { serviceNodeArgs } from './common.ts';
import { createTestDatabaseUrl, freePort, type TestDatabaseUrl } from '../../test/harness.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** Node's own flags in package.json's start script (`node --flag … src/main.ts`). */
const START_FLAGS = (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: { start: string } }).scripts.start
  .split(' ')
  .filter((word) => word.startsWith('--'));
export const now = () => performance.timeOrigin + performance.now();

const argv = process.argv.slice(2);
export function option(name: string, fallback: number): number {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 && argv[i + 1] !== undefined ? Number(argv[i + 1]) : fallback;
}

/** Polls check every 20 ms until it holds; throws past timeoutMs. */
export async function waitFor(check: () => boolean | undefined, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** The runs one after another, with the machine lines (the PostgreSQL server's version included) for the report. */
export async function runOnPostgres<T>(runs: number, run: () => Promise<T>): Promise<{ header: string; results: T[] }> {
  const pgVersion = await postgresVersion(serverUrl());
  const header = machine({ Database: `${pgVersion} on 127.0.0.1 (same machine), a fresh database per run` });
  const results: T[] = [];
  for (let i = 0; i < runs; i++) results.push(await run());
  return { header, results };
}

export function serverUrl(): string {
  const url = process.env.TEST_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/test';
  if (!['127.0.0.1', 'localhost', '[::1]'].includes(new URL(url).hostname)) throw new Error('benchmarks talk to loopback only');
  return url;
}

export async function postgresVersion(url: string): Promise<string> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const v = (await client.query('show server_version')).rows[0].server_version as string;
    const sync = (await client.query('show synchronous_commit')).rows[0].synchronous_commit as string;
    return `PostgreSQL ${v} (synchronous_commit=${sync})`;
  } finally {
    await client.end();
  }
}

export type Service = { baseUrl: string; apiKey: string; child: ChildProcess; stop(): Promise<void> };

/**
 * Starts `node src/main.ts` on the database (without one: embedded PGlite in the data directory) and
 * waits for its health check (or, worker only, for its `worker started` line: keep LOG_LEVEL info).
 * BENCH_SERVICE_LOG_GREP=<regexp>: the service's log lines that match it are copied to stderr.
 */
export async function startService(
  database: TestDatabaseUrl | undefined,
  env: Record<string, string>,
  shared: { dataDir: string; apiKey: string; key: string },
  /** A restart: the same port, which the service's own URLs (the sandbox's, kept in its channels) name. */
  samePortAs?: Service,
): Promise<Service> {
  const port = samePortAs ? Number(new URL(samePortAs.baseUrl).port) : await freePort();
  // Node's flags as `npm start` passes them (the service as deployed), then BENCH_SERVICE_NODE_ARGS.
  const nodeArgs = [...START_FLAGS, ...serviceNodeArgs()];
  const child = spawn(process.execPath, [...nodeArgs, path.join(ROOT, 'src/main.ts')], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: process.env.HOME ?? os.tmpdir(),
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: shared.dataDir,
      ...(database ? { DATABASE_URL: database.url } : {}),
      ENCRYPTION_KEY: shared.key,
      BOOTSTRAP_API_KEY: shared.apiKey,
      ALLOW_PRIVATE_NETWORK_TARGETS: 'true',
      LOG_LEVEL: 'info',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  const grep = process.env.BENCH_SERVICE_LOG_GREP ? new RegExp(process.env.BENCH_SERVICE_LOG_GREP) : undefined;
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    if (grep) for (const line of chunk.split('\n')) if (grep.test(line)) process.stderr.write(`service: ${line}\n`);
    out += chunk;
    if (out.length > 100_000) out = out.slice(-50_000);
  });
  // A service that goes away mid-benchmark says why (its last log lines), instead of leaving the
  // benchmark to fail later on a refused connection.
  let stopping = false;
  child.once('exit', (code, signal) => {
    if (stopping) return;
    process.stderr.write(
      `service (pid ${child.pid}) exited unexpectedly: code ${code}, signal ${signal}; its last log lines:\n${out.split('\n').slice(-30).join('\n')}\n`,
    );
  });
  const baseUrl = `http://127.0.0.1:${port}`;
  // PGlite applies every migration at first start; on a busy 2-core machine that can take a minute.
  const deadline = Date.now() + 180_000;
  const workerOnly = env.ROLES === 'worker';
  for (;;) {
    if (child.exitCode !== null) throw new Error(`service exited: ${out}`);
    if (workerOnly) {
      if (out.includes('"worker started"')) break;
    } else {
      const ok = await fetch(`${baseUrl}/v1/health`).then(
        (r) => r.ok,
        () => false,
      );
      if (ok) break;
    }
    if (Date.now() > deadline) {
      stopping = true;
      child.kill('SIGKILL');
      throw new Error(`service not ready: ${out}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    baseUrl,
    apiKey: shared.apiKey,
    child,
    async stop() {
      if (child.exitCode !== null) return;
      stopping = true;
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
    },
  };
}

export type Deployment = {
  database: TestDatabaseUrl;
  shared: { dataDir: string; apiKey: string; key: string };
  /** The producer's own connection (open it once the service has migrated the database). */
  db: Database | undefined;
  cleanup(): Promise<void>;
};

/** A fresh database on the server and what every process of one run shares. */
export async function deployment(): Promise<Deployment> {
  const database = await createTestDatabaseUrl(serverUrl());
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'parley-bench-webhooks-'));
  const d: Deployment = {
    database,
    shared: { dataDir, apiKey: `prl_bench_${randomToken(24)}`, key: Buffer.from(randomToken(32), 'base64url').toString('base64') },
    db: undefined,
    async cleanup() {
      await d.db?.close();
      rmSync(dataDir, { recursive: true, force: true });
      await database.drop();
    },
  };
  return d;
}

export async function openProducer(d: Deployment): Promise<Database> {
  d.db = await openDatabase({ kind: 'postgres', url: d.database.url, poolSize: 10 });
  return d.db;
}

export async function api<T = any>(service: Service, method: string, url: string, body?: unknown): Promise<T> {
  const res = await fetch(service.baseUrl + url, {
    method,
    headers: { 'x-api-key': service.apiKey, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = (await res.json()) as T;
  if (!res.ok) throw new Error(`${method} ${url}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

export type Receiver = {
  url: string;
  /** Requests per path. */
  count(path: string): number;
  total(): number;
  /** First arrival time per `${path} ${webhook-id}`. */
  first: Map<string, number>;
  /** Arrival time of the first and the last request. */
  span(): { first: number; last: number };
  /** Signatures checked with the standardwebhooks package (every checkEvery-th request), and failures. */
  verified(): { checked: number; failed: number };
  setSecrets(byPath: Record<string, string>): void;
  close(): Promise<void>;
};

/** A receiver that answers 204 at once; it checks every checkEvery-th request's signature. */
export async function startReceiver(checkEvery = 50): Promise<Receiver> {
  const counts = new Map<string, number>();
  const first = new Map<string, number>();
  let secrets: Record<string, Webhook> = {};
  let total = 0;
  let checked = 0;
  let failed = 0;
  let firstAt = 0;
  let lastAt = 0;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const at = now();
      if (total === 0) firstAt = at;
      lastAt = at;
      total++;
      const p = req.url ?? '';
      counts.set(p, (counts.get(p) ?? 0) + 1);
      const id = req.headers['webhook-id'];
      if (typeof id === 'string') {
        const key = `${p} ${id}`;
        if (!first.has(key)) first.set(key, at);
        const wh = secrets[p];
        if (wh && total % checkEvery === 0) {
          checked++;
          try {
            wh.verify(Buffer.concat(chunks).toString('utf8'), req.headers as Record<string, string>);
          } catch {
            failed++;
          }
        }
      }
      res.writeHead(204).end();
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    count: (p) => counts.get(p) ?? 0,
    total: () => total,
    first,
    span: () => ({ first: firstAt, last: lastAt }),
    verified: () => ({ checked, failed }),
    setSecrets(byPath) {
      secrets = Object.fromEntries(Object.entries(byPath).map(([p, s]) => [p, new Webhook(s)]));
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

/** Creates endpoints on the receiver (paths /e0, /e1, ...) and returns path -> secret. */
export async function createEndpoints(service: Service, receiver: Receiver, count: number): Promise<Record<string, string>> {
  const secrets: Record<string, string> = {};
  for (let i = 0; i < count; i++) {
    const res = await api<{ data: { secret: string } }>(service, 'POST', '/v1/settings/developer/webhooks/endpoints', {
      url: `${receiver.url}/e${i}`,
      description: `bench ${i}`,
    });
    secrets[`/e${i}`] = res.data.secret;
  }
  receiver.setSecrets(secrets);
  return secrets;
}

/**
 * The baseline: `total` plain, unsigned POSTs of `body` to the receiver with `concurrency` in flight,
 * from a child process (as the service sends from its own), with the same HTTP client (undici's
 * fetch). Resolves to requests per second.
 */
export async function baselineRate(url: string, total: number, concurrency: number, body: string): Promise<number> {
  const code = `
    const [url, total, concurrency, body] = [process.argv[1], Number(process.argv[2]), Number(process.argv[3]), process.argv[4]];
    let next = 0;
    const t0 = performance.now();
    async function lane() {
      while (next < total) {
        const i = next++;
        const res = await fetch(url + '?n=' + i, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
        await res.arrayBuffer();
      }
    }
    await Promise.all(Array.from({ length: concurrency }, lane));
    process.stdout.write(String(total / ((performance.now() - t0) / 1000)));
  `;
  const child = spawn(process.execPath, ['--input-type=module', '-e', code, url, String(total), String(concurrency), body], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout!.setEncoding('utf8').on('data', (c: string) => (out += c));
  await new Promise((r) => child.once('exit', r));
  return Number(out);
}

export function stats(values: number[]) {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
  return { p50: at(50), p90: at(90), p99: at(99), max: sorted.at(-1)!, n: sorted.length };
}
