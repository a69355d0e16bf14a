import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { queryRows } from '../../src/db/client.ts';
import { channelCapabilities } from '../../src/domain/channels/capabilities.ts';
import { connectionOf } from '../../src/domain/channels/channels.ts';
import { channels as channelsTable } from '../../src/db/schema.ts';
import { signBody } from '../../src/providers/signature.ts';
import { checkAuthCases } from '../auth-cases.ts';
import { eventually } from '../eventually.ts';
import { createOtherOrganization, freePort, OWNER_EMAIL, request, startTestServer, type TestServer } from '../harness.ts';

let server: TestServer;
before(async () => {
  server = await startTestServer({ worker: true, env: { SANDBOX_STATUS_DELAY_MS: '20', ALLOW_PRIVATE_NETWORK_TARGETS: 'false' } });
});
after(() => server.close());

const key = () => server.apiKey;

async function eventsOf(type: string) {
  return queryRows<{ type: string; payload: Record<string, unknown> }>(
    server.container.database.db,
    sql`select type, payload from events where organization_id = ${server.organizationId} and type = ${type} order by seq`,
  );
}

async function createChannel(body: Record<string, unknown>) {
  const res = await request(server, 'POST', '/v1/channels', { key: key(), body });
  assert.equal(res.status, 201, res.text);
  return res.body.data;
}

describe('channel records', () => {
  test('an official channel without credentials is bound to the sandbox and connected at once', async () => {
    const channel = await createChannel({ platform: 'chatapp_official', name: 'Support' });
    assert.equal(channel.platform, 'chatapp_official');
    assert.equal(channel.status, 'connected');
    assert.equal(channel.sandbox, true);
    assert.match(channel.display_phone_number, /^\+1555\d+$/);
    assert.match(channel.settings.phone_number_id, /^\d+$/);
    assert.deepEqual(channel.credentials_set, ['access_token']);
    assert.equal(JSON.stringify(channel).includes('access_token":"'), false);

    const list = await request(server, 'GET', '/v1/channels', { key: key() });
    assert.equal(list.status, 200);
    assert.ok(list.body.data.some((c: { id: string }) => c.id === channel.id));
    const one = await request(server, 'GET', `/v1/channels/${channel.id}`, { key: key() });
    assert.deepEqual(one.body.data.id, channel.id);

    const status = await request(server, 'GET', `/v1/channels/${channel.id}/status`, { key: key() });
    assert.equal(status.body.data.history.at(-1).from, null);
    assert.equal(status.body.data.history.at(-1).to, 'connected');
    const events = await eventsOf('channel.status_update');
    assert.ok(
      events.some(
        (e) =>
          e.payload.channel_id === channel.id && e.payload.status === 'connected' && e.payload.organization_id === server.organizationId,
      ),
    );
  });

  test('an unofficial channel naming no gateway runs on the embedded engine; "sandbox": true binds either platform to the sandbox', async () => {
    const own = await createChannel({ platform: 'chatapp_unofficial', name: 'Shop phone' });
    assert.equal(own.sandbox, false, "no gateway named: the user's own phone, not the sandbox");
    assert.equal(own.status, 'disconnected');
    assert.equal(own.settings.gateway_base, undefined);
    assert.equal(own.settings.session, own.id);
    assert.deepEqual(own.credentials_set, []);

    const sandboxGateway = await createChannel({ platform: 'chatapp_unofficial', name: 'Try-out', sandbox: true });
    assert.equal(sandboxGateway.sandbox, true);
    assert.match(sandboxGateway.settings.gateway_base, /\/sandbox\/gateway$/);
    const sandboxOfficial = await createChannel({ platform: 'chatapp_official', name: 'Try-out official', sandbox: true });
    assert.equal(sandboxOfficial.sandbox, true);
    assert.equal(sandboxOfficial.status, 'connected');

    // Not the sandbox, and nothing of its own: an official channel needs its credentials.
    const bare = await request(server, 'POST', '/v1/channels', {
      key: key(),
      body: { platform: 'chatapp_official', name: 'x', sandbox: false },
    });
    assert.equal(bare.status, 400, bare.text);
    assert.deepEqual(bare.body.errors.map((e: { pointer: string }) => e.pointer).sort(), [
      '/credentials/access_token',
      '/settings/api_base',
      '/settings/phone_number_id',
    ]);
    // The sandbox with a provider of its own is a contradiction, named.
    for (const body of [
      {
        platform: 'chatapp_unofficial',
        name: 'x',
        sandbox: true,
        settings: { gateway_base: 'https://gateway.example.com' },
        credentials: { api_key: 'k' },
      },
      { platform: 'chatapp_official', name: 'x', sandbox: true, credentials: { access_token: 't' } },
    ]) {
      const res = await request(server, 'POST', '/v1/channels', { key: key(), body });
      assert.equal(res.status, 400, res.text);
      assert.deepEqual(
        res.body.errors.map((e: { pointer: string }) => e.pointer),
        ['/sandbox'],
      );
    }
  });

  test('PATCH renames and DELETE removes; unknown ids are 404', async () => {
    const channel = await createChannel({ platform: 'chatapp_official', name: 'Temp' });
    const patched = await request(server, 'PATCH', `/v1/channels/${channel.id}`, { key: key(), body: { name: 'Renamed ✓ "quoted"' } });
    assert.equal(patched.status, 200);
    assert.equal(patched.body.data.name, 'Renamed ✓ "quoted"');
    assert.equal((await request(server, 'DELETE', `/v1/channels/${channel.id}`, { key: key() })).status, 204);
    assert.equal((await request(server, 'GET', `/v1/channels/${channel.id}`, { key: key() })).status, 404);
    assert.equal((await request(server, 'GET', '/v1/channels/not-a-uuid', { key: key() })).status, 404);
  });

  test('bad bodies name the field', async () => {
    const cases: Array<[unknown, string]> = [
      [{ name: 'x' }, '/platform'],
      [{ platform: 'chatapp_telegram', name: 'x' }, '/platform'],
      [{ platform: 'chatapp_official' }, '/name'],
      [{ platform: 'chatapp_official', name: 'x', settings: { colour: 'red' } }, '/settings'],
      [{ platform: 'chatapp_unofficial', name: 'x', settings: { gateway_base: 'not a url' } }, '/settings/gateway_base'],
      [{ platform: 'chatapp_official', name: 'x', credentials: { access_token: 'abc' } }, '/settings/phone_number_id'],
      [{ platform: 'chatapp_official', name: 'x', display_phone_number: '.(' }, '/display_phone_number'],
      [{ platform: 'chatapp_unofficial', name: 'x', display_phone_number: 'call me' }, '/display_phone_number'],
    ];
    for (const [body, pointer] of cases) {
      const res = await request(server, 'POST', '/v1/channels', { key: key(), body });
      assert.equal(res.status, 400, `${JSON.stringify(body)}: ${res.text}`);
      assert.ok(
        res.body.errors?.some((e: { pointer: string }) => e.pointer.startsWith(pointer)),
        `${JSON.stringify(body)} names ${pointer}: ${res.text}`,
      );
    }
  });

  test('a gateway on a private address is refused unless allowed', async () => {
    const res = await request(server, 'POST', '/v1/channels', {
      key: key(),
      body: { platform: 'chatapp_unofficial', name: 'lan', settings: { gateway_base: 'https://10.1.2.3' }, credentials: { api_key: 'k' } },
    });
    assert.equal(res.status, 400);
    assert.match(res.body.detail, /private or loopback/);
    const http = await request(server, 'POST', '/v1/channels', {
      key: key(),
      body: {
        platform: 'chatapp_unofficial',
        name: 'plain',
        settings: { gateway_base: 'http://gateway.example.com' },
        credentials: { api_key: 'k' },
      },
    });
    assert.equal(http.status, 400);
    assert.match(http.body.detail, /https/);
  });
});

