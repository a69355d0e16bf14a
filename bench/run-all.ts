/**
 * Every benchmark on PGlite and on PostgreSQL, then BENCHMARKS.md rewritten (issue 14 item 8).
 *
 *   npm run bench [-- options]        (node bench/run-all.ts)
 *   --only name[,name]   only these benchmarks (names as in BENCHMARKS below)
 *   --pg-only, --pglite-only
 *   --quick              smaller sizes everywhere: a smoke run of the whole set
 *   --soak               the memory benchmark's 30-minute soak too (not in the default run)
 *   --runs N             runs (or rounds) per benchmark, default 3: each reports medians over them
 *   --compare            compare with the previous file's values (each value in both, relative
 *                        difference, > 15% flagged): printed, and a paragraph in the new file
 *   --out FILE           write there instead of BENCHMARKS.md (the previous values are read from
 *                        FILE if it exists, else from BENCHMARKS.md)
 *
 * PostgreSQL is TEST_DATABASE_URL's server, else postgres://postgres@127.0.0.1:5432/test (loopback
 * only). Each benchmark runs as its own process with `--runs N --write` and writes its section into a
 * scratch file (BENCH_REPORT_FILE); the new file is a header (machine, date, the exact commands),
 * this run's sections, then the sections of the previous file this run did not write, kept as they
 * were, then notes written by hand. A benchmark that fails is reported in the header and its
 * previous section is kept. To add a benchmark: one entry in BENCHMARKS (an entry whose file is not
 * there is skipped).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { machine } from './bench-report.ts';
import { hasFlag, option, pgServerUrl } from './lib/common.ts';
import { agreementParagraph, assemble, compareRuns, differenceTable, runDateOf, sectionsOf } from './lib/report-file.ts';
import { postgresVersion } from './lib/webhooks.ts';

type BackendName = 'pglite' | 'postgres';
type Context = { backend: BackendName; quick: boolean; soak: boolean };

type Benchmark = {
  name: string;
  file: string;
  backends: BackendName[];
  /** Why a backend is left out. */
  only?: string;
  /** Arguments besides `--runs N --write`: the backend's flag and the sizes. */
  args(c: Context): string[];
};

/** `--pg` / `--pglite`: the flags of benchmarks that choose their database with bench/lib/common.ts backendOf(). */
const backendFlag = (c: Context) => [c.backend === 'postgres' ? '--pg' : '--pglite'];
const quick = (c: Context, args: string[]) => (c.quick ? args : []);
const SEEDS_FROM_OUTSIDE =
  'PostgreSQL only: the benchmark writes rows from its own connection while the service runs, and embedded PGlite lives inside the service process';

