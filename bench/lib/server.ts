/**
 * The service under benchmark, in a process of its own (the load generator runs in the parent):
 * started by bench/lib/common.ts with fork(), driven over IPC.
 *
 * Environment (set by the parent): BENCH_PORT, BENCH_DATA_DIR, BENCH_API_KEY, BENCH_DB (pglite-disk,
 * pglite-memory or postgres) with DATABASE_URL for postgres, BENCH_WORKER (1: run the worker role),
 * BENCH_LOG_LEVEL, BENCH_POOL_SIZE, SANDBOX_STATUS_DELAY_MS.
 *
 * Besides the service it adds one route, POST /bench/bare: the body schema of POST /v1/messages and
 * its response schema, public, answering 201 without touching the database (the baseline).
 *
 * Every statement sent to the database can be counted or traced: pg.Client#query (each call is one
 * round trip) and PGlite's query, exec and transaction (BEGIN and COMMIT counted as statements).
 */
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import pino from 'pino';
import { sql } from 'drizzle-orm';
import { z } from 'zod';
import { loadConfig } from '../../src/config.ts';
import { buildContainer, type Container } from '../../src/container.ts';
import { openDatabase, type Database } from '../../src/db/client.ts';
import { buildApp, type App } from '../../src/http/app.ts';
import { dataOf } from '../../src/http/schemas.ts';
import { MessageSchema } from '../../src/http/v1/messages.ts';
import { uuidv7 } from '../../src/lib/ids.ts';
import { createLogger } from '../../src/lib/logger.ts';
import { runOnce, type Runner, type Script, type TraceEntry } from './replay.ts';

// ---------------------------------------------------------------------------------------------
// Counting and tracing statements

let counting = false;
let count = 0;
let tracing: TraceEntry[] | undefined;

function rowsOf(result: unknown): Array<Record<string, unknown>> | undefined {
  const r = result as { rows?: unknown[]; fields?: Array<{ name: string }> } | undefined;
  if (!r?.rows) return undefined;
  return r.rows.map((row) => {
    if (!Array.isArray(row)) return row as Record<string, unknown>;
    const obj: Record<string, unknown> = {};
    r.fields?.forEach((f, i) => (obj[f.name] = row[i]));
    return obj;
  });
}

function record(text: string, values: unknown[] | undefined): TraceEntry | undefined {
  if (counting) count++;
  if (!tracing) return undefined;
  const entry: TraceEntry = { text, values: values ?? [], rows: undefined };
  tracing.push(entry);
  return entry;
}

const pgQuery = pg.Client.prototype.query as (...args: unknown[]) => unknown;
(pg.Client.prototype as unknown as { query: unknown }).query = function (this: pg.Client, ...args: unknown[]) {
  const first = args[0] as string | { text?: string; values?: unknown[] } | undefined;
  const text = typeof first === 'string' ? first : first?.text;
  if (text === undefined) return pgQuery.apply(this, args);
  const values = (Array.isArray(args[1]) ? args[1] : typeof first === 'object' ? first?.values : undefined) as unknown[] | undefined;
  const entry = record(text, values);
  if (!entry) return pgQuery.apply(this, args);
  const last = args[args.length - 1];
  if (typeof last === 'function') {
    args[args.length - 1] = (err: unknown, result: unknown) => {
      entry.rows = rowsOf(result);
      (last as (e: unknown, r: unknown) => void)(err, result);
    };
    return pgQuery.apply(this, args);
  }
  const out = pgQuery.apply(this, args) as Promise<unknown> | undefined;
  return out?.then((result) => {
    entry.rows = rowsOf(result);
    return result;
  });
};

type Q = (text: string, params?: unknown[], options?: unknown) => Promise<unknown>;
const wrapQuery = (fn: Q): Q =>
  async function (this: unknown, text, params, options) {
    const entry = record(text, params);
    const result = await fn.call(this, text, params, options);
    if (entry) entry.rows = rowsOf(result);
    return result;
  };
const liteProto = PGlite.prototype as unknown as {
  query: Q;
  exec: Q;
  transaction: (cb: (tx: Record<string, unknown>) => Promise<unknown>) => Promise<unknown>;
};
liteProto.query = wrapQuery(liteProto.query);
liteProto.exec = wrapQuery(liteProto.exec);
const liteTransaction = liteProto.transaction;
liteProto.transaction = function (this: unknown, cb) {
  return liteTransaction.call(this, async (tx) => {
    record('BEGIN', []);
    tx.query = wrapQuery(tx.query as Q);
    tx.exec = wrapQuery(tx.exec as Q);
    const result = await cb(tx);
    record('COMMIT', []);
    return result;
  });
};

// ---------------------------------------------------------------------------------------------
// The service

const env = process.env;
const port = Number(env.BENCH_PORT);
const kind = env.BENCH_DB ?? 'pglite-memory';
const logLevel = env.BENCH_LOG_LEVEL ?? 'info';

const config = loadConfig({
  PORT: String(port),
  HOST: '127.0.0.1',
  BASE_URL: `http://127.0.0.1:${port}`,
  DATA_DIR: env.BENCH_DATA_DIR!,
  LOG_LEVEL: logLevel,
  BOOTSTRAP_ADMIN_EMAIL: 'owner@example.com',
  BOOTSTRAP_ADMIN_PASSWORD: 'correct horse battery staple',
  BOOTSTRAP_API_KEY: env.BENCH_API_KEY!,
  // The per-key rate limit would cap the benchmark itself.
  RATE_LIMIT_PER_MINUTE: '0',
  SANDBOX_STATUS_DELAY_MS: env.SANDBOX_STATUS_DELAY_MS ?? '200',
  // The embedded database serves one process, which is configured with both roles (the worker is
  // still started only when asked).
  ROLES: env.BENCH_WORKER === '1' || kind !== 'postgres' ? 'api,worker' : 'api',
  // An API-only process needs a server database (the config refuses one on the embedded database).
  ...(kind === 'postgres' ? { DATABASE_URL: env.DATABASE_URL! } : {}),
});
// Logs are formatted as in production, then dropped (the parent's terminal is not the bottleneck).
const logger = createLogger({ level: logLevel, destination: pino.destination({ dest: '/dev/null', sync: false }) });

