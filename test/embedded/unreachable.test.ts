/**
 * The embedded engine on a machine that cannot reach the chat network: the scripted socket's
 * connection fails the way the library surfaces it (a Boom whose data is Node's network error; 408
 * for the `E…` codes, 500 for a refused certificate). The channel's status reason, its health and
 * the API's answers name the real cause (DNS, network unreachable, refused, TLS, timeout) and the
 * next try; the engine keeps the session and tries again; nobody is told a QR went unscanned, and a
 * paired session's credentials survive a refused certificate.
 */
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, test } from 'node:test';
import { eventually } from '../eventually.ts';
import { request } from '../harness.ts';
import { NETWORK_ERRORS } from './scripted-socket.ts';
import { embeddedChannel, getChannel, keyRows, pairedChannel, sessionRow, startEmbeddedServer } from './helpers.ts';

const ISO = /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z/;

describe('embedded engine: a chat network it cannot reach', () => {
  let ctx: Awaited<ReturnType<typeof startEmbeddedServer>>;
  before(async () => {
    ctx = await startEmbeddedServer();
  });
  after(() => ctx.server.close());
  // The network is back after each test, whatever it left.
  afterEach(() => {
    ctx.scripted.options.unreachable = undefined;
  });
  const key = () => ctx.server.apiKey;

  /** The channel once the engine's report of the failure is applied. */
  const failedChannel = (id: string, cause: string) =>
    eventually(`the channel to show ${cause}`, async () => {
      const channel = await getChannel(ctx.server, id);
      return channel.status === 'disconnected' && channel.health.last_error_code === cause ? channel : undefined;
    });

  test('no DNS: connect says why there is no QR and when it tries again; status, health and GET /qr name the cause; it pairs once the network is back', async () => {
    const { server, scripted, clock } = ctx;
    scripted.options.unreachable = NETWORK_ERRORS.dns();
    const channel = await embeddedChannel(server);

    const connect = await request(server, 'POST', `/v1/channels/${channel.id}/connect`, { key: key() });
    assert.equal(connect.status, 503, connect.text);
    assert.equal(connect.body.provider_error.code, 'dns_failure');
    assert.match(connect.body.detail, /cannot reach the chat network/);
    assert.match(connect.body.detail, /DNS lookup of web\.whatsapp\.com failed \(ENOTFOUND\)/);
    assert.match(connect.body.detail, ISO, 'the next try');

    const down = await failedChannel(channel.id, 'dns_failure');
    assert.match(down.status_reason, /cannot reach the chat network: the DNS lookup of web\.whatsapp\.com failed \(ENOTFOUND\)/);
    assert.doesNotMatch(down.status_reason, /scanned|QR/);
    const next = ISO.exec(down.status_reason)![0];
    assert.equal(down.health.next_retry_at, new Date(next).toISOString());
    assert.equal(down.health.reconnect_attempts, 1);
    assert.match(down.health.last_error_message, /DNS lookup/);
    assert.ok(Date.parse(next) > clock.now().getTime(), 'the next try is ahead');

    const history = (await request(server, 'GET', `/v1/channels/${channel.id}/status`, { key: key() })).body.data.history;
    assert.equal(history[0].reason_code, 'dns_failure');
    assert.ok(!history.some((h: { reason_code: string | null }) => h.reason_code === 'pairing_timed_out'));
    const session = await sessionRow(server, channel.id);
    assert.equal(session!.wanted, true, 'the engine keeps trying');
    assert.equal(session!.disconnectCause, 'dns_failure');

    const qr = await request(server, 'GET', `/v1/channels/${channel.id}/qr`, { key: key() });
    assert.equal(qr.status, 409, qr.text);
    assert.match(qr.body.detail, /no QR code/);
    assert.match(qr.body.detail, /DNS lookup of web\.whatsapp\.com failed/);
    assert.match(qr.body.detail, new RegExp(next.replace(/[.]/g, '\\.')));

    // The network comes back: at the next try a socket shows a QR and the channel is pairing again.
    scripted.options.unreachable = undefined;
    const sockets = scripted.of(channel.id).length;
    clock.advance(Date.parse(next) - clock.now().getTime() + 1);
    server.container.embedded.wake();
    await eventually('a new socket', () => scripted.of(channel.id).length > sockets);
    const pairing = await eventually('the channel to pair again', async () => {
      const c = await getChannel(server, channel.id);
      return c.status === 'pairing' ? c : undefined;
    });
    assert.equal(pairing.health.next_retry_at, null);
    const shown = await request(server, 'GET', `/v1/channels/${channel.id}/qr`, { key: key() });
    assert.equal(shown.status, 200, shown.text);
  });

  test('each cause named: network unreachable, refused, a refused certificate (TLS), DNS not answering, the handshake timing out', async () => {
    const { server, scripted } = ctx;
    const cases = [
      [NETWORK_ERRORS.networkUnreachable(), 'network_unreachable', /no route to it from this machine \(ENETUNREACH/],
      [NETWORK_ERRORS.refused(), 'connection_refused', /refused the connection \(ECONNREFUSED\)/],
      [NETWORK_ERRORS.tlsCertificate(), 'tls_failure', /TLS.*SELF_SIGNED_CERT_IN_CHAIN/],
      [NETWORK_ERRORS.dnsAgain(), 'dns_failure', /DNS lookup of web\.whatsapp\.com failed \(EAI_AGAIN\)/],
      [NETWORK_ERRORS.handshakeTimeout(), 'connection_timed_out', /did not answer in time/],
    ] as const;
    for (const [error, cause, words] of cases) {
      scripted.options.unreachable = error;
      const channel = await embeddedChannel(server, cause);
      const connect = await request(server, 'POST', `/v1/channels/${channel.id}/connect`, { key: key() });
      assert.equal(connect.status, 503, `${cause}: ${connect.text}`);
      assert.equal(connect.body.provider_error.code, cause);
      const down = await failedChannel(channel.id, cause);
      assert.match(down.status_reason, words, cause);
      assert.match(down.status_reason, /cannot reach the chat network/);
    }
  });

  test("a paired session whose connection meets a refused certificate keeps its credentials and reconnects later (the library's 500 is not a refusal of the session)", async () => {
    const { server, scripted } = ctx;
    const channel = await pairedChannel(ctx, '4915100000021');
    scripted.options.unreachable = NETWORK_ERRORS.tlsCertificate();
    channel.socket.fail(NETWORK_ERRORS.tlsCertificate());
    const down = await failedChannel(channel.id, 'tls_failure');
    assert.match(down.status_reason, /TLS/);
    assert.match(down.health.last_error_message, /reconnect attempt 1 at/);
    assert.ok((await keyRows(server, channel.id)).length > 0, 'the credentials are kept');
    const session = await sessionRow(server, channel.id);
    assert.equal(session!.state, 'STOPPED');
    assert.equal(session!.wanted, true);
    assert.ok(session!.nextReconnectAt);
  });
});
