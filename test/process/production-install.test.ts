/**
 * The production install, as the README gives it: a copy of the project (the files git tracks or
 * would track, working changes included) in a temp directory, `npm ci --omit=dev` there (offline:
 * from the local npm cache only, so nothing leaves the machine; a cold cache fails with npm's
 * ENOTCACHED), then `npm start`. The install builds the dashboard (the `prepare` script), no dev
 * dependency is installed, and the service answers /readyz and serves the dashboard, then stops on
 * SIGTERM. Run in the PGlite pass only (the install does not depend on the database).
 */
// stores: pglite
import assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { eventually } from '../eventually.ts';
import { freePort } from '../harness.ts';
import { inheritedEnv, ROOT, usingPostgres } from './service.ts';

/** The files of the project as a checkout would have them: tracked, plus new ones not ignored. */
function copyProject(to: string) {
  const listed = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: ROOT, encoding: 'utf8' });
  for (const file of listed.split('\0').filter(Boolean)) {
    const from = path.join(ROOT, file);
    // Deleted in the working tree but still tracked: a checkout of these changes would not have it.
    if (!existsSync(from)) continue;
    mkdirSync(path.dirname(path.join(to, file)), { recursive: true });
    cpSync(from, path.join(to, file));
  }
}

test('npm ci --omit=dev && npm start: the dashboard is built at install, no dev dependency, the service ready', {
  skip: usingPostgres && 'the PGlite pass covers it',
  timeout: 240_000,
}, async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'parley-install-'));
  const dataDir = path.join(dir, 'data');
  try {
    copyProject(dir);
    assert.ok(!existsSync(path.join(dir, 'dist')), 'the copy carries no build');
    const install = spawnSync('npm', ['ci', '--omit=dev', '--offline', '--no-audit', '--no-fund'], {
      cwd: dir,
      env: inheritedEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
      encoding: 'utf8',
      timeout: 180_000,
    });
    assert.equal(install.status, 0, `npm ci failed:\n${install.stdout}\n${install.stderr}`);
    // Every dependency's install script is answered in package.json (allowScripts): an npm that asks
    // about them (11.19 and later) has nothing to list.
    assert.doesNotMatch(install.stderr, /install scripts not yet covered/, install.stderr);

    assert.ok(existsSync(path.join(dir, 'dist/dashboard/index.html')), 'the install built the dashboard');
    // Dev-only packages (the lock's `dev` flag: needed by nothing the service depends on) are absent.
    const lock = JSON.parse(readFileSync(path.join(dir, 'package-lock.json'), 'utf8')) as { packages: Record<string, { dev?: boolean }> };
    const devOnly = Object.entries(lock.packages)
      .filter(([at, entry]) => at && entry.dev)
      .map(([at]) => at);
    assert.ok(devOnly.length > 50, 'the lock names the dev-only packages');
    assert.deepEqual(
      devOnly.filter((at) => existsSync(path.join(dir, at))),
      [],
      'dev-only packages were installed',
    );
    for (const tool of ['typescript', 'eslint', 'drizzle-kit', 'fast-check', 'playwright-core'])
      assert.ok(!existsSync(path.join(dir, 'node_modules', tool)), tool);

    const port = await freePort();
    const child = spawn('npm', ['start'], {
      cwd: dir,
      // Its own process group, so a stop that fails can kill npm, its shell and the service at once.
      detached: true,
      env: { ...inheritedEnv(), PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
    const base = `http://127.0.0.1:${port}`;
    try {
      await eventually(
        'the installed service to be ready',
        async () => {
          if (child.exitCode !== null) throw new Error(`npm start exited ${child.exitCode}:\n${output}`);
          const res = await fetch(`${base}/readyz`).catch(() => undefined);
          return res?.status === 200 ? true : undefined;
        },
        90_000,
      );
      const page = await fetch(`${base}/app/`);
      const html = await page.text();
      assert.equal(page.status, 200);
      assert.match(html, /<script type="module" crossorigin src="\/app\/assets\/[^"]+\.js"/);
      const script = /src="(\/app\/assets\/[^"]+\.js)"/.exec(html)![1]!;
      const asset = await fetch(`${base}${script}`);
      assert.equal(asset.status, 200);
      assert.ok((await asset.arrayBuffer()).byteLength > 10_000);
      assert.match(output, /Parley is ready/);
    } finally {
      // As systemd stops a unit (its whole control group): SIGTERM to npm, its shell and the service
      // alike (npm does not pass a signal on to the script it runs; the image runs node directly).
      let killed = false;
      if (child.exitCode === null) process.kill(-child.pid!, 'SIGTERM');
      const timer = setTimeout(() => {
        killed = true;
        process.kill(-child.pid!, 'SIGKILL');
      }, 20_000);
      await exited;
      clearTimeout(timer);
      assert.ok(!killed, `npm start did not stop on SIGTERM:\n${output}`);
      assert.match(output, /"msg":"shutting down"/);
      assert.doesNotMatch(output, /shutdown timed out|shutdown failed/);
      await eventually(
        'every process of the group to exit',
        async () => {
          try {
            process.kill(-child.pid!, 0);
            return undefined;
          } catch {
            return true;
          }
        },
        20_000,
      );
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
