/**
 * The device flow's front half over real HTTP: POST /v1/oauth/device (JSON and form bodies, a
 * third-party client, OAuth error bodies, nothing stored when refused), and the verification page's
 * JSON routes (lookup, approve with organizations, deny, one decision, throttled guesses, expiry, CSRF),
 * and the purge of expired flows.
 */
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { syncBuiltinESMExports } from 'node:module';
import { after, before, mock, test } from 'node:test';
import { eq } from 'drizzle-orm';
import * as oidc from 'openid-client';
import { oauthAuthorizationRequests, oauthDeviceAuthorizations } from '../../src/db/schema.ts';
import { addMembership } from '../../src/domain/organizations/organizations.ts';
import { USER_CODE_ALPHABET } from '../../src/domain/oauth/vocabulary.ts';
import { purgeSessionsHandler } from '../../src/jobs/handlers/purge-sessions.ts';
import { PERMISSION_DESCRIPTIONS } from '../../src/domain/permissions.ts';
import { findUserByEmail } from '../../src/domain/users/users.ts';
import { sha256Hex } from '../../src/lib/crypto.ts';
import {
  createOtherOrganization,
  loginCookie,
  movableClock,
  OWNER_EMAIL,
  request,
  startTestServer,
  type ApiResponse,
  type TestServer,
} from '../harness.ts';
import {
  approveDevice,
  authorizeQuery,
  countRows,
  createOAuthClient,
  startDeviceFlow,
  type ClientFixture,
  type DeviceStart,
} from '../oauth-client-fixture.ts';

const clock = movableClock();
let server: TestServer;
let cookie: string;
let client: ClientFixture;
let second: Awaited<ReturnType<typeof createOtherOrganization>>;

before(async () => {
  server = await startTestServer({ clock });
  cookie = await loginCookie(server);
  client = await createOAuthClient(server, { name: 'Parley CLI', scopes: ['channels:read', 'messages:read', 'messages:send'] });
  second = await createOtherOrganization(server, 'second');
  const owner = await findUserByEmail(server.container.database.db, OWNER_EMAIL);
  await addMembership(
    { db: server.container.database.db, clock },
    { organizationId: second.organizationId, userId: owner!.id, role: 'admin' },
  );
});
after(() => server.close());

const USER_CODE = new RegExp(`^[${USER_CODE_ALPHABET}]{4}-[${USER_CODE_ALPHABET}]{4}$`);

/** A new user of an organization of their own, signed in: each gets a throttle of their own. */
async function newUser(label: string): Promise<{ cookie: string; organizationId: string }> {
  const other = await createOtherOrganization(server, label);
  return { cookie: await loginCookie(server, other.email, other.password), organizationId: other.organizationId };
}

const startDevice = (body: Record<string, string> = { client_id: client.clientId }, as: 'json' | 'form' = 'json') =>
  startDeviceFlow(server, body, as);

async function rowOfCode(deviceCode: string) {
  const [row] = await server.container.database.db
    .select()
    .from(oauthDeviceAuthorizations)
    .where(eq(oauthDeviceAuthorizations.deviceCodeHash, sha256Hex(deviceCode)));
  return row;
}

const lookup = (userCode: string, as = cookie) =>
  request(server, 'POST', '/v1/oauth/device/lookup', { cookie: as, body: { user_code: userCode } });
const approve = (userCode: string, organizationIds: string[], as = cookie) => approveDevice(server, as, userCode, organizationIds);
const deny = (userCode: string, as = cookie) =>
  request(server, 'POST', '/v1/oauth/device/deny', { cookie: as, body: { user_code: userCode } });