describe('number binding', () => {
  // Channels here point at the sandbox's loopback address by hand, as an account holder elsewhere would at the provider.
  let srv: TestServer;
  let fakeProvider: Server;
  let fakeBase: string;
  before(async () => {
    srv = await startTestServer({ env: { ALLOW_PRIVATE_NETWORK_TARGETS: 'true' } });
    const port = await freePort();
    // A provider of the squatter's own making: it vouches for any token and any number.
    fakeProvider = createServer((_req, res) =>
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ id: 'any', quality_rating: 'GREEN' })),
    );
    await new Promise<void>((r) => fakeProvider.listen(port, '127.0.0.1', r));
    fakeBase = `http://127.0.0.1:${port}`;
  });
  after(async () => {
    await srv.close();
    await new Promise<void>((r) => fakeProvider.close(() => r()));
  });

  test('a number is bound only once its provider vouches for the credentials; a bogus claim blocks nobody, and the conflict names no one', async () => {
    const server = srv;
    const key = () => srv.apiKey;
    const number = await server.container.sandbox!.provisionOfficialNumber(server.container.database.db);
    const settings = { phone_number_id: number.phoneNumberId, api_base: number.apiBase, waba_id: number.wabaId };
    const create = (apiKey: string, name: string, accessToken: string) =>
      request(server, 'POST', '/v1/channels', {
        key: apiKey,
        body: { platform: 'chatapp_official', name, settings, credentials: { access_token: accessToken } },
      });

    // Another organization claims the number first, with credentials the provider refuses.
    const squatter = await createOtherOrganization(server, 'squatter');
    const squat = await create(squatter.apiKey, 'Squatted', 'not-the-real-token-0123456789');
    assert.equal(squat.status, 201, squat.text);
    assert.equal(squat.body.data.status, 'error');
    // And once more through a provider of its own, which says yes to anything: connected, but the number is not its.
    const faked = await request(server, 'POST', '/v1/channels', {
      key: squatter.apiKey,
      body: {
        platform: 'chatapp_official',
        name: 'Faked',
        settings: { ...settings, api_base: fakeBase },
        credentials: { access_token: 'anything-at-all-0123' },
      },
    });
    assert.equal(faked.status, 201, faked.text);
    assert.equal(faked.body.data.status, 'connected');

    // The real owner is not blocked.
    const owned = await create(key(), 'Owned number', number.accessToken);
    assert.equal(owned.status, 201, owned.text);
    assert.equal(owned.body.data.status, 'connected');

    // Deliveries for the number reach the owner's channel only.
    const payload = JSON.stringify({
      object: 'whatsapp_business_account',
      entry: [
        {
          id: number.wabaId,
          changes: [
            {
              field: 'messages',
              value: {
                messaging_product: 'whatsapp',
                metadata: { display_phone_number: number.displayPhoneNumber.slice(1), phone_number_id: number.phoneNumberId },
                contacts: [{ profile: { name: 'Binding Check' }, wa_id: '4930555111' }],
                messages: [
                  {
                    from: '4930555111',
                    id: 'wamid.binding-1',
                    timestamp: String(Math.floor(Date.now() / 1000)),
                    type: 'text',
                    text: { body: 'whose number?' },
                  },
                ],
              },
            },
          ],
        },
      ],
    });
    const delivered = await request(server, 'POST', '/v1/providers/chatapp_official/webhook', {
      rawBody: payload,
      headers: { 'x-hub-signature-256': signBody(server.container.sandbox!.officialAppSecret, payload) },
    });
    assert.equal(delivered.status, 200, delivered.text);
    const stored = await queryRows<{ channel_id: string }>(
      server.container.database.db,
      sql`select channel_id from provider_events where payload::text like '%wamid.binding-1%'`,
    );
    assert.deepEqual(
      stored.map((r) => r.channel_id),
      [owned.body.data.id],
    );

    // A second organization holding working credentials too: its channel is created, in error, told nothing about the owner.
    const second = await createOtherOrganization(server, 'second-holder');
    const again = await create(second.apiKey, 'Second claim', number.accessToken);
    assert.equal(again.status, 201, again.text);
    assert.equal(again.body.data.status, 'error');
    assert.equal(again.body.data.health.last_error_code, 'number_in_use');
    assert.match(again.body.data.status_reason, /already connected to another channel/);
    for (const secret of [server.organizationId, owned.body.data.id, 'Owned number', 'bootstrap', OWNER_EMAIL]) {
      assert.ok(!again.text.includes(secret), `the answer reveals ${secret}`);
    }
    // Once the owner lets the number go, the other holder can connect it.
    assert.equal((await request(server, 'DELETE', `/v1/channels/${owned.body.data.id}`, { key: key() })).status, 204);
    const retried = await request(server, 'PATCH', `/v1/channels/${again.body.data.id}`, {
      key: second.apiKey,
      body: { credentials: { access_token: number.accessToken } },
    });
    assert.equal(retried.status, 200, retried.text);
    assert.equal(retried.body.data.status, 'connected');
  });
});

