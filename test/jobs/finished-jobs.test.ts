/**
 * Finished jobs do not pile up in pg-boss's job table: each is deleted a few minutes after it
 * finished (catalog.ts FINISHED_JOB_SECONDS), by the maintenance pass of a process that maintains
 * the queue. With pg-boss's defaults (kept 7 days, deleted once a day) the table held every job the
 * message flow ever made, and the supervision that scans it every 10 s slowed as it grew.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { queryRows } from '../../src/db/client.ts';
import { migrate } from '../../src/db/migrate.ts';
import { FINISHED_JOB_SECONDS, JOB_NAMES } from '../../src/jobs/catalog.ts';
import { startQueue, type Queue } from '../../src/jobs/queue.ts';
import { createLogger } from '../../src/lib/logger.ts';
import { createTestDatabase, type TestDatabase } from '../harness.ts';
import { eventually } from '../eventually.ts';

let test_db: TestDatabase;
let queue: Queue;

before(async () => {
  test_db = await createTestDatabase();
  await migrate(test_db.database);
  queue = await startQueue(test_db.database, createLogger({ level: 'silent' }), { maintain: true, deletionIntervalSeconds: 1 });
});
after(async () => {
  await queue.stop({ graceful: false, timeoutMs: 100 });
  await test_db.drop();
});

const jobs = (ids: string[]) =>
  queryRows<{ id: string; state: string }>(
    test_db.database.db,
    sql`select id::text, state::text from pgboss.job where id in (${sql.join(
      ids.map((id) => sql`${id}::uuid`),
      sql`, `,
    )})`,
  );

/** Enqueues a message.reconcile job and returns its id (the newest of that queue). */
async function enqueued(): Promise<string> {
  await queue.enqueue(test_db.database.db, 'message.reconcile', { message_id: randomUUID() });
  const [row] = await queryRows<{ id: string }>(
    test_db.database.db,
    sql`select id::text from pgboss.job where name = 'message.reconcile' order by created_on desc, id limit 1`,
  );
  return row!.id;
}

test('every queue deletes its finished jobs after FINISHED_JOB_SECONDS', async () => {
  const queues = await queryRows<{ name: string; deletion_seconds: number }>(
    test_db.database.db,
    sql`select name, deletion_seconds from pgboss.queue`,
  );
  for (const name of JOB_NAMES) {
    assert.equal(queues.find((q) => q.name === name)?.deletion_seconds, FINISHED_JOB_SECONDS, `queue ${name}`);
  }
});

test('jobs finished longer ago than FINISHED_JOB_SECONDS are deleted pass after pass; recent and waiting ones stay', {
  timeout: 90_000,
}, async () => {
  const finish = (id: string, state: 'completed' | 'failed', secondsAgo: number) =>
    test_db.database.db.execute(
      sql`update pgboss.job set state = ${state}::pgboss.job_state, completed_on = now() - make_interval(secs => ${secondsAgo}) where id = ${id}::uuid`,
    );
  const [recent, waiting] = [await enqueued(), await enqueued()];
  await finish(recent, 'completed', FINISHED_JOB_SECONDS - 60);
  // Two rounds: the first maintenance pass after start deletes whatever pass interval is set; the
  // second round is deleted only if passes keep coming (pg-boss's default is one a day).
  for (const round of [1, 2]) {
    const [completed, failed] = [await enqueued(), await enqueued()];
    await finish(completed, 'completed', FINISHED_JOB_SECONDS + 60);
    await finish(failed, 'failed', FINISHED_JOB_SECONDS + 60);
    await eventually(
      `round ${round}: the jobs finished long ago deleted`,
      async () => ((await jobs([completed, failed])).length === 0 ? true : undefined),
      { timeoutMs: 30_000 },
    );
  }
  const left = await jobs([recent, waiting]);
  assert.deepEqual(left.map((j) => j.id).sort(), [recent, waiting].sort(), 'the recent finished job and the waiting one are kept');
});