test('a device gets a device code and a user code, as JSON or form, and the row is what the token endpoint reads', async () => {
  for (const as of ['json', 'form'] as const) {
    const res = await request(
      server,
      'POST',
      '/v1/oauth/device',
      as === 'json'
        ? { body: { client_id: client.clientId, scope: 'channels:read messages:read' } }
        : {
            rawBody: `client_id=${client.clientId}&scope=channels%3Aread+messages%3Aread`,
            contentType: 'application/x-www-form-urlencoded',
          },
    );
    assert.equal(res.status, 200, `${as}: ${res.text}`);
    assert.equal(res.headers.get('cache-control'), 'no-store');
    assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
    const started = res.body as DeviceStart;
    server.registerSensitive('a device code', started.device_code);
    assert.deepEqual(Object.keys(started).sort(), [
      'device_code',
      'expires_in',
      'interval',
      'user_code',
      'verification_uri',
      'verification_uri_complete',
    ]);
    assert.match(started.device_code, /^pld_[A-Za-z0-9_-]{43}$/);
    assert.match(started.user_code, USER_CODE);
    assert.equal(started.verification_uri, `${server.config.appUrl}/device`);
    assert.equal(started.verification_uri_complete, `${server.config.appUrl}/device?user_code=${started.user_code}`);
    assert.equal(started.expires_in, 600);
    assert.equal(started.interval, 5);

    const row = (await rowOfCode(started.device_code))!;
    assert.ok(row, 'stored by the hash of the device code');
    assert.equal(row.userCode, started.user_code.replace('-', ''));
    assert.equal(row.status, 'pending');
    assert.deepEqual(row.scopes, ['channels:read', 'messages:read']);
    assert.equal(row.intervalSeconds, 5);
    assert.equal(row.expiresAt.getTime() - row.createdAt.getTime(), 600_000);
    assert.equal(row.userId, null);
    assert.equal(JSON.stringify(row).includes(started.device_code), false, 'only the hash is stored');
  }
  // No scope, or an empty one: every scope the client registered.
  for (const body of [{ client_id: client.clientId }, { client_id: client.clientId, scope: '' }] as Array<Record<string, string>>) {
    const started = await startDevice(body, 'form');
    assert.deepEqual((await rowOfCode(started.device_code))!.scopes, client.scopes);
  }
});

test('a third-party client (openid-client) starts the device flow at the endpoint', async () => {
  const config = new oidc.Configuration(
    { issuer: server.config.baseUrl, device_authorization_endpoint: `${server.config.baseUrl}/v1/oauth/device` },
    client.clientId,
    undefined,
    oidc.None(),
  );
  oidc.allowInsecureRequests(config);
  const started = await oidc.initiateDeviceAuthorization(config, { scope: 'messages:send' });
  server.registerSensitive('a device code', started.device_code);
  assert.match(started.user_code, USER_CODE);
  assert.equal(started.verification_uri_complete, `${server.config.appUrl}/device?user_code=${started.user_code}`);
  assert.equal(started.expires_in, 600);
  assert.equal(started.interval, 5);
  assert.deepEqual((await rowOfCode(started.device_code))!.scopes, ['messages:send']);
  await assert.rejects(oidc.initiateDeviceAuthorization(config, { scope: 'messages:delete' }), (err: Error & { error?: string }) => {
    assert.equal(err.error, 'invalid_scope');
    return true;
  });
});

