/**
 * Contacts and profiles through an unofficial channel, end to end over the HTTP gateway protocol against
 * the sandbox gateway (docs/gateway-protocol.md): a number's profile (a business's, one that hides
 * itself, one not on the network), the channel's own profile and picture, blocking, privacy settings,
 * privacy ids both ways, and the privacy id beside the phone on message.new and the contact. Bad input is a
 * 4xx naming the field; official channels answer 422 naming the operation.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { queryRows } from '../../src/db/client.ts';
import { lidOf } from '../../src/sandbox/rules.ts';
import { freePort, request, startTestServer, type TestServer } from '../harness.ts';
import { customerWrites, eventsOf, officialChannel, pairedGatewayChannel } from '../messages-helpers.ts';

let server: TestServer;
let gateway: string;
let official: string;
const key = () => server.apiKey;
const api = (method: string, path: string, body?: unknown) =>
  request(server, method, path, { key: key(), ...(body === undefined ? {} : { body }) });

before(async () => {
  server = await startTestServer({ worker: true, env: { SANDBOX_STATUS_DELAY_MS: '0', ALLOW_PRIVATE_NETWORK_TARGETS: 'true' } });
  gateway = (await pairedGatewayChannel(server, 'Profiles gateway')).id;
  official = (await officialChannel(server, 'Profiles official')).id;
});
after(() => server.close());

/** A 4xx refusal that names the field where it was. */
function assertNames(res: { status: number; body: any; text: string }, status: number, pointer: string, location: string) {
  assert.equal(res.status, status, res.text);
  assert.ok(
    (res.body.errors ?? []).some((e: { pointer: string; location: string }) => e.pointer === pointer && e.location === location),
    `names ${location} ${pointer}: ${res.text}`,
  );
}

describe("a number's profile", () => {
  test('an ordinary number: its name, About text, picture and privacy id; a picture the dashboard can show', async () => {
    const res = await api('GET', `/v1/channels/${gateway}/profiles/${encodeURIComponent('+49 151 1234 5678')}`);
    assert.equal(res.status, 200, res.text);
    const profile = res.body.data;
    assert.equal(profile.phone, '+4915112345678');
    assert.equal(profile.lid, lidOf('4915112345678'));
    assert.equal(profile.name, 'Sandbox 5678');
    assert.equal(profile.about, 'Hey there! I am using the sandbox.');
    assert.equal(profile.about_set_at, '2025-01-01T00:00:00.000Z');
    assert.equal(profile.business, null);
    const picture = await fetch(profile.picture_url);
    assert.equal(picture.status, 200);
    assert.equal(picture.headers.get('content-type'), 'image/png');
  });

  test("a business account's profile; one that hides its profile has no About text or picture", async () => {
    const business = (await api('GET', `/v1/channels/${gateway}/profiles/4915112340003`)).body.data;
    assert.equal(business.business.category, 'Shopping & retail');
    assert.deepEqual(business.business.website, ['https://example.com']);
    assert.deepEqual(business.business.hours, {
      timezone: 'UTC',
      days: [{ day: 'mon', mode: 'specific_hours', open_minute: 540, close_minute: 1020 }],
    });
    const hidden = (await api('GET', `/v1/channels/${gateway}/profiles/4915112340004`)).body.data;
    assert.equal(hidden.about, null);
    assert.equal(hidden.picture_url, null);
    assert.equal(hidden.business, null);
  });

  test('a number not on the network is 404 naming it; a malformed one 400', async () => {
    const missing = await api('GET', `/v1/channels/${gateway}/profiles/4915112340002`);
    assertNames(missing, 404, '/phone', 'params');
    assert.match(missing.body.detail, /\+4915112340002/);
    assertNames(await api('GET', `/v1/channels/${gateway}/profiles/not-a-number`), 400, '/phone', 'params');
  });
});