const BENCHMARKS: Benchmark[] = [
  {
    name: 'messages-accept',
    file: 'messages-accept.ts',
    backends: ['pglite', 'postgres'],
    args: (c) => [...backendFlag(c), ...quick(c, ['--duration', '1', '--recipients', '100'])],
  },
  {
    name: 'messages-delivery',
    file: 'messages-delivery.ts',
    backends: ['pglite', 'postgres'],
    args: (c) => [...backendFlag(c), '--rate', '10', ...quick(c, ['--messages', '30'])],
  },
  {
    name: 'pipeline',
    file: 'pipeline.ts',
    backends: ['pglite', 'postgres'],
    args: (c) => [...backendFlag(c), ...quick(c, ['--messages', '100', '--rate', '20', '--seconds', '3'])],
  },
  {
    name: 'rows-per-message',
    file: 'rows-per-message.ts',
    backends: ['postgres'],
    only: "PostgreSQL only: the counts are the server's statistics (pg_stat_user_tables), which PGlite does not keep across its process",
    args: (c) => quick(c, ['--messages', '200']),
  },
  {
    name: 'memory',
    file: 'memory.ts',
    backends: ['pglite', 'postgres'],
    args: (c) => [
      ...backendFlag(c),
      '--minutes',
      c.soak ? (c.quick ? '1' : '30') : '0',
      ...quick(c, ['--idle-seconds', '3', '--rate-seconds', '5']),
    ],
  },
  {
    name: 'request-path',
    file: 'request-path.ts',
    backends: ['pglite', 'postgres'],
    args: (c) => [...backendFlag(c), ...quick(c, ['--duration', '2'])],
  },
  {
    name: 'scale-out',
    file: 'scale-out.ts',
    backends: ['postgres'],
    only: 'PostgreSQL only: several processes share one database',
    args: (c) => [...quick(c, ['--messages', '600']), '--kill-runs', '1'],
  },
  {
    name: 'contacts-import',
    file: 'contacts-import.ts',
    backends: ['pglite', 'postgres'],
    args: (c) => [...(c.backend === 'pglite' ? ['--pglite'] : []), ...quick(c, ['--rows', '2000'])],
  },
  {
    name: 'segments-count',
    file: 'segments-count.ts',
    backends: ['pglite', 'postgres'],
    args: (c) => [...(c.backend === 'pglite' ? ['--pglite'] : []), ...quick(c, ['--contacts', '5000', '--requests', '5'])],
  },
  {
    name: 'contacts-lookup',
    file: 'contacts-lookup.ts',
    backends: ['postgres'],
    only: SEEDS_FROM_OUTSIDE,
    args: (c) => quick(c, ['--contacts', '10000', '--requests', '300']),
  },
  {
    name: 'inbox',
    file: 'inbox.ts',
    backends: ['postgres'],
    only: SEEDS_FROM_OUTSIDE,
    args: (c) => quick(c, ['--others', '5000', '--requests', '30']),
  },
  {
    name: 'board',
    file: 'board.ts',
    backends: ['pglite', 'postgres'],
    args: (c) => [...backendFlag(c), ...quick(c, ['--deals', '2000', '--requests', '20'])],
  },
  {
    name: 'search',
    file: 'search.ts',
    backends: ['pglite', 'postgres'],
    args: (c) => [...backendFlag(c), ...quick(c, ['--contacts', '10000', '--messages', '100000', '--requests', '20'])],
  },
  {
    name: 'timeline',
    file: 'timeline.ts',
    backends: ['pglite', 'postgres'],
    args: (c) => [...backendFlag(c), ...quick(c, ['--others', '5000', '--requests', '30'])],
  },
  {
    name: 'oauth',
    file: 'oauth.ts',
    backends: ['postgres'],
    only: SEEDS_FROM_OUTSIDE,
    args: (c) => quick(c, ['--seconds', '1', '--chains', '8']),
  },
  {
    name: 'events-stream',
    file: 'events-stream.ts',
    backends: ['postgres'],
    only: SEEDS_FROM_OUTSIDE,
    args: (c) => quick(c, ['--events', '60', '--rate', '30', '--streams', '3']),
  },
  {
    name: 'webhooks-lag',
    file: 'webhooks-lag.ts',
    backends: ['postgres'],
    only: SEEDS_FROM_OUTSIDE,
    args: (c) => quick(c, ['--rate', '50', '--seconds', '3']),
  },
  {
    name: 'webhooks-throughput',
    file: 'webhooks-throughput.ts',
    backends: ['postgres'],
    only: SEEDS_FROM_OUTSIDE,
    args: (c) => quick(c, ['--events', '1000']),
  },
  {
    name: 'dashboard',
    file: 'dashboard.ts',
    backends: ['pglite'],
    only: 'PGlite only: it measures the browser loading the app; the database is not on that path',
    args: () => [],
  },
];

// ---------------------------------------------------------------------------------------------

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const runs = Number(option('runs', '3'));
const context = { quick: hasFlag('quick'), soak: hasFlag('soak') };
const out = path.resolve(option('out', path.join(ROOT, 'BENCHMARKS.md')));
const previousFile = existsSync(out) ? out : path.join(ROOT, 'BENCHMARKS.md');
const backends: BackendName[] = hasFlag('pg-only') ? ['postgres'] : hasFlag('pglite-only') ? ['pglite'] : ['pglite', 'postgres'];
const only = option('only', '')
  .split(',')
  .map((s) => s.trim())
  .filter(Boolean);
const unknown = only.filter((n) => !BENCHMARKS.some((b) => b.name === n));
if (unknown.length) {
  console.error(`unknown benchmark ${unknown.join(', ')}; known: ${BENCHMARKS.map((b) => b.name).join(', ')}`);
  process.exit(2);
}
const pgUrl = backends.includes('postgres') ? pgServerUrl() : '';
/** The URL as the commands show it: a password never reaches BENCHMARKS.md. */
const shownPgUrl = pgUrl ? shownUrl(pgUrl) : '';

function shownUrl(url: string): string {
  const u = new URL(url);
  if (u.password) u.password = '***';
  return u.toString();
}

type Outcome = { command: string; code: number | null; seconds: number; skipped?: string };

