/**
 * Helpers for tests of the service as a process: `node src/main.ts` spawned with its own
 * environment, a temp DATA_DIR and a free port; its output collected; every wait time-limited; every
 * process killed at the latest when the test process exits.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { eventually } from '../eventually.ts';
import { copyMigratedPglite, createTestDatabaseUrl, freePort, usingPostgres } from '../harness.ts';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const MAIN = path.join(ROOT, 'src', 'main.ts');
/** True in the PostgreSQL pass: the services then run on a fresh database of that server. */
export { usingPostgres };

export type Exit = { code: number | null; signal: NodeJS.Signals | null };
export type LogLine = { level: string; msg: string; [key: string]: unknown };

export type ServiceProcess = {
  child: ChildProcess;
  pid: number;
  port: number;
  baseUrl: string;
  dataDir: string;
  readonly stdout: string;
  readonly stderr: string;
  /** stdout lines that are JSON log records. */
  logs(): LogLine[];
  /** stdout lines that are not JSON (the welcome banner). */
  plainLines(): string[];
  /** Set once the process has exited. */
  readonly exit: Exit | undefined;
  exited: Promise<Exit>;
  /** Resolves when check(stdout, stderr) holds; rejects when the process exits first or on timeout. */
  waitFor(check: (stdout: string, stderr: string) => boolean, what: string, timeoutMs?: number): Promise<void>;
  /** Resolves with the first log record whose msg matches. */
  waitForLog(msg: string | RegExp, timeoutMs?: number): Promise<LogLine>;
  /** Waits for the 'Server listening' log line and then for the health check to answer 200. */
  waitReady(timeoutMs?: number): Promise<void>;
  /** Waits for the health check to answer 200 (an API process at any log level). */
  waitHealthy(timeoutMs?: number): Promise<void>;
  /** Sends SIGTERM and waits for the exit; SIGKILL after timeoutMs (and the returned exit shows it). */
  stop(timeoutMs?: number): Promise<Exit>;
  /** SIGKILL if still running. */
  kill(): void;
};

const running = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

function parseJson(line: string): LogLine | undefined {
  if (!line.startsWith('{')) return undefined;
  try {
    return JSON.parse(line) as LogLine;
  } catch {
    return undefined;
  }
}

export type RunOptions = {
  dataDir: string;
  /** Variables on top of PATH, HOME, PORT, HOST, DATA_DIR and LOG_LEVEL (which these override). */
  env?: Record<string, string>;
  args?: string[];
  port?: number;
};

/**
 * Spawns `node src/main.ts [args]` with a clean environment (nothing of the test runner's own
 * environment but PATH and HOME leaks in, so no stray DATABASE_URL or PORT).
 */
export async function runService(options: RunOptions): Promise<ServiceProcess> {
  const port = options.port ?? (await freePort());
  const env: Record<string, string> = {
    ...inheritedEnv(),
    PORT: String(port),
    HOST: '127.0.0.1',
    DATA_DIR: options.dataDir,
    LOG_LEVEL: 'info',
    // Test receivers and gateways listen on loopback.
    ALLOW_PRIVATE_NETWORK_TARGETS: 'true',
    ...options.env,
  };
  // The test process's V8 flags (scripts/test.ts: WebAssembly by the baseline compiler only) apply to the services it starts.
  const v8Flags = process.execArgv.filter((flag) => flag === '--liftoff-only');
  const child = spawn(process.execPath, [...v8Flags, MAIN, ...(options.args ?? [])], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  running.add(child);
  let stdout = '';
  let stderr = '';
  let exit: Exit | undefined;
  const listeners = new Set<() => void>();
  const notify = () => {
    for (const listener of [...listeners]) listener();
  };
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
    notify();
  });
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
    notify();
  });
  const exited = new Promise<Exit>((resolve) => {
    // 'close' comes after the pipes are drained, so the output is complete by then.
    child.once('close', (code, signal) => {
      exit = { code, signal };
      running.delete(child);
      resolve(exit);
      notify();
    });
  });
  const baseUrl = `http://127.0.0.1:${port}`;

  const describe = () => `\n--- stdout ---\n${stdout}\n--- stderr ---\n${stderr}`;

  const waitFor: ServiceProcess['waitFor'] = (check, what, timeoutMs = 20_000) =>
    new Promise<void>((resolve, reject) => {
      const done = (err?: Error) => {
        listeners.delete(listener);
        clearTimeout(timer);
        if (err) reject(err);
        else resolve();
      };
      const listener = () => {
        if (check(stdout, stderr)) done();
        else if (exit) done(new Error(`process exited (${JSON.stringify(exit)}) before ${what}${describe()}`));
      };
      const timer = setTimeout(() => done(new Error(`timed out after ${timeoutMs} ms waiting for ${what}${describe()}`)), timeoutMs);
      listeners.add(listener);
      listener();
    });

  const logs = () =>
    stdout
      .split('\n')
      .map(parseJson)
      .filter((l): l is LogLine => l !== undefined);

  const service: ServiceProcess = {
    child,
    pid: child.pid!,
    port,
    baseUrl,
    dataDir: options.dataDir,
    get stdout() {
      return stdout;
    },
    get stderr() {
      return stderr;
    },
    get exit() {
      return exit;
    },
    logs,
    plainLines: () => stdout.split('\n').filter((line) => line.trim() !== '' && parseJson(line) === undefined),
    exited,
    waitFor,
    async waitForLog(msg, timeoutMs) {
      const matches = (l: LogLine) => (typeof msg === 'string' ? l.msg === msg : msg.test(l.msg));
      await waitFor(() => logs().some(matches), `the log line ${String(msg)}`, timeoutMs);
      return logs().find(matches)!;
    },
    async waitReady(timeoutMs = 90_000) {
      await service.waitForLog(/^Server listening at /, timeoutMs);
      await service.waitHealthy(timeoutMs);
    },
    async waitHealthy(timeoutMs = 90_000) {
      const healthy = async () => {
        try {
          const res = await fetch(`${baseUrl}/v1/health`, { signal: AbortSignal.timeout(2000) });
          await res.arrayBuffer();
          if (res.status === 200) return true;
        } catch {
          // not yet
        }
        if (exit) throw new Error(`process exited (${JSON.stringify(exit)}) before it was healthy${describe()}`);
        return false;
      };
      await eventually('the service to be healthy', healthy, { timeoutMs, everyMs: 100 }).catch((err: Error) => {
        throw exit ? err : new Error(`${err.message}${describe()}`);
      });
    },
    async stop(timeoutMs = 15_000) {
      if (exit) return exit;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
      try {
        return await exited;
      } finally {
        clearTimeout(timer);
      }
    },
    kill() {
      if (!exit) child.kill('SIGKILL');
    },
  };
  return service;
}