describe('QR pairing (unofficial)', () => {
  test('connect -> pairing with a QR; scanning it connects the channel; disconnect logs out', async () => {
    const channel = await createChannel({ platform: 'chatapp_unofficial', name: 'Field phone', sandbox: true });
    assert.equal(channel.status, 'disconnected');
    assert.deepEqual(channel.credentials_set, ['api_key']);
    assert.equal((await request(server, 'GET', `/v1/channels/${channel.id}/qr`, { key: key() })).status, 409);

    const connect = await request(server, 'POST', `/v1/channels/${channel.id}/connect`, { key: key() });
    assert.equal(connect.status, 200, connect.text);
    assert.equal(connect.body.data.channel.status, 'pairing');
    const qr = connect.body.data.qr;
    assert.ok(qr.qr.length > 10);
    assert.match(qr.qr_image, /^data:image\/png;base64,/);
    assert.ok(Date.parse(qr.expires_at) > Date.now());

    const again = await request(server, 'GET', `/v1/channels/${channel.id}/qr`, { key: key() });
    assert.equal(again.status, 200);
    assert.equal(again.body.data.qr, qr.qr, 'an unexpired QR is kept');

    const scan = await request(server, 'POST', '/sandbox/gateway/scan', { body: { qr: qr.qr } });
    assert.ok(scan.status >= 200 && scan.status < 300, scan.text);
    const connected = await eventually('the channel to connect', async () => {
      const res = await request(server, 'GET', `/v1/channels/${channel.id}`, { key: key() });
      return res.body.data.status === 'connected' ? res.body.data : undefined;
    });
    assert.ok(connected.display_phone_number);

    const history = (await request(server, 'GET', `/v1/channels/${channel.id}/status`, { key: key() })).body.data.history;
    assert.deepEqual(history.map((h: { to: string }) => h.to).reverse(), ['disconnected', 'pairing', 'connected']);
    const updates = (await eventsOf('channel.status_update'))
      .filter((e) => e.payload.channel_id === channel.id)
      .map((e) => e.payload.status);
    assert.deepEqual(updates, ['disconnected', 'pairing', 'connected']);

    assert.equal((await request(server, 'GET', `/v1/channels/${channel.id}/qr`, { key: key() })).status, 409);
    const out = await request(server, 'POST', `/v1/channels/${channel.id}/disconnect`, { key: key() });
    assert.equal(out.status, 200);
    assert.equal(out.body.data.status, 'disconnected');
  });

  test('a phone pairs by code instead of QR: connect with phone_number, the phone types the code', async () => {
    const channel = await createChannel({ platform: 'chatapp_unofficial', name: 'Code phone', sandbox: true });
    const caps = await request(server, 'GET', `/v1/channels/${channel.id}/capabilities`, { key: key() });
    assert.ok(caps.body.data.operations.includes('channel.pairing_code'));

    const bad = await request(server, 'POST', `/v1/channels/${channel.id}/connect`, { key: key(), body: { phone_number: '12' } });
    assert.equal(bad.status, 400, bad.text);
    assert.deepEqual(
      bad.body.errors.map((e: { pointer: string }) => e.pointer),
      ['/phone_number'],
    );
    assert.equal(
      (await request(server, 'GET', `/v1/channels/${channel.id}`, { key: key() })).body.data.status,
      'disconnected',
      'a refused number starts nothing',
    );

    const connect = await request(server, 'POST', `/v1/channels/${channel.id}/connect`, {
      key: key(),
      body: { phone_number: '+1 555 010 8888' },
    });
    assert.equal(connect.status, 200, connect.text);
    const { qr, pairing_code: code } = connect.body.data;
    assert.match(code.code, /^[0-9A-F]{4}-[0-9A-F]{4}$/);
    assert.equal(code.expires_at, qr.expires_at, 'the code lapses with the QR');
    const plain = await request(server, 'POST', `/v1/channels/${channel.id}/connect`, { key: key() });
    assert.equal(plain.body.data.pairing_code, null, 'no number, no code');

    // Another phone cannot use the code; the phone it was asked for can.
    assert.equal(
      (await request(server, 'POST', '/sandbox/gateway/link', { body: { code: code.code, phone: '+15550109999' } })).status,
      404,
    );
    const linked = await request(server, 'POST', '/sandbox/gateway/link', { body: { code: code.code, phone: '+15550108888' } });
    assert.equal(linked.status, 200, linked.text);
    const connected = await eventually('the channel to connect', async () => {
      const res = await request(server, 'GET', `/v1/channels/${channel.id}`, { key: key() });
      return res.body.data.status === 'connected' ? res.body.data : undefined;
    });
    assert.equal(connected.display_phone_number, '+15550108888');
    assert.equal(
      (await request(server, 'POST', '/sandbox/gateway/link', { body: { code: code.code, phone: '+15550108888' } })).status,
      404,
      'a used code is gone',
    );

    const official = await createChannel({ platform: 'chatapp_official', name: 'No codes' });
    const refused = await request(server, 'POST', `/v1/channels/${official.id}/connect`, {
      key: key(),
      body: { phone_number: '+15550108888' },
    });
    assert.equal(refused.status, 422);
  });
});

