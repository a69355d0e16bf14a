/**
 * Runs every test with node's test runner: once on embedded PGlite, then, when TEST_DATABASE_URL
 * names a PostgreSQL server, the storage-touching tests again against it (each test server makes
 * and drops its own database there). Browser tests run in the first pass only.
 *
 * Each test file runs in a process of its own, two at a time, and is killed when it runs past
 * FILE_TIMEOUT_MS (a file that never exits fails, instead of holding the whole run). A file's
 * output is printed in one piece when it ends.
 *   node scripts/test.ts [file-filter...]
 */
import { spawn } from 'node:child_process';
import { globSync } from 'node:fs';
import { availableParallelism } from 'node:os';

const FILE_TIMEOUT_MS = Number(process.env.TEST_FILE_TIMEOUT_MS ?? 8 * 60_000);
const CONCURRENCY = Math.max(2, Math.min(3, availableParallelism()));

const filters = process.argv.slice(2);
const all = [...globSync('src/**/*.test.ts'), ...globSync('test/**/*.test.ts')]
  .sort()
  .filter((f) => filters.length === 0 || filters.some((x) => f.includes(x)));

type FileResult = { file: string; ok: boolean; ms: number; timedOut: boolean; passed: number; failed: number; skipped: number };

/** The totals node's spec reporter prints at the end of a file (`ℹ pass 12`); absent when the file died first. */
function counts(output: string): { passed: number; failed: number; skipped: number } {
  const read = (label: string) => Number(new RegExp(`^ℹ ${label} (\\d+)$`, 'm').exec(output)?.[1] ?? 0);
  return { passed: read('pass'), failed: read('fail') + read('cancelled'), skipped: read('skipped') + read('todo') };
}

function runFile(file: string, env: NodeJS.ProcessEnv): Promise<FileResult> {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--test', '--test-reporter=spec', '--test-timeout=180000', file], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    const chunks: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => chunks.push(c));
    child.stderr.on('data', (c: Buffer) => chunks.push(c));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
    }, FILE_TIMEOUT_MS);
    child.on('close', (code) => {
      clearTimeout(timer);
      const ms = Date.now() - started;
      const ok = code === 0 && !timedOut;
      const output = Buffer.concat(chunks).toString();
      const tally = counts(output);
      // A file that failed without a failing test to show for it (killed, crashed at load) counts as one failure.
      if (!ok && tally.failed === 0) tally.failed = 1;
      const head = `\n--- ${file}: ${ok ? 'ok' : timedOut ? `KILLED after ${FILE_TIMEOUT_MS} ms (did not finish)` : `FAILED (exit ${code})`} in ${(ms / 1000).toFixed(1)} s ---\n`;
      process.stdout.write(head + output);
      resolve({ file, ok, ms, timedOut, ...tally });
    });
  });
}

async function run(label: string, files: string[], env: NodeJS.ProcessEnv): Promise<FileResult[]> {
  if (files.length === 0) return [];
  process.stdout.write(`\n== ${label}: ${files.length} test files, ${CONCURRENCY} at a time ==\n`);
  const queue = [...files];
  const results: FileResult[] = [];
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      for (let file = queue.shift(); file; file = queue.shift()) results.push(await runFile(file, env));
    }),
  );
  return results;
}

const started = Date.now();
const serverUrl = process.env.TEST_DATABASE_URL;
const { TEST_DATABASE_URL: _omit, ...embeddedEnv } = process.env;
const results = (await run('PGlite (embedded)', all, embeddedEnv)).map((r) => ({ ...r, pass: 'PGlite' }));
if (serverUrl) {
  const storage = all.filter((f) => !f.includes('.browser.') && !f.includes('.unit.'));
  const host = new URL(serverUrl).host;
  results.push(...(await run(`PostgreSQL (${host})`, storage, process.env)).map((r) => ({ ...r, pass: 'PostgreSQL' })));
} else {
  process.stdout.write('\nTEST_DATABASE_URL is not set: the PostgreSQL pass was skipped.\n');
}

const failed = results.filter((r) => !r.ok);
const slowest = [...results].sort((a, b) => b.ms - a.ms).slice(0, 5);
process.stdout.write(`\n== ${results.length} file runs in ${((Date.now() - started) / 1000).toFixed(0)} s; slowest: ${slowest.map((r) => `${r.file} (${r.pass}) ${(r.ms / 1000).toFixed(0)} s`).join(', ')} ==\n`);
if (failed.length > 0) {
  process.stdout.write(`FAILED ${failed.length}:\n${failed.map((r) => `  ${r.pass}: ${r.file}${r.timedOut ? ' (killed: did not finish)' : ''}`).join('\n')}\n`);
}
const sum = (key: 'passed' | 'failed' | 'skipped') => results.reduce((n, r) => n + r[key], 0);
// The one closing line of totals over every file run.
process.stdout.write(`${sum('passed')} passed, ${sum('failed')} failed${sum('skipped') > 0 ? `, ${sum('skipped')} skipped` : ''}\n`);
process.exit(failed.length > 0 ? 1 : 0);