test('refusals are OAuth error bodies, name the problem, and store nothing', async () => {
  const deviceOnly = await createOAuthClient(server, { grantTypes: ['authorization_code', 'refresh_token'] });
  const before = await countRows(server, 'oauth_device_authorizations');
  const form = (text: string) =>
    request(server, 'POST', '/v1/oauth/device', { rawBody: text, contentType: 'application/x-www-form-urlencoded' });
  const cases: Array<[label: string, send: () => Promise<ApiResponse>, status: number, error: string, description: RegExp]> = [
    [
      'unknown client',
      () => request(server, 'POST', '/v1/oauth/device', { body: { client_id: 'pcl_nobody' } }),
      401,
      'invalid_client',
      /unknown client_id/,
    ],
    [
      'client without the device grant',
      () => request(server, 'POST', '/v1/oauth/device', { body: { client_id: deviceOnly.clientId } }),
      400,
      'unauthorized_client',
      /not registered for the device authorization grant/,
    ],
    [
      'unknown scope',
      () => form(`client_id=${client.clientId}&scope=messages:delete`),
      400,
      'invalid_scope',
      /unknown scope messages:delete/,
    ],
    [
      'scope not registered',
      () => request(server, 'POST', '/v1/oauth/device', { body: { client_id: client.clientId, scope: 'webhooks:write' } }),
      400,
      'invalid_scope',
      /not registered for scope webhooks:write/,
    ],
    [
      'missing client_id (JSON)',
      () => request(server, 'POST', '/v1/oauth/device', { body: { scope: 'channels:read' } }),
      400,
      'invalid_request',
      /client_id/,
    ],
    ['missing client_id (form)', () => form('scope=channels%3Aread&client_id='), 400, 'invalid_request', /client_id/],
    ['no body', () => request(server, 'POST', '/v1/oauth/device'), 400, 'invalid_request', /body/],
    ['empty JSON body', () => request(server, 'POST', '/v1/oauth/device', { rawBody: '' }), 400, 'invalid_request', /empty/],
    [
      'malformed JSON',
      () => request(server, 'POST', '/v1/oauth/device', { rawBody: '{"client_id":' }),
      400,
      'invalid_request',
      /malformed JSON/,
    ],
    [
      'client_id not a string',
      () => request(server, 'POST', '/v1/oauth/device', { body: { client_id: 42 } }),
      400,
      'invalid_request',
      /client_id/,
    ],
    [
      'client_id too long',
      () => request(server, 'POST', '/v1/oauth/device', { body: { client_id: 'x'.repeat(201) } }),
      400,
      'invalid_request',
      /client_id/,
    ],
    ['scope too long', () => form(`client_id=${client.clientId}&scope=${'a'.repeat(2001)}`), 400, 'invalid_request', /scope/],
    ['NUL in scope', () => form(`client_id=${client.clientId}&scope=channels%3Aread%00`), 400, 'invalid_request', /scope/],
    [
      'repeated parameter',
      () => form(`client_id=${client.clientId}&client_id=${client.clientId}`),
      400,
      'invalid_request',
      /"client_id" is given more than once/,
    ],
    [
      'another content type',
      () => request(server, 'POST', '/v1/oauth/device', { rawBody: `client_id=${client.clientId}`, contentType: 'text/plain' }),
      415,
      'invalid_request',
      /Content-Type/,
    ],
    [
      'multipart',
      () => request(server, 'POST', '/v1/oauth/device', { rawBody: '--b\r\n\r\n--b--', contentType: 'multipart/form-data; boundary=b' }),
      415,
      'invalid_request',
      /Content-Type/,
    ],
    [
      'body too large',
      () => form(`client_id=${client.clientId}&pad=${'x'.repeat(server.config.bodyLimitBytes)}`),
      413,
      'invalid_request',
      /larger than the limit/,
    ],
  ];
  for (const [label, send, status, error, description] of cases) {
    const res = await send();
    assert.equal(res.status, status, `${label}: ${res.text}`);
    assert.match(res.headers.get('content-type') ?? '', /^application\/json/, label);
    assert.deepEqual(Object.keys(res.body).sort(), ['error', 'error_description'], label);
    assert.equal(res.body.error, error, `${label}: ${res.text}`);
    assert.match(res.body.error_description, description, label);
  }
  assert.equal(await countRows(server, 'oauth_device_authorizations'), before, 'nothing stored');
});

test('the verification page looks the code up (as typed: any case, dash or not) and shows the client, the scopes in words and the organizations', async () => {
  const started = await startDevice({ client_id: client.clientId, scope: 'messages:send channels:read' });
  for (const typed of [
    started.user_code,
    started.user_code.toLowerCase(),
    started.user_code.replace('-', ''),
    ` ${started.user_code.slice(0, 4)} ${started.user_code.slice(5)} `,
  ]) {
    const res = await lookup(typed);
    assert.equal(res.status, 200, `${typed}: ${res.text}`);
    const view = res.body.data;
    assert.equal(view.user_code, started.user_code);
    assert.deepEqual(view.client, { client_id: client.clientId, name: 'Parley CLI' });
    assert.deepEqual(view.scopes, [
      { name: 'messages:send', description: PERMISSION_DESCRIPTIONS['messages:send'] },
      { name: 'channels:read', description: PERMISSION_DESCRIPTIONS['channels:read'] },
    ]);
    assert.deepEqual(
      view.organizations.map((o: { organization_id: string; role: string }) => [o.organization_id, o.role]),
      [
        [server.organizationId, 'owner'],
        [second.organizationId, 'admin'],
      ],
    );
    assert.equal(Date.parse(view.expires_at), (await rowOfCode(started.device_code))!.expiresAt.getTime());
  }
  for (const malformed of ['BCDF-GHJ', 'AEIO-UBCD', 'BCDF-GHJKL', '12345678', 'BCDF_GHJK']) {
    const res = await lookup(malformed);
    assert.equal(res.status, 400, `${malformed}: ${res.text}`);
    assert.equal(res.body.errors[0].pointer, '/user_code');
  }
  assert.equal((await request(server, 'POST', '/v1/oauth/device/lookup', { cookie, body: {} })).status, 400);
  assert.equal((await request(server, 'POST', '/v1/oauth/device/lookup', { cookie, body: { user_code: 'B'.repeat(33) } })).status, 400);
  const byKey = await request(server, 'POST', '/v1/oauth/device/lookup', { key: server.apiKey, body: { user_code: started.user_code } });
  assert.equal(byKey.status, 403);
  assert.equal((await request(server, 'POST', '/v1/oauth/device/lookup', { body: { user_code: started.user_code } })).status, 401);
});

