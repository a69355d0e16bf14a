/**
 * Runs every test with node's test runner, each file in a process of its own, a few at a time, the
 * longest first (the last run's durations, or a guess), each killed past FILE_TIMEOUT_MS (a file that
 * never exits fails instead of holding the run). A file's output is printed in one piece when it ends;
 * the run ends with its wall time, the slowest files and one line of totals: `N passed, N failed`.
 *
 * Every file runs once on embedded PGlite; the files whose behaviour can differ by store run on the
 * PostgreSQL server of TEST_DATABASE_URL too (scripts/test-stores.ts, docs/testing.md). The browser
 * tests share one Chromium, started here and reached through PARLEY_TEST_BROWSER_WS. A whole run also
 * type-checks, lints and checks the format, as jobs of the same pool (TEST_CHECKS=0 leaves them out).
 *   node scripts/test.ts [file-filter...]
 */
import { spawn } from 'node:child_process';
import { existsSync, globSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { availableParallelism } from 'node:os';
import { storesOf, type Store } from './test-stores.ts';

const FILE_TIMEOUT_MS = Number(process.env.TEST_FILE_TIMEOUT_MS ?? 5 * 60_000);
/** Files wait on I/O (servers, child processes, timers) much of the time: twice the cores keeps them busy (at three on two cores, a quarter of the CPU stayed idle). */
const CONCURRENCY = Number(process.env.TEST_CONCURRENCY ?? Math.max(2, Math.min(4, availableParallelism() * 2)));

/** GNU time, to report each file's CPU (its child processes included); the run goes without where it is missing. */
const TIME = existsSync('/usr/bin/time') ? '/usr/bin/time' : undefined;
const CPU_MARK = '@@test-cpu ';

/** Loaded first in every test process, as src/main.ts loads it in the service: see src/boot/module-hooks.ts. */
const MODULE_HOOKS = path.resolve('src/boot/module-hooks.ts');

/**
 * WebAssembly (PGlite) compiled by V8's baseline compiler only: a test process lives seconds, and
 * optimising PGlite's hot functions in the background cost about 0.7 s of CPU per process, more than
 * the faster code saved (the fuzzer's 3,000 requests took no longer). Services the tests spawn get it too
 * (test/process/service.ts); the service itself, long-lived, keeps V8's default.
 */
const TEST_V8_FLAGS = ['--liftoff-only'];

const filters = process.argv.slice(2);
const all = [
  ...globSync('src/**/*.test.ts'),
  ...globSync('test/**/*.test.ts'),
  ...globSync('packages/*/src/**/*.test.ts'),
  ...globSync('packages/*/test/**/*.test.ts'),
]
  .sort()
  .filter((f) => filters.length === 0 || filters.some((x) => f.includes(x)));

type FileResult = {
  file: string;
  ok: boolean;
  ms: number;
  cpuMs: number | undefined;
  timedOut: boolean;
  passed: number;
  failed: number;
  skipped: number;
};

/** The totals node's spec reporter prints at the end of a file (`ℹ pass 12`); absent when the file died first. */
function counts(output: string): { passed: number; failed: number; skipped: number } {
  const read = (label: string) => Number(new RegExp(`^ℹ ${label} (\\d+)$`, 'm').exec(output)?.[1] ?? 0);
  return { passed: read('pass'), failed: read('fail') + read('cancelled'), skipped: read('skipped') + read('todo') };
}

function runFile({ file, files, env, pass, command: given }: Job): Promise<FileResult> {
  const started = Date.now();
  return new Promise((resolve) => {
    // Under GNU time when the machine has it: the CPU the file cost, its own processes included.
    const command = given ?? [
      process.execPath,
      ...TEST_V8_FLAGS,
      // The workspace packages (packages/*) resolve to their TypeScript sources, not to a build.
      '--conditions=parley-source',
      '--import',
      MODULE_HOOKS,
      '--test',
      '--test-isolation=none',
      '--test-reporter=spec',
      '--test-timeout=180000',
      ...(files ?? [file]),
    ];
    const [bin, ...args] = TIME ? [TIME, '-f', `${CPU_MARK}%U %S`, ...command] : command;
    const child = spawn(bin!, args, {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    const chunks: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => chunks.push(c));
    child.stderr.on('data', (c: Buffer) => chunks.push(c));
    let timedOut = false;
    const timer = setTimeout(
      () => {
        timedOut = true;
        try {
          process.kill(-child.pid!, 'SIGKILL');
        } catch {
          child.kill('SIGKILL');
        }
      },
      timeoutOf(files, file),
    );
    child.on('close', (code) => {
      clearTimeout(timer);
      const ms = Date.now() - started;
      const ok = code === 0 && !timedOut;
      const all = Buffer.concat(chunks).toString();
      const cpuLine = new RegExp(`^${CPU_MARK}([\\d.]+) ([\\d.]+)$`, 'm').exec(all);
      const cpuMs = cpuLine ? Math.round((Number(cpuLine[1]) + Number(cpuLine[2])) * 1000) : undefined;
      const output = cpuLine ? all.replace(cpuLine[0], '').trimEnd() + '\n' : all;
      const tally = counts(output);
      // A file that failed without a failing test to show for it (killed, crashed at load) counts as one failure.
      if (!ok && tally.failed === 0) tally.failed = 1;
      const cpu = cpuMs === undefined ? '' : `, CPU ${(cpuMs / 1000).toFixed(1)} s`;
      const head = `\n--- ${files ? `${file} (${files.length})` : file} (${pass}): ${ok ? 'ok' : timedOut ? `KILLED after ${timeoutOf(files, file)} ms (did not finish)` : `FAILED (exit ${code})`} in ${(ms / 1000).toFixed(1)} s${cpu} ---\n`;
      process.stdout.write(head + output);
      resolve({ file, ok, ms, cpuMs, timedOut, ...tally });
    });
  });
}

/**
 * A test file on one store, one of the checks (`command`: type check, lint, format) that run in the same
 * pool, or the unit files together (`files`; `file` names the group).
 */
type Job = { file: string; files?: string[]; env: NodeJS.ProcessEnv; pass: Store | 'check'; command?: string[] };

/**
 * The unit files (`*.unit.test.ts`: no server, no database, no browser) run in one test process, one
 * after another: a process of their own each cost more CPU to start (Node, the module hook, their
 * imports) than most of them take to run. One name for the group, so that its duration is kept for the order.
 */
const UNIT_GROUP = 'unit files';
/**
 * The dashboard's component tests are a group of their own: they set up happy-dom as the global window
 * (test/dashboard/dom.ts), which would stay for the other files of a shared process (its AbortSignal,
 * among others, is not Node's).
 */
const unitGroupOf = (file: string, source: string) =>
  !file.includes('.unit.') ? undefined : source.includes('setUpDom(') ? `${UNIT_GROUP} (DOM)` : UNIT_GROUP;

/** The group of unit files gets the time of several files; the contract fuzzer (one long test) twice a file's. */
const timeoutOf = (files: string[] | undefined, file?: string) =>
  files && files.length > 1 ? 3 * FILE_TIMEOUT_MS : file?.startsWith('test/fuzz/') ? 2 * FILE_TIMEOUT_MS : FILE_TIMEOUT_MS;

/**
 * The checks `npm test` runs besides the tests: in the pool with the test files, first (they take
 * longest), so that they use the cores the first test files leave idle while they wait on I/O.
 */
const CHECKS: Array<[string, string[]]> = [
  ['typecheck', ['node_modules/typescript-7/bin/tsc', '--noEmit', '-p', 'tsconfig.json']],
  ['lint', ['node_modules/eslint/bin/eslint.js', 'src', 'test', 'scripts', 'bench', 'packages']],
  ['format', ['node_modules/@biomejs/biome/bin/biome', 'format', '.']],
];

/** Where the last run's durations are kept, so the next run starts the longest files first. */
const TIMINGS_FILE = '.test-data/test-timings.json';

function readTimings(): Record<string, number> {
  try {
    return JSON.parse(readFileSync(TIMINGS_FILE, 'utf8')) as Record<string, number>;
  } catch {
    return {};
  }
}

/** A guess of a file's length when no earlier run measured it: processes, fuzzing and browsers take longest. */
function guess(file: string): number {
  if (CHECKS.some(([name]) => name === file) || file.startsWith(UNIT_GROUP)) return 120_000;
  if (file.startsWith('test/process/') || file.startsWith('test/fuzz/')) return 60_000;
  if (file.includes('.browser.')) return 40_000;
  if (file.includes('messages-')) return 30_000;
  return 10_000;
}

/** Both passes share one queue, longest first: the machine stays busy to the end instead of waiting on one slow file. */
async function run(jobs: Job[]): Promise<Array<FileResult & { pass: Job['pass'] }>> {
  const timings = readTimings();
  const length = (job: Job) => timings[`${job.pass}:${job.file}`] ?? guess(job.file);
  const queue = [...jobs].sort((a, b) => length(b) - length(a));
  process.stdout.write(`\n== ${jobs.length} runs (test files and checks), ${CONCURRENCY} at a time ==\n`);
  const results: Array<FileResult & { pass: Job['pass'] }> = [];
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      for (let job = queue.shift(); job; job = queue.shift()) results.push({ ...(await runFile(job)), pass: job.pass });
    }),
  );
  try {
    mkdirSync(path.dirname(TIMINGS_FILE), { recursive: true });
    writeFileSync(
      TIMINGS_FILE,
      JSON.stringify({ ...timings, ...Object.fromEntries(results.map((r) => [`${r.pass}:${r.file}`, r.ms])) }, null, 1),
    );
  } catch {
    // Only a hint for the next run.
  }
  return results;
}

