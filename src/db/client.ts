/**
 * The database handle: PGlite on disk (or in memory) by default, a PostgreSQL server through a URL.
 * Both expose the same drizzle API, so every query runs unchanged on either.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { fillPlaceholders, sql, type SQL } from 'drizzle-orm';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import type { PgDatabase, PgQueryResultHKT, PgTransaction } from 'drizzle-orm/pg-core';
import type { ExtractTablesWithRelations } from 'drizzle-orm';
import pg from 'pg';
import type { Db as IDatabase } from 'pg-boss';
import { fromPglite } from 'pg-boss';
import * as schema from './schema.ts';
import { acquireDirLock, type DirLock } from '../lib/dir-lock.ts';
import { createAvailability, type Availability } from './availability.ts';
import { autoPreparingClient, statementNames } from './auto-prepare.ts';

export type Schema = typeof schema;
export type Db = PgDatabase<PgQueryResultHKT, Schema>;
export type Tx = PgTransaction<PgQueryResultHKT, Schema, ExtractTablesWithRelations<Schema>>;
/** Either the database or an open transaction: domain functions accept both. */
export type Executor = Db | Tx;

/** Runs raw SQL and returns its rows, the same on both drivers. */
export async function queryRows<T>(executor: Executor, query: SQL): Promise<T[]> {
  const result = (await executor.execute(query)) as unknown as { rows: T[] };
  return result.rows;
}

export type Database = {
  kind: 'pglite' | 'postgres';
  db: Db;
  /** A pg-boss connection on the same database. */
  bossDb: IDatabase;
  /**
   * Runs fn inside one transaction holding a transaction-scoped advisory lock. `durableCommit: false`:
   * the commit does not wait for its WAL flush (synchronous_commit off for this transaction), set in
   * the lock's own statement (one round trip fewer than a SET LOCAL of its own).
   */
  withAdvisoryLock<T>(key: number, fn: (tx: Tx) => Promise<T>, options?: { durableCommit?: boolean }): Promise<T>;
  /**
   * Calls onNotify on every NOTIFY on channel (delivered at the sender's commit), and again after a
   * lost listening connection is back, since notifications may have been missed meanwhile (then with
   * no payload). Resolves to the function that stops listening.
   */
  listen(channel: string, onNotify: (payload?: string) => void): Promise<() => Promise<void>>;
  /**
   * Runs a statement that is sent often under a name, so PostgreSQL plans it once per connection
   * instead of on every call (the name must always go with the same text). PGlite runs it as is.
   * With `values`, the query is one built once with sql.placeholder() for them: its text is then
   * made once too (per query object), and each call only fills in the values.
   */
  queryPrepared<T>(name: string, query: SQL, values?: Record<string, unknown>): Promise<T[]>;
  /** Round-trips to the server; throws when it does not answer. */
  ping(): Promise<void>;
  /**
   * Whether the server can be reached, as this process last found out; onAvailable listeners are
   * called when it comes back after an outage. An embedded database is always up.
   */
  availability: Pick<Availability, 'up' | 'reason' | 'onAvailable'>;
  /** PostgreSQL only: the pool's connections (open, idle), queries waiting for one, and its size limit. */
  poolStats?(): { total: number; idle: number; waiting: number; max: number };
  close(): Promise<void>;
  /** PGlite only: the data directory as a tarball (used to copy a migrated database). */
  dumpDataDir?(): Promise<Blob>;
};

export type PostgresOptions = {
  kind: 'postgres';
  url: string;
  poolSize?: number;
  /** The longest a query waits for a connection (a new one, or a turn in the pool) before failing. */
  waitMs?: number;
  onError?: (err: Error) => void;
  /** Told when the server stops answering and when it answers again. */
  onDown?: (reason: string) => void;
  onUp?: (downForMs: number) => void;
};

export type DatabaseOptions = PostgresOptions | { kind: 'pglite'; dataDir: string | null; loadDataDir?: Blob };

export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  return options.kind === 'postgres' ? openPostgres(options) : openPglite(options.dataDir, options.loadDataDir);
}

