/** Shared by the benchmarks: percentiles, the machine they ran on, and their section of BENCHMARKS.md. */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index]!;
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

export function machine(extra: Record<string, string> = {}): string {
  const cpus = os.cpus();
  const lines = [
    `- CPU: ${cpus[0]?.model ?? 'unknown'} × ${cpus.length} (os.availableParallelism ${os.availableParallelism()})`,
    `- Memory: ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB; ${os.type()} ${os.release()}`,
    `- Node ${process.version}`,
    `- Load average when the run started: ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(', ')} (other work on the machine shows here)${cpuPressure()}`,
    ...Object.entries(extra).map(([k, v]) => `- ${k}: ${v}`),
  ];
  return lines.join('\n');
}

/** Linux's CPU pressure: the share of the last minute in which some runnable task waited for a CPU. */
function cpuPressure(): string {
  try {
    const some = /some avg10=([\d.]+) avg60=([\d.]+)/.exec(readFileSync('/proc/pressure/cpu', 'utf8'));
    return some ? `; CPU pressure ${some[2]}% (tasks waiting for a CPU over the last minute)` : '';
  } catch {
    return '';
  }
}

/**
 * Replaces (or appends) the section between the benchmark's markers in BENCHMARKS.md, or in the file
 * BENCH_REPORT_FILE names (bench/run-all.ts collects the sections of a run there).
 */
export function writeSection(name: string, body: string): void {
  const file = process.env.BENCH_REPORT_FILE || new URL('../BENCHMARKS.md', import.meta.url);
  const start = `<!-- bench:${name} -->`;
  const end = `<!-- /bench:${name} -->`;
  const block = `${start}\n${body.trim()}\n${end}`;
  let text = existsSync(file)
    ? readFileSync(file, 'utf8')
    : '# Benchmarks\n\nEach section is written by the benchmark it names (`node bench/<name>.ts`); rerun it to refresh the numbers.\n';
  const from = text.indexOf(start);
  const to = text.indexOf(end);
  text = from >= 0 && to > from ? text.slice(0, from) + block + text.slice(to + end.length) : `${text.trimEnd()}\n\n${block}\n`;
  writeFileSync(file, text);
}

export const ms = (v: number) => `${v.toFixed(2)} ms`;

/** A scenario measured by latency: one request (or query) per run. */
export type LatencyScenario = { name: string; run: () => Promise<unknown> };
export type LatencyResult = { p50: number; p99: number; max: number };

/**
 * Each scenario `requests` times after 3 warm-ups, the scenarios taking turns in each of `runs` rounds;
 * `median` and `ratio` (a scenario's p50 against a baseline's in the same round) over the rounds.
 */
export async function measureRounds(scenarios: LatencyScenario[], runs: number, requests: number) {
  const results = new Map<string, LatencyResult[]>();
  for (let round = 0; round < runs; round++) {
    for (const s of scenarios) {
      for (let i = 0; i < 3; i++) await s.run();
      const latencies: number[] = [];
      for (let i = 0; i < requests; i++) {
        const t0 = performance.now();
        await s.run();
        latencies.push(performance.now() - t0);
      }
      latencies.sort((a, b) => a - b);
      const r = { p50: percentile(latencies, 50), p99: percentile(latencies, 99), max: latencies.at(-1)! };
      results.set(s.name, [...(results.get(s.name) ?? []), r]);
      console.log(`round ${round + 1} ${s.name}: p50 ${ms(r.p50)} max ${ms(r.max)}`);
    }
  }
  return {
    median: (name: string, key: keyof LatencyResult) => median(results.get(name)!.map((r) => r[key])),
    ratio: (name: string, base: string) => median(results.get(name)!.map((r, i) => r.p50 / results.get(base)![i]!.p50)),
  };
}
