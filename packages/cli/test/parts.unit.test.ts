/**
 * The CLI's pieces without a service: --events patterns, the send body, --failed-since, the import
 * format, base URLs, which profile a command uses, when a browser is opened, the config file's modes
 * and atomic replacement, and the listen headers verified by the standardwebhooks package.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { importFormat } from '../src/commands/contacts.ts';
import { deliveryHeaders } from '../src/commands/listen.ts';
import { canOpenBrowser } from '../src/commands/login.ts';
import { sendBody } from '../src/commands/messages.ts';
import { parseSince } from '../src/commands/webhooks.ts';
import { ConfigStore, configDir, type ConfigFile, type Profile } from '../src/config-store.ts';
import { normalizeBaseUrl, profileFor } from '../src/context.ts';
import { CliError } from '../src/errors.ts';
import { expandPatterns, splitPatterns } from '../src/event-types.ts';

const CATALOGUE = ['message.new', 'message.sent', 'message.status_update', 'channel.status_update', 'crm.record.created'];

test('--events: wildcards expand against the catalogue, exact names pass, * or nothing is every type, a pattern matching none is a usage error', () => {
  assert.deepEqual(expandPatterns(splitPatterns('message.*, channel.status_update'), CATALOGUE), [
    'message.new',
    'message.sent',
    'message.status_update',
    'channel.status_update',
  ]);
  assert.deepEqual(expandPatterns(['*.status_update'], CATALOGUE), ['message.status_update', 'channel.status_update']);
  assert.deepEqual(expandPatterns(['crm.*.created'], CATALOGUE), ['crm.record.created']);
  assert.deepEqual(expandPatterns(['message.new'], []), ['message.new'], 'an exact name needs no catalogue');
  assert.equal(expandPatterns([], CATALOGUE), undefined);
  assert.equal(expandPatterns(['*'], CATALOGUE), undefined);
  assert.throws(
    () => expandPatterns(['nothing.*'], CATALOGUE),
    (err: CliError) => err.exitCode === 2 && /nothing\.\*/.test(err.message),
  );
  // Regular-expression characters are literal.
  assert.throws(() => expandPatterns(['message.(new|sent)*'], CATALOGUE), CliError);
});

test('send: a text, or a template with its body variables; wrong combinations are usage errors', () => {
  const base = { channel: 'c1', to: '15551234567', var: [] as string[] };
  assert.deepEqual(sendBody({ ...base, text: 'Hi' }), { channel_id: 'c1', to: '15551234567', type: 'text', content: { body: 'Hi' } });
  assert.deepEqual(sendBody({ ...base, template: 'order_update', language: 'en_US', var: ['Ada', '4711'] }), {
    channel_id: 'c1',
    to: '15551234567',
    type: 'template',
    content: {
      template: {
        name: 'order_update',
        language: { code: 'en_US' },
        components: [
          {
            type: 'body',
            parameters: [
              { type: 'text', text: 'Ada' },
              { type: 'text', text: '4711' },
            ],
          },
        ],
      },
    },
  });
  assert.deepEqual(sendBody({ ...base, template: 'hello', language: 'de' }).content, {
    template: { name: 'hello', language: { code: 'de' } },
  });
  for (const wrong of [{}, { text: 'a', template: 'b' }, { template: 'b' }, { text: 'a', var: ['x'] }]) {
    assert.throws(
      () => sendBody({ ...base, ...wrong }),
      (err: CliError) => err.exitCode === 2,
    );
  }
});

test('--failed-since: an ISO time or a duration back from now', () => {
  const now = Date.parse('2025-06-02T12:00:00Z');
  assert.equal(parseSince('2h', now), '2025-06-02T10:00:00.000Z');
  assert.equal(parseSince('30m', now), '2025-06-02T11:30:00.000Z');
  assert.equal(parseSince('7d', now), '2025-05-26T12:00:00.000Z');
  assert.equal(parseSince('2025-06-01T08:00:00Z', now), '2025-06-01T08:00:00.000Z');
  assert.throws(
    () => parseSince('yesterday', now),
    (err: CliError) => err.exitCode === 2,
  );
});

