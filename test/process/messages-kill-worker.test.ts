/**
 * Split roles: the worker process is killed (SIGKILL) in the middle of a dispatch batch while the API
 * process, and the sandbox it serves, stay up; sends cut off on the worker's side may still land on
 * the provider's. A new worker loses nothing and sends nothing twice (see dispatch-kill.ts).
 * PostgreSQL only: the embedded database serves one process.
 */
// stores: postgres
import { test } from 'node:test';
import { killMidBatch } from './dispatch-kill.ts';
import { usingPostgres } from './service.ts';

test(
  'SIGKILL of the worker mid-batch (split roles): every message read, each sent exactly once, every status delivered',
  { timeout: 170_000, skip: !usingPostgres && 'needs TEST_DATABASE_URL' },
  () => killMidBatch('split'),
);
