/**
 * Closing the server waits neither on idle keep-alive connections nor on a client that stopped
 * sending: an answer in flight gets its drain time (SHUTDOWN_TIMEOUT_MS), then its connection is cut.
 */
import assert from 'node:assert/strict';
import net from 'node:net';
import { test } from 'node:test';
import { eventually } from '../eventually.ts';
import type { FastifyBaseLogger } from 'fastify';
import { probeServices } from '../../src/container.ts';
import { buildProbeApp } from '../../src/http/probes.ts';
import { createLogger } from '../../src/lib/logger.ts';
import { startTestServer } from '../harness.ts';

/** Resolves when the socket is closed (by the server: the test never ends it). */
const closed = (socket: net.Socket) =>
  new Promise<void>((resolve) => (socket.destroyed ? resolve() : socket.once('close', () => resolve())));

/** Rejects when the promise has not settled within ms (the failure names what hung). */
async function within<T>(ms: number, what: string, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what} took over ${ms} ms`)), ms)));
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

test('a close cuts an idle keep-alive connection and a request whose body never finishes', async () => {
  const server = await startTestServer({ env: { SHUTDOWN_TIMEOUT_MS: '300' } });
  const port = Number(new URL(server.baseUrl).port);
  let requests = 0;
  server.app.server.on('request', () => requests++);

  // A keep-alive connection that got its answer and stays open.
  const idle = net.connect(port, '127.0.0.1');
  const answered = new Promise<string>((resolve) => idle.once('data', (chunk) => resolve(String(chunk))));
  idle.write('GET /livez HTTP/1.1\r\nHost: x\r\nConnection: keep-alive\r\n\r\n');
  assert.match(await answered, /^HTTP\/1\.1 200/);

  // A request whose body stops half way: its answer never starts.
  const stalled = net.connect(port, '127.0.0.1');
  stalled.on('error', () => undefined);
  stalled.write(
    `POST /v1/contacts HTTP/1.1\r\nHost: x\r\nX-Api-Key: ${server.apiKey}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"name":`,
  );
  await eventually('the stalled request to reach the server', () => requests >= 2);

  // Before the drain the close waited on both: the keep-alive timeout (72 s) and a body that never came.
  await within(10_000, 'closing the server', server.close());
  await within(1_000, 'the idle connection to close', closed(idle));
  await within(1_000, 'the stalled connection to close', closed(stalled));
});

test("a worker-only process's probe server drains the same way: a request whose body never finishes is cut", async () => {
  const server = await startTestServer();
  const probes = await buildProbeApp(createLogger({ level: 'silent' }) as FastifyBaseLogger, probeServices(server.container), {
    trustProxy: false,
    shutdownTimeoutMs: 300,
  });
  try {
    await probes.listen({ port: 0, host: '127.0.0.1' });
    const { port } = probes.server.address() as net.AddressInfo;
    let requests = 0;
    probes.server.on('request', () => requests++);
    const stalled = net.connect(port, '127.0.0.1');
    stalled.on('error', () => undefined);
    stalled.write('POST /livez HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"a":');
    await eventually('the stalled request to reach the probe server', () => requests >= 1);
    await within(10_000, 'closing the probe server', probes.close());
    await within(1_000, 'the stalled connection to close', closed(stalled));
  } finally {
    await server.close();
  }
});