const database: Database =
  kind === 'postgres'
    ? await openDatabase({ kind: 'postgres', url: env.DATABASE_URL!, poolSize: Number(env.BENCH_POOL_SIZE ?? 10) })
    : await openDatabase({ kind: 'pglite', dataDir: kind === 'pglite-disk' ? `${env.BENCH_DATA_DIR}/db` : null });

let container!: Container;
let app!: App;

async function start(worker: boolean) {
  container = await buildContainer(config, { database, logger });
  if (worker) await container.queue.work(container.jobHandlers());
  app = await buildApp(container);
  // The same body schema as POST /v1/messages (registered by id in zod's global registry).
  const sendBody = z.globalRegistry._idmap.get('SendMessageRequest');
  if (!sendBody) throw new Error('SendMessageRequest schema not found');
  const now = new Date().toISOString();
  app.post(
    '/bench/bare',
    { config: { auth: { public: true } }, schema: { body: sendBody, response: { 201: dataOf(MessageSchema) } } },
    async (request, reply) => {
      const b = request.body as { channel_id: string; to?: string; to_phone?: string; type: string; content: Record<string, unknown> };
      const to = b.to ?? b.to_phone ?? '';
      return reply.code(201).send({
        data: {
          id: uuidv7(),
          channel_id: b.channel_id,
          conversation_id: '00000000-0000-7000-8000-000000000000',
          contact_id: null,
          broadcast_id: null,
          direction: 'outbound' as const,
          to,
          to_phone: to,
          from_phone: null,
          type: b.type,
          content: b.content,
          status: 'queued' as const,
          provider_message_id: null,
          error: null,
          edited_at: null,
          deleted_at: null,
          starred: false,
          pinned_until: null,
          media: null,
          created_at: now,
          updated_at: now,
        },
      });
    },
  );
  await app.listen({ port, host: '127.0.0.1' });
}

async function stop() {
  await app.close();
  await container.queue.stop({ graceful: false, timeoutMs: 1000 });
}

// ---------------------------------------------------------------------------------------------
// The database's own rate, in process (PGlite has no pgbench)

function pgliteRunner(): Runner {
  const client = (database.db as unknown as { $client: PGlite }).$client;
  return {
    async query(text, values) {
      return (await client.query<Record<string, unknown>>(text, values)).rows;
    },
    transaction(fn) {
      return client.transaction((tx) => fn(async (text, values) => (await tx.query<Record<string, unknown>>(text, values)).rows));
    },
  };
}

async function sqlBench(script: Script, seconds: number, concurrency: number, pool: number) {
  const runner = pgliteRunner();
  const end = performance.now() + seconds * 1000;
  const latencies: number[] = [];
  let errors = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < end) {
        const t = performance.now();
        try {
          await runOnce(script, runner, () => uuidv7(), pool);
          latencies.push(performance.now() - t);
        } catch (err) {
          if (errors++ === 0) console.error('sql bench error', err);
        }
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))] ?? NaN;
  return { transactions: latencies.length, tps: latencies.length / elapsed, errors, p50: pct(50), p99: pct(99) };
}

// ---------------------------------------------------------------------------------------------
// IPC

type Command =
  | { cmd: 'restart'; worker: boolean }
  | { cmd: 'count'; on: boolean }
  | { cmd: 'trace'; on: boolean }
  | { cmd: 'sqlbench'; script: Script; seconds: number; concurrency: number; pool: number }
  | { cmd: 'sql'; text: string }
  | { cmd: 'close' };

const send = (message: unknown) => process.send!(message);

process.on('message', (message: Command) => {
  void (async () => {
    try {
      switch (message.cmd) {
        case 'restart':
          await stop();
          await start(message.worker);
          return send({ type: 'ok' });
        case 'count':
          if (message.on) {
            count = 0;
            counting = true;
            return send({ type: 'ok' });
          }
          counting = false;
          return send({ type: 'count', statements: count });
        case 'trace':
          if (message.on) {
            tracing = [];
            return send({ type: 'ok' });
          }
          send({ type: 'trace', entries: tracing ?? [] });
          tracing = undefined;
          return;
        case 'sqlbench':
          return send({ type: 'sqlbench', ...(await sqlBench(message.script, message.seconds, message.concurrency, message.pool)) });
        case 'sql': {
          const result = (await database.db.execute(sql.raw(message.text))) as unknown as { rows: unknown[] };
          return send({ type: 'sql', rows: result.rows });
        }
        case 'close':
          await stop();
          await database.close();
          send({ type: 'ok' });
          process.exit(0);
      }
    } catch (err) {
      send({ type: 'error', message: err instanceof Error ? (err.stack ?? err.message) : String(err) });
    }
  })();
});

await start(env.BENCH_WORKER === '1' || env.BENCH_SETUP_WORKER === '1');
const boot = container.bootstrapResult;
send({ type: 'ready', baseUrl: config.baseUrl, organizationId: boot.created ? boot.organizationId : '' });
