/**
 * The OpenAPI document lints clean under Redocly's recommended rules (@redocly/cli, redocly.yaml): the
 * document a running service serves, written where the repository's config and its ignore file apply, as
 * a user would lint it. Each ignored finding is listed with its reason in .redocly.lint-ignore.yaml, and
 * every one of them must still be found (an entry left over when the document changed fails too).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { request, startTestServer, type TestServer } from '../harness.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const CLI = path.join(ROOT, 'node_modules/@redocly/cli/bin/cli.js');

type LintReport = { totals: { errors: number; warnings: number; ignored: number }; problems: Array<{ ruleId: string; message: string }> };

let server: TestServer;
let dir: string;
before(async () => {
  server = await startTestServer();
  dir = mkdtempSync(path.join(tmpdir(), 'parley-openapi-lint-'));
});
after(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Runs `redocly lint` in dir; no telemetry, no update check (nothing leaves the machine). */
function lint(): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, 'lint', 'openapi.json', '--format=json'], {
      cwd: dir,
      env: {
        HOME: dir,
        REDOCLY_TELEMETRY: 'off',
        REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true',
        REDOCLY_SUPPRESS_NOTIFICATIONS: 'true',
        DO_NOT_TRACK: '1',
        CI: 'true',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

test("GET /v1/openapi.json lints clean under Redocly's recommended rules, its ignored findings each still found", async () => {
  const doc = (await request(server, 'GET', '/v1/openapi.json')).body;
  writeFileSync(path.join(dir, 'openapi.json'), JSON.stringify(doc));
  copyFileSync(path.join(ROOT, 'redocly.yaml'), path.join(dir, 'redocly.yaml'));
  copyFileSync(path.join(ROOT, '.redocly.lint-ignore.yaml'), path.join(dir, '.redocly.lint-ignore.yaml'));

  const { code, stdout, stderr } = await lint();
  const report = JSON.parse(stdout) as LintReport;
  assert.deepEqual(
    report.problems.map((problem) => `${problem.ruleId}: ${problem.message}`),
    [],
    `the linter's findings (stderr: ${stderr.slice(0, 500)})`,
  );
  assert.deepEqual({ errors: report.totals.errors, warnings: report.totals.warnings }, { errors: 0, warnings: 0 });
  assert.equal(code, 0);

  const listed = readFileSync(path.join(ROOT, '.redocly.lint-ignore.yaml'), 'utf8').match(/^\s+- '#\//gm) ?? [];
  assert.ok(listed.length > 0, 'the ignore file lists its findings');
  assert.equal(report.totals.ignored, listed.length, 'every finding the ignore file names is still there to ignore');
});