describe('support matrix', () => {
  test('operations a platform lacks answer 422 naming the operation and the platform', async () => {
    const official = await createChannel({ platform: 'chatapp_official', name: 'Matrix official' });
    const gateway = await createChannel({ platform: 'chatapp_unofficial', name: 'Matrix gateway', sandbox: true });
    const checks: Array<[string, string, unknown, RegExp]> = [
      ['POST', `/v1/channels/${official.id}/connect`, undefined, /connect.*chatapp_official/],
      ['GET', `/v1/channels/${official.id}/qr`, undefined, /qr.*chatapp_official/],
      ['POST', '/v1/bizapi/register-phone', { channel_id: gateway.id, pin: '123456' }, /register-phone.*chatapp_unofficial/],
      ['POST', '/v1/templates/sync', { channel_id: gateway.id }, /sync.*chatapp_unofficial/],
      [
        'POST',
        '/v1/templates',
        { channel_id: gateway.id, name: 'x', language: 'en', category: 'UTILITY', components: [{ type: 'BODY', text: 'hi' }] },
        /chatapp_unofficial/,
      ],
    ];
    for (const [method, path, body, pattern] of checks) {
      const res = await request(server, method, path, { key: key(), body });
      assert.equal(res.status, 422, `${method} ${path}: ${res.text}`);
      assert.match(res.body.detail, pattern);
    }
  });

  test('capabilities come from the same table the validator reads', async () => {
    const official = await createChannel({ platform: 'chatapp_official', name: 'Caps' });
    const gateway = await createChannel({ platform: 'chatapp_unofficial', name: 'Caps gw', sandbox: true });
    const a = await request(server, 'GET', `/v1/channels/${official.id}/capabilities`, { key: key() });
    const b = await request(server, 'GET', `/v1/channels/${gateway.id}/capabilities`, { key: key() });
    assert.deepEqual(a.body.data, channelCapabilities({ platform: 'chatapp_official', sandbox: true, settings: {} }));
    assert.deepEqual(b.body.data, channelCapabilities({ platform: 'chatapp_unofficial', sandbox: true, settings: {} }));
    assert.ok(!a.body.data.message_types.includes('poll'));
    assert.ok(b.body.data.message_types.includes('poll'));
    assert.ok(a.body.data.operations.includes('templates.sync'));
    assert.ok(!b.body.data.operations.includes('templates.sync'));
    assert.equal(a.body.data.customer_service_window_hours, 24);
  });
});

