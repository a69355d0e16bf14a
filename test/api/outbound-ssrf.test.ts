/**
 * SSRF on provider and media URLs: with the sandbox on (the default) and ALLOW_PRIVATE_NETWORK_TARGETS
 * off, gateway and official API bases and media URLs must still be public https; the sandbox's own
 * routes on this service are the one exception, matched on origin and path. What decides is the
 * current config and the URL, never a channel's sandbox flag from an earlier config. Every refusal
 * here happens before a connection: the loopback listener below counts any that are made.
 */
import assert from 'node:assert/strict';
import { createServer, type Server, type Socket } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { eq } from 'drizzle-orm';
import { dispatchDeps } from '../../src/container.ts';
import { channels, messages } from '../../src/db/schema.ts';
import { dispatchMessage } from '../../src/domain/messages/dispatch.ts';
import { randomToken } from '../../src/lib/crypto.ts';
import { uuidv7 } from '../../src/lib/ids.ts';
import { request, startTestServer, type TestServer } from '../harness.ts';
import { customerWrites, officialChannel, pairedGatewayChannel, send, waitForStatus } from '../messages-helpers.ts';

const TO = '4915112340000';

/** Addresses that are loopback, link-local or private, some spelled as IPv6 forms that embed IPv4. */
function privateTargets(port: number): string[] {
  return [
    'https://169.254.169.254/latest/meta-data',
    `https://127.0.0.1:${port}/a.png`,
    `https://127.0.0.2:${port}/a.png`,
    `https://[::127.0.0.1]:${port}/a.png`,
    `https://[::7f00:1]:${port}/a.png`,
    `https://[2002:7f00:1::1]:${port}/a.png`,
    `https://[::ffff:127.0.0.1]:${port}/a.png`,
    `https://[64:ff9b::7f00:1]:${port}/a.png`,
    `https://[::1]:${port}/a.png`,
    `https://localhost:${port}/a.png`,
    'https://10.1.2.3/a.png',
  ];
}

let server: TestServer;
let listener: Server;
let port: number;
const connections: Socket[] = [];

before(async () => {
  server = await startTestServer({ worker: true, env: { ALLOW_PRIVATE_NETWORK_TARGETS: 'false', SANDBOX_STATUS_DELAY_MS: '20' } });
  assert.equal(server.config.providerSandbox, true, 'the sandbox is on, as by default');
  listener = createServer((socket) => {
    connections.push(socket);
    socket.destroy();
  });
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  port = (listener.address() as { port: number }).port;
});
after(async () => {
  await server.close();
  await new Promise<void>((resolve) => listener.close(() => resolve()));
  assert.equal(connections.length, 0, 'no request reached the loopback listener');
});

describe('gateway and official API bases', () => {
  test('private, loopback and IPv4-embedding IPv6 bases are refused on create and update, the sandbox on', async () => {
    const refused: Array<[string, RegExp]> = [
      ['http://169.254.169.254/latest/meta-data', /https/],
      [`http://127.0.0.1:${port}/gw`, /https/],
      ...privateTargets(port).map((url): [string, RegExp] => [url.replace(/\/a\.png$/, '/gw'), /private or loopback/]),
    ];
    for (const [url, reason] of refused) {
      const gateway = await request(server, 'POST', '/v1/channels', {
        key: server.apiKey,
        body: { platform: 'chatapp_unofficial', name: 'lan', settings: { gateway_base: url }, credentials: { api_key: 'k' } },
      });
      assert.equal(gateway.status, 400, `${url}: ${gateway.text}`);
      assert.match(gateway.body.detail, reason, url);
      assert.equal(gateway.body.errors[0].pointer, '/settings/gateway_base');
      const official = await request(server, 'POST', '/v1/channels', {
        key: server.apiKey,
        body: {
          platform: 'chatapp_official',
          name: 'lan',
          settings: { api_base: url, phone_number_id: '1' },
          credentials: { access_token: 't' },
        },
      });
      assert.equal(official.status, 400, `${url}: ${official.text}`);
      assert.equal(official.body.errors[0].pointer, '/settings/api_base');
    }
    // An update is checked the same way (the channel itself points at a public address, never called here).
    const made = await request(server, 'POST', '/v1/channels', {
      key: server.apiKey,
      body: {
        platform: 'chatapp_unofficial',
        name: 'public',
        settings: { gateway_base: 'https://93.184.216.34/gw' },
        credentials: { api_key: 'k' },
      },
    });
    assert.equal(made.status, 201, made.text);
    for (const url of [`https://[::7f00:1]:${port}/gw`, `https://[2002:7f00:1::1]/gw`, 'https://169.254.169.254/gw']) {
      const patched = await request(server, 'PATCH', `/v1/channels/${made.body.data.id}`, {
        key: server.apiKey,
        body: { settings: { gateway_base: url } },
      });
      assert.equal(patched.status, 400, `${url}: ${patched.text}`);
      assert.match(patched.body.detail, /private or loopback/);
    }
  });

  test("the sandbox's own routes are the one exception, matched on origin and path", async () => {
    const base = new URL(server.baseUrl);
    const own = await request(server, 'POST', '/v1/channels', {
      key: server.apiKey,
      body: {
        platform: 'chatapp_unofficial',
        name: 'own sandbox',
        settings: { gateway_base: `${server.baseUrl}/sandbox/gateway` },
        credentials: { api_key: 'k' },
      },
    });
    assert.equal(own.status, 201, own.text);
    for (const url of [
      `${server.baseUrl}/v1/messages`, // this service, but not the sandbox
      `${server.baseUrl}/sandboxes/gateway`, // a path that only starts like it
      `${server.baseUrl}/sandbox/../v1/messages`, // normalized: not under /sandbox
      `http://localhost:${base.port}/sandbox/gateway`, // another origin for the same listener
      `http://127.0.0.1:${port}/sandbox/gateway`, // another port
      `https://127.0.0.1:${base.port}/sandbox/gateway`, // another scheme
    ]) {
      const res = await request(server, 'POST', '/v1/channels', {
        key: server.apiKey,
        body: { platform: 'chatapp_unofficial', name: 'not own', settings: { gateway_base: url }, credentials: { api_key: 'k' } },
      });
      assert.equal(res.status, 400, `${url}: ${res.text}`);
    }
  });
});