async function openPostgres(options: PostgresOptions): Promise<Database> {
  const waitMs = options.waitMs ?? 5000;
  // A query waits a few seconds at most for a connection, then fails (a 503 to a request): an
  // unreachable server must not hold requests, and pg-pool's end() never settles the requests still
  // queued for a connection. Keep-alive finds a peer that vanished without a word.
  const poolSize = options.poolSize ?? 10;
  // Statements sent often go named, planned once per connection (auto-prepare.ts).
  const pool = new pg.Pool({
    connectionString: options.url,
    max: poolSize,
    connectionTimeoutMillis: waitMs,
    keepAlive: true,
    Client: autoPreparingClient(statementNames()),
  });
  const availability = createAvailability({
    probe: async () => {
      // A connection of its own: the pool's may all be taken, or refusing while down.
      const client = new pg.Client({ connectionString: options.url, connectionTimeoutMillis: waitMs });
      client.on('error', () => undefined);
      try {
        await client.connect();
        await client.query('select 1');
      } finally {
        await client.end().catch(() => undefined);
      }
    },
    onDown: options.onDown,
    onUp: options.onUp,
  });
  const reportError = (err: Error) => {
    availability.report(err);
    options.onError?.(err);
  };
  pool.on('error', reportError);
  // pg-pool listens for errors only on idle clients: a client checked out (a transaction's) that
  // loses its connection would emit 'error' to nobody, which kills the process. The query in hand
  // gets the error too, so noting it is all that is needed here.
  pool.on('connect', (client) => client.on('error', reportError));
  // While the server is known to be down, fail at once rather than queue for a connection; any
  // other failure that says the server is gone starts the probing.
  const connect = pool.connect.bind(pool);
  const query = pool.query.bind(pool) as (...args: unknown[]) => Promise<unknown>;
  pool.connect = ((...args: unknown[]) => {
    if (typeof args[0] === 'function') return (connect as (...a: unknown[]) => unknown)(...args);
    return (async () => {
      availability.check();
      return connect().catch((err: unknown) => {
        availability.report(err);
        throw err;
      });
    })();
  }) as typeof pool.connect;
  pool.query = ((...args: unknown[]) => {
    if (typeof args.at(-1) === 'function') return query(...args);
    availability.check();
    return query(...args).catch((err: unknown) => {
      availability.report(err);
      throw err;
    });
  }) as typeof pool.query;
  const db = drizzlePg(pool, { schema }) as unknown as Db;
  const listeners = new Set<() => Promise<void>>();
  const dialect = (db as unknown as { dialect: Dialect }).dialect;
  return {
    kind: 'postgres',
    db,
    bossDb: {
      executeSql: (text: string, values?: unknown[]) => pool.query(text, values),
      // pg-boss's LISTEN/NOTIFY (queues with `notify`): its own connection, stopped with the database.
      listen: async (channel: string, onNotification: (payload: string) => void, onReconnect: () => void) => {
        const stop = await listenPostgres(
          options.url,
          channel,
          (payload) => (payload === undefined ? onReconnect() : onNotification(payload)),
          reportError,
          waitMs,
        );
        listeners.add(stop);
        return {
          close: async () => {
            listeners.delete(stop);
            await stop();
          },
        };
      },
    },
    withAdvisoryLock: (key, fn, options) =>
      db.transaction(async (tx) => {
        await tx.execute(
          options?.durableCommit === false
            ? sql`select pg_advisory_xact_lock(${key}), set_config('synchronous_commit', 'off', true)`
            : sql`select pg_advisory_xact_lock(${key})`,
        );
        return fn(tx);
      }),
    queryPrepared: async <T>(name: string, query: SQL, values?: Record<string, unknown>) => {
      const { sql: text, params } = values ? compiledOnce(dialect, query) : dialect.sqlToQuery(query);
      const result = await pool.query({ name, text, values: values ? fillPlaceholders(params, values) : params });
      return result.rows as T[];
    },
    listen: async (channel, onNotify) => {
      const stop = await listenPostgres(options.url, channel, onNotify, reportError, waitMs);
      listeners.add(stop);
      return async () => {
        listeners.delete(stop);
        await stop();
      };
    },
    ping: async () => {
      await pool.query('select 1');
    },
    availability,
    poolStats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount, max: poolSize }),
    // Listening connections stop with the database, or their reconnecting would keep the process up.
    close: async () => {
      availability.stop();
      for (const stop of [...listeners]) await stop();
      listeners.clear();
      await pool.end();
    },
  };
}

