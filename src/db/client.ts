/**
 * The database handle: PGlite on disk (or in memory) by default, a PostgreSQL server through a URL.
 * Both expose the same drizzle API, so every query runs unchanged on either.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { sql, type SQL } from 'drizzle-orm';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import type { PgDatabase, PgQueryResultHKT, PgTransaction } from 'drizzle-orm/pg-core';
import type { ExtractTablesWithRelations } from 'drizzle-orm';
import pg from 'pg';
import type { Db as IDatabase } from 'pg-boss';
import { fromPglite } from 'pg-boss';
import * as schema from './schema.ts';
import { acquireDirLock, type DirLock } from '../lib/dir-lock.ts';

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
  /** Runs fn inside one transaction holding a transaction-scoped advisory lock. */
  withAdvisoryLock<T>(key: number, fn: (tx: Tx) => Promise<T>): Promise<T>;
  /**
   * Calls onNotify on every NOTIFY on channel (delivered at the sender's commit), and again after a
   * lost listening connection is back, since notifications may have been missed meanwhile (then with
   * no payload). Resolves to the function that stops listening.
   */
  listen(channel: string, onNotify: (payload?: string) => void): Promise<() => Promise<void>>;
  /**
   * Runs a statement that is sent often under a name, so PostgreSQL plans it once per connection
   * instead of on every call (the name must always go with the same text). PGlite runs it as is.
   */
  queryPrepared<T>(name: string, query: SQL): Promise<T[]>;
  /** Round-trips to the server; throws when it does not answer. */
  ping(): Promise<void>;
  close(): Promise<void>;
  /** PGlite only: the data directory as a tarball (used to copy a migrated database). */
  dumpDataDir?(): Promise<Blob>;
};

export type DatabaseOptions =
  | { kind: 'postgres'; url: string; poolSize?: number; onError?: (err: Error) => void }
  | { kind: 'pglite'; dataDir: string | null; loadDataDir?: Blob };

export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  return options.kind === 'postgres' ? openPostgres(options) : openPglite(options.dataDir, options.loadDataDir);
}

async function openPostgres(options: { url: string; poolSize?: number; onError?: (err: Error) => void }): Promise<Database> {
  // A query that waits a minute for a connection fails rather than waiting for ever: pg-pool's
  // end() never settles the requests still queued for a connection.
  const pool = new pg.Pool({ connectionString: options.url, max: options.poolSize ?? 10, connectionTimeoutMillis: 60_000 });
  pool.on('error', (err) => options.onError?.(err));
  const db = drizzlePg(pool, { schema }) as unknown as Db;
  const listeners = new Set<() => Promise<void>>();
  const dialect = (db as unknown as { dialect: { sqlToQuery(query: SQL): { sql: string; params: unknown[] } } }).dialect;
  return {
    kind: 'postgres',
    db,
    bossDb: {
      executeSql: (text: string, values?: unknown[]) => pool.query(text, values),
      // pg-boss's LISTEN/NOTIFY (queues with `notify`): its own connection, stopped with the database.
      listen: async (channel: string, onNotification: (payload: string) => void, onReconnect: () => void) => {
        const stop = await listenPostgres(options.url, channel, (payload) => (payload === undefined ? onReconnect() : onNotification(payload)), options.onError);
        listeners.add(stop);
        return {
          close: async () => {
            listeners.delete(stop);
            await stop();
          },
        };
      },
    },
    withAdvisoryLock: (key, fn) =>
      db.transaction(async (tx) => {
        await tx.execute(sql`select pg_advisory_xact_lock(${key})`);
        return fn(tx);
      }),
    queryPrepared: async <T>(name: string, query: SQL) => {
      const { sql: text, params } = dialect.sqlToQuery(query);
      const result = await pool.query({ name, text, values: params as unknown[] });
      return result.rows as T[];
    },
    listen: async (channel, onNotify) => {
      const stop = await listenPostgres(options.url, channel, onNotify, options.onError);
      listeners.add(stop);
      return async () => {
        listeners.delete(stop);
        await stop();
      };
    },
    ping: async () => {
      await pool.query('select 1');
    },
    // Listening connections stop with the database, or their reconnecting would keep the process up.
    close: async () => {
      for (const stop of [...listeners]) await stop();
      listeners.clear();
      await pool.end();
    },
  };
}

/** LISTEN on a connection of its own (a pooled one would be handed to others), reconnecting when it drops. */
async function listenPostgres(url: string, channel: string, onNotify: (payload?: string) => void, onError?: (err: Error) => void): Promise<() => Promise<void>> {
  let stopped = false;
  let client: pg.Client | undefined;
  let retryTimer: NodeJS.Timeout | undefined;
  let delay = 100;
  const connect = async (): Promise<void> => {
    const next = new pg.Client({ connectionString: url });
    next.on('notification', (message) => {
      if (message.channel === channel) onNotify(message.payload);
    });
    next.on('error', (err) => {
      onError?.(err);
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
          onError?.(err);
          delay = Math.min(delay * 2, 10_000);
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
    withAdvisoryLock: (_key, fn) => db.transaction(fn),
    queryPrepared: (_name, query) => queryRows(db, query),
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
    dumpDataDir: async () => (await client.dumpDataDir('none')) as Blob,
    close: async () => {
      if (closed) return;
      closed = true;
      await client.close();
      lock?.release();
    },
  };
}
