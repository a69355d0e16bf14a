/**
 * What both benchmarks share: options, the machine, the service in a child process (so the load
 * generator in this process does not share its event loop), the sandbox channel, autocannon and
 * pgbench runs, and statistics. Traffic goes to 127.0.0.1 only.
 */
import { execFileSync, fork, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import autocannon, { type Result } from 'autocannon';
import pg from 'pg';
import { randomToken } from '../../src/lib/crypto.ts';
import { createTestDatabaseUrl, freePort, type TestDatabaseUrl } from '../../test/harness.ts';
import { poolPhone } from './replay.ts';

// ---------------------------------------------------------------------------------------------
// Options

const argv = process.argv.slice(2);
export const hasFlag = (name: string) => argv.includes(`--${name}`);
export function option(name: string, fallback: string): string {
  const i = argv.indexOf(`--${name}`);
  if (i >= 0 && argv[i + 1] !== undefined) return argv[i + 1]!;
  const eq = argv.find((a) => a.startsWith(`--${name}=`));
  return eq ? eq.slice(name.length + 3) : fallback;
}
export const numberOption = (name: string, fallback: number) => Number(option(name, String(fallback)));

export type Backend = 'pglite-disk' | 'pglite-memory' | 'postgres';

/** PostgreSQL with --pg or TEST_DATABASE_URL (unless --pglite); else PGlite on disk (--pglite-memory: in memory). */
export function backendOf(): Backend {
  if (hasFlag('pglite-memory')) return 'pglite-memory';
  if (hasFlag('pglite')) return 'pglite-disk';
  if (hasFlag('pg') || process.env.TEST_DATABASE_URL) return 'postgres';
  return 'pglite-disk';
}

export function pgServerUrl(): string {
  const url = option('pg-url', process.env.TEST_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/test');
  const host = new URL(url).hostname;
  if (!['127.0.0.1', 'localhost', '::1', '[::1]'].includes(host)) throw new Error(`benchmarks talk to loopback only; ${host} is not`);
  return url;
}

// ---------------------------------------------------------------------------------------------
// The machine

/** CPU time (user + system) a process has used, in microseconds (Linux: /proc/<pid>/stat, clock ticks of 10 ms). */
export function cpuUsOf(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1e6) / 100;
}

/**
 * CPU time used by every PostgreSQL process on this machine (the server and its backends), in
 * microseconds: the difference over a phase is what the database cost, on a machine otherwise quiet.
 */
export function postgresCpuUs(): number {
  let total = 0;
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      if (readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === 'postgres') total += cpuUsOf(Number(pid));
    } catch {
      // Gone meanwhile.
    }
  }
  return total;
}

export type Machine = { cpus: number; cpuModel: string; memoryGiB: number; node: string; postgres: string | undefined; load: number[] };

export async function machine(backend: Backend): Promise<Machine> {
  const cpuinfo = readFileSync('/proc/cpuinfo', 'utf8');
  let postgres: string | undefined;
  if (backend === 'postgres') {
    const client = new pg.Client({ connectionString: pgServerUrl() });
    await client.connect();
    postgres = ((await client.query('show server_version')).rows[0] as { server_version: string }).server_version;
    const sync = ((await client.query('show synchronous_commit')).rows[0] as { synchronous_commit: string }).synchronous_commit;
    const fsync = ((await client.query('show fsync')).rows[0] as { fsync: string }).fsync;
    postgres += ` (synchronous_commit=${sync}, fsync=${fsync})`;
    await client.end();
  }
  return {
    cpus: os.availableParallelism(),
    cpuModel: /model name\s*:\s*(.*)/.exec(cpuinfo)?.[1] ?? 'unknown',
    memoryGiB: Math.round((os.totalmem() / 2 ** 30) * 10) / 10,
    node: process.version,
    postgres,
    load: os.loadavg().map((l) => Math.round(l * 100) / 100),
  };
}

export const loadNow = () => os.loadavg().map((l) => Math.round(l * 100) / 100);

// ---------------------------------------------------------------------------------------------
// The service, in a child process

export type ServerOptions = {
  backend: Backend;
  databaseUrl?: string;
  /** Run the worker role (dispatch) from the start and through the measurements. */
  worker: boolean;
  logLevel?: string;
  statusDelayMs?: number;
  poolSize?: number;
};

export type BenchServer = {
  baseUrl: string;
  apiKey: string;
  organizationId: string;
  call<T = Record<string, unknown>>(command: Record<string, unknown>): Promise<T>;
  close(): Promise<void>;
};

