/**
 * Memory of one default process (`node src/main.ts`, roles api and worker, log level warn, rate limit
 * off, SANDBOX_STATUS_DELAY_MS=0) under message traffic (issue 14 item 7): RSS after start, at the
 * pipeline target rate, and over a soak. RSS is the service process's own VmRSS (/proc/<pid>/status),
 * not this process's; on PGlite the database runs inside that process and counts too.
 *
 *   node bench/memory.ts           embedded PGlite (on disk, in the service's data directory)
 *   node bench/memory.ts --pg      PostgreSQL (TEST_DATABASE_URL, --pg-url, or the local server)
 *   options: --runs 3 --idle-seconds 10 --rate 300 --rate-seconds 60 --minutes 30 (soak; 0: none)
 *            --soak-rate 100 --write (rewrite the sections memory-<backend> and memory-soak-<backend>)
 *
 * Each run: a fresh database; the service with a paired sandbox gateway channel (pacing 1000/s) and
 * one webhook endpoint on a receiver on 127.0.0.1 (message.sent, message.status_update); 20 messages
 * of warm-up, waited for until read. Then
 *  - idle: `idle-seconds` without traffic, RSS sampled every second (the median is "after start");
 *  - target rate: `rate` messages/s for `rate-seconds`, open loop (at most 64 POSTs in flight), RSS sampled every second (median
 *    and max). The rate held is reported: 201s per second and `read` webhooks per second within
 *    the phase (the pipeline's end to end rate; below the offered rate the rest waits in the queue).
 * Medians over the runs. Then, with --minutes > 0, once on a fresh service: the soak, `soak-rate`
 * messages/s for `minutes`, RSS sampled every 10 s; growth is the median of the last quarter of the
 * samples against the first quarter's (and the slope of a linear fit, MB/min).
 * Baseline in the same run: a bare `node` process listening on an HTTP port (the runtime's floor).
 * Targets: steady under 300 MB; no growth over the soak (last quarter within 5% of the first).
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import os from 'node:os';
import { machine, median, writeSection } from './bench-report.ts';
import { backendOf, hasFlag, messageBody, numberOption, pgServerUrl } from './lib/common.ts';
import { deployWithTraffic, now, post, sleep, type Deployed } from './lib/message-traffic.ts';
import { growthOf, type Growth, type Sample } from './lib/series.ts';

const backend = backendOf() === 'postgres' ? 'postgres' : 'pglite';
const runs = numberOption('runs', 3);
const idleSeconds = numberOption('idle-seconds', 10);
const rate = numberOption('rate', 300);
const rateSeconds = numberOption('rate-seconds', 60);
const minutes = numberOption('minutes', 30);
const soakRate = numberOption('soak-rate', 100);
const WARM_UP = 20;
const TARGET_MB = 300;
const GROWTH_LIMIT = 0.05;
const MAX_IN_FLIGHT = 64;
/** The soak's rates are reported per period of this length. */
const SOAK_PERIOD_MS = 60_000;

/** VmRSS of a process in MB (2^20 bytes). */
function rssMb(pid: number): number {
  const kb = Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);
  if (!Number.isFinite(kb)) throw new Error(`no VmRSS for process ${pid}`);
  return kb / 1024;
}

/** Samples the process's RSS every `everyMs` until stopped. */
function sampler(pid: number, everyMs: number) {
  const t0 = now();
  const samples: Sample[] = [{ minutes: 0, value: rssMb(pid) }];
  let stopped = false;
  const timer = setInterval(() => {
    try {
      samples.push({ minutes: (now() - t0) / 60_000, value: rssMb(pid) });
    } catch (err) {
      // The service is gone: the benchmark fails where it talks to it next.
      clearInterval(timer);
      console.error('  ! RSS sampling stopped:', err instanceof Error ? err.message : err);
    }
  }, everyMs);
  return {
    samples,
    stop() {
      if (stopped) return samples;
      stopped = true;
      clearInterval(timer);
      if (existsSync(`/proc/${pid}/status`)) samples.push({ minutes: (now() - t0) / 60_000, value: rssMb(pid) });
      return samples;
    },
  };
}