describe('templates (official)', () => {
  test('a draft is submitted, then approved or rejected by the provider, each change an event', async () => {
    const channel = await createChannel({ platform: 'chatapp_official', name: 'Templates' });
    const make = async (name: string) => {
      const res = await request(server, 'POST', '/v1/templates', {
        key: key(),
        body: { channel_id: channel.id, name, language: 'en_US', category: 'UTILITY', components: [{ type: 'BODY', text: 'Hi {{1}}' }] },
      });
      assert.equal(res.status, 201, res.text);
      assert.equal(res.body.data.status, 'draft');
      return res.body.data;
    };
    const good = await make('order_update');
    const bad = await make('rejected_promo');
    assert.equal(
      (
        await request(server, 'POST', '/v1/templates', {
          key: key(),
          body: {
            channel_id: channel.id,
            name: 'order_update',
            language: 'en_US',
            category: 'UTILITY',
            components: [{ type: 'BODY', text: 'x' }],
          },
        })
      ).status,
      409,
    );

    for (const t of [good, bad]) {
      const submitted = await request(server, 'POST', `/v1/templates/${t.id}/submit`, { key: key() });
      assert.equal(submitted.status, 200, submitted.text);
      assert.equal(submitted.body.data.status, 'pending');
      assert.ok(submitted.body.data.provider_template_id);
    }
    const approved = await eventually('approval', async () => {
      const res = await request(server, 'GET', `/v1/templates/${good.id}`, { key: key() });
      return res.body.data.status === 'approved' ? res.body.data : undefined;
    });
    assert.equal(approved.rejection_reason, null);
    const rejected = await eventually('rejection', async () => {
      const res = await request(server, 'GET', `/v1/templates/${bad.id}`, { key: key() });
      return res.body.data.status === 'rejected' ? res.body.data : undefined;
    });
    assert.ok(rejected.rejection_reason);
    const statuses = (await eventsOf('template.status_update'))
      .filter((e) => e.payload.template_id === good.id)
      .map((e) => e.payload.status);
    assert.deepEqual(statuses, ['pending', 'approved']);

    // A sync pulls the same templates back without duplicating them.
    const sync = await request(server, 'POST', '/v1/templates/sync', { key: key(), body: { channel_id: channel.id } });
    assert.equal(sync.status, 200, sync.text);
    assert.equal(sync.body.data.created, 0);
    const listed = await request(server, 'GET', `/v1/templates?channel_id=${channel.id}`, { key: key() });
    assert.equal(listed.body.data.length, 2);
    assert.equal((await request(server, 'POST', `/v1/templates/${good.id}/submit`, { key: key() })).status, 409);
  });

  test('the list filters by language and category', async () => {
    const channel = await createChannel({ platform: 'chatapp_official', name: 'Template filters' });
    for (const [name, language, category] of [
      ['promo_de', 'de', 'MARKETING'],
      ['notice_de', 'de', 'UTILITY'],
      ['notice_en', 'en_US', 'UTILITY'],
    ] as const) {
      const res = await request(server, 'POST', '/v1/templates', {
        key: key(),
        body: { channel_id: channel.id, name, language, category, components: [{ type: 'BODY', text: 'Hello' }] },
      });
      assert.equal(res.status, 201, res.text);
    }
    const names = async (query: string) =>
      (await request(server, 'GET', `/v1/templates?channel_id=${channel.id}&${query}`, { key: key() })).body.data
        .map((t: { name: string }) => t.name)
        .sort();
    assert.deepEqual(await names('language=de'), ['notice_de', 'promo_de']);
    assert.deepEqual(await names('category=UTILITY'), ['notice_de', 'notice_en']);
    assert.deepEqual(await names('language=de&category=UTILITY'), ['notice_de']);
    const bad = await request(server, 'GET', '/v1/templates?category=SPAM', { key: key() });
    assert.equal(bad.status, 400);
    assert.match(bad.text, /category/);
  });
});

describe('onboarding (official, embedded signup played by the sandbox)', () => {
  test('exchange-code creates a connected channel; register-phone registers it', async () => {
    const signup = await request(server, 'POST', '/sandbox/official/signup', { body: {} });
    assert.ok(signup.status >= 200 && signup.status < 300, signup.text);
    const exchanged = await request(server, 'POST', '/v1/bizapi/exchange-code', {
      key: key(),
      body: { code: signup.body.code, name: 'Signed up' },
    });
    assert.equal(exchanged.status, 200, exchanged.text);
    const channel = exchanged.body.data;
    assert.equal(channel.status, 'connected');
    assert.equal(channel.settings.waba_id, signup.body.waba_id);
    assert.equal(channel.settings.phone_number_id, signup.body.phone_number_id);
    assert.deepEqual(channel.credentials_set, ['access_token']);
    const registered = await request(server, 'POST', '/v1/bizapi/register-phone', {
      key: key(),
      body: { channel_id: channel.id, pin: '123456' },
    });
    assert.equal(registered.status, 200, registered.text);
    const badPin = await request(server, 'POST', '/v1/bizapi/register-phone', { key: key(), body: { channel_id: channel.id, pin: '12' } });
    assert.equal(badPin.status, 400);
    assert.equal(badPin.body.errors[0].pointer, '/pin');
    const badCode = await request(server, 'POST', '/v1/bizapi/exchange-code', { key: key(), body: { code: 'not-a-code' } });
    assert.ok(badCode.status === 422 || badCode.status === 503, badCode.text);
    assert.match(badCode.body.detail, /provider refused/);
  });
});