test('the verification routes refuse malformed, missing, oversized and non-JSON bodies, and decide nothing', async () => {
  const started = await startDevice();
  for (const path of ['/v1/oauth/device/lookup', '/v1/oauth/device/approve', '/v1/oauth/device/deny']) {
    const cases: Array<[label: string, options: Parameters<typeof request>[3], status: number]> = [
      ['no body', { cookie }, 400],
      ['malformed JSON', { cookie, rawBody: '{"user_code":' }, 400],
      ['a JSON array', { cookie, rawBody: '[]' }, 400],
      ['user_code not a string', { cookie, body: { user_code: 12345678, organization_ids: [server.organizationId] } }, 400],
      ['NUL in user_code', { cookie, body: { user_code: 'BCDF\u0000GHJK', organization_ids: [server.organizationId] } }, 400],
      ['text/plain', { cookie, rawBody: started.user_code, contentType: 'text/plain' }, 415],
      [
        'oversized',
        { cookie, rawBody: JSON.stringify({ user_code: started.user_code, pad: 'x'.repeat(server.config.bodyLimitBytes) }) },
        413,
      ],
    ];
    for (const [label, options, status] of cases) {
      const res = await request(server, 'POST', path, options);
      assert.equal(res.status, status, `${path} ${label}: ${res.text}`);
      assert.match(res.headers.get('content-type') ?? '', /^application\/problem\+json/, `${path} ${label}`);
    }
  }
  assert.equal((await rowOfCode(started.device_code))!.status, 'pending');
  assert.equal((await lookup(started.user_code)).status, 200, 'none of it counted as a wrong code');
});

test("approval for chosen organizations and denial are stored for the token endpoint; a decided code is the decider's alone", async () => {
  const owner = await findUserByEmail(server.container.database.db, OWNER_EMAIL);
  const started = await startDevice();
  const approved = await approve(started.user_code.toLowerCase(), [second.organizationId, server.organizationId]);
  assert.equal(approved.status, 200, approved.text);
  assert.deepEqual(approved.body.data, {
    user_code: started.user_code,
    status: 'approved',
    client: { client_id: client.clientId, name: 'Parley CLI' },
  });
  const row = (await rowOfCode(started.device_code))!;
  assert.equal(row.status, 'approved');
  assert.equal(row.userId, owner!.id);
  assert.deepEqual([...row.organizationIds!].sort(), [server.organizationId, second.organizationId].sort());
  assert.ok(row.decidedAt);

  const denied = await startDevice();
  const res = await deny(denied.user_code);
  assert.equal(res.status, 200, res.text);
  assert.equal(res.body.data.status, 'denied');
  const deniedRow = (await rowOfCode(denied.device_code))!;
  assert.equal(deniedRow.status, 'denied');
  assert.equal(deniedRow.userId, owner!.id);
  assert.equal(deniedRow.organizationIds, null);

  // Decided: the decider hears so; another user finds no such code.
  const other = await newUser('latecomer');
  for (const [code, word] of [
    [started.user_code, 'approved'],
    [denied.user_code, 'denied'],
  ] as const) {
    for (const send of [() => lookup(code), () => approve(code, [server.organizationId]), () => deny(code)]) {
      const again = await send();
      assert.equal(again.status, 409, again.text);
      assert.equal(again.body.detail, `this device authorization was already ${word}`);
    }
    const theirs = await lookup(code, other.cookie);
    assert.equal(theirs.status, 404, theirs.text);
    assert.equal(theirs.body.detail, 'device authorization not found');
    assert.equal((await approve(code, [other.organizationId], other.cookie)).status, 404);
  }
  assert.equal((await rowOfCode(started.device_code))!.status, 'approved');
});