test('import format from the name or --format; base URLs checked', () => {
  assert.equal(importFormat('a.csv', undefined), 'csv');
  assert.equal(importFormat('a.JSONL', undefined), 'ndjson');
  assert.equal(importFormat('a.txt', 'ndjson'), 'ndjson');
  assert.throws(() => importFormat('a.txt', undefined), CliError);
  assert.throws(() => importFormat('a.csv', 'xml'), CliError);
  assert.equal(normalizeBaseUrl('http://localhost:8080/'), 'http://localhost:8080');
  assert.equal(normalizeBaseUrl('https://parley.example.com/base/'), 'https://parley.example.com/base');
  assert.throws(
    () => normalizeBaseUrl('localhost:8080'),
    (err: CliError) => err.exitCode === 2,
  );
  assert.throws(() => normalizeBaseUrl('ftp://host'), CliError);
});

test('which profile a base URL and organization select', () => {
  const profile = (base_url: string, organization_id: string | null): Profile => ({
    base_url,
    organization_id,
    client_id: 'parley-cli',
    access_token: 'pla_x',
    refresh_token: 'plr_x',
    expires_at: null,
    scope: null,
    created_at: '2025-06-02T00:00:00Z',
  });
  const config: ConfigFile = {
    version: 1,
    default_profile: 'work',
    listen_secret: null,
    profiles: {
      local: profile('http://localhost:8080', null),
      work: profile('https://parley.example.com', 'org-a'),
      other: profile('https://parley.example.com', 'org-b'),
    },
  };
  assert.equal(profileFor(config, 'http://localhost:8080', undefined), 'local');
  assert.equal(profileFor(config, 'https://parley.example.com', 'org-b'), 'other');
  assert.equal(profileFor(config, 'https://parley.example.com', undefined), 'work', 'several: the default among them');
  assert.equal(profileFor(config, 'http://elsewhere', undefined), undefined);
});

test('a browser is opened only on a terminal with a display, never in CI', () => {
  assert.equal(canOpenBrowser({ CI: 'true', DISPLAY: ':0' }), false);
  // The test runner's stdout is not a terminal.
  assert.equal(canOpenBrowser({ DISPLAY: ':0' }), Boolean(process.stdout.isTTY && process.stdin.isTTY));
});

test('the config directory: PARLEY_CONFIG_DIR, else XDG_CONFIG_HOME/parley; the file is 0600 in a 0700 directory, replaced whole', () => {
  const home = mkdtempSync(path.join(tmpdir(), 'parley-cli-unit-'));
  try {
    assert.equal(configDir({ PARLEY_CONFIG_DIR: '/x/y', XDG_CONFIG_HOME: '/z' }), '/x/y');
    assert.equal(configDir({ XDG_CONFIG_HOME: home }), path.join(home, 'parley'));
    const store = new ConfigStore(configDir({ XDG_CONFIG_HOME: home }));
    assert.deepEqual(store.read().profiles, {}, 'no file yet: empty');
    store.update((c) => void (c.listen_secret = 'whsec_a'));
    store.update((c) => void (c.default_profile = 'p'));
    assert.deepEqual({ ...store.read(), profiles: {} }, { version: 1, default_profile: 'p', listen_secret: 'whsec_a', profiles: {} });
    assert.equal(statSync(store.file).mode & 0o777, 0o600);
    assert.equal(statSync(store.dir).mode & 0o777, 0o700);
    assert.deepEqual(readdirSync(store.dir), ['config.json'], 'no temporary file left');
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
});

test("listen's headers are a real delivery's, and the standardwebhooks package verifies them", () => {
  const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
  const body = JSON.stringify({ message_id: 'm1', status: 'read' });
  const at = new Date();
  const headers = deliveryHeaders(new Webhook(secret), { id: 'evt_1', type: 'message.status_update' }, body, at);
  assert.deepEqual(new Webhook(secret).verify(body, headers), { message_id: 'm1', status: 'read' });
  assert.equal(headers['webhook-timestamp'], String(Math.floor(at.getTime() / 1000)));
  assert.equal(headers['x-parley-event-type'], 'message.status_update');
  assert.throws(() => new Webhook('whsec_' + Buffer.from('another secret!!').toString('base64')).verify(body, headers));
});
