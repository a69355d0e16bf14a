/**
 * The long versions of what CI runs in short (docs/testing.md), for before a release or after a change
 * to the pipeline, the stores or the process model. Each step is a command of its own; the run goes
 * on past a failure and ends with `N passed, N failed` over the steps.
 *   1. every test file on both stores (CI runs the store-independent ones on PGlite only);
 *   2. the contract fuzzer with 100,000 requests on PGlite, and on PostgreSQL (CI: 10,000 once);
 *   3. the kill, outage, takeover and scale-out tests, ROUNDS times each (CI: once).
 * PostgreSQL steps need TEST_DATABASE_URL (they are skipped, and said to be, without it).
 *   node scripts/test-long.ts [--rounds 5] [--fuzz-requests 100000]
 */
import { spawnSync } from 'node:child_process';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: { rounds: { type: 'string', default: '5' }, 'fuzz-requests': { type: 'string', default: '100000' } },
});
const rounds = Number(values.rounds);
const fuzzRequests = values['fuzz-requests'];
const serverUrl = process.env.TEST_DATABASE_URL;
const { TEST_DATABASE_URL: _omit, ...embeddedEnv } = process.env;

const REPEATED = [
  'test/process/messages-kill.test.ts',
  'test/process/messages-kill-worker.test.ts',
  'test/process/scale-out.test.ts',
  'test/process/database-outage.test.ts',
  'test/process/embedded-takeover.test.ts',
  'test/api/webhooks-kill.test.ts',
];

type Step = { name: string; args: string[]; env: NodeJS.ProcessEnv };
const steps: Step[] = [{ name: 'every file on both stores', args: ['scripts/test.ts'], env: { ...process.env, TEST_STORES: 'all' } }];
steps.push({ name: `fuzzer, ${fuzzRequests} requests, PGlite`, args: ['bench/fuzz.ts', fuzzRequests], env: embeddedEnv });
if (serverUrl)
  steps.push({ name: `fuzzer, ${fuzzRequests} requests, PostgreSQL`, args: ['bench/fuzz.ts', fuzzRequests], env: process.env });
for (let round = 1; round <= rounds; round++) {
  steps.push({ name: `faults, round ${round} of ${rounds}`, args: ['scripts/test.ts', ...REPEATED], env: process.env });
}
if (!serverUrl) process.stdout.write('TEST_DATABASE_URL is not set: the PostgreSQL steps are skipped.\n');

const outcomes: Array<{ name: string; ok: boolean; seconds: number }> = [];
for (const step of steps) {
  process.stdout.write(`\n=== ${step.name} ===\n`);
  const started = Date.now();
  const result = spawnSync(process.execPath, step.args, { env: step.env, stdio: 'inherit' });
  outcomes.push({ name: step.name, ok: result.status === 0, seconds: Math.round((Date.now() - started) / 1000) });
}
process.stdout.write(`\n${outcomes.map((o) => `${o.ok ? 'ok    ' : 'FAILED'} ${o.name} (${o.seconds} s)`).join('\n')}\n`);
const failed = outcomes.filter((o) => !o.ok).length;
process.stdout.write(`${outcomes.length - failed} passed, ${failed} failed\n`);
process.exit(failed > 0 ? 1 : 0);
