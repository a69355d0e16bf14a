/**
 * `parley` as a child process, as a person or a script runs it: the CLI from its sources (Node 24,
 * --conditions=parley-source), with a config directory of the test's own (XDG_CONFIG_HOME) and no
 * PARLEY_* variable of the machine leaking in. `runCli` waits for the exit; `spawnCli` is for the
 * commands that follow something live (listen, --watch, qr), read line by line as they print.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

export const BIN = fileURLToPath(new URL('../src/bin.ts', import.meta.url));

export type CliResult = { code: number | null; stdout: string; stderr: string };

/** A fresh config home (XDG_CONFIG_HOME); the CLI's own directory is `parley` inside it. */
export function configHome(): string {
  return mkdtempSync(path.join(tmpdir(), 'parley-cli-test-'));
}

export function cliEnv(env: Record<string, string | undefined>): NodeJS.ProcessEnv {
  const base = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('PARLEY_') && name !== 'CI'));
  // No browser is ever opened by a test: no display, and CI says so too.
  return { ...base, DISPLAY: '', WAYLAND_DISPLAY: '', CI: 'true', NO_COLOR: '1', ...env } as NodeJS.ProcessEnv;
}

function start(args: readonly string[], env: Record<string, string | undefined>): ChildProcess {
  return spawn(process.execPath, ['--conditions=parley-source', BIN, ...args], { env: cliEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
}

export function runCli(args: readonly string[], env: Record<string, string | undefined> = {}): Promise<CliResult> {
  const child = start(args, env);
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

export type LiveCli = {
  child: ChildProcess;
  stdoutLines: string[];
  stderrLines: string[];
  /** The first stdout line (from the start) that the predicate accepts; fails after timeoutMs or when the process ends first. */
  line(what: string, accept: (line: string) => boolean, timeoutMs?: number, from?: 'stdout' | 'stderr'): Promise<string>;
  /** Resolves with the exit code. */
  exited: Promise<number | null>;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
};

export function spawnCli(args: readonly string[], env: Record<string, string | undefined> = {}): LiveCli {
  const child = start(args, env);
  const stdoutLines: string[] = [];
  const stderrLines: string[] = [];
  const waiters = new Set<() => void>();
  const wake = () => {
    for (const w of waiters) w();
  };
  createInterface({ input: child.stdout! }).on('line', (l) => (stdoutLines.push(l), wake()));
  createInterface({ input: child.stderr! }).on('line', (l) => (stderrLines.push(l), wake()));
  let code: number | null | undefined;
  const exited = new Promise<number | null>((resolve) =>
    child.on('close', (c) => {
      code = c;
      wake();
      resolve(c);
    }),
  );
  return {
    child,
    stdoutLines,
    stderrLines,
    exited,
    line(what, accept, timeoutMs = 20_000, from = 'stdout') {
      const lines = from === 'stdout' ? stdoutLines : stderrLines;
      return new Promise((resolve, reject) => {
        const check = () => {
          const found = lines.find(accept);
          if (found !== undefined) return done(() => resolve(found));
          if (code !== undefined)
            return done(() =>
              reject(
                new Error(`parley exited (${code}) before ${what}\nstdout:\n${stdoutLines.join('\n')}\nstderr:\n${stderrLines.join('\n')}`),
              ),
            );
        };
        const timer = setTimeout(
          () =>
            done(() =>
              reject(
                new Error(
                  `timed out after ${timeoutMs} ms waiting for ${what}\nstdout:\n${stdoutLines.join('\n')}\nstderr:\n${stderrLines.join('\n')}`,
                ),
              ),
            ),
          timeoutMs,
        );
        const done = (settle: () => void) => {
          clearTimeout(timer);
          waiters.delete(check);
          settle();
        };
        waiters.add(check);
        check();
      });
    },
    stop(signal = 'SIGINT') {
      if (code === undefined) child.kill(signal);
      return exited;
    },
  };
}

/** The JSON documents of a --json live command's stdout lines. */
export function jsonLines(lines: readonly string[]): Array<Record<string, any>> {
  return lines.filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Record<string, any>);
}