describe('provider lookup', () => {
  test("POST /v1/channels/{id}/contacts/lookup asks a gateway channel's provider", async () => {
    const channel = await createChannel({ platform: 'chatapp_unofficial', name: 'Lookup', sandbox: true });
    const res = await request(server, 'POST', `/v1/channels/${channel.id}/contacts/lookup`, {
      key: key(),
      body: { phone: '+49 (30) 1234-5678' },
    });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.data.phone, '+493012345678');
    assert.equal(res.body.data.exists, true);
    assert.equal(res.body.data.chatapp_id, '493012345678@c.us');
    const bad = await request(server, 'POST', `/v1/channels/${channel.id}/contacts/lookup`, { key: key(), body: { phone: '12' } });
    assert.equal(bad.status, 400);
  });

  test('on an official channel it is unsupported: the published API has no lookup call', async () => {
    const channel = await createChannel({ platform: 'chatapp_official', name: 'Lookup official' });
    const res = await request(server, 'POST', `/v1/channels/${channel.id}/contacts/lookup`, {
      key: key(),
      body: { phone: '+49 (30) 1234-5678' },
    });
    assert.equal(res.status, 422, res.text);
    assert.equal(res.body.code, 'unsupported');
    assert.equal(res.body.operation, 'contacts.lookup');
    assert.equal(res.body.platform, 'chatapp_official');
    const capabilities = await request(server, 'GET', `/v1/channels/${channel.id}/capabilities`, { key: key() });
    assert.equal(capabilities.body.data.operations.includes('contacts.lookup'), false);
  });
});

describe('provider webhook signatures', () => {
  const secret = () => server.container.sandbox!.officialAppSecret;
  const body = JSON.stringify({ object: 'whatsapp_business_account', entry: [] });

  test('valid passes; invalid, missing, or a body changed after signing is 401', async () => {
    const path = '/v1/providers/chatapp_official/webhook';
    const ok = await request(server, 'POST', path, { rawBody: body, headers: { 'x-hub-signature-256': signBody(secret(), body) } });
    assert.equal(ok.status, 200, ok.text);
    const wrong = await request(server, 'POST', path, {
      rawBody: body,
      headers: { 'x-hub-signature-256': signBody('another secret', body) },
    });
    assert.equal(wrong.status, 401);
    const missing = await request(server, 'POST', path, { rawBody: body });
    assert.equal(missing.status, 401);
    const changed = body.replace('[]', '[{"id":"1","changes":[]}]');
    const tampered = await request(server, 'POST', path, {
      rawBody: changed,
      headers: { 'x-hub-signature-256': signBody(secret(), body) },
    });
    assert.equal(tampered.status, 401);
    const garbage = await request(server, 'POST', path, {
      rawBody: 'not json',
      headers: { 'x-hub-signature-256': signBody(secret(), 'not json') },
    });
    assert.equal(garbage.status, 400, 'a signed body that is not JSON is refused after the signature check');
  });

  test('a signed delivery holding NUL characters or lone surrogates is stored with U+FFFD in their place, not refused', async () => {
    const channel = await createChannel({ platform: 'chatapp_official', name: 'Nul inbound' });
    const payload = JSON.stringify({
      object: 'whatsapp_business_account',
      entry: [
        {
          id: '1',
          changes: [
            {
              field: 'messages',
              value: {
                messaging_product: 'whatsapp',
                metadata: { display_phone_number: '15550100', phone_number_id: channel.settings.phone_number_id },
                contacts: [{ profile: { name: 'Nul\u0000Name' }, wa_id: '4930555000' }],
                messages: [
                  {
                    from: '4930555000',
                    id: 'wamid.nul-1',
                    timestamp: String(Math.floor(Date.now() / 1000)),
                    type: 'text',
                    text: { body: 'hi\u0000 \uD800 there' },
                  },
                ],
              },
            },
          ],
        },
      ],
    });
    const path = '/v1/providers/chatapp_official/webhook';
    const res = await request(server, 'POST', path, { rawBody: payload, headers: { 'x-hub-signature-256': signBody(secret(), payload) } });
    assert.equal(res.status, 200, res.text);
    const [stored] = await queryRows<{ payload: any }>(
      server.container.database.db,
      sql`select payload from provider_events where channel_id = ${channel.id}`,
    );
    // Stored normalized (the delivery's events for the channel), not as the raw body.
    const [message] = stored!.payload.events;
    assert.equal(message.content.body, 'hi\uFFFD \uFFFD there');
    assert.equal(message.profileName, 'Nul\uFFFDName');
  });

  test('the verify-token challenge answers only the right token', async () => {
    const token = server.container.sandbox!.officialVerifyToken;
    const good = await fetch(
      `${server.baseUrl}/v1/providers/chatapp_official/webhook?hub.mode=subscribe&hub.verify_token=${encodeURIComponent(token)}&hub.challenge=12345`,
    );
    assert.equal(good.status, 200);
    assert.equal(await good.text(), '12345');
    const bad = await fetch(
      `${server.baseUrl}/v1/providers/chatapp_official/webhook?hub.mode=subscribe&hub.verify_token=nope-nope-nope&hub.challenge=12345`,
    );
    assert.equal(bad.status, 403);
  });

  test('gateway callbacks need the channel secret', async () => {
    const channel = await createChannel({ platform: 'chatapp_unofficial', name: 'Signed gw', sandbox: true });
    const payload = JSON.stringify({
      event: 'session.status',
      session: channel.settings.session,
      timestamp: new Date().toISOString(),
      payload: { status: 'WORKING' },
    });
    const res = await request(server, 'POST', `/v1/providers/chatapp_unofficial/webhook/${channel.id}`, {
      rawBody: payload,
      headers: { 'x-gateway-signature': signBody('guess', payload) },
    });
    assert.equal(res.status, 401);
    const still = await request(server, 'GET', `/v1/channels/${channel.id}`, { key: key() });
    assert.equal(still.body.data.status, 'disconnected');
  });
});