describe("the channel's own profile", () => {
  test('read, renamed, a new About text, a picture from a URL and its removal', async () => {
    const first = (await api('GET', `/v1/channels/${gateway}/profile`)).body.data;
    assert.equal(first.name, 'Sandbox Business');
    assert.match(first.phone, /^\+1555\d{7}$/);
    assert.equal(first.lid, lidOf(first.phone.slice(1)));
    assert.equal(first.picture_url, null);

    const renamed = await api('PATCH', `/v1/channels/${gateway}/profile`, { name: 'Kiez Bakery', about: 'Orders until 6 pm' });
    assert.equal(renamed.status, 200, renamed.text);
    assert.equal(renamed.body.data.name, 'Kiez Bakery');
    assert.equal(renamed.body.data.about, 'Orders until 6 pm');
    assert.equal((await api('GET', `/v1/channels/${gateway}/profile`)).body.data.about, 'Orders until 6 pm');

    const picture = await api('PUT', `/v1/channels/${gateway}/profile/picture`, {
      url: `${server.baseUrl}/sandbox/gateway/pictures/logo.png`,
    });
    assert.equal(picture.status, 200, picture.text);
    const shown = await fetch(picture.body.data.picture_url);
    assert.equal(shown.status, 200);
    assert.equal(shown.headers.get('content-type'), 'image/png');

    const removed = await api('DELETE', `/v1/channels/${gateway}/profile/picture`);
    assert.equal(removed.status, 200, removed.text);
    assert.equal(removed.body.data.picture_url, null);
  });

  test('bad changes are refused naming the field; a picture that is not an image is 422 naming url', async () => {
    assertNames(await api('PATCH', `/v1/channels/${gateway}/profile`, { name: 'x'.repeat(26) }), 400, '/name', 'body');
    assert.equal((await api('PATCH', `/v1/channels/${gateway}/profile`, {})).status, 400);
    const unknown = await api('PATCH', `/v1/channels/${gateway}/profile`, { nickname: 'x' });
    assert.equal(unknown.status, 400, unknown.text);
    assert.match(unknown.body.detail, /nickname/);
    assertNames(await api('PUT', `/v1/channels/${gateway}/profile/picture`, { url: 'ftp://example.invalid/a.png' }), 400, '/url', 'body');
    const notImage = await api('PUT', `/v1/channels/${gateway}/profile/picture`, { url: `${server.baseUrl}/v1/health` });
    assertNames(notImage, 422, '/url', 'body');
    assert.match(notImage.body.detail, /JPEG or PNG/);
    // Nothing answers there: the caller's URL to fix, not the service's fault.
    const unreachable = await api('PUT', `/v1/channels/${gateway}/profile/picture`, {
      url: `http://127.0.0.1:${await freePort()}/logo.png`,
    });
    assertNames(unreachable, 422, '/url', 'body');
    assert.match(unreachable.body.detail, /could not be fetched/);
  });
});

describe('blocking', () => {
  test('block, list (number and privacy id), unblock; both are idempotent', async () => {
    assert.deepEqual((await api('GET', `/v1/channels/${gateway}/blocklist`)).body, { data: [], meta: { next_cursor: null } });
    const blocked = await api('POST', `/v1/channels/${gateway}/blocklist`, { phone: '+4915199990001' });
    assert.equal(blocked.status, 200, blocked.text);
    assert.deepEqual(blocked.body.data, { phone: '+4915199990001', lid: lidOf('4915199990001') });
    await api('POST', `/v1/channels/${gateway}/blocklist`, { phone: '4915199990001' });
    assert.deepEqual((await api('GET', `/v1/channels/${gateway}/blocklist`)).body.data, [
      { phone: '+4915199990001', lid: lidOf('4915199990001') },
    ]);
    const unblocked = await api('DELETE', `/v1/channels/${gateway}/blocklist/${encodeURIComponent('+4915199990001')}`);
    assert.equal(unblocked.status, 200, unblocked.text);
    assert.equal((await api('DELETE', `/v1/channels/${gateway}/blocklist/4915199990001`)).status, 200);
    assert.deepEqual((await api('GET', `/v1/channels/${gateway}/blocklist`)).body.data, []);
  });

  test('a number not on the network is 404 naming it, in the body or the path; a malformed one 400', async () => {
    assertNames(await api('POST', `/v1/channels/${gateway}/blocklist`, { phone: '+4915112340002' }), 404, '/phone', 'body');
    assertNames(await api('DELETE', `/v1/channels/${gateway}/blocklist/4915112340002`), 404, '/phone', 'params');
    assertNames(await api('POST', `/v1/channels/${gateway}/blocklist`, { phone: 'nobody' }), 400, '/phone', 'body');
  });
});

describe('privacy settings', () => {
  test('read every setting, change some, read them back', async () => {
    const first = (await api('GET', `/v1/channels/${gateway}/privacy`)).body.data;
    assert.deepEqual(first, {
      last_seen: 'all',
      online: 'all',
      profile_picture: 'all',
      about: 'contacts',
      read_receipts: 'all',
      groups_add: 'all',
      calls: 'all',
      messages: 'all',
    });
    const changed = await api('PATCH', `/v1/channels/${gateway}/privacy`, { last_seen: 'contacts', read_receipts: 'none', calls: 'known' });
    assert.equal(changed.status, 200, changed.text);
    assert.deepEqual(changed.body.data, { ...first, last_seen: 'contacts', read_receipts: 'none', calls: 'known' });
    assert.deepEqual((await api('GET', `/v1/channels/${gateway}/privacy`)).body.data, changed.body.data);
  });

  test('a value a setting does not take, an unknown setting and no setting are 400', async () => {
    assertNames(await api('PATCH', `/v1/channels/${gateway}/privacy`, { read_receipts: 'contacts' }), 400, '/read_receipts', 'body');
    const unknown = await api('PATCH', `/v1/channels/${gateway}/privacy`, { status: 'all' });
    assert.equal(unknown.status, 400, unknown.text);
    assert.match(unknown.body.detail, /"status"/);
    assert.equal((await api('PATCH', `/v1/channels/${gateway}/privacy`, {})).status, 400);
  });
});

