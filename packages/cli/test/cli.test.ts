/**
 * `parley` as a process against a real service (an API key, as scripts use it): usage, auth, API and
 * network failures and their exit codes; --json output parsed; channels list; send, then
 * `messages get --watch` following the sandbox's statuses to `read` (and a failed one to exit 5);
 * contacts import; webhooks replay and trigger against a loopback receiver; channels qr pairing the
 * sandbox gateway's linked-device channel; the completion scripts.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { eventually } from '../../../test/eventually.ts';
import { freePort, request, startTestServer, type TestServer } from '../../../test/harness.ts';
import { customerWrites, officialChannel } from '../../../test/messages-helpers.ts';
import { startReceiver, type Receiver } from '../../../test/webhook-receiver.ts';
import { BIN, configHome, jsonLines, runCli, spawnCli } from './cli-process.ts';

let server: TestServer;
let receiver: Receiver;
let home: string;
let env: Record<string, string>;
let channel: { id: string; phone: string };
const CUSTOMER = '15551230101';

before(async () => {
  server = await startTestServer({ worker: true, env: { WEBHOOK_POLL_INTERVAL_MS: '50', SANDBOX_STATUS_DELAY_MS: '50' } });
  receiver = await startReceiver();
  home = configHome();
  env = { XDG_CONFIG_HOME: home, PARLEY_BASE_URL: server.baseUrl, PARLEY_API_KEY: server.apiKey };
  channel = await officialChannel(server, 'CLI channel');
  await customerWrites(server, channel.id, CUSTOMER);
});
after(async () => {
  await receiver.close();
  await server.close();
  rmSync(home, { recursive: true, force: true });
});

const parley = (args: string[], extra: Record<string, string> = {}) => runCli(args, { ...env, ...extra });

test('--version and --help exit 0; a usage error exits 2 with the reason, as JSON with --json', async () => {
  const version = await parley(['--version']);
  assert.equal(version.code, 0, version.stderr);
  assert.match(version.stdout.trim(), /^\d+\.\d+\.\d+/);
  assert.equal((await parley(['--help'])).code, 0);

  const unknown = await parley(['frobnicate']);
  assert.equal(unknown.code, 2, unknown.stderr);
  assert.match(unknown.stderr, /unknown command 'frobnicate'/);

  const missing = await parley(['send', '--channel', channel.id, '--text', 'hi', '--json']);
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /--to <number>/);
  const document = JSON.parse(missing.stdout);
  assert.equal(document.error.exit_code, 2);

  const both = await parley(['send', '--channel', channel.id, '--to', CUSTOMER, '--text', 'hi', '--template', 'x']);
  assert.equal(both.code, 2);
  assert.match(both.stderr, /--text or --template, not both/);
});

test('exit codes: 3 without a credential or with a refused one, 1 for an API refusal, 4 when the service cannot be reached', async () => {
  const none = await runCli(['channels', 'list'], { XDG_CONFIG_HOME: home, PARLEY_BASE_URL: server.baseUrl });
  assert.equal(none.code, 3, none.stderr);
  assert.match(none.stderr, /not logged in/);

  const refused = await parley(['channels', 'list'], { PARLEY_API_KEY: 'prl_not_a_key' });
  assert.equal(refused.code, 3, refused.stderr);

  const missing = await parley(['messages', 'get', '0196b1f2-0a00-7000-8000-000000000001', '--json']);
  assert.equal(missing.code, 1, missing.stderr);
  const problem = JSON.parse(missing.stdout).error;
  assert.equal(problem.status, 404);
  assert.equal(problem.exit_code, 1);
  assert.match(missing.stderr, /HTTP 404/);

  const bad = await parley(['send', '--channel', channel.id, '--to', 'not a number', '--text', 'hi']);
  assert.equal(bad.code, 1, bad.stderr);
  assert.match(bad.stderr, /\/to/, 'the field is named');

  const closed = await parley(['channels', 'list'], { PARLEY_BASE_URL: `http://127.0.0.1:${await freePort()}` });
  assert.equal(closed.code, 4, closed.stderr);
  assert.match(closed.stderr, /cannot reach/);
});

test('channels list: a table, or one JSON document with --json', async () => {
  const json = await parley(['channels', 'list', '--json']);
  assert.equal(json.code, 0, json.stderr);
  const channels = JSON.parse(json.stdout) as Array<{ id: string; status: string }>;
  assert.ok(channels.some((c) => c.id === channel.id && c.status === 'connected'));

  const table = await parley(['channels', 'list']);
  assert.equal(table.code, 0, table.stderr);
  assert.match(table.stdout, /^ID\s+NAME\s+PLATFORM\s+STATUS\s+NUMBER$/m);
  assert.match(table.stdout, new RegExp(`${channel.id}\\s+CLI channel\\s+chatapp_official\\s+connected`));
});

test('send, then messages get --watch follows the statuses live until read', async () => {
  const sent = await parley(['send', '--channel', channel.id, '--to', CUSTOMER, '--text', 'Your order left', '--json']);
  assert.equal(sent.code, 0, sent.stderr);
  const message = JSON.parse(sent.stdout) as { id: string; status: string };
  assert.equal(message.status, 'queued');

  const watched = await parley(['messages', 'get', message.id, '--watch', '--json']);
  assert.equal(watched.code, 0, watched.stderr);
  const statuses = jsonLines(watched.stdout.split('\n')).map((l) => l.status);
  assert.deepEqual(statuses.slice(-3), ['sent', 'delivered', 'read']);
  assert.equal(statuses.at(-1), 'read');

  const shown = await parley(['messages', 'get', message.id]);
  assert.equal(shown.code, 0, shown.stderr);
  assert.match(shown.stdout, /^status:\s+read$/m);
});

test('a watched message that fails ends the watch with exit 5', async () => {
  // The sandbox fails numbers ending 0001 after accepting them; the customer writes first (an open window).
  const to = '15551230001';
  await customerWrites(server, channel.id, to);
  const sent = await parley(['send', '--channel', channel.id, '--to', to, '--text', 'hello', '--json']);
  assert.equal(sent.code, 0, sent.stderr);
  const watched = await parley(['messages', 'get', JSON.parse(sent.stdout).id, '--watch']);
  assert.equal(watched.code, 5, watched.stderr);
  assert.match(watched.stdout, /failed/);
});

test('contacts import: the rows written and the bad ones listed', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'parley-cli-import-'));
  try {
    const file = path.join(dir, 'contacts.csv');
    writeFileSync(file, 'phone,name\n+4930123456,Ada\n+4930123457,Grace\nnot-a-phone,Bad\n');
    const imported = await parley(['contacts', 'import', file, '--json']);
    assert.equal(imported.code, 0, imported.stderr);
    const result = JSON.parse(imported.stdout);
    assert.equal(result.created, 2);
    assert.equal(result.failed, 1);
    assert.equal(result.errors[0].row, 3);

    const human = await parley(['contacts', 'import', file]);
    assert.equal(human.code, 0, human.stderr);
    assert.match(human.stdout, /Imported 3 rows: 0 created, 0 updated, 2 unchanged, 1 failed/);

    const unknownFormat = await parley(['contacts', 'import', path.join(dir, 'contacts.txt')]);
    assert.equal(unknownFormat.code, 2);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('trigger sends a test delivery to the endpoint (exit 5 when not answered 2xx); webhooks replay sends failed messages again', async () => {
  const created = await request(server, 'POST', '/v1/settings/developer/webhooks/endpoints', {
    key: server.apiKey,
    body: { url: receiver.url, event_types: ['message.new'] },
  });
  assert.equal(created.status, 201, created.text);
  const endpointId = created.body.data.id as string;

  const triggered = await parley(['trigger', 'message.status_update', '--endpoint', endpointId, '--json']);
  assert.equal(triggered.code, 0, triggered.stderr);
  const delivery = JSON.parse(triggered.stdout).deliveries[0];
  assert.equal(delivery.succeeded, true);
  const test = receiver.requests.find((r) => r.headers['webhook-id'] === delivery.message_id)!;
  assert.equal(test.headers['x-parley-webhook-test'], 'true');
  assert.equal(test.headers['webhook-event-type'], 'message.status_update');

  receiver.answer(() => ({ status: 500 }));
  const failing = await parley(['trigger', 'message.status_update', '--json']);
  assert.equal(failing.code, 5, failing.stderr);
  assert.equal(JSON.parse(failing.stdout).deliveries[0].succeeded, false, 'one document: the deliveries');

  // A customer's message makes an event for the endpoint; its first attempt fails, and disabling the
  // endpoint fails the delivery for good.
  await customerWrites(server, channel.id, '15551230202');
  await eventually('the failed attempt, recorded', async () => {
    const deliveries = await request(
      server,
      'GET',
      `/v1/settings/developer/webhooks/deliveries?endpoint_id=${endpointId}&event_type=message.new`,
      {
        key: server.apiKey,
      },
    );
    return deliveries.body.data.some((d: { last_status_code: number | null }) => d.last_status_code === 500);
  });
  await request(server, 'PATCH', `/v1/settings/developer/webhooks/endpoints/${endpointId}`, {
    key: server.apiKey,
    body: { enabled: false },
  });
  await request(server, 'PATCH', `/v1/settings/developer/webhooks/endpoints/${endpointId}`, {
    key: server.apiKey,
    body: { enabled: true },
  });
  receiver.answer(() => ({ status: 200 }));
  const before = receiver.requests.length;
  const replayed = await parley(['webhooks', 'replay', '--failed-since', '1h', '--endpoint', endpointId, '--json']);
  assert.equal(replayed.code, 0, replayed.stderr);
  const messages = JSON.parse(replayed.stdout).messages as Array<{ message_id: string; retried: unknown[] }>;
  assert.equal(messages.length, 1, replayed.stdout);
  assert.equal(messages[0]!.retried.length, 1);
  await eventually('the replayed message', () =>
    receiver.requests.slice(before).some((r) => r.headers['webhook-id'] === messages[0]!.message_id),
  );

  const byId = await parley(['webhooks', 'replay', messages[0]!.message_id]);
  assert.equal(byId.code, 0, byId.stderr);
  assert.match(byId.stdout, new RegExp(`${messages[0]!.message_id}\\s+retried 0, skipped ${endpointId}: already succeeded`));
  assert.equal((await parley(['webhooks', 'replay'])).code, 2);
});

test("channels qr draws the linked-device channel's QR until it is paired", async () => {
  const created = await request(server, 'POST', '/v1/channels', {
    key: server.apiKey,
    body: { platform: 'chatapp_unofficial', name: 'Phone', sandbox: true },
  });
  assert.equal(created.status, 201, created.text);
  const cli = spawnCli(['channels', 'qr', created.body.data.id, '--json', '--interval', '200'], env);
  try {
    const first = JSON.parse(await cli.line('a QR', (l) => l.includes('"qr"')));
    assert.equal(first.status, 'pairing');
    const scan = await request(server, 'POST', '/sandbox/gateway/scan', { body: { qr: first.qr } });
    assert.ok(scan.status < 300, scan.text);
    assert.equal(await cli.exited, 0, cli.stderrLines.join('\n'));
    const last = jsonLines(cli.stdoutLines).at(-1)!;
    assert.equal(last.status, 'connected');
  } finally {
    await cli.stop();
  }
  // Drawn for people: the terminal QR (half blocks) with its expiry.
  const again = await request(server, 'POST', '/v1/channels', {
    key: server.apiKey,
    body: { platform: 'chatapp_unofficial', name: 'Phone 2', sandbox: true },
  });
  const human = spawnCli(['channels', 'qr', again.body.data.id], env);
  try {
    await human.line('a drawn QR', (l) => /[▀▄█]/.test(l));
    assert.ok(human.stdoutLines.some((l) => l.startsWith('Scan with the phone')));
  } finally {
    await human.stop();
  }
});

test('completion scripts for bash, zsh and fish come from the command tree; bash sources its script', async () => {
  for (const shell of ['bash', 'zsh', 'fish']) {
    const script = await parley(['completion', shell]);
    assert.equal(script.code, 0, script.stderr);
    assert.match(script.stdout, /parley/);
    assert.ok(script.stdout.length > 200, `${shell}: a script`);
  }
  // What the script asks at a TAB: the commands, and a command's options.
  const commands = await parley(['complete', '--', 'ch']);
  assert.match(commands.stdout, /^channels\t/m);
  const options = await parley(['complete', '--', 'listen', '--f']);
  assert.match(options.stdout, /^--forward-to\t/m);

  const bash = (await parley(['completion', 'bash'])).stdout;
  const dir = mkdtempSync(path.join(tmpdir(), 'parley-cli-completion-'));
  try {
    writeFileSync(path.join(dir, 'parley.bash'), bash);
    // Sourced in a fresh bash, the completion function is registered for `parley`.
    const out = execFileSync('bash', ['--norc', '--noprofile', '-c', `source ${path.join(dir, 'parley.bash')} && complete -p parley`], {
      encoding: 'utf8',
    });
    assert.match(out, /parley$/m);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  assert.ok(BIN.endsWith('bin.ts'));
});