test('approving an organization the user is not in, none, or malformed ones is refused and leaves the device pending', async () => {
  const started = await startDevice();
  const stranger = await newUser('stranger');
  const foreign = await approve(started.user_code, [server.organizationId, stranger.organizationId]);
  assert.equal(foreign.status, 403, foreign.text);
  assert.deepEqual(foreign.body.errors, [
    { pointer: '/organization_ids/1', location: 'body', message: 'not an organization you are a member of' },
  ]);
  for (const organizationIds of [[], ['nope'], Array.from({ length: 101 }, () => server.organizationId)]) {
    const res = await approve(started.user_code, organizationIds);
    assert.equal(res.status, 400, res.text);
  }
  const noCode = await request(server, 'POST', '/v1/oauth/device/approve', { cookie, body: { organization_ids: [server.organizationId] } });
  assert.equal(noCode.status, 400);
  assert.equal(noCode.body.errors[0].pointer, '/user_code');
  assert.equal((await rowOfCode(started.device_code))!.status, 'pending');
});

test('CSRF: a cross-origin POST and a form-encoded POST to the verification routes are refused', async () => {
  const started = await startDevice();
  const crossOrigin = await request(server, 'POST', '/v1/oauth/device/approve', {
    cookie,
    body: { user_code: started.user_code, organization_ids: [server.organizationId] },
    headers: { origin: 'https://evil.example' },
  });
  assert.equal(crossOrigin.status, 403, crossOrigin.text);
  assert.match(crossOrigin.body.detail, /cross-origin request refused/);
  for (const path of ['/v1/oauth/device/approve', '/v1/oauth/device/deny', '/v1/oauth/device/lookup']) {
    const form = await request(server, 'POST', path, {
      cookie,
      rawBody: `user_code=${started.user_code}&organization_ids=${server.organizationId}`,
      contentType: 'application/x-www-form-urlencoded',
    });
    assert.equal(form.status, 415, `${path}: ${form.text}`);
  }
  assert.equal((await rowOfCode(started.device_code))!.status, 'pending');
});

test('of concurrent decisions on one code only one takes effect', async () => {
  const started = await startDevice();
  const cookies = [cookie, await loginCookie(server), cookie, await loginCookie(server)];
  const answers = await Promise.all(
    cookies.map((c, i) => (i === 2 ? deny(started.user_code, c) : approve(started.user_code, [server.organizationId], c))),
  );
  const statuses = answers.map((a) => a.status);
  assert.equal(statuses.filter((s) => s === 200).length, 1, `statuses ${statuses}`);
  assert.equal(statuses.filter((s) => s === 409).length, 3, `statuses ${statuses}`);
  const winner = answers.find((a) => a.status === 200)!;
  assert.equal((await rowOfCode(started.device_code))!.status, winner.body.data.status);
});

test('a user code that collides with a stored one is drawn again', async () => {
  const first = await startDevice();
  const taken = first.user_code.replace('-', '');
  // The next code's letters come out as the stored one's, then as chance has them.
  let calls = 0;
  const real = crypto.randomInt;
  mock.method(crypto, 'randomInt', (max: number) =>
    calls++ < taken.length ? USER_CODE_ALPHABET.indexOf(taken[calls - 1]!) : (real as (m: number) => number)(max),
  );
  syncBuiltinESMExports();
  try {
    const second = await startDevice();
    assert.ok(calls >= taken.length * 2, `${calls} letters drawn: the colliding code was drawn again`);
    assert.notEqual(second.user_code, first.user_code);
    assert.equal((await rowOfCode(second.device_code))!.status, 'pending');
  } finally {
    mock.restoreAll();
    syncBuiltinESMExports();
  }
  assert.equal((await countRows(server, 'oauth_device_authorizations')) > 0, true);
});

