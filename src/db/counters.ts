/**
 * The rate-limit counters in the database (`rate_limit_counters`, a row per bucket): one statement
 * per hit, an upsert that starts a new window when the row's has ended and returns the count and the
 * window's start, prepared once per connection. Rows of long-ended windows are deleted as the
 * counting goes (at most once per PURGE_EVERY_MS per process, in the background), so no job is
 * needed and an api-only process keeps the table small too.
 */
import { sql } from 'drizzle-orm';
import type { Database } from './client.ts';
import type { CounterStore } from '../lib/counters.ts';

const PURGE_EVERY_MS = 5 * 60_000;
/** The longest window a bucket may use; rows whose window started longer ago than this are deleted. */
const LONGEST_WINDOW_MS = 60 * 60_000;

export function createDatabaseCounterStore(
  database: Pick<Database, 'queryPrepared'>,
  options: { onPurgeError: (err: unknown) => void },
): CounterStore {
  let lastPurge = 0;
  const purge = (now: number) => {
    lastPurge = now;
    const before = new Date(now - LONGEST_WINDOW_MS).toISOString();
    database
      .queryPrepared('rate_limit_counters_purge', sql`delete from rate_limit_counters where window_start < ${before}::timestamptz`)
      .catch(options.onPurgeError);
  };
  return {
    kind: 'database',
    async hit(bucket, nowMs, windowMs) {
      if (windowMs > LONGEST_WINDOW_MS) throw new Error(`a rate-limit window is at most ${LONGEST_WINDOW_MS} ms`);
      const now = new Date(nowMs).toISOString();
      const ended = new Date(nowMs - windowMs).toISOString();
      const [row] = await database.queryPrepared<{ count: number; window_start: string | Date }>(
        'rate_limit_counters_hit',
        sql`insert into rate_limit_counters as c (bucket, window_start, count)
            values (${bucket}, ${now}::timestamptz, 1)
            on conflict (bucket) do update set
              count = case when c.window_start <= ${ended}::timestamptz then 1 else c.count + 1 end,
              window_start = case when c.window_start <= ${ended}::timestamptz then excluded.window_start else c.window_start end
            returning count, window_start`,
      );
      if (nowMs - lastPurge >= PURGE_EVERY_MS) purge(nowMs);
      return { count: Number(row!.count), windowStart: new Date(row!.window_start).getTime() };
    },
    // The database is closed with the container.
    close: async () => undefined,
  };
}