function runOne(bench: Benchmark, backend: BackendName, reportFile: string): Promise<Outcome> {
  const args = [...bench.args({ backend, ...context }), '--runs', String(runs), '--write'];
  const env: NodeJS.ProcessEnv = { ...process.env, BENCH_REPORT_FILE: reportFile };
  delete env.DATABASE_URL;
  if (backend === 'postgres') env.TEST_DATABASE_URL = pgUrl;
  else delete env.TEST_DATABASE_URL;
  const command = `${backend === 'postgres' ? `TEST_DATABASE_URL=${shownPgUrl} ` : ''}node bench/${bench.file} ${args.join(' ')}`;
  console.log(`\n=== ${command}`);
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [path.join('bench', bench.file), ...args], {
      cwd: ROOT,
      env,
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    child.on('exit', (code) => resolve({ command, code, seconds: (Date.now() - started) / 1000 }));
  });
}

const scratch = mkdtempSync(path.join(os.tmpdir(), 'parley-bench-all-'));
const reportFile = path.join(scratch, 'sections.md');
const started = Date.now();
// The machine as the run starts (its load average then).
const machineAtStart = machine();
const outcomes: Outcome[] = [];
try {
  for (const bench of BENCHMARKS) {
    if (only.length && !only.includes(bench.name)) continue;
    if (!existsSync(path.join(ROOT, 'bench', bench.file))) {
      outcomes.push({ command: `bench/${bench.file}`, code: null, seconds: 0, skipped: 'not in this tree' });
      continue;
    }
    for (const backend of backends) {
      if (bench.backends.includes(backend)) outcomes.push(await runOne(bench, backend, reportFile));
      else
        outcomes.push({
          command: `bench/${bench.file} on ${backend}`,
          code: null,
          seconds: 0,
          skipped: bench.only ?? 'not for this backend',
        });
    }
  }
  const current = existsSync(reportFile) ? sectionsOf(readFileSync(reportFile, 'utf8')) : [];
  const previousText = existsSync(previousFile) ? readFileSync(previousFile, 'utf8') : '';
  const minutes = (Date.now() - started) / 60_000;

  let agreement: string | undefined;
  if (hasFlag('compare')) {
    const diffs = compareRuns(sectionsOf(previousText), current);
    console.log(`\n${differenceTable(diffs)}`);
    const previousDate = runDateOf(previousText);
    agreement = `## Agreement with the previous run\n\n${agreementParagraph(diffs, `the previous ${path.basename(previousFile)}${previousDate ? ` (run of ${previousDate} UTC)` : ''}`)}`;
    console.log(`\n${agreement}`);
  }

  const failed = outcomes.filter((o) => o.code !== null && o.code !== 0);
  const when = new Date(started).toISOString().slice(0, 16).replace('T', ' ');
  const pg = pgUrl ? await postgresVersion(pgUrl).catch(() => 'PostgreSQL (version not read)') : undefined;
  const header = `Written by \`npm run bench\` (bench/run-all.ts) on ${when} UTC, in ${minutes.toFixed(0)} minutes: \`node bench/run-all.ts ${process.argv.slice(2).join(' ')}\`.
Every benchmark runs as its own process with \`--runs ${runs} --write\`, on ${backends.map((b) => (b === 'postgres' ? 'PostgreSQL' : 'PGlite')).join(' and ')}; each section gives medians over its ${runs} runs and its ratios against a baseline measured in the same run.${context.quick ? ' **--quick: smaller sizes, a smoke run; these numbers are not comparable with a full run.**' : ''}
${context.soak ? 'The memory soak (30 minutes at 100 messages/s) was part of this run (--soak).' : 'The memory soak (30 minutes at 100 messages/s) is not part of the default run (it would add an hour); `npm run bench -- --soak` adds it, and its section below, if any, is from the last run that did.'}

Machine:

${machineAtStart}${pg ? `\n- PostgreSQL: ${pg} on 127.0.0.1 (same machine)` : ''}

Commands (in order; run from the repository root):

${outcomes
  .map((o) =>
    o.skipped
      ? `- ${o.command}: skipped (${o.skipped})`
      : `- \`${o.command}\`: ${o.seconds.toFixed(0)} s${o.code === 0 ? '' : `, **failed (exit ${o.code}): its previous section is kept**`}`,
  )
  .join('\n')}`;
  writeFileSync(out, assemble({ header, agreement, current, previousText }));
  console.log(
    `\n${current.length} sections written to ${out} in ${minutes.toFixed(1)} minutes${failed.length ? `; ${failed.length} failed: ${failed.map((f) => f.command).join('; ')}` : ''}`,
  );
  process.exitCode = failed.length ? 1 : 0;
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