describe('media URLs on send', () => {
  test('private, loopback and IPv4-embedding IPv6 media URLs are refused before anything is queued, the sandbox on', async () => {
    const channel = await officialChannel(server, 'media');
    const cases: Array<[string, RegExp]> = [
      ['http://169.254.169.254/latest/meta-data', /https/],
      [`http://127.0.0.1:${port}/a.png`, /https/],
      ...privateTargets(port).map((url): [string, RegExp] => [url, /private or loopback/]),
    ];
    for (const [url, reason] of cases) {
      const res = await send(server, { channel_id: channel.id, to: TO, type: 'image', content: { media_url: url } });
      assert.equal(res.status, 400, `${url}: ${res.text}`);
      assert.match(res.body.detail, reason, url);
      assert.equal(res.body.errors[0].pointer, '/content/media_url');
    }
    const carousel = await send(server, {
      channel_id: channel.id,
      to: TO,
      type: 'media_carousel',
      content: {
        body: 'Pick one',
        cards: [
          {
            media_type: 'image',
            media_url: 'https://93.184.216.34/a.png',
            buttons: [{ type: 'url', title: 'Buy', url: 'https://example.com/a' }],
          },
          {
            media_type: 'image',
            media_url: `https://[::7f00:1]:${port}/b.png`,
            buttons: [{ type: 'url', title: 'Buy', url: 'https://example.com/b' }],
          },
        ],
      },
    });
    assert.equal(carousel.status, 400, carousel.text);
    assert.equal(carousel.body.errors[0].pointer, '/content/cards/1/media_url');
  });
});

describe('sandbox-bound channels', () => {
  test('official and gateway channels bound to the sandbox send with ALLOW_PRIVATE_NETWORK_TARGETS off', async () => {
    const official = await officialChannel(server, 'sandbox official');
    await customerWrites(server, official.id, TO);
    const sentOfficial = await send(server, { channel_id: official.id, to: TO, type: 'text', content: { body: 'hello' } });
    assert.equal(sentOfficial.status, 201, sentOfficial.text);
    await waitForStatus(server, sentOfficial.body.data.id, 'read');
    const gateway = await pairedGatewayChannel(server, 'sandbox gateway');
    const sentGateway = await send(server, { channel_id: gateway.id, to: TO, type: 'text', content: { body: 'hello' } });
    assert.equal(sentGateway.status, 201, sentGateway.text);
    await waitForStatus(server, sentGateway.body.data.id, 'read');
  });
});

describe("the sandbox's callbacks", () => {
  test("a gateway session whose callback_url is not Parley's own is refused like any other target", async () => {
    const sandbox = server.container.sandbox!;
    const db = server.container.database.db;
    const { session, apiKey } = await sandbox.provisionGatewaySession(db);
    for (const [url, reason] of [
      [`http://127.0.0.1:${port}/callback`, /must be an https URL/],
      [`https://[::7f00:1]:${port}/callback`, /private or loopback/],
      ['https://169.254.169.254/latest/meta-data', /private or loopback/],
    ] as const) {
      const put = await request(server, 'PUT', `/sandbox/gateway/sessions/${session}`, {
        bearer: apiKey,
        body: { callback_url: url, callback_secret: randomToken(32) },
      });
      assert.equal(put.status, 200, put.text);
      await assert.rejects(
        sandbox.deliverCallback(db, { kind: 'session.status', session_id: session, status: 'SCAN_QR' }, uuidv7()),
        reason,
        url,
      );
    }
  });
});