describe('privacy ids', () => {
  test("a number's privacy id and a privacy id's number", async () => {
    const lid = lidOf('4915112345678');
    const byPhone = await api('POST', `/v1/channels/${gateway}/lids/lookup`, { phone: '+4915112345678' });
    assert.equal(byPhone.status, 200, byPhone.text);
    assert.deepEqual(byPhone.body.data, { phone: '+4915112345678', lid });
    assert.deepEqual((await api('POST', `/v1/channels/${gateway}/lids/lookup`, { lid: `${lid}@lid` })).body.data, {
      phone: '+4915112345678',
      lid,
    });
  });

  test('an unknown privacy id is 404 naming lid; neither or both fields 400; a malformed lid 400', async () => {
    assertNames(await api('POST', `/v1/channels/${gateway}/lids/lookup`, { lid: '100000000000001' }), 404, '/lid', 'body');
    assertNames(await api('POST', `/v1/channels/${gateway}/lids/lookup`, { phone: '+4915112340002' }), 404, '/phone', 'body');
    assert.equal((await api('POST', `/v1/channels/${gateway}/lids/lookup`, {})).status, 400);
    assert.equal((await api('POST', `/v1/channels/${gateway}/lids/lookup`, { phone: '+4915112345678', lid: '1234567' })).status, 400);
    assertNames(await api('POST', `/v1/channels/${gateway}/lids/lookup`, { lid: 'abc' }), 400, '/lid', 'body');
  });
});

test("an inbound message names the sender's privacy id beside the phone: on message.new and as the contact's identity", async () => {
  const from = '4915177770011';
  const messageId = await customerWrites(server, gateway, from);
  const event = (await eventsOf(server, 'message.new')).map((e) => e.payload).find((p) => p.message_id === messageId);
  assert.equal(event?.from_phone, from);
  assert.equal(event?.from_lid, lidOf(from));
  const identities = (await api('GET', `/v1/contacts/${event!.contact_id}/identities`)).body.data as Array<{ type: string; value: string }>;
  assert.ok(
    identities.some((i) => i.type === 'linked_id' && i.value === lidOf(from)),
    JSON.stringify(identities),
  );
});

test('the capabilities name the operations; an official channel answers 422 naming the operation for each route', async () => {
  const capabilities = (await api('GET', `/v1/channels/${gateway}/capabilities`)).body.data;
  for (const op of [
    'profiles.read',
    'profile.update',
    'contacts.block',
    'privacy.settings',
    'contacts.lid',
    'calls.events',
    'calls.reject',
  ])
    assert.ok(capabilities.operations.includes(op), op);
  const routes: Array<[string, string, unknown?]> = [
    ['GET', 'profiles/4915112345678'],
    ['GET', 'profile'],
    ['PATCH', 'profile', { name: 'X' }],
    ['PUT', 'profile/picture', { url: 'https://example.invalid/a.png' }],
    ['DELETE', 'profile/picture'],
    ['GET', 'blocklist'],
    ['POST', 'blocklist', { phone: '+4915112345678' }],
    ['DELETE', 'blocklist/4915112345678'],
    ['GET', 'privacy'],
    ['PATCH', 'privacy', { online: 'all' }],
    ['POST', 'lids/lookup', { lid: '177766655544433' }],
  ];
  for (const [method, path, body] of routes) {
    const res = await api(method, `/v1/channels/${official}/${path}`, body);
    assert.equal(res.status, 422, `${method} ${path}: ${res.text}`);
    assert.equal(res.body.operation && typeof res.body.operation, 'string', `${method} ${path} names the operation: ${res.text}`);
  }
});

test('a channel that is not connected answers 409 naming its status; a session the gateway says is not paired, 503', async () => {
  const created = await api('POST', '/v1/channels', { platform: 'chatapp_unofficial', name: 'Unpaired', sandbox: true });
  const res = await api('GET', `/v1/channels/${created.body.data.id}/profile`);
  assert.equal(res.status, 409, res.text);
  assert.match(res.body.detail, /is disconnected/);
  // The channel still says connected while the gateway's session is gone (the logout's callback is on its way).
  const channel = await pairedGatewayChannel(server, 'Going away');
  const settings = (await api('GET', `/v1/channels/${channel.id}`)).body.data.settings;
  await queryRows(server.container.database.db, sql`update sandbox_accounts set status = 'STOPPED' where id = ${settings.session}`);
  const gone = await api('GET', `/v1/channels/${channel.id}/profile`);
  assert.equal(gone.status, 503, gone.text);
  assert.equal(gone.body.provider_error.code, 'session_not_working');
});