/**
 * Node flags for the service process a benchmark starts, from BENCH_SERVICE_NODE_ARGS: e.g.
 * "--cpu-prof --cpu-prof-dir=/tmp/prof" to profile it.
 */
export function serviceNodeArgs(): string[] {
  return process.env.BENCH_SERVICE_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
}

export async function startServer(options: ServerOptions): Promise<BenchServer> {
  const port = await freePort();
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'parley-bench-'));
  const apiKey = `prl_bench_${randomToken(24)}`;
  const child: ChildProcess = fork(new URL('./server.ts', import.meta.url).pathname, [], {
    execPath: process.execPath,
    execArgv: serviceNodeArgs(),
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    env: {
      ...process.env,
      BENCH_PORT: String(port),
      BENCH_DATA_DIR: dataDir,
      BENCH_API_KEY: apiKey,
      BENCH_DB: options.backend,
      DATABASE_URL: options.databaseUrl ?? '',
      BENCH_WORKER: options.worker ? '1' : '0',
      // The sandbox pairs gateway channels through jobs: the setup always has a worker.
      BENCH_SETUP_WORKER: '1',
      BENCH_LOG_LEVEL: options.logLevel ?? 'info',
      BENCH_POOL_SIZE: String(options.poolSize ?? 10),
      SANDBOX_STATUS_DELAY_MS: String(options.statusDelayMs ?? 200),
    },
  });
  const waiting: Array<{ resolve: (m: Record<string, unknown>) => void; reject: (e: Error) => void }> = [];
  let exited: Error | undefined;
  child.on('message', (message: Record<string, unknown>) => {
    const next = waiting.shift();
    if (!next) return;
    if (message.type === 'error') next.reject(new Error(String(message.message)));
    else next.resolve(message);
  });
  child.on('exit', (code) => {
    exited = new Error(`benchmark server exited with ${code}`);
    for (const w of waiting.splice(0)) w.reject(exited);
  });
  const next = () =>
    new Promise<Record<string, unknown>>((resolve, reject) => {
      if (exited) return reject(exited);
      waiting.push({ resolve, reject });
    });
  const ready = await next();
  return {
    baseUrl: String(ready.baseUrl),
    apiKey,
    organizationId: String(ready.organizationId),
    async call<T>(command: Record<string, unknown>) {
      const reply = next();
      child.send(command);
      return (await reply) as T;
    },
    async close() {
      if (!exited) {
        const reply = next().catch(() => undefined);
        child.send({ cmd: 'close' });
        await reply;
        await new Promise((r) => (exited ? r(undefined) : child.once('exit', r)));
      }
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A fresh database on the local PostgreSQL server, dropped after. */
export function freshPgDatabase(): Promise<TestDatabaseUrl> {
  return createTestDatabaseUrl(pgServerUrl());
}

// ---------------------------------------------------------------------------------------------
// HTTP

export async function api<T = any>(
  server: Pick<BenchServer, 'baseUrl' | 'apiKey'>,
  method: string,
  url: string,
  body?: unknown,
  auth = true,
): Promise<{ status: number; body: T }> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (auth) headers['x-api-key'] = server.apiKey;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(server.baseUrl + url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : undefined) as T };
}

async function eventually<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * A gateway channel bound to the sandbox and paired (connected): no 24-hour window to open.
 * `throughput` is its pacing (messages per second; the default for gateway channels is 5).
 */
export async function pairedGatewayChannel(server: Pick<BenchServer, 'baseUrl' | 'apiKey'>, throughput?: number): Promise<string> {
  const made = await api(server, 'POST', '/v1/channels', {
    platform: 'chatapp_unofficial',
    name: 'Bench gateway',
    sandbox: true,
    ...(throughput ? { settings: { throughput_per_second: throughput } } : {}),
  });
  if (made.status !== 201) throw new Error(`channel: ${made.status} ${JSON.stringify(made.body)}`);
  const id = made.body.data.id as string;
  const connect = await api(server, 'POST', `/v1/channels/${id}/connect`);
  if (connect.status !== 200) throw new Error(`connect: ${connect.status} ${JSON.stringify(connect.body)}`);
  const scan = await api(server, 'POST', '/sandbox/gateway/scan', { qr: connect.body.data.qr.qr }, false);
  if (scan.status >= 300) throw new Error(`scan: ${scan.status} ${JSON.stringify(scan.body)}`);
  await eventually('pairing', async () =>
    (await api(server, 'GET', `/v1/channels/${id}`)).body.data.status === 'connected' ? true : undefined,
  );
  return id;
}

