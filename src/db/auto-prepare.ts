/**
 * Automatic preparation on PostgreSQL: a statement the process sends again and again (the same text,
 * with parameters) goes as a named statement, so each connection parses and plans it once instead of
 * on every call. Measured under the message pipeline, planning was a quarter of the database's
 * statement time (pg-boss's job insert, the status writes, the webhook writes; parsing on top);
 * with this, 4.6 of its 12.1 s remained (decision 59): statements PostgreSQL keeps custom plans for,
 * such as the dispatcher's claim, are still planned on every call. Every query of the pool goes
 * through here: drizzle's, the raw statements', pg-boss's. Like Npgsql's auto-prepare and JDBC's
 * prepareThreshold: a text is named once it was seen `minUses` times, at most `maxStatements` texts
 * per process (texts that vary, such as `in ($1, $2, …)` lists of every length, stay unnamed past it).
 *
 * A named statement whose result columns changed under it (a column added by a migration while the
 * process runs, read through `*`) fails once with "cached plan must not change result type"; outside
 * a transaction the call is made again under a new name and answers; inside one the error stands
 * (the transaction is already aborted) and the next call on that connection prepares afresh.
 */
import { createHash } from 'node:crypto';
import pg from 'pg';

export type AutoPrepareOptions = {
  /** Calls of a text before it is sent named. */
  minUses: number;
  /** Texts named at most, per process (each connection prepares the ones it runs). */
  maxStatements: number;
  /** Texts counted while not yet named; past it the counts start again. */
  maxCounted: number;
};

export const AUTO_PREPARE: AutoPrepareOptions = { minUses: 3, maxStatements: 300, maxCounted: 2000 };

type Callback = (err: Error | null, result?: unknown) => void;
type QueryConfig = { text: string; name?: string; values?: unknown[]; submit?: unknown } & Record<string, unknown>;

/** The names of the texts sent often: undefined until a text has been seen often enough. */
export function statementNames(options: AutoPrepareOptions = AUTO_PREPARE) {
  const named = new Map<string, string>();
  const counted = new Map<string, number>();
  return {
    nameFor(text: string): string | undefined {
      const name = named.get(text);
      if (name !== undefined || named.size >= options.maxStatements) return name;
      const uses = (counted.get(text) ?? 0) + 1;
      if (uses < options.minUses) {
        if (counted.size >= options.maxCounted) counted.clear();
        counted.set(text, uses);
        return undefined;
      }
      counted.delete(text);
      const made = `parley_auto_${createHash('sha1').update(text).digest('hex').slice(0, 20)}`;
      named.set(text, made);
      return made;
    },
    get size() {
      return named.size;
    },
  };
}

/** "cached plan must not change result type": the statement's columns changed since it was prepared. */
const resultTypeChanged = (err: unknown) =>
  (err as { code?: string } | null)?.code === '0A000' && /cached plan must not change result type/.test(String((err as Error).message));

/** A pg.Client class for pg.Pool's `Client` option that names the texts `names` gives a name. */
export function autoPreparingClient(names: ReturnType<typeof statementNames>): typeof pg.Client {
  class AutoPreparingClient extends pg.Client {
    /** The transaction status of the last ReadyForQuery: I idle, T in a transaction, E in a failed one. */
    private transaction = 'I';
    /** Bumped when a prepared statement went stale on this connection: its texts are prepared anew under new names. */
    private generation = 0;

    constructor(config?: string | pg.ClientConfig) {
      super(config);
      // Registered before the client's own listeners (attached at connect), so it is current when a query's callback runs.
      (this as unknown as { connection: { on(event: 'readyForQuery', listener: (msg: { status: string }) => void): void } }).connection.on(
        'readyForQuery',
        (msg) => {
          this.transaction = msg.status;
        },
      );
    }

    // @ts-expect-error pg's overloads of query() are typed per form; this one takes them all and passes them on.
    override query(config: unknown, values?: unknown, callback?: unknown): unknown {
      const base = (c: unknown, v?: unknown, cb?: unknown) => (super.query as (...args: unknown[]) => unknown).call(this, c, v, cb);
      const form = typeof config === 'string' ? ({ text: config } as QueryConfig) : (config as QueryConfig | null);
      const params = Array.isArray(values) ? values : form?.values;
      if (
        !form ||
        typeof form.submit === 'function' ||
        typeof form.text !== 'string' ||
        form.name ||
        !Array.isArray(params) ||
        params.length === 0
      ) {
        return base(config, values, callback);
      }
      const name = names.nameFor(form.text);
      if (name === undefined) return base(config, values, callback);
      const done = (typeof values === 'function' ? values : callback) as Callback | undefined;
      const args = typeof values === 'function' ? undefined : values;
      const named = () => ({ ...form, name: this.generation === 0 ? name : `${name}_${this.generation}` });
      const stale = (err: unknown) => {
        if (!resultTypeChanged(err)) return false;
        this.generation++;
        return this.transaction === 'I';
      };
      if (done) {
        return base(named(), args, (err: Error | null, result?: unknown) => {
          if (err && stale(err)) return base(named(), args, done);
          done(err, result);
        });
      }
      return (base(named(), args) as Promise<unknown>).catch((err: unknown) => {
        if (stale(err)) return base(named(), args);
        throw err;
      });
    }
  }
  return AutoPreparingClient as unknown as typeof pg.Client;
}
