/**
 * The causes read from the library's own errors: a real socket of the library (makeWASocket) pointed
 * at loopback addresses that fail the way the service fails on a machine without network (a closed
 * port, a server that does not speak TLS, one that never answers, an HTTP answer instead of the
 * upgrade, a resolver that knows no address), each close's error read as the engine reads it. Nothing
 * leaves the machine. The library's other closes (the QRs ran out, a stream error) are none of these.
 */
import assert from 'node:assert/strict';
import { createServer as createHttpServer } from 'node:http';
import { Agent } from 'node:https';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { after, before, test } from 'node:test';
import { DisconnectReason, getCodeFromWSError, initAuthCreds, makeWASocket } from 'baileys';
import pino from 'pino';
import { networkFailureOf } from './network-failures.ts';

const servers: Server[] = [];
const listen = async (server: Server) => {
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
};
let closedPort = 0;
let plainPort = 0;
let silentPort = 0;
let httpPort = 0;
before(async () => {
  const closed = createServer();
  closedPort = await listen(closed);
  await new Promise<void>((resolve) => closed.close(() => resolve()));
  // Answers anything with plain text: no TLS.
  plainPort = await listen(createServer((socket) => socket.on('data', () => socket.end('HTTP/1.1 200 OK\r\n\r\nhello'))));
  // Takes the connection and says nothing.
  silentPort = await listen(createServer(() => undefined));
  // A proxy answering the upgrade with a refusal (over plain ws: no TLS in the way).
  httpPort = await listen(createHttpServer((_, res) => res.writeHead(403).end()));
});
after(() => {
  for (const server of servers) server.close();
});

/** The error a real socket of the library closes with, connecting to `url`. */
function closeErrorOf(url: string, extra: Record<string, unknown> = {}): Promise<unknown> {
  const socket = makeWASocket({
    auth: { creds: initAuthCreds(), keys: { get: async () => ({}), set: async () => undefined } },
    logger: pino({ level: 'silent' }),
    waWebSocketUrl: url,
    connectTimeoutMs: 500,
    ...extra,
  } as Parameters<typeof makeWASocket>[0]);
  return new Promise((resolve) => {
    socket.ev.on('connection.update', (update) => {
      if (update.connection === 'close') resolve(update.lastDisconnect?.error);
    });
  });
}

const statusOf = (error: unknown) => (error as { output?: { statusCode?: number } }).output?.statusCode;

test('a closed port: connection_refused (the library says 408, as when the QRs ran out)', async () => {
  const error = await closeErrorOf(`wss://127.0.0.1:${closedPort}/ws/chat`);
  assert.equal(statusOf(error), DisconnectReason.timedOut);
  const failure = networkFailureOf(error);
  assert.equal(failure?.cause, 'connection_refused');
  assert.match(failure!.explanation, new RegExp(`^cannot reach the chat network: 127\\.0\\.0\\.1:${closedPort} refused the connection`));
});

test('a server that does not speak TLS: tls_failure', async () => {
  const failure = networkFailureOf(await closeErrorOf(`wss://127.0.0.1:${plainPort}/ws/chat`));
  assert.equal(failure?.cause, 'tls_failure');
  assert.match(failure!.explanation, /TLS handshake failed/);
});

test('a server that never answers: connection_timed_out', async () => {
  const failure = networkFailureOf(await closeErrorOf(`wss://127.0.0.1:${silentPort}/ws/chat`));
  assert.equal(failure?.cause, 'connection_timed_out');
});

test('an HTTP answer instead of the upgrade (a proxy refusing): the library waits it out, connection_timed_out', async () => {
  const error = await closeErrorOf(`ws://127.0.0.1:${httpPort}/ws/chat`);
  assert.equal(networkFailureOf(error)?.cause, 'connection_timed_out');
});

test('a name the resolver does not know: dns_failure, naming the host', async () => {
  // The resolver is the agent's, so no lookup leaves the machine.
  const notFound = (hostname: string) =>
    Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND', syscall: 'getaddrinfo', hostname });
  const agent = new Agent({
    lookup: ((hostname: string, _options: unknown, callback: (err: Error) => void) => callback(notFound(hostname))) as never,
  });
  const failure = networkFailureOf(await closeErrorOf('wss://web.chat.invalid/ws/chat', { agent }));
  assert.deepEqual(failure, {
    cause: 'dns_failure',
    explanation: 'cannot reach the chat network: the DNS lookup of web.chat.invalid failed (ENOTFOUND)',
  });
});

test('a certificate the TLS layer refused is tls_failure, though the library gives it 500 (the code of refused credentials)', () => {
  const refused = Object.assign(new Error('self-signed certificate in certificate chain'), { code: 'SELF_SIGNED_CERT_IN_CHAIN' });
  const status = getCodeFromWSError(refused);
  assert.equal(status, 500);
  const error = Object.assign(new Error(`WebSocket Error (${refused.message})`), { output: { statusCode: status }, data: refused });
  assert.equal(networkFailureOf(error)?.cause, 'tls_failure');
});

test("the library's other closes are not the network's: QRs ran out, a stream error, a lost keep-alive", () => {
  const boom = (message: string, statusCode: number, data?: unknown) => Object.assign(new Error(message), { output: { statusCode }, data });
  assert.equal(networkFailureOf(boom('QR refs attempts ended', DisconnectReason.timedOut)), undefined);
  assert.equal(networkFailureOf(boom('Stream Errored (conflict)', 440, { tag: 'stream:error', attrs: {} })), undefined);
  assert.equal(networkFailureOf(boom('Timed Out', 408, { stack: 'at x' })), undefined);
  assert.equal(networkFailureOf(boom('Connection was lost', DisconnectReason.connectionLost)), undefined);
  assert.equal(networkFailureOf(undefined), undefined);
});
