// The CLI as it would be published: the SDK and the CLI built by TypeScript 5.9 (their
// tsconfig.build.json) into a temporary folder laid out as installed packages, with their dependencies
// beside them as npm would put them, and `parley` run by the machine's own Node (/usr/bin/node, 20 or
// newer): --version, and channels list against a test server.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { promisify } from 'node:util';
import { startTestServer, type TestServer } from '../../../test/harness.ts';
import { officialChannel } from '../../../test/messages-helpers.ts';

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, '..', '..', '..');
/** The packages' build compiler (their package.json build scripts use it too). */
const TSC = path.join(ROOT, 'node_modules', 'typescript-7', 'bin', 'tsc');
const SYSTEM_NODE = '/usr/bin/node';

let server: TestServer;
let dir: string;
let channelId: string;

before(async () => {
  server = await startTestServer();
  channelId = (await officialChannel(server, 'Built CLI')).id;
  dir = mkdtempSync(path.join(tmpdir(), 'parley-cli-build-'));
});
after(async () => {
  await server?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** A workspace package's dependencies beside it, where npm installs them (the package's own node_modules first). */
function linkDependencies(packageDir: string): void {
  const manifest = JSON.parse(readFileSync(path.join(packageDir, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
  for (const dependency of Object.keys(manifest.dependencies)) {
    if (dependency.startsWith('@parley/')) continue;
    const target = path.join(dir, 'node_modules', dependency);
    if (existsSync(target)) continue;
    const own = path.join(packageDir, 'node_modules', dependency);
    mkdirSync(path.dirname(target), { recursive: true });
    symlinkSync(existsSync(own) ? own : path.join(ROOT, 'node_modules', dependency), target);
  }
}

test("the built CLI runs on the machine's Node (20 or newer): --version, and channels list against a server", async () => {
  const sdk = path.join(dir, 'node_modules', '@parley', 'sdk');
  const cli = path.join(dir, 'node_modules', '@parley', 'cli');
  await run(process.execPath, [TSC, '-p', path.join(ROOT, 'packages', 'sdk', 'tsconfig.build.json'), '--outDir', path.join(sdk, 'dist')], {
    cwd: ROOT,
  });
  cpSync(path.join(ROOT, 'packages', 'sdk', 'package.json'), path.join(sdk, 'package.json'));
  // The CLI compiles against the SDK as published (its declarations), not its sources.
  const config = path.join(dir, 'tsconfig.cli.json');
  writeFileSync(
    config,
    JSON.stringify({
      extends: path.join(ROOT, 'packages', 'cli', 'tsconfig.build.json'),
      compilerOptions: {
        outDir: path.join(cli, 'dist'),
        paths: { '@parley/sdk': [path.join(sdk, 'dist', 'index.d.ts')] },
        typeRoots: [path.join(ROOT, 'node_modules', '@types')],
      },
    }),
  );
  await run(process.execPath, [TSC, '-p', config], { cwd: ROOT }).catch((err: { stdout: string }) =>
    assert.fail(`the CLI does not build:\n${err.stdout}`),
  );
  cpSync(path.join(ROOT, 'packages', 'cli', 'package.json'), path.join(cli, 'package.json'));
  linkDependencies(path.join(ROOT, 'packages', 'sdk'));
  linkDependencies(path.join(ROOT, 'packages', 'cli'));
  const bin = path.join(cli, JSON.parse(readFileSync(path.join(cli, 'package.json'), 'utf8')).bin.parley);
  assert.match(readFileSync(bin, 'utf8'), /^#!\/usr\/bin\/env node/, 'the bin keeps its shebang');
  assert.doesNotMatch(readFileSync(path.join(cli, 'dist', 'program.js'), 'utf8'), /from\s+['"]\.[^'"]*\.ts['"]/, 'no .ts import left');

  assert.ok(existsSync(SYSTEM_NODE), `${SYSTEM_NODE} is missing: install the machine's Node (20 or newer) to check the CLI on it`);
  const { stdout: nodeVersion } = await run(SYSTEM_NODE, ['--version']);
  assert.ok(Number(/^v(\d+)\./.exec(nodeVersion.trim())?.[1]) >= 20, `${SYSTEM_NODE} is ${nodeVersion.trim()}`);
  const env = { PATH: process.env.PATH, HOME: dir, XDG_CONFIG_HOME: dir, PARLEY_BASE_URL: server.baseUrl, PARLEY_API_KEY: server.apiKey };
  const version = await run(SYSTEM_NODE, [bin, '--version'], { cwd: dir, env });
  assert.equal(version.stdout.trim(), JSON.parse(readFileSync(path.join(cli, 'package.json'), 'utf8')).version);
  const listed = await run(SYSTEM_NODE, [bin, 'channels', 'list', '--json'], { cwd: dir, env, timeout: 60_000 });
  assert.deepEqual(
    (JSON.parse(listed.stdout) as Array<{ id: string }>).map((c) => c.id),
    [channelId],
  );
});