/** The request body for recipient i of the pool. */
export function messageBody(channelId: string, i: number): string {
  return JSON.stringify({
    channel_id: channelId,
    to: poolPhone(i),
    type: 'text',
    content: { body: `Hello from the benchmark, order ${1000 + i}` },
  });
}

// ---------------------------------------------------------------------------------------------
// Load

export type LoadResult = {
  rate: number;
  ok: number;
  non2xx: number;
  errors: number;
  p50: number;
  p90: number;
  p99: number;
  mean: number;
  max: number;
  seconds: number;
};

/**
 * Posts the pool's bodies in turn to url. Without rate: as fast as `connections` closed-loop
 * clients go (sustained rate = 2xx responses / duration). With rate: an open-loop overall rate
 * (autocannon corrects latencies for coordinated omission).
 */
export async function load(
  server: BenchServer,
  url: string,
  bodies: string[],
  options: { connections: number; seconds?: number; amount?: number; rate?: number; auth?: boolean },
): Promise<LoadResult> {
  let i = 0;
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
  if (options.auth !== false) headers['x-api-key'] = server.apiKey;
  const result: Result = await autocannon({
    url: server.baseUrl + url,
    connections: options.connections,
    ...(options.amount ? { amount: options.amount } : { duration: options.seconds ?? 5 }),
    ...(options.rate ? { overallRate: options.rate } : {}),
    timeout: 30,
    requests: [
      {
        method: 'POST',
        path: url,
        headers,
        setupRequest: (request) => {
          request.body = bodies[i++ % bodies.length]!;
          return request;
        },
      },
    ],
  });
  return {
    rate: result['2xx'] / result.duration,
    ok: result['2xx'],
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    p50: result.latency.p50,
    p90: result.latency.p90,
    p99: result.latency.p99,
    mean: Math.round(result.latency.mean * 100) / 100,
    max: result.latency.max,
    seconds: result.duration,
  };
}

export type PgbenchResult = { tps: number; latencyMs: number; failed: number; transactions: number };

/** pgbench with a custom script on a database of the local server (extended protocol, like node-postgres). */
export async function pgbench(
  databaseUrl: string,
  script: string,
  options: { clients: number; threads: number; seconds: number },
): Promise<PgbenchResult> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'parley-pgbench-'));
  const file = path.join(dir, 'script.sql');
  writeFileSync(file, script);
  try {
    const output = await new Promise<string>((resolve, reject) => {
      const child = spawn(
        'pgbench',
        [
          '-n',
          '-M',
          'prepared',
          '-c',
          String(options.clients),
          '-j',
          String(options.threads),
          '-T',
          String(options.seconds),
          '-f',
          file,
          databaseUrl,
        ],
        { stdio: ['ignore', 'pipe', 'pipe'] },
      );
      let out = '';
      child.stdout.on('data', (d) => (out += d));
      child.stderr.on('data', (d) => (out += d));
      child.on('error', reject);
      child.on('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`pgbench exited with ${code}:\n${out}`))));
    });
    const tps = Number(/tps = ([\d.]+)/.exec(output)?.[1]);
    if (!Number.isFinite(tps)) throw new Error(`pgbench output not understood:\n${output}`);
    return {
      tps,
      latencyMs: Number(/latency average = ([\d.]+) ms/.exec(output)?.[1]),
      failed: Number(/number of failed transactions: (\d+)/.exec(output)?.[1] ?? 0),
      transactions: Number(/number of transactions actually processed: (\d+)/.exec(output)?.[1] ?? 0),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export function pgbenchVersion(): string | undefined {
  try {
    return execFileSync('pgbench', ['--version'], { encoding: 'utf8' }).trim();
  } catch {
    return undefined;
  }
}

// ---------------------------------------------------------------------------------------------
// Statistics

export function median(values: number[]): number {
  const xs = values.filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
  if (xs.length === 0) return NaN;
  const mid = Math.floor(xs.length / 2);
  return xs.length % 2 ? xs[mid]! : (xs[mid - 1]! + xs[mid]!) / 2;
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const rank = Math.ceil((p / 100) * sorted.length) - 1;
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank))]!;
}

export const round = (v: number, digits = 1) => (Number.isFinite(v) ? Math.round(v * 10 ** digits) / 10 ** digits : v);
