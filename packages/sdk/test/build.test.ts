// The SDK as it would be published: built by the project's compiler, TypeScript 7 (tsconfig.build.json:
// ESM and declarations, relative imports rewritten to .js) into a temporary folder laid out as an
// installed package, typed by a consumer's compile on TypeScript 5.9 (what most consumers have), and run
// by the machine's own Node (/usr/bin/node, 20 or newer) against a test server: list channels, send a
// message, iterate a list across pages, an error's class.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { promisify } from 'node:util';
import { Parley } from '@parley/sdk';
import { startTestServer, type TestServer } from '../../../test/harness.ts';
import { customerWrites } from '../../../test/messages-helpers.ts';

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, '..', '..', '..');
const PACKAGE = path.join(ROOT, 'packages', 'sdk');
/** The build: TypeScript 7 emits the same modules and declarations as 5.9 in a sixth of the CPU. */
const TSC_BUILD = path.join(ROOT, 'node_modules', 'typescript-7', 'bin', 'tsc');
/** The consumer's compiler. */
const TSC = path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
const SYSTEM_NODE = '/usr/bin/node';

let server: TestServer;
let dir: string;
let installed: string;
let channelId: string;
const CUSTOMER = '15550003333';

before(async () => {
  // The worker stores what the sandbox's customer writes.
  server = await startTestServer({ worker: true });
  dir = mkdtempSync(path.join(tmpdir(), 'parley-sdk-build-'));
  installed = path.join(dir, 'node_modules', '@parley', 'sdk');
  const parley = new Parley({ baseUrl: server.baseUrl, apiKey: server.apiKey });
  channelId = (await parley.channels.create({ body: { platform: 'chatapp_official', name: 'Built SDK' } })).data.id;
  await customerWrites(server, channelId, CUSTOMER);
  for (const [i, name] of ['Ana', 'Ben', 'Cy'].entries()) await parley.contacts.upsert({ body: { phone_number: `+1555030000${i}`, name } });
});
after(async () => {
  await server?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test('tsc builds ESM and declarations, relative imports pointing at .js, laid out as an installed package', async () => {
  await run(process.execPath, [TSC_BUILD, '-p', path.join(PACKAGE, 'tsconfig.build.json'), '--outDir', path.join(installed, 'dist')], {
    cwd: ROOT,
  });
  cpSync(path.join(PACKAGE, 'package.json'), path.join(installed, 'package.json'));
  // The dependencies, as npm would install them beside it.
  for (const dependency of Object.keys(JSON.parse(readFileSync(path.join(PACKAGE, 'package.json'), 'utf8')).dependencies)) {
    mkdirSync(path.dirname(path.join(dir, 'node_modules', dependency)), { recursive: true });
    symlinkSync(path.join(ROOT, 'node_modules', dependency), path.join(dir, 'node_modules', dependency));
  }
  const dist = path.join(installed, 'dist');
  const files = readdirSync(dist, { recursive: true }).map(String);
  for (const name of ['index.js', 'index.d.ts', 'client.js', 'generated/operations.js', 'generated/openapi.d.ts'])
    assert.ok(files.includes(name), `${name} is built`);
  for (const file of files.filter((f) => f.endsWith('.js'))) {
    const code = readFileSync(path.join(dist, file), 'utf8');
    assert.doesNotMatch(code, /from\s+['"]\.[^'"]*\.ts['"]/, `${file} imports a .ts file`);
    assert.doesNotMatch(code, /from\s+['"]node:/, `${file} imports a Node module`);
  }
});

test('a consumer compiles against the published declarations (no source condition): methods and answers typed', async () => {
  const consumer = path.join(dir, 'consumer');
  mkdirSync(consumer, { recursive: true });
  writeFileSync(
    path.join(consumer, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        target: 'es2022',
        module: 'nodenext',
        moduleResolution: 'nodenext',
        strict: true,
        noEmit: true,
        types: [],
        lib: ['es2022', 'dom'],
      },
      include: ['*.ts'],
    }),
  );
  writeFileSync(
    path.join(consumer, 'use.ts'),
    [
      "import { Parley, NotFoundError } from '@parley/sdk';",
      "const parley = new Parley({ baseUrl: 'http://localhost:8080', apiKey: 'prl_x' });",
      'export async function use() {',
      "  const sent = await parley.messages.send({ body: { channel_id: 'c', to: '1', type: 'text', content: { body: 'Hi' } } });",
      '  const id: string = sent.data.id;',
      '  for await (const contact of parley.contacts.list({ limit: 10 })) console.log(contact.id, id);',
      '  // @ts-expect-error the message id is required',
      '  await parley.messages.get({});',
      '  return NotFoundError;',
      '}',
    ].join('\n'),
  );
  await run(process.execPath, [TSC, '-p', consumer], { cwd: consumer }).catch((err: { stdout: string }) =>
    assert.fail(`the consumer does not compile:\n${err.stdout}`),
  );
});

test("the built SDK runs on the machine's Node (20 or newer) against a running server", async () => {
  assert.ok(
    existsSync(SYSTEM_NODE),
    `${SYSTEM_NODE} is missing: install the machine's Node (20 or newer, e.g. apt-get install -y nodejs) to check the SDK on it`,
  );
  const { stdout: version } = await run(SYSTEM_NODE, ['--version']);
  const major = Number(/^v(\d+)\./.exec(version.trim())?.[1]);
  assert.ok(major >= 20, `${SYSTEM_NODE} is ${version.trim()}: the SDK is checked on Node 20 or newer`);
  writeFileSync(
    path.join(dir, 'check.mjs'),
    `
import { Parley, NotFoundError } from '@parley/sdk';
const parley = new Parley({ baseUrl: process.env.BASE_URL, apiKey: process.env.API_KEY });
const channels = await parley.channels.list();
const sent = await parley.messages.send({
  body: { channel_id: process.env.CHANNEL_ID, to: process.env.TO, type: 'text', content: { body: 'From the built SDK' } },
});
const contacts = [];
for await (const contact of parley.contacts.list({ limit: 1 })) contacts.push(contact.name);
const missing = await parley.messages.get({ messageID: '0196b1f2-0a00-7000-8000-0000000000f1' }).catch((e) => e);
console.log(JSON.stringify({ node: process.version, channels: channels.data.map((c) => c.id), sent: sent.data, contacts, notFound: missing instanceof NotFoundError }));
`,
  );
  const { stdout } = await run(SYSTEM_NODE, ['check.mjs'], {
    cwd: dir,
    timeout: 60_000,
    env: { PATH: process.env.PATH, BASE_URL: server.baseUrl, API_KEY: server.apiKey, CHANNEL_ID: channelId, TO: CUSTOMER },
  });
  const result = JSON.parse(stdout);
  assert.equal(result.node, version.trim());
  assert.deepEqual(result.channels, [channelId]);
  assert.equal(result.sent.status, 'queued');
  assert.equal(result.sent.to, CUSTOMER);
  // The customer who wrote is a contact too: four pages of one.
  assert.equal(result.contacts.length, 4, JSON.stringify(result.contacts));
  for (const name of ['Ana', 'Ben', 'Cy']) assert.ok(result.contacts.includes(name), `${name} was listed`);
  assert.equal(result.notFound, true);
});
