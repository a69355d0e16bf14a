/**
 * A NOTIFY that many callers share: while one is on its way, further calls make one more after it,
 * not one each. For waking listeners after commits whose statements should not carry the NOTIFY
 * (it serializes commits on PostgreSQL).
 */
import { sql } from 'drizzle-orm';
import type { Executor } from './client.ts';

export function coalescedNotify(db: Executor, channel: string, onError: (err: unknown) => void): () => void {
  let sending = false;
  let again = false;
  const send = () => {
    sending = true;
    again = false;
    db.execute(sql`select pg_notify(${channel}, '')`)
      .catch(onError)
      .finally(() => {
        sending = false;
        if (again) send();
      });
  };
  return () => {
    if (sending) again = true;
    else send();
  };
}
