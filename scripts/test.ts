/**
 * Runs every test with node's test runner: once on embedded PGlite, then, when TEST_DATABASE_URL
 * names a PostgreSQL server, the storage-touching tests again against it (each test server makes
 * and drops its own database there). Browser tests run in the first pass only.
 *   node scripts/test.ts [file-filter...]
 */
import { spawnSync } from 'node:child_process';
import { globSync } from 'node:fs';

const filters = process.argv.slice(2);
const all = [...globSync('src/**/*.test.ts'), ...globSync('test/**/*.test.ts')]
  .sort()
  .filter((f) => filters.length === 0 || filters.some((x) => f.includes(x)));

function run(label: string, files: string[], env: NodeJS.ProcessEnv): number {
  if (files.length === 0) return 0;
  process.stdout.write(`\n== ${label}: ${files.length} test files ==\n`);
  const result = spawnSync(process.execPath, ['--test', '--test-concurrency=2', '--test-timeout=120000', ...files], {
    stdio: 'inherit',
    env,
  });
  return result.status ?? 1;
}

const serverUrl = process.env.TEST_DATABASE_URL;
const { TEST_DATABASE_URL: _omit, ...embeddedEnv } = process.env;
let failed = run('PGlite (embedded)', all, embeddedEnv);
if (serverUrl) {
  const storage = all.filter((f) => !f.includes('.browser.') && !f.includes('.unit.'));
  const second = run(`PostgreSQL (${new URL(serverUrl).host})`, storage, process.env);
  failed = failed || second;
} else {
  process.stdout.write('\nTEST_DATABASE_URL is not set: the PostgreSQL pass was skipped.\n');
}
process.exit(failed);