describe('health and the watchdog', () => {
  let provider: Server;
  let answering = true;
  before(async () => {
    const port = await freePort();
    provider = createServer((req, res) => {
      if (!answering) {
        res
          .writeHead(503, { 'content-type': 'application/json' })
          .end(JSON.stringify({ error: { message: 'Service temporarily unavailable', code: 2 } }));
        return;
      }
      if (req.headers.authorization !== 'Bearer good-token') {
        res
          .writeHead(401, { 'content-type': 'application/json' })
          .end(JSON.stringify({ error: { message: 'Invalid OAuth access token', type: 'OAuthException', code: 190 } }));
        return;
      }
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ id: '111', display_phone_number: '+1 555 0100', quality_rating: 'GREEN' }));
    });
    await new Promise<void>((r) => provider.listen(port, '127.0.0.1', r));
    (provider as Server & { url: string }).url = `http://127.0.0.1:${port}`;
  });
  after(() => new Promise<void>((r) => provider.close(() => r())));

  test('a bad token puts the channel in error with the provider code; a silent provider is marked disconnected', async () => {
    const allowed = await startTestServer({ env: { ALLOW_PRIVATE_NETWORK_TARGETS: 'true' } });
    try {
      const base = (provider as Server & { url: string }).url;
      const bad = await request(allowed, 'POST', '/v1/channels', {
        key: allowed.apiKey,
        body: {
          platform: 'chatapp_official',
          name: 'Own app',
          settings: { api_base: base, phone_number_id: '111', waba_id: '222' },
          credentials: { access_token: 'expired-token' },
        },
      });
      assert.equal(bad.status, 201, bad.text);
      assert.equal(bad.body.data.status, 'error');
      assert.equal(bad.body.data.health.last_error_code, '190');
      assert.match(bad.body.data.status_reason, /Invalid OAuth access token/);

      const good = await request(allowed, 'PATCH', `/v1/channels/${bad.body.data.id}`, {
        key: allowed.apiKey,
        body: { credentials: { access_token: 'good-token' } },
      });
      assert.equal(good.body.data.status, 'connected');
      assert.equal(JSON.stringify(good.body).includes('good-token'), false);

      const watchdog = allowed.container.jobHandlers()['channel.watchdog'] as () => Promise<void>;
      await watchdog();
      let row = (await request(allowed, 'GET', `/v1/channels/${bad.body.data.id}`, { key: allowed.apiKey })).body.data;
      assert.equal(row.status, 'connected');
      assert.equal(row.health.reconnect_attempts, 0);
      assert.ok(row.health.last_checked_at);

      answering = false;
      await watchdog();
      await watchdog();
      row = (await request(allowed, 'GET', `/v1/channels/${bad.body.data.id}`, { key: allowed.apiKey })).body.data;
      assert.equal(row.status, 'connected', 'two failed checks are not yet enough');
      assert.equal(row.health.reconnect_attempts, 2);
      await watchdog();
      row = (await request(allowed, 'GET', `/v1/channels/${bad.body.data.id}`, { key: allowed.apiKey })).body.data;
      assert.equal(row.status, 'disconnected');
      assert.match(row.status_reason, /not answering/);
      assert.ok(row.health.last_error_at);
      answering = true;

      for (const value of ['expired-token', 'good-token']) {
        assert.equal(
          allowed.logs.some((l) => l.includes(value)),
          false,
          `${value} appears in the logs`,
        );
      }
    } finally {
      answering = true;
      await allowed.close();
    }
  });

  test("the watchdog maps a gateway session's state to the channel status (the gateway module's mapping)", async () => {
    let sessionStatus = 'SCAN_QR';
    const port = await freePort();
    const gatewayServer = createServer((req, res) => {
      const json = (body: unknown) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      if (req.url?.endsWith('/qr')) return json({ qr: 'sandbox-less-qr', expires_at: new Date(Date.now() + 60_000).toISOString() });
      return json({ status: sessionStatus });
    });
    await new Promise<void>((r) => gatewayServer.listen(port, '127.0.0.1', r));
    const allowed = await startTestServer({ env: { ALLOW_PRIVATE_NETWORK_TARGETS: 'true' } });
    try {
      const created = await request(allowed, 'POST', '/v1/channels', {
        key: allowed.apiKey,
        body: {
          platform: 'chatapp_unofficial',
          name: 'Own gateway',
          settings: { gateway_base: `http://127.0.0.1:${port}`, session: 'own' },
          credentials: { api_key: 'gw-key' },
        },
      });
      assert.equal(created.status, 201, created.text);
      const id = created.body.data.id as string;
      const connect = await request(allowed, 'POST', `/v1/channels/${id}/connect`, { key: allowed.apiKey });
      assert.equal(connect.body.data.channel.status, 'pairing', connect.text);
      const watchdog = allowed.container.jobHandlers()['channel.watchdog'] as () => Promise<void>;
      const statusOf = async () => (await request(allowed, 'GET', `/v1/channels/${id}`, { key: allowed.apiKey })).body.data;

      sessionStatus = 'WORKING';
      await watchdog();
      assert.equal((await statusOf()).status, 'connected');
      sessionStatus = 'FAILED';
      await watchdog();
      const failed = await statusOf();
      assert.equal(failed.status, 'error');
      assert.equal(failed.status_reason, 'gateway session is FAILED');
    } finally {
      await allowed.close();
      await new Promise<void>((r) => gatewayServer.close(() => r()));
    }
  });
});