/** The runtime's floor: a bare node process with an HTTP server listening, nothing else loaded. */
async function bareNodeRss(): Promise<number> {
  const code = `require('node:http').createServer().listen(0, '127.0.0.1', () => process.stdout.write('ready'))`;
  const child = spawn(process.execPath, ['-e', code], { stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise<void>((resolve, reject) => {
    child.stdout!.once('data', () => resolve());
    child.once('exit', (c) => reject(new Error(`bare node exited with ${c}`)));
  });
  await sleep(1000);
  const rss = rssMb(child.pid!);
  child.kill();
  await new Promise((r) => (child.exitCode !== null ? r(undefined) : child.once('exit', r)));
  return rss;
}

/** One period of a soak: the rates within it and the RSS at its end. */
type Period = { minute: number; acceptedPerSecond: number; readPerSecond: number; backlog: number; rssMb: number };
type Traffic = { samples: Sample[]; acceptedPerSecond: number; readPerSecond: number; backlog: number; failed: number; periods: Period[] };

/**
 * `perSecond` messages a second for `seconds` (open loop) while sampling the service's RSS every
 * `everyMs`. A POST that fails is counted, not fatal (the first failure is printed). With
 * `periodMs`, the rates within each period are kept and printed as it ends (a pipeline that slows
 * down as the tables grow shows here).
 */
async function traffic(d: Deployed, perSecond: number, seconds: number, everyMs: number, offset: number, periodMs = 0): Promise<Traffic> {
  const rss = sampler(d.service.child.pid!, everyMs);
  const n = Math.round(perSecond * seconds);
  const pending: Array<Promise<{ id: string; at: number } | undefined>> = [];
  const ids: string[] = [];
  let failed = 0;
  let inFlight = 0;
  let freed: (() => void) | undefined;
  const t0 = now();
  const periods: Period[] = [];
  let periodStart = t0;
  let counted = { accepted: 0, read: 0 };
  const period = () => {
    const t = now();
    const read = ids.reduce((c, id) => c + ((d.receiver.seen.get(id)?.read ?? Infinity) <= t ? 1 : 0), 0);
    const seconds = (t - periodStart) / 1000;
    const p: Period = {
      minute: (t - t0) / 60_000,
      acceptedPerSecond: (ids.length - counted.accepted) / seconds,
      readPerSecond: (read - counted.read) / seconds,
      backlog: ids.length - read,
      rssMb: rssMb(d.service.child.pid!),
    };
    periods.push(p);
    console.log(
      `  ${p.minute.toFixed(1)} min: accepted ${p.acceptedPerSecond.toFixed(0)}/s, read ${p.readPerSecond.toFixed(0)}/s, not yet read ${p.backlog}, RSS ${p.rssMb.toFixed(0)} MB`,
    );
    counted = { accepted: ids.length, read };
    periodStart = t;
  };
  const periodic = periodMs > 0 ? setInterval(period, periodMs) : undefined;
  try {
    for (let i = 0; i < n; i++) {
      const wait = t0 + (i * 1000) / perSecond - now();
      if (wait > 1) await sleep(wait);
      // A client's pool, not an unbounded crowd: past MAX_IN_FLIGHT the offered rate is not held, which the report shows.
      while (inFlight >= MAX_IN_FLIGHT) await new Promise<void>((r) => (freed = r));
      inFlight++;
      pending.push(
        post(d.service, messageBody(d.channelId, offset + i))
          .then((a) => {
            ids.push(a.id);
            return a;
          })
          .catch((err: unknown) => {
            if (failed++ === 0) console.error('  ! POST failed:', err instanceof Error ? `${err.message} ${String(err.cause ?? '')}` : err);
            return undefined;
          })
          .finally(() => {
            inFlight--;
            freed?.();
          }),
      );
    }
  } finally {
    rss.stop();
    clearInterval(periodic);
  }
  const t1 = now();
  const accepted = (await Promise.all(pending)).filter((a) => a !== undefined);
  const lastAccept = accepted.reduce((m, a) => Math.max(m, a.at), t1);
  const read = accepted.filter((a) => (d.receiver.seen.get(a.id)?.read ?? Infinity) <= t1).length;
  return {
    samples: rss.samples,
    acceptedPerSecond: accepted.length / ((lastAccept - t0) / 1000),
    readPerSecond: read / ((t1 - t0) / 1000),
    backlog: accepted.length - read,
    failed,
    periods,
  };
}

type Run = {
  bareMb: number;
  idleMb: number;
  rateMedianMb: number;
  rateMaxMb: number;
  acceptedPerSecond: number;
  readPerSecond: number;
  failed: number;
  load: number[];
};

async function oneRun(): Promise<Run> {
  const load = os.loadavg().map((l) => Math.round(l * 100) / 100);
  const bareMb = await bareNodeRss();
  const d = await deployWithTraffic(backend, 1000, WARM_UP);
  try {
    const idle = sampler(d.service.child.pid!, 1000);
    await sleep(idleSeconds * 1000);
    const idleMb = median(idle.stop().map((s) => s.value));
    const t = await traffic(d, rate, rateSeconds, 1000, WARM_UP);
    const values = t.samples.map((s) => s.value);
    return {
      bareMb,
      idleMb,
      rateMedianMb: median(values),
      rateMaxMb: Math.max(...values),
      acceptedPerSecond: t.acceptedPerSecond,
      readPerSecond: t.readPerSecond,
      failed: t.failed,
      load,
    };
  } finally {
    await d.close();
  }
}

type Soak = Growth & {
  idleMb: number;
  acceptedPerSecond: number;
  readPerSecond: number;
  backlog: number;
  failed: number;
  samples: number;
  periods: Period[];
};

async function soak(): Promise<Soak> {
  const d = await deployWithTraffic(backend, 1000, WARM_UP);
  try {
    const idleMb = rssMb(d.service.child.pid!);
    const t = await traffic(d, soakRate, minutes * 60, 10_000, WARM_UP, SOAK_PERIOD_MS);
    return {
      ...growthOf(t.samples),
      idleMb,
      acceptedPerSecond: t.acceptedPerSecond,
      readPerSecond: t.readPerSecond,
      backlog: t.backlog,
      failed: t.failed,
      samples: t.samples.length,
      periods: t.periods,
    };
  } finally {
    await d.close();
  }
}

// ---------------------------------------------------------------------------------------------

const mb = (v: number) => (Number.isFinite(v) ? `${v.toFixed(0)} MB` : 'n/a');
const r0 = (v: number) => (Number.isFinite(v) ? Math.round(v).toLocaleString('en-US') : 'n/a');
const met = (ok: boolean) => (ok ? 'met' : 'not met');
const backendName = backend === 'postgres' ? 'PostgreSQL' : 'PGlite';
const command = `node bench/memory.ts ${process.argv
  .slice(2)
  .filter((a) => a !== '--write')
  .join(' ')}`.trim();
const header = machine({
  Database:
    backend === 'postgres'
      ? `PostgreSQL on ${new URL(pgServerUrl()).host} (same machine), a fresh database per run`
      : "embedded PGlite on disk (inside the service's process, so its memory counts), fresh per run",
  Service:
    '`node src/main.ts` as its own process: roles api and worker, LOG_LEVEL=warn, RATE_LIMIT_PER_MINUTE=0, SANDBOX_STATUS_DELAY_MS=0',
});

console.log(
  `memory: ${backendName}, ${runs} runs: idle ${idleSeconds} s, ${rate}/s for ${rateSeconds} s${minutes > 0 ? `; soak ${soakRate}/s for ${minutes} min` : '; no soak'}`,
);
const results: Run[] = [];
for (let n = 1; n <= runs; n++) {
  const r = await oneRun();
  results.push(r);
  console.log(
    `run ${n} (load ${r.load.join(' ')}): bare node ${mb(r.bareMb)}, idle ${mb(r.idleMb)}, at ${rate}/s median ${mb(r.rateMedianMb)} max ${mb(r.rateMaxMb)}; held ${r0(r.acceptedPerSecond)} accepted/s, ${r0(r.readPerSecond)} read/s${r.failed ? `, ${r.failed} POSTs failed` : ''}`,
  );
}
const med = (f: (r: Run) => number) => median(results.map(f));
const perRun = (f: (r: Run) => number, unit = '') => results.map((r) => `${r0(f(r))}${unit}`).join(' / ');
const bare = med((r) => r.bareMb);
const idle = med((r) => r.idleMb);
const rateMax = med((r) => r.rateMaxMb);
const table = [
  '| Measure | Median | Per run | × bare node |',
  '| --- | --- | --- | --- |',
  `| bare node, HTTP server listening (baseline) | ${mb(bare)} | ${perRun((r) => r.bareMb)} | 1.00 |`,
  `| after start (idle ${idleSeconds} s, after warm-up) | **${mb(idle)}** | ${perRun((r) => r.idleMb)} | ${(idle / bare).toFixed(2)} |`,
  `| at ${rate}/s offered for ${rateSeconds} s, median | ${mb(med((r) => r.rateMedianMb))} | ${perRun((r) => r.rateMedianMb)} | ${(med((r) => r.rateMedianMb) / bare).toFixed(2)} |`,
  `| at ${rate}/s offered for ${rateSeconds} s, max | **${mb(rateMax)}** | ${perRun((r) => r.rateMaxMb)} | ${(rateMax / bare).toFixed(2)} |`,
  `| rate held: accepted (201s/s) | ${r0(med((r) => r.acceptedPerSecond))}/s | ${perRun((r) => r.acceptedPerSecond)} | |`,
  `| rate held: read end to end (read webhooks/s within the phase) | ${r0(med((r) => r.readPerSecond))}/s | ${perRun((r) => r.readPerSecond)} | |`,
  `| POSTs that failed | ${r0(med((r) => r.failed))} | ${perRun((r) => r.failed)} | |`,
].join('\n');
console.log(`\n${table}`);

let soakBody = '';
if (minutes > 0) {
  const s = await soak();
  const soakTable = [
    '| Measure | Value |',
    '| --- | --- |',
    `| RSS after warm-up | ${mb(s.idleMb)} |`,
    `| RSS, median of the first quarter | ${mb(s.firstQuartile)} |`,
    `| RSS, median of the last quarter | **${mb(s.lastQuartile)}** |`,
    `| growth, last quarter against first | **${(s.growth * 100).toFixed(1)}%** |`,
    `| slope of a linear fit | ${s.slopePerMinute.toFixed(2)} MB/min |`,
    `| RSS max | **${mb(s.max)}** |`,
    `| rate held: accepted | ${r0(s.acceptedPerSecond)}/s |`,
    `| rate held: read end to end (within the soak) | ${r0(s.readPerSecond)}/s |`,
    `| not yet read when the soak ended | ${r0(s.backlog)} |`,
    `| POSTs that failed | ${r0(s.failed)} |`,
  ].join('\n');
  // The rates over time, in at most 10 rows (periods averaged in blocks): a pipeline that falls
  // behind as the tables grow shows as a falling read rate and a growing backlog.
  const block = Math.max(1, Math.ceil(s.periods.length / 10));
  const overTime = ['| Minutes | accepted/s | read/s | not yet read at the end | RSS at the end |', '| --- | --- | --- | --- | --- |'];
  for (let i = 0; i < s.periods.length; i += block) {
    const ps = s.periods.slice(i, i + block);
    const last = ps[ps.length - 1]!;
    const avg = (f: (p: Period) => number) => ps.reduce((a, p) => a + f(p), 0) / ps.length;
    overTime.push(
      `| ${(i === 0 ? 0 : s.periods[i - 1]!.minute).toFixed(0)}–${last.minute.toFixed(0)} | ${r0(avg((p) => p.acceptedPerSecond))} | ${r0(avg((p) => p.readPerSecond))} | ${r0(last.backlog)} | ${mb(last.rssMb)} |`,
    );
  }
  console.log(`\n${soakTable}\n\n${overTime.join('\n')}`);
  soakBody = `## Memory: soak at ${soakRate} messages/s for ${minutes} minutes (bench/memory.ts), ${backendName}

Command: \`${command}\` (${new Date().toISOString().slice(0, 10)}); the soak is one run on a fresh service after the ${runs} runs of the memory section.

${header}

${soakRate} messages/s, open loop (at most ${MAX_IN_FLIGHT} POSTs in flight), for ${minutes} minutes on the setup of the memory section; the service's VmRSS sampled every 10 s (${s.samples} samples). Growth: the median of the last quarter of the samples against the first quarter's.
Targets (issue 14): under ${TARGET_MB} MB, ${met(s.max < TARGET_MB)} (max ${mb(s.max)}); no growth (last quarter within ${GROWTH_LIMIT * 100}% of the first), ${met(s.growth <= GROWTH_LIMIT)} (${(s.growth * 100).toFixed(1)}%, ${s.slopePerMinute.toFixed(2)} MB/min).

${soakTable}

Over time (each row averages its minutes):

${overTime.join('\n')}`;
}

if (hasFlag('write')) {
  writeSection(
    `memory-${backend}`,
    `## Memory: RSS after start and at the target rate (bench/memory.ts), ${backendName}

Command: \`${command}\` (${new Date().toISOString().slice(0, 10)})

${header}

The service's own VmRSS (/proc/<pid>/status), MB = 2^20 bytes. Each run: a fresh database; a paired sandbox gateway channel (pacing 1000/s), one webhook endpoint on a receiver on 127.0.0.1 (message.sent, message.status_update), 20 warm-up messages read; then ${idleSeconds} s idle (sampled every second, "after start" is the median), then ${rate} messages/s offered for ${rateSeconds} s, open loop with at most ${MAX_IN_FLIGHT} POSTs in flight, sampled every second. Baseline in the same run: a bare \`node\` process with an HTTP server listening. Medians of ${runs} runs.
Target (issue 14): under ${TARGET_MB} MB in one process: ${met(rateMax < TARGET_MB)} at ${rate}/s (max ${mb(rateMax)}). ${minutes > 0 ? 'The soak follows in its own section.' : 'No soak in this run (--minutes 0): the soak section, if any, is from an earlier run.'}

${table}`,
  );
  if (soakBody) writeSection(`memory-soak-${backend}`, soakBody);
}
