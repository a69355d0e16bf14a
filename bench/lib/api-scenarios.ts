/**
 * What the read benchmarks that seed the database themselves share (bench/search.ts, bench/board.ts): the
 * service on a fresh database with a client connection to seed it, one keep-alive HTTP connection to ask
 * it, and scenarios measured in rounds that take turns, reported as a table of p50 / p95 / max medians
 * with each p95's ratio against the first scenario (the baseline).
 *
 * On PostgreSQL the service is its own process (API role) and the client a connection of its own. On
 * PGlite the database is embedded, so the service is built in the bench's process (container and
 * Fastify app listening on loopback, no worker) on a data directory on disk, as `npm start` keeps it,
 * and the client is that PGlite instance.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { Pool } from 'undici';
import { loadConfig } from '../../src/config.ts';
import { buildContainer, type Container } from '../../src/container.ts';
import { openDatabase } from '../../src/db/client.ts';
import { buildApp } from '../../src/http/app.ts';
import { createLogger } from '../../src/lib/logger.ts';
import { median, ms, percentile } from '../bench-report.ts';
import { deployment, startService, type Service } from './webhooks.ts';

/** What seeding needs of a database connection (pg.Client and PGlite both have it). */
export type SqlClient = { query<T>(text: string, params?: unknown[]): Promise<{ rows: T[] }> };

export type ApiBench = {
  /** A connection to the service's database, for seeding and reading. */
  client: SqlClient;
  /** Which store the service runs on, and where (for the report). */
  store: 'PGlite' | 'PostgreSQL';
  /** GET of a path (with its query) over the one connection; throws unless 200. */
  get(pathAndQuery: string): Promise<unknown>;
  close(): Promise<void>;
};

/**
 * Starts the service on a fresh database: `pglite` in this process on a new data directory, otherwise
 * on a new database of TEST_DATABASE_URL's server (exits with a message without one).
 */
export async function startApiBench(options: { pglite?: boolean } = {}): Promise<ApiBench> {
  if (options.pglite) return startPgliteApiBench();
  if (!process.env.TEST_DATABASE_URL) {
    console.error('set TEST_DATABASE_URL to a PostgreSQL server (a fresh database is made on it), or pass --pglite');
    process.exit(2);
  }
  const d = await deployment();
  const client = new pg.Client({ connectionString: d.database.url });
  let service: Service | undefined;
  let http: Pool | undefined;
  const close = async () => {
    await http?.close().catch(() => undefined);
    await client.end().catch(() => undefined);
    await service?.stop();
    await d.cleanup();
  };
  try {
    service = await startService(
      d.database,
      {
        ROLES: 'api',
        LOG_LEVEL: 'warn',
        RATE_LIMIT_PER_MINUTE: '0',
        BOOTSTRAP_ADMIN_EMAIL: 'bench@example.com',
        BOOTSTRAP_ADMIN_PASSWORD: 'correct horse battery staple',
      },
      d.shared,
    );
    await client.connect();
    http = new Pool(service.baseUrl, { connections: 1, pipelining: 1 });
    return { client, store: 'PostgreSQL', get: getter(http, service.apiKey), close };
  } catch (err) {
    await close();
    throw err;
  }
}

async function startPgliteApiBench(): Promise<ApiBench> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'parley-bench-api-'));
  const apiKey = `prl_bench_${'a'.repeat(32)}`;
  let container: Container | undefined;
  let app: Awaited<ReturnType<typeof buildApp>> | undefined;
  let http: Pool | undefined;
  const close = async () => {
    await http?.close().catch(() => undefined);
    await app?.close().catch(() => undefined);
    await container?.close().catch(() => undefined);
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    const database = await openDatabase({ kind: 'pglite', dataDir: path.join(dataDir, 'db') });
    const config = loadConfig({
      PORT: '0',
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
      RATE_LIMIT_PER_MINUTE: '0',
      BOOTSTRAP_ADMIN_EMAIL: 'bench@example.com',
      BOOTSTRAP_ADMIN_PASSWORD: 'correct horse battery staple',
      BOOTSTRAP_API_KEY: apiKey,
    });
    container = await buildContainer(config, { database, logger: createLogger({ level: 'warn' }) });
    app = await buildApp(container);
    const address = await app.listen({ host: '127.0.0.1', port: 0 });
    const client = (database.db as unknown as { $client: PGlite }).$client;
    http = new Pool(address, { connections: 1, pipelining: 1 });
    return { client, store: 'PGlite', get: getter(http, apiKey), close };
  } catch (err) {
    await close();
    throw err;
  }
}

function getter(pool: Pool, apiKey: string): ApiBench['get'] {
  const headers = { 'x-api-key': apiKey, accept: 'application/json' };
  return async (pathAndQuery: string) => {
    const res = await pool.request({ path: pathAndQuery, method: 'GET', headers });
    const text = await res.body.text();
    if (res.statusCode !== 200) throw new Error(`${pathAndQuery}: status ${res.statusCode}: ${text.slice(0, 200)}`);
    return JSON.parse(text) as unknown;
  };
}

export type Scenario = { name: string; path: string };
export type ScenarioRow = { name: string; p50: number; p95: number; max: number };

/** Each scenario `requests` times a round after 10 warm-up requests, `rounds` rounds taking turns; medians over the rounds. */
export async function measureScenarios(
  get: (path: string) => Promise<unknown>,
  scenarios: Scenario[],
  requests: number,
  rounds: number,
): Promise<ScenarioRow[]> {
  const times = new Map<string, number[][]>(scenarios.map((s) => [s.name, []]));
  for (let round = 0; round < rounds; round++) {
    for (const s of scenarios) {
      for (let i = 0; i < 10; i++) await get(s.path);
      const samples: number[] = [];
      for (let i = 0; i < requests; i++) {
        const started = performance.now();
        await get(s.path);
        samples.push(performance.now() - started);
      }
      times.get(s.name)!.push(samples.sort((a, b) => a - b));
    }
  }
  return scenarios.map((s) => {
    const runs = times.get(s.name)!;
    return {
      name: s.name,
      p50: median(runs.map((r) => percentile(r, 50))),
      p95: median(runs.map((r) => percentile(r, 95))),
      max: median(runs.map((r) => r.at(-1)!)),
    };
  });
}

/** The target line and the table of the rows (the first is the baseline). */
export function scenarioReport(rows: ScenarioRow[], targetMs: number): string[] {
  const baseline = rows[0]!.p95;
  const slowest = Math.max(...rows.slice(1).map((r) => r.p95));
  return [
    `Target: p95 ≤ ${targetMs} ms. Slowest p95: **${ms(slowest)}** (${slowest <= targetMs ? 'met' : 'NOT met'}).`,
    '',
    '| Scenario | p50 | p95 | max | p95 / baseline |',
    '| --- | --- | --- | --- | --- |',
    ...rows.map((r) => `| ${r.name} | ${ms(r.p50)} | **${ms(r.p95)}** | ${ms(r.max)} | ${(r.p95 / baseline).toFixed(1)}× |`),
  ];
}