test('wrong codes are throttled per user: after the free guesses each waits longer, a right code included, until the wait is over', async () => {
  const guesser = await newUser('guesser');
  const started = await startDevice();
  const wrong = 'BBBB-BBBB';
  for (let i = 1; i <= 10; i++) assert.equal((await lookup(wrong, guesser.cookie)).status, 404, `guess ${i} is free`);
  // The 11th is answered, and makes the next one wait a second.
  assert.equal((await lookup(wrong, guesser.cookie)).status, 404);
  const throttled = await lookup(started.user_code, guesser.cookie);
  assert.equal(throttled.status, 429, throttled.text);
  assert.equal(throttled.headers.get('retry-after'), '1');
  assert.match(throttled.body.detail, /too many wrong codes from your account/);
  assert.equal((await approve(started.user_code, [guesser.organizationId], guesser.cookie)).status, 429, 'approving is a guess too');
  // Another user, from the same address, is not held up.
  assert.equal((await lookup(started.user_code)).status, 200);
  clock.advance(1100);
  assert.equal((await lookup(started.user_code, guesser.cookie)).status, 200, 'the right code once the wait is over');
  // A right code gives its attempt back but forgives nothing: the next wrong one waits longer.
  assert.equal((await lookup(wrong, guesser.cookie)).status, 404);
  const longer = await lookup(wrong, guesser.cookie);
  assert.equal(longer.status, 429);
  assert.equal(longer.headers.get('retry-after'), '2');
  // Quiet time forgives.
  clock.advance(60 * 60_000);
});

test('wrong codes are throttled per address too, whoever signs in there', async () => {
  clock.advance(60 * 60_000);
  const started = await startDevice();
  const wrong = 'CCCC-CCCC';
  let answered = 0;
  let refused: ApiResponse | undefined;
  for (let user = 0; user < 5 && !refused; user++) {
    const someone = await newUser(`crowd${user}`);
    for (let i = 0; i < 8; i++) {
      const res = await lookup(wrong, someone.cookie);
      if (res.status === 429) {
        refused = res;
        break;
      }
      assert.equal(res.status, 404, res.text);
      answered++;
    }
  }
  assert.ok(refused, 'the address was throttled');
  assert.equal(answered, 31, 'thirty free guesses from one address, and one that starts the wait');
  assert.match(refused.body.detail, /too many wrong codes from this address/);
  assert.match(refused.headers.get('retry-after') ?? '', /^\d+$/);
  const fresh = await newUser('fresh');
  assert.equal((await lookup(started.user_code, fresh.cookie)).status, 429, 'a fresh user at the address waits too');
  // A minute of quiet forgives one attempt: two, and the wait is over.
  clock.advance(2 * 60_000);
  assert.equal((await lookup(started.user_code, fresh.cookie)).status, 200);
});

test('a code left undecided expires: 410 for lookup, approval and denial', async () => {
  const started = await startDevice();
  clock.advance(600_000 + 1000);
  const res = await lookup(started.user_code);
  assert.equal(res.status, 410, res.text);
  assert.equal(res.body.detail, 'this device authorization expired: start again on the device for a new code');
  assert.equal((await approve(started.user_code, [server.organizationId])).status, 410);
  assert.equal((await deny(started.user_code)).status, 410);
  assert.equal((await rowOfCode(started.device_code))!.status, 'pending');
});

test('the hourly maintenance job deletes requests and devices a day past their expiry, but keeps redeemed ones', async () => {
  const db = server.container.database.db;
  const expired = await startDevice();
  const redeemed = await startDevice();
  await db
    .update(oauthDeviceAuthorizations)
    .set({ status: 'used' })
    .where(eq(oauthDeviceAuthorizations.deviceCodeHash, sha256Hex(redeemed.device_code)));
  const authorizing = await request(server, 'GET', `/v1/oauth/authorize?${authorizeQuery(client)}`);
  const requestId = new URL(authorizing.headers.get('location')!).searchParams.get('request')!;
  const purge = purgeSessionsHandler({ database: server.container.database, clock, logger: server.container.logger });
  clock.advance(600_000 + 3_600_000);
  await purge();
  assert.ok(await rowOfCode(expired.device_code), 'kept within a day of its expiry');
  clock.advance(86_400_000);
  await purge();
  assert.equal(await rowOfCode(expired.device_code), undefined);
  assert.equal((await rowOfCode(redeemed.device_code))?.status, 'used');
  assert.equal((await db.select().from(oauthAuthorizationRequests).where(eq(oauthAuthorizationRequests.id, requestId))).length, 0);
});
