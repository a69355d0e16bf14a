/**
 * Scale-out at a reduced size (the full 20,000 messages run from bench/scale-out.ts): 2 API and 3
 * worker processes on one PostgreSQL database, messages POSTed through both APIs with idempotency keys
 * (some again through the other API), a worker SIGKILLed and an API process killed and restarted
 * halfway. Every message is read, the provider holds each exactly once, every event reached both
 * webhook endpoints, nothing is left stuck (see scale-out.ts). PostgreSQL only: the embedded
 * database serves one process.
 */
// stores: postgres
import { test } from 'node:test';
import { runScaleOut } from './scale-out.ts';
import { createDeployment, usingPostgres } from './service.ts';

test('2 API and 3 worker processes, a worker SIGKILLed and an API restarted halfway: every message read once, every event at every endpoint, nothing stuck', {
  timeout: 300_000,
  skip: !usingPostgres && 'needs TEST_DATABASE_URL',
}, async () => {
  const deployment = await createDeployment();
  try {
    await runScaleOut({
      deployment: { dataDir: deployment.dataDir, databaseUrl: deployment.databaseUrl! },
      apis: 2,
      workers: 3,
      messages: 600,
      kill: true,
      deadlineMs: 120_000,
      log: (l) => process.stderr.write(`${new Date().toISOString()} ${l}\n`),
    });
  } finally {
    await deployment.cleanup();
  }
});