/**
 * The PGlite data directories test processes keep in /dev/shm (test/harness.ts) are removed by the test
 * that made them; those of a process that died (killed at its timeout, say) are removed here. Each is
 * named after its process: only those whose process is gone go, so another run at the same time keeps its own.
 */
function removeOrphanDatabases(): void {
  for (const dir of globSync('/dev/shm/parley-test-db-*')) {
    const pid = Number(/parley-test-db-(\d+)-/.exec(dir)?.[1]);
    if (!pid || isAlive(pid)) continue;
    rmSync(dir, { recursive: true, force: true });
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** One Chromium for every browser test file of the run (test/browser.ts connects to it); undefined when none runs. */
async function startSharedBrowser(): Promise<{ wsEndpoint: string; close(): Promise<void> } | undefined> {
  const { CHROMIUM, BROWSER_ARGS } = await import('../test/browser-launch.ts');
  const { chromium } = await import('playwright-core');
  try {
    const server = await chromium.launchServer({ executablePath: CHROMIUM, headless: true, args: BROWSER_ARGS });
    return { wsEndpoint: server.wsEndpoint(), close: () => server.close() };
  } catch (err) {
    // Each browser test file then launches its own, and says what is missing if it cannot.
    process.stdout.write(
      `\nthe shared browser did not start (${(err as Error).message.split('\n')[0]}): each browser test launches its own\n`,
    );
    return undefined;
  }
}

// Every test process (and the services they spawn) keeps V8's compiled code of the sources here:
// later processes skip most of the parsing and compiling (node's module compile cache).
process.env.NODE_COMPILE_CACHE ??= path.resolve('.test-data/compile-cache');

const started = Date.now();
const serverUrl = process.env.TEST_DATABASE_URL;
const { TEST_DATABASE_URL: _omit, ...embeddedEnv } = process.env;
// A whole run checks the types, the lint rules and the format too (a run of a few files does not).
const jobs: Job[] =
  filters.length === 0 && process.env.TEST_CHECKS !== '0'
    ? CHECKS.map(([name, args]) => ({ file: name, env: process.env, pass: 'check' as const, command: [process.execPath, ...args] }))
    : [];
const serverOnly: string[] = [];
const unitGroups: Record<string, string[]> = {};
// TEST_STORES=all (npm run test:long): every file that touches a store runs on both.
const everyStore = process.env.TEST_STORES === 'all';
for (const file of all) {
  const source = readFileSync(file, 'utf8');
  const declared = storesOf(file, source);
  const stores: Store[] = everyStore && !file.includes('.browser.') && !file.includes('.unit.') ? ['PGlite', 'PostgreSQL'] : declared;
  const group = unitGroupOf(file, source);
  if (stores.includes('PGlite') && group) (unitGroups[group] ??= []).push(file);
  else if (stores.includes('PGlite')) jobs.push({ file, env: embeddedEnv, pass: 'PGlite' });
  if (stores.includes('PostgreSQL')) {
    if (serverUrl) jobs.push({ file, env: process.env, pass: 'PostgreSQL' });
    else if (!stores.includes('PGlite')) serverOnly.push(file);
  }
}
for (const [group, files] of Object.entries(unitGroups)) jobs.push({ file: group, files, env: embeddedEnv, pass: 'PGlite' });
const onServer = jobs.filter((j) => j.pass === 'PostgreSQL').length;
if (serverUrl) {
  process.stdout.write(
    `\nPGlite (embedded): ${jobs.filter((j) => j.pass === 'PGlite').reduce((n, j) => n + (j.files?.length ?? 1), 0)} files; PostgreSQL (${new URL(serverUrl).host}): the ${onServer} whose behaviour can differ by store\n`,
  );
} else {
  process.stdout.write(
    `\nTEST_DATABASE_URL is not set: the PostgreSQL pass was skipped${serverOnly.length ? `, and with it ${serverOnly.length} files that need a server (${serverOnly.join(', ')})` : ''}.\n`,
  );
}

const browser = jobs.some((j) => j.file.includes('.browser.')) ? await startSharedBrowser() : undefined;
if (browser)
  for (const job of jobs) if (job.file.includes('.browser.')) job.env = { ...job.env, PARLEY_TEST_BROWSER_WS: browser.wsEndpoint };
removeOrphanDatabases();
const results = await run(jobs);
await browser?.close();
removeOrphanDatabases();

const failed = results.filter((r) => !r.ok);
const slowest = [...results].sort((a, b) => b.ms - a.ms).slice(0, 5);
const seconds = (ms: number) => `${(ms / 1000).toFixed(0)} s`;
process.stdout.write(
  `\n== ${results.length} file runs in ${seconds(Date.now() - started)} of wall time; slowest: ${slowest.map((r) => `${r.file} (${r.pass}) ${seconds(r.ms)}`).join(', ')} ==\n`,
);
if (failed.length > 0) {
  process.stdout.write(
    `FAILED ${failed.length}:\n${failed.map((r) => `  ${r.pass}: ${r.file}${r.timedOut ? ' (killed: did not finish)' : ''}`).join('\n')}\n`,
  );
}
const cpuTotal = results.reduce((n, r) => n + (r.cpuMs ?? 0), 0);
if (cpuTotal > 0)
  process.stdout.write(
    `CPU of the test files: ${seconds(cpuTotal)}; most: ${[...results]
      .sort((a, b) => (b.cpuMs ?? 0) - (a.cpuMs ?? 0))
      .slice(0, 5)
      .map((r) => `${r.file} (${r.pass}) ${seconds(r.cpuMs ?? 0)}`)
      .join(', ')}\n`,
  );
const sum = (key: 'passed' | 'failed' | 'skipped') => results.reduce((n, r) => n + r[key], 0);
// The one closing line of totals over every file run.
process.stdout.write(`${sum('passed')} passed, ${sum('failed')} failed${sum('skipped') > 0 ? `, ${sum('skipped')} skipped` : ''}\n`);
process.exit(failed.length > 0 ? 1 : 0);
