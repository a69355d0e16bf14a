/**
 * Statements of the hot read paths, prepared once per database handle with drizzle's
 * `.prepare(name)`: the query is built once (not on every request), and on PostgreSQL it is sent as a
 * named statement, so each connection plans it once. PGlite runs the same text unnamed.
 */
import type { Db, Executor } from './client.ts';

/**
 * The statements `build` prepares on a handle, made at its first use. Undefined inside a
 * transaction: the caller runs its query unprepared there (on the transaction's connection).
 */
export function preparedOn<T>(build: (db: Db) => T): (db: Executor) => T | undefined {
  const made = new WeakMap<Db, T>();
  return (db) => {
    if ('rollback' in db) return undefined;
    let statements = made.get(db);
    if (!statements) made.set(db, (statements = build(db)));
    return statements;
  };
}
