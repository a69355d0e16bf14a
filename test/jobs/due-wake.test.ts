/**
 * A job enqueued to start later runs when it falls due, not at the workers' next poll: pg-boss
 * announces a job when it is committed, but not when a delayed one falls due, so the sandbox's status
 * steps (SANDBOX_STATUS_DELAY_MS, 200 ms) came 2-4 s apart, at the polls. The process that enqueued
 * it wakes its own workers then. Here the workers poll every two minutes: only that wake runs the job.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { migrate } from '../../src/db/migrate.ts';
import { startQueue, type JobHandlers, type Queue } from '../../src/jobs/queue.ts';
import { createLogger } from '../../src/lib/logger.ts';
import { createTestDatabase, type TestDatabase } from '../harness.ts';
import { eventually } from '../eventually.ts';

let testDb: TestDatabase;
let queue: Queue;
const ran: string[] = [];

before(async () => {
  testDb = await createTestDatabase();
  await migrate(testDb.database);
  queue = await startQueue(testDb.database, createLogger({ level: 'silent' }), { maintain: false, pollSeconds: 120 });
  // Every queue gets a handler; only the one under test is used.
  const handlers = new Proxy({} as JobHandlers, { get: (_target, name) => async () => void ran.push(String(name)) });
  await queue.work(handlers);
});
after(async () => {
  await queue.stop({ graceful: false, timeoutMs: 100 });
  await testDb.drop();
});

test('a job due in 300 ms runs then, with the next poll two minutes away', async () => {
  await queue.enqueue(testDb.database.db, 'maintenance.analyze', {}, { startAfterSeconds: 0.3 });
  assert.equal(ran.length, 0, 'not before it is due');
  await eventually('the delayed job to run', () => ran.includes('maintenance.analyze'), 10_000);
});
