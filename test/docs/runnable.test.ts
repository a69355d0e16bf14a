/**
 * The documentation's examples run as written. Every fenced block of README.md and docs/*.md whose info
 * string is `ts runnable` or `sh runnable` is executed against a running service, so the docs never rot:
 * - `ts runnable`: a Node 24 process runs the block as a module; `@parley/sdk` is the SDK of
 *   packages/sdk (its sources).
 * - `sh runnable`: bash (-euo pipefail) runs it with `parley` on the PATH (scripts/parley: packages/cli
 *   from its sources) and a configuration directory of its own, so no login is reused.
 * Each block runs alone, in order, with the literal `http://localhost:8080` replaced by the test server's
 * address and these in its environment: PARLEY_BASE_URL, PARLEY_API_KEY (an all-permission key of the
 * server's organization), PARLEY_CHANNEL_ID (an official channel bound to the sandbox, connected) and
 * PARLEY_TO (a number that has written to it, so its 24-hour window is open). A block passes when it
 * exits 0 within a minute. Blocks that need a person (a login approved in a browser) are not marked.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { globSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { startTestServer, type TestServer } from '../harness.ts';
import { customerWrites, officialChannel } from '../messages-helpers.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const BLOCK_TIMEOUT_MS = 60_000;
const DOCUMENTED_BASE_URL = 'http://localhost:8080';
const CUSTOMER = '4915112348090';

type Block = { file: string; line: number; kind: 'ts' | 'sh'; code: string };

/** The runnable blocks of a Markdown text, with the line each starts on. */
export function runnableBlocks(file: string, text: string): Block[] {
  const blocks: Block[] = [];
  for (const match of text.matchAll(/^```(ts|sh) runnable[^\n]*\n([\s\S]*?)^```$/gm)) {
    const line = text.slice(0, match.index).split('\n').length;
    blocks.push({ file, line, kind: match[1] as 'ts' | 'sh', code: match[2]! });
  }
  return blocks;
}

const DOCS = ['README.md', ...globSync('docs/*.md', { cwd: ROOT }).sort()];
const BLOCKS = DOCS.flatMap((file) => runnableBlocks(file, readFileSync(path.join(ROOT, file), 'utf8')));

let server: TestServer;
let scratch: string;
let bin: string;
let env: Record<string, string>;

before(async () => {
  // The worker sends and the sandbox answers with statuses (quickly): the examples follow messages to read.
  server = await startTestServer({ worker: true, env: { SANDBOX_STATUS_DELAY_MS: '50' } });
  const channel = await officialChannel(server, 'Docs');
  await customerWrites(server, channel.id, CUSTOMER);
  // Inside the repository, so that `@parley/sdk` resolves from the blocks' files (.test-data is ignored by git).
  mkdirSync(path.join(ROOT, '.test-data'), { recursive: true });
  scratch = mkdtempSync(path.join(ROOT, '.test-data', 'runnable-'));
  bin = path.join(scratch, 'bin');
  mkdirSync(bin);
  // The repository's own launcher (scripts/parley: the CLI from its sources), by a symlink as a user puts it on PATH.
  symlinkSync(path.join(ROOT, 'scripts/parley'), path.join(bin, 'parley'));
  env = {
    PATH: `${bin}:${path.dirname(process.execPath)}:/usr/local/bin:/usr/bin:/bin`,
    HOME: scratch,
    XDG_CONFIG_HOME: path.join(scratch, 'config'),
    PARLEY_BASE_URL: server.baseUrl,
    PARLEY_API_KEY: server.apiKey,
    PARLEY_CHANNEL_ID: channel.id,
    PARLEY_TO: CUSTOMER,
    NO_COLOR: '1',
  };
});

after(async () => {
  await server?.close();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

function run(block: Block): Promise<{ code: number | null; output: string; timedOut: boolean }> {
  const code = block.code.replaceAll(DOCUMENTED_BASE_URL, server.baseUrl);
  let command: string[];
  if (block.kind === 'ts') {
    const file = path.join(scratch, `${path.basename(block.file, '.md')}-${block.line}.ts`);
    writeFileSync(file, code);
    command = [process.execPath, '--conditions=parley-source', file];
  } else {
    command = ['bash', '-euo', 'pipefail', '-c', code];
  }
  return new Promise((resolve, reject) => {
    const child = spawn(command[0]!, command.slice(1), { cwd: scratch, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      process.kill(-child.pid!, 'SIGKILL');
    }, BLOCK_TIMEOUT_MS);
    child.on('error', reject);
    child.on('close', (exit) => {
      clearTimeout(timer);
      resolve({ code: exit, output, timedOut });
    });
  });
}

test('the README shows the SDK and the CLI by examples that run', () => {
  const readme = BLOCKS.filter((block) => block.file === 'README.md');
  assert.ok(
    readme.some((block) => block.kind === 'ts' && block.code.includes('@parley/sdk')),
    'README.md has a `ts runnable` block using the SDK',
  );
  assert.ok(
    readme.some((block) => block.kind === 'sh' && /^parley /m.test(block.code)),
    'README.md has an `sh runnable` block using the CLI',
  );
});

for (const block of BLOCKS) {
  test(`${block.file}:${block.line} (${block.kind}) runs as written`, async () => {
    const { code, output, timedOut } = await run(block);
    assert.ok(!timedOut, `${block.file}:${block.line} did not end within ${BLOCK_TIMEOUT_MS / 1000} s:\n${output}`);
    assert.equal(code, 0, `${block.file}:${block.line} exited ${code}:\n${output}`);
  });
}

test('the runnable blocks are found by their info string, with the line each starts on', () => {
  const text = [
    '# Title',
    '',
    '```ts runnable',
    'console.log(1);',
    '```',
    '',
    '```ts',
    'not run',
    '```',
    '```sh runnable',
    'echo hi',
    '```',
    '',
  ].join('\n');
  assert.deepEqual(runnableBlocks('x.md', text), [
    { file: 'x.md', line: 3, kind: 'ts', code: 'console.log(1);\n' },
    { file: 'x.md', line: 10, kind: 'sh', code: 'echo hi\n' },
  ]);
});