describe('secrets', () => {
  test('no stored credential appears in any log line', async () => {
    const rows = await server.container.database.db.select().from(channelsTable);
    assert.ok(rows.length > 3);
    const values = rows
      .flatMap((row) => Object.values(connectionOf(row, server.container.sealer).credentials))
      .filter((v) => v.length >= 8);
    assert.ok(values.length >= rows.length, 'every channel has a credential');
    const logs = server.logs.join('\n');
    for (const value of values) assert.equal(logs.includes(value), false, 'a channel credential is in the logs');
    const list = await request(server, 'GET', '/v1/channels?limit=200', { key: key() });
    for (const value of values) assert.equal(list.text.includes(value), false, 'a channel credential is in a response');
  });
});

describe('isolation and auth', () => {
  test("another organization's channels are not found by any route", async () => {
    const channel = await createChannel({ platform: 'chatapp_unofficial', name: 'Private', sandbox: true });
    const other = await createOtherOrganization(server, 'chan');
    const list = await request(server, 'GET', '/v1/channels', { key: other.apiKey });
    assert.equal(
      list.body.data.some((c: { id: string }) => c.id === channel.id),
      false,
    );
    for (const [method, path, body] of [
      ['GET', `/v1/channels/${channel.id}`, undefined],
      ['PATCH', `/v1/channels/${channel.id}`, { name: 'stolen' }],
      ['DELETE', `/v1/channels/${channel.id}`, undefined],
      ['GET', `/v1/channels/${channel.id}/status`, undefined],
      ['GET', `/v1/channels/${channel.id}/capabilities`, undefined],
      ['POST', `/v1/channels/${channel.id}/connect`, undefined],
      ['GET', `/v1/channels/${channel.id}/qr`, undefined],
      ['POST', `/v1/channels/${channel.id}/contacts/lookup`, { phone: '+4930123456' }],
      ['POST', '/v1/templates/sync', { channel_id: channel.id }],
    ] as const) {
      const res = await request(server, method, path, { key: other.apiKey, body });
      assert.equal(res.status, 404, `${method} ${path}: ${res.text}`);
    }
    assert.equal((await request(server, 'GET', `/v1/channels/${channel.id}`, { key: key() })).body.data.name, 'Private');
  });

  test('auth cases for the channel routes', async () => {
    await checkAuthCases(server, [
      { method: 'GET', path: '/v1/channels', permission: 'channels:read' },
      { method: 'POST', path: '/v1/channels', permission: 'channels:write', body: { platform: 'chatapp_official', name: 'x' } },
      { method: 'GET', path: '/v1/templates', permission: 'templates:read' },
      {
        method: 'POST',
        path: '/v1/templates/sync',
        permission: 'templates:write',
        body: { channel_id: '0196a0e2-0000-7000-8000-000000000000' },
      },
      { method: 'POST', path: '/v1/bizapi/exchange-code', permission: 'channels:write', body: { code: 'x' } },
    ]);
  });
});