/** Spawns the service and waits until it listens and answers its health check. */
export async function startService(options: RunOptions): Promise<ServiceProcess> {
  const service = await runService(options);
  try {
    await service.waitReady();
  } catch (err) {
    service.kill();
    await service.exited;
    throw err;
  }
  return service;
}

/**
 * Where one test's service keeps its state: a temp DATA_DIR and, in the PostgreSQL pass, a database
 * of its own (in env as DATABASE_URL). cleanup() removes both.
 */
export type Deployment = { dataDir: string; env: Record<string, string>; databaseUrl: string | undefined; cleanup(): Promise<void> };

/**
 * A new deployment. Its database has the migrations applied already (a copy of the run's migrated
 * template, harness.ts), as after an earlier `npm run migrate`: the first start still bootstraps
 * the organization and prints its credentials, and skips the seconds an empty database costs.
 * `fresh`: an empty database (an empty DATA_DIR), for the tests of what a start does to one.
 */
export async function createDeployment(options: { fresh?: boolean } = {}): Promise<Deployment> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'parley-process-'));
  if (!usingPostgres && !options.fresh) await copyMigratedPglite(path.join(dataDir, 'db', 'pgdata'));
  const database = usingPostgres ? await createTestDatabaseUrl(undefined, { migrated: !options.fresh }) : undefined;
  return {
    dataDir,
    env: database ? { DATABASE_URL: database.url } : {},
    databaseUrl: database?.url,
    async cleanup() {
      rmSync(dataDir, { recursive: true, force: true });
      await database?.drop();
    },
  };
}

/** The lock file an embedded database keeps under DATA_DIR. */
export function lockFile(dataDir: string): string {
  return path.join(dataDir, 'db', 'parley.lock');
}

export type Welcome = { dashboard: string; email: string; password: string; apiKey: string };

/** The values of the first-start banner, or undefined when none was printed. */
export function parseWelcome(stdout: string): Welcome | undefined {
  const field = (name: string) => new RegExp(`^  ${name}:\\s+(\\S+)\\s*$`, 'm').exec(stdout)?.[1];
  if (!stdout.includes('Parley is ready')) return undefined;
  return {
    dashboard: field('Dashboard') ?? '',
    email: field('Email') ?? '',
    password: field('Password') ?? '',
    apiKey: field('API key') ?? '',
  };
}

/** Counts the occurrences of needle in haystack. */
export function occurrences(haystack: string, needle: string): number {
  if (!needle) throw new Error('empty needle');
  return haystack.split(needle).length - 1;
}

/** What a spawned command inherits of the runner's environment: PATH, HOME and the compile cache (scripts/test.ts), nothing else. */
export function inheritedEnv(): Record<string, string> {
  const cache = process.env.NODE_COMPILE_CACHE;
  return { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? tmpdir(), ...(cache ? { NODE_COMPILE_CACHE: cache } : {}) };
}
