/**
 * `parley login` by the device flow against a fresh service (the built-in parley-cli client, nothing
 * registered), approved the way a person does it: the verification page of the dashboard in Chromium,
 * signed in, the code checked, approved. Then: the config file (0600, directory 0700) holds the
 * profile and commands use it; the access token expires while `parley listen` runs (the server's
 * clock moved on), the SDK refreshes, the rotated tokens are saved and the command goes on; `parley
 * logout` revokes the grant and forgets it. Commands of one profile refreshing at once do not present
 * one refresh token twice (which would revoke the grant). Needs the built dashboard.
 */
import assert from 'node:assert/strict';
import { readFileSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { launchBrowser, logIn, openContext } from '../../../test/browser.ts';
import { eventually } from '../../../test/eventually.ts';
import { movableClock, OWNER_EMAIL, OWNER_PASSWORD, request, startTestServer, type TestServer } from '../../../test/harness.ts';
import { customerWrites, officialChannel } from '../../../test/messages-helpers.ts';
import { startReceiver, verifyWith, type Receiver } from '../../../test/webhook-receiver.ts';
import { configHome, runCli, spawnCli } from './cli-process.ts';

const clock = movableClock();
let server: TestServer;
let browser: Browser;
let receiver: Receiver;
let home: string;
let env: Record<string, string>;

before(async () => {
  server = await startTestServer({
    clock,
    worker: true,
    // The CLI polls at the interval the server gives (a real client's pace): 1 s here. A stream
    // checks its credential on every heartbeat: an expired token ends it within 200 ms.
    env: { OAUTH_DEVICE_POLL_INTERVAL: '1s', EVENT_STREAM_HEARTBEAT_MS: '200', WEBHOOK_POLL_INTERVAL_MS: '50' },
  });
  browser = await launchBrowser();
  receiver = await startReceiver();
  home = configHome();
  // No API key: the profile is the credential.
  env = { XDG_CONFIG_HOME: home };
});
after(async () => {
  await browser?.close();
  await receiver?.close();
  await server?.close();
  rmSync(home, { recursive: true, force: true });
});

const configFile = () => path.join(home, 'parley', 'config.json');
const readConfig = () => JSON.parse(readFileSync(configFile(), 'utf8'));

test('login: the code is approved on the dashboard page; the profile is saved 0600 and used', async () => {
  const cli = spawnCli(['login', '--base-url', server.baseUrl, '--json'], env);
  const shown = await cli.line('the verification address', (l) => l.includes('/device?user_code='), 20_000, 'stderr');
  const url = shown.trim();
  const code = /code ([A-Z]{4}-[A-Z]{4})/.exec(cli.stderrLines.join('\n'))![1]!;

  const { context, page } = await openContext(browser);
  try {
    await page.goto(url);
    await logIn(page, OWNER_EMAIL, OWNER_PASSWORD);
    await page.getByRole('heading', { name: 'Connect a device' }).waitFor();
    assert.equal(await page.getByRole('textbox', { name: 'Code' }).inputValue(), code, 'the code the CLI shows');
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByRole('heading', { name: 'Connect Parley CLI' }).waitFor();
    await page.getByRole('button', { name: 'Approve' }).click();
    await page.getByRole('heading', { name: 'Device connected' }).waitFor();
  } finally {
    await context.close();
  }

  assert.equal(await cli.exited, 0, cli.stderrLines.join('\n'));
  const result = JSON.parse(cli.stdoutLines.join('\n'));
  assert.equal(result.profile, 'default');
  assert.equal(result.base_url, server.baseUrl);

  assert.equal(statSync(configFile()).mode & 0o777, 0o600);
  assert.equal(statSync(path.dirname(configFile())).mode & 0o777, 0o700);
  const profile = readConfig().profiles.default;
  assert.equal(profile.client_id, 'parley-cli');
  assert.match(profile.access_token, /^pla_/);
  assert.match(profile.refresh_token, /^plr_/);
  server.registerSensitive('an access token', profile.access_token);
  server.registerSensitive('a refresh token', profile.refresh_token);

  const channels = await runCli(['channels', 'list', '--json'], env);
  assert.equal(channels.code, 0, channels.stderr);
  assert.deepEqual(JSON.parse(channels.stdout), []);
  const profiles = await runCli(['profiles'], env);
  assert.match(profiles.stdout, new RegExp(`\\*\\s+default\\s+${server.baseUrl.replaceAll('.', '\\.')}`));
});

test('the access token expires while listen runs: the SDK refreshes, the rotated tokens are saved, listen goes on', async () => {
  const before = readConfig().profiles.default;
  const channel = await officialChannel(server, 'Rotation');
  const cursor = (await request(server, 'GET', '/v1/events?order=asc&limit=100', { key: server.apiKey })).body.meta.next_cursor as string;
  const cli = spawnCli(['listen', '--forward-to', receiver.url, '--events', 'message.new', '--after', cursor, '--json'], env);
  try {
    const secret = JSON.parse(await cli.line('ready', (l) => l.includes('"ready"'))).signing_secret as string;
    await customerWrites(server, channel.id, '15551250001');
    await eventually('the first event', () => receiver.requests.length === 1);

    // An hour and more later, for the server: the access token has expired (OAUTH_ACCESS_TOKEN_TTL 1h).
    clock.advance(2 * 3_600_000);
    await eventually('the rotated tokens saved', () => readConfig().profiles.default.refresh_token !== before.refresh_token);
    const after = readConfig().profiles.default;
    server.registerSensitive('an access token', after.access_token);
    server.registerSensitive('a refresh token', after.refresh_token);
    assert.notEqual(after.access_token, before.access_token);
    assert.ok(new Date(after.expires_at).getTime() > Date.now(), 'a new expiry');
    assert.equal(statSync(configFile()).mode & 0o777, 0o600, 'still 0600 after the rewrite');

    await customerWrites(server, channel.id, '15551250002');
    await eventually('the event after the refresh', () => receiver.requests.length === 2);
    assert.equal((verifyWith(secret, receiver.requests[1]!) as { from_phone: string }).from_phone, '15551250002');
  } finally {
    assert.equal(await cli.stop(), 0, cli.stderrLines.join('\n'));
  }
  // The next command starts from the saved tokens.
  const channels = await runCli(['channels', 'list', '--json'], env);
  assert.equal(channels.code, 0, channels.stderr);
});

test('commands of one profile refreshing at once: one refresh reaches the service, the others take its tokens, the grant lives', async () => {
  const before = readConfig().profiles.default;
  clock.advance(2 * 3_600_000);
  const runs = await Promise.all([0, 1, 2].map(() => runCli(['channels', 'list', '--json'], env)));
  for (const run of runs) assert.equal(run.code, 0, run.stderr);
  const after = readConfig().profiles.default;
  assert.notEqual(after.refresh_token, before.refresh_token);
  server.registerSensitive('an access token', after.access_token);
  server.registerSensitive('a refresh token', after.refresh_token);
  // Had two of them presented the same refresh token, the service would have revoked the grant.
  const again = await runCli(['channels', 'list', '--json'], env);
  assert.equal(again.code, 0, again.stderr);
});

test('logout revokes the grant at the service and forgets the profile', async () => {
  const { access_token: accessToken } = readConfig().profiles.default;
  const out = await runCli(['logout', '--json'], env);
  assert.equal(out.code, 0, out.stderr);
  assert.deepEqual(JSON.parse(out.stdout), { profile: 'default', base_url: server.baseUrl, revoked: true });
  assert.deepEqual(readConfig().profiles, {});
  const refused = await request(server, 'GET', '/v1/channels', { headers: { authorization: `Bearer ${accessToken}` } });
  assert.equal(refused.status, 401, 'the grant is revoked: its access token too');
  const after = await runCli(['channels', 'list'], env);
  assert.equal(after.code, 3, after.stderr);
});