describe('a channel made while the sandbox was on, after PROVIDER_SANDBOX=false', () => {
  // No worker: the test hands the queued messages to the dispatch step itself.
  let off: TestServer;
  let channelId: string;
  before(async () => {
    off = await startTestServer({ env: { PROVIDER_SANDBOX: 'false', ALLOW_PRIVATE_NETWORK_TARGETS: 'false' } });
    // As if made under the earlier config: flagged sandbox, its provider on loopback, connected.
    channelId = uuidv7();
    const session = `s-${randomToken(6)}`;
    await off.container.database.db.insert(channels).values({
      id: channelId,
      organizationId: off.organizationId,
      platform: 'chatapp_unofficial',
      name: 'old sandbox channel',
      status: 'connected',
      providerRef: session,
      settings: { gateway_base: `http://127.0.0.1:${port}/sandbox/gateway`, session },
      credentialsEncrypted: off.container.sealer.seal(JSON.stringify({ api_key: 'k', callback_secret: randomToken(32) })),
      sandbox: true,
    });
  });
  after(() => off.close());

  async function dispatch(messageId: string) {
    const [row] = await off.container.database.db.select().from(messages).where(eq(messages.id, messageId));
    assert.equal(await dispatchMessage(dispatchDeps(off.container), row!), null);
    const [after] = await off.container.database.db.select().from(messages).where(eq(messages.id, messageId));
    return after!;
  }

  test('new channels: "sandbox": true is refused by name; a gateway channel naming no gateway is the embedded engine\'s', async () => {
    const asked = await request(off, 'POST', '/v1/channels', {
      key: off.apiKey,
      body: { platform: 'chatapp_unofficial', name: 'x', sandbox: true },
    });
    assert.equal(asked.status, 400, asked.text);
    assert.deepEqual(
      asked.body.errors.map((e: { pointer: string }) => e.pointer),
      ['/sandbox'],
    );
    assert.match(asked.body.detail, /sandbox is off/);
    const official = await request(off, 'POST', '/v1/channels', { key: off.apiKey, body: { platform: 'chatapp_official', name: 'x' } });
    assert.equal(official.status, 400, official.text);
    assert.match(official.body.detail, /required \(the sandbox is off\)/);
    const embedded = await request(off, 'POST', '/v1/channels', {
      key: off.apiKey,
      body: { platform: 'chatapp_unofficial', name: 'Own phone' },
    });
    assert.equal(embedded.status, 201, embedded.text);
    assert.equal(embedded.body.data.sandbox, false);
  });

  test('its media URLs are refused at accept, and by the media probe for one queued under an earlier config', async () => {
    for (const url of [`http://127.0.0.1:${port}/a.png`, `https://127.0.0.1:${port}/a.png`, `https://[::7f00:1]:${port}/a.png`]) {
      const media = await send(off, { channel_id: channelId, to: TO, type: 'image', content: { media_url: url } });
      assert.equal(media.status, 400, `${url}: ${media.text}`);
    }
    // Accepted with a public address (never contacted: no worker), then as if accepted earlier with a loopback one.
    const queued = await send(off, { channel_id: channelId, to: TO, type: 'image', content: { media_url: 'https://93.184.216.34/a.png' } });
    assert.equal(queued.status, 201, queued.text);
    await off.container.database.db
      .update(messages)
      .set({ content: { media_url: `https://127.0.0.1:${port}/a.png` } })
      .where(eq(messages.id, queued.body.data.id));
    const probed = await dispatch(queued.body.data.id);
    assert.equal(probed.status, 'failed');
    assert.equal(probed.errorCode, 'media_url_refused');
    assert.match(probed.errorTitle!, /private or loopback/);
  });

  test('its provider calls are refused: the stored flag does not make loopback reachable', async () => {
    const text = await send(off, { channel_id: channelId, to: TO, type: 'text', content: { body: 'hello' } });
    assert.equal(text.status, 201, text.text);
    const sent = await dispatch(text.body.data.id);
    assert.equal(sent.status, 'failed');
    assert.equal(sent.errorCode, 'unsafe_target');
    assert.match(sent.errorTitle!, /^provider address refused: /);
  });
});
