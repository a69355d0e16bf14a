/**
 * `parley listen --forward-to` as a process against a real service: each event arrives at a loopback
 * receiver within a second of its commit, signed with the local secret and verified by the
 * standardwebhooks package with the headers a real delivery has; the secret is the same on the next
 * run; --events filters with wildcards; after the connection to the service is cut, the stream
 * resumes from the last event id and the event emitted meanwhile arrives.
 */
import assert from 'node:assert/strict';
import { readFileSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { eventually } from '../../../test/eventually.ts';
import { request, startTestServer, type TestServer } from '../../../test/harness.ts';
import { customerWrites, officialChannel } from '../../../test/messages-helpers.ts';
import { startTcpProxy, type TcpProxy } from '../../../test/process/tcp-proxy.ts';
import { startReceiver, verifyWith, type Receiver } from '../../../test/webhook-receiver.ts';
import { configHome, jsonLines, runCli, spawnCli, type LiveCli } from './cli-process.ts';

let server: TestServer;
let receiver: Receiver;
let home: string;
let env: Record<string, string>;
let channel: { id: string };

before(async () => {
  server = await startTestServer({ worker: true, env: { WEBHOOK_POLL_INTERVAL_MS: '50' } });
  receiver = await startReceiver();
  home = configHome();
  env = { XDG_CONFIG_HOME: home, PARLEY_BASE_URL: server.baseUrl, PARLEY_API_KEY: server.apiKey };
  channel = await officialChannel(server, 'Listen channel');
});
after(async () => {
  await receiver.close();
  await server.close();
  rmSync(home, { recursive: true, force: true });
});

/**
 * Starts `parley listen` and waits until it says it is ready (its stream is open: what is committed
 * from then on is forwarded); its signing secret.
 */
async function listen(args: string[], extra: Record<string, string> = {}): Promise<{ cli: LiveCli; secret: string }> {
  const cli = spawnCli(['listen', '--forward-to', receiver.url, '--json', ...args], { ...env, ...extra });
  const ready = JSON.parse(await cli.line('ready', (l) => l.includes('"ready"')));
  return { cli, secret: ready.signing_secret as string };
}

/** The cursor after the organization's newest event (GET /v1/events, read to its end). */
async function newestCursor(): Promise<string> {
  let cursor = '';
  for (;;) {
    const page = await request(server, 'GET', `/v1/events?limit=100${cursor ? `&cursor=${cursor}` : ''}`, { key: server.apiKey });
    assert.equal(page.status, 200, page.text);
    cursor = page.body.meta.next_cursor;
    if (!page.body.meta.has_more) return cursor;
  }
}

/** The events of a type after the receiver's request count `from`, as they arrived. */
const arrived = (from: number, type: string) => receiver.requests.slice(from).filter((r) => r.headers['webhook-event-type'] === type);

test('an event is forwarded within a second, signed with the local secret, with the headers of a real delivery', async () => {
  const { cli, secret } = await listen(['--events', 'message.*']);
  try {
    assert.match(secret, /^whsec_[A-Za-z0-9+/]{32}$/);
    const from = receiver.requests.length;
    await customerWrites(server, channel.id, '15551240001', 'text', { body: 'Where is my parcel?' });
    // Committed: now it must arrive within a second (awaited, not slept).
    const [forwarded] = await eventually(
      'the forwarded message.new',
      () => {
        const found = arrived(from, 'message.new');
        return found.length > 0 ? found : undefined;
      },
      { timeoutMs: 1000, everyMs: 10 },
    );
    const body = verifyWith(secret, forwarded!) as { message_id: string; direction: string };
    assert.equal(body.direction, 'inbound');
    const headers = forwarded!.headers;
    assert.equal(headers['content-type'], 'application/json');
    assert.equal(headers['x-parley-webhook-id'], headers['webhook-id']);
    assert.equal(headers['x-parley-event-type'], 'message.new');
    assert.equal(headers['x-parley-webhook-signature'], headers['webhook-signature']);
    // The webhook-id is the event's id, as GET /v1/events lists it.
    const events = await request(server, 'GET', '/v1/events?type=message.new', { key: server.apiKey });
    assert.ok(
      events.body.data.some(
        (e: { id: string; data: { message_id: string } }) => e.id === headers['webhook-id'] && e.data.message_id === body.message_id,
      ),
    );

    // Each event printed with its type, id and the local answer's status.
    const line = await cli.line('the printed event', (l) => l.includes(String(headers['webhook-id'])));
    assert.deepEqual({ type: JSON.parse(line).type, status: JSON.parse(line).status }, { type: 'message.new', status: 200 });
    // Filtered: a channel's status change is not a message.* event.
    await request(server, 'PATCH', `/v1/channels/${channel.id}`, { key: server.apiKey, body: { name: 'Renamed' } });
    assert.ok(jsonLines(cli.stdoutLines).every((l) => l.ready || String(l.type).startsWith('message.')));
  } finally {
    assert.equal(await cli.stop(), 0, 'Ctrl-C ends it with 0');
  }
});

test('the signing secret is the same on the next run, kept in the config file (0600)', async () => {
  const first = await listen([]);
  await first.cli.stop();
  const second = await listen([]);
  await second.cli.stop();
  assert.equal(second.secret, first.secret);
  const file = path.join(home, 'parley', 'config.json');
  assert.equal(JSON.parse(readFileSync(file, 'utf8')).listen_secret, first.secret);
  assert.equal(statSync(file).mode & 0o777, 0o600);
  assert.equal(statSync(path.dirname(file)).mode & 0o777, 0o700);

  // A pattern that matches nothing is a usage error naming it.
  const none = await runCli(['listen', '--forward-to', receiver.url, '--events', 'nothing.*'], env);
  assert.equal(none.code, 2, none.stderr);
  assert.match(none.stderr, /nothing\.\* matches no event type/);
});

test('after the connection is cut, listen resumes from the last event id: the event made meanwhile arrives', async () => {
  const target = new URL(server.baseUrl);
  const proxy: TcpProxy = await startTcpProxy({ host: target.hostname, port: Number(target.port) });
  // From a cursor (--after): the events after it, then the live ones.
  const { cli, secret } = await listen(['--events', 'message.new', '--after', await newestCursor()], {
    PARLEY_BASE_URL: `http://127.0.0.1:${proxy.port}`,
  });
  try {
    const from = receiver.requests.length;
    await customerWrites(server, channel.id, '15551240002');
    await eventually('the first event', () => arrived(from, 'message.new').length === 1);

    proxy.cut();
    await customerWrites(server, channel.id, '15551240003', 'text', { body: 'while you were away' });
    proxy.restore();
    const [, missed] = await eventually('the event made while cut off', () => {
      const found = arrived(from, 'message.new');
      return found.length >= 2 ? found : undefined;
    });
    assert.equal((verifyWith(secret, missed!) as { from_phone: string }).from_phone, '15551240003');
    assert.equal(arrived(from, 'message.new').length, 2, 'nothing twice');
    await cli.line('the reconnection note', (l) => l.includes('reconnected'), 5000, 'stderr');
  } finally {
    await cli.stop();
    await proxy.close();
  }
});