/** LISTEN on a connection of its own (a pooled one would be handed to others), reconnecting when it drops. */
async function listenPostgres(
  url: string,
  channel: string,
  onNotify: (payload?: string) => void,
  onError: (err: Error) => void,
  waitMs: number,
): Promise<() => Promise<void>> {
  let stopped = false;
  let client: pg.Client | undefined;
  let retryTimer: NodeJS.Timeout | undefined;
  let delay = 100;
  const connect = async (): Promise<void> => {
    const next = new pg.Client({ connectionString: url, connectionTimeoutMillis: waitMs, keepAlive: true });
    next.on('notification', (message) => {
      if (message.channel === channel) onNotify(message.payload);
    });
    next.on('error', (err) => {
      onError(err);
      lost(next);
    });
    next.on('end', () => lost(next));
    try {
      await next.connect();
      await next.query(`listen ${pg.escapeIdentifier(channel)}`);
    } catch (err) {
      await next.end().catch(() => undefined);
      throw err;
    }
    if (stopped) await next.end().catch(() => undefined);
    else client = next;
  };
  const scheduleConnect = () => {
    if (stopped) return;
    retryTimer = setTimeout(() => {
      connect().then(
        () => {
          delay = 100;
          onNotify();
        },
        (err: Error) => {
          onError(err);
          // Soon after the server is back: missed notifications are made up for on reconnecting.
          delay = Math.min(delay * 2, 2000);
          scheduleConnect();
        },
      );
    }, delay);
  };
  const lost = (dead: pg.Client) => {
    if (stopped || client !== dead) return;
    client = undefined;
    dead.end().catch(() => undefined);
    scheduleConnect();
  };
  await connect();
  return async () => {
    stopped = true;
    clearTimeout(retryTimer);
    const last = client;
    client = undefined;
    await last?.end().catch(() => undefined);
  };
}

type Dialect = { sqlToQuery(query: SQL): { sql: string; params: unknown[] } };
type RawSession = {
  prepareQuery(
    query: { sql: string; params: unknown[] },
    fields: undefined,
    name: undefined,
    arrayMode: false,
  ): { execute(values: Record<string, unknown>): Promise<unknown> };
};
const pgliteDialect = (db: Db) => (db as unknown as { dialect: Dialect }).dialect;

/** The text and parameters of a statement built once with placeholders, made on its first use. */
const compiled = new WeakMap<SQL, { sql: string; params: unknown[] }>();
function compiledOnce(dialect: Dialect, query: SQL): { sql: string; params: unknown[] } {
  let made = compiled.get(query);
  if (!made) compiled.set(query, (made = dialect.sqlToQuery(query)));
  return made;
}

async function openPglite(dataDir: string | null, loadDataDir?: Blob): Promise<Database> {
  let lock: DirLock | undefined;
  let client: PGlite;
  if (dataDir) {
    mkdirSync(dataDir, { recursive: true });
    lock = acquireDirLock(path.join(dataDir, 'parley.lock'));
    try {
      client = await PGlite.create(path.join(dataDir, 'pgdata'));
    } catch (err) {
      lock.release();
      throw err;
    }
  } else {
    client = await PGlite.create(loadDataDir ? { loadDataDir } : {});
  }
  const db = drizzlePglite(client, { schema }) as unknown as Db;
  let closed = false;
  return {
    kind: 'pglite',
    db,
    bossDb: fromPglite(client),
    // PGlite has one connection, so a transaction already excludes every other writer.
    withAdvisoryLock: (_key, fn, options) =>
      db.transaction(async (tx) => {
        if (options?.durableCommit === false) await tx.execute(sql`select set_config('synchronous_commit', 'off', true)`);
        return fn(tx);
      }),
    queryPrepared: async <T>(_name: string, query: SQL, values?: Record<string, unknown>) => {
      if (!values) return queryRows<T>(db, query);
      // drizzle's raw execute, with the placeholders filled (the text made once, as on PostgreSQL).
      const session = (db as unknown as { session: RawSession }).session;
      const result = (await session.prepareQuery(compiledOnce(pgliteDialect(db), query), undefined, undefined, false).execute(values)) as {
        rows: T[];
      };
      return result.rows;
    },
    listen: async (channel, onNotify) => {
      const unsubscribe = await client.listen(channel, (payload) => onNotify(payload));
      return async () => {
        if (!closed) await unsubscribe();
      };
    },
    ping: async () => {
      if (closed) throw new Error('database closed');
      await client.query('select 1');
    },
    availability: { up: () => true, reason: () => undefined, onAvailable: () => () => undefined },
    dumpDataDir: async () => (await client.dumpDataDir('none')) as Blob,
    close: async () => {
      if (closed) return;
      closed = true;
      await client.close();
      lock?.release();
    },
  };
}
