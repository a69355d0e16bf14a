/**
 * SIGTERM: the service stops accepting connections, finishes the requests it is serving, releases
 * the embedded database and exits 0; a restart on the same data finds everything as it was.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import net from 'node:net';
import { test } from 'node:test';
import { eventually } from '../eventually.ts';
import { randomToken } from '../../src/lib/crypto.ts';
import { request } from '../harness.ts';
import { createDeployment, lockFile, startService, usingPostgres, type ServiceProcess } from './service.ts';

type RawResponse = { status: number; headers: Record<string, string>; body: string };

/** Reads one HTTP/1.1 response with a Content-Length from a socket; rejects when the socket ends before it is complete. */
function readResponse(socket: net.Socket, timeoutMs = 15_000): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    let buffer = Buffer.alloc(0);
    const finish = (err?: Error, value?: RawResponse) => {
      clearTimeout(timer);
      socket.off('data', onData);
      socket.off('close', onClose);
      socket.off('error', onError);
      if (err) reject(err);
      else resolve(value!);
    };
    const onData = (chunk: Buffer) => {
      buffer = Buffer.concat([buffer, chunk]);
      const end = buffer.indexOf('\r\n\r\n');
      if (end < 0) return;
      const [statusLine, ...lines] = buffer.subarray(0, end).toString('latin1').split('\r\n');
      // A header sent more than once (set-cookie) keeps every value, one per line.
      const headers: Record<string, string> = {};
      for (const l of lines) {
        const name = l.slice(0, l.indexOf(':')).trim().toLowerCase();
        const value = l.slice(l.indexOf(':') + 1).trim();
        headers[name] = name in headers ? `${headers[name]}\n${value}` : value;
      }
      const length = Number(headers['content-length']);
      if (!Number.isInteger(length)) return finish(new Error(`no content-length in ${statusLine}`));
      if (buffer.length - end - 4 < length) return;
      finish(undefined, {
        status: Number(statusLine!.split(' ')[1]),
        headers,
        body: buffer.subarray(end + 4, end + 4 + length).toString('utf8'),
      });
    };
    const onClose = () =>
      finish(new Error(`the connection closed before a complete response; got ${JSON.stringify(buffer.toString('latin1'))}`));
    const onError = (err: Error) => finish(new Error(`the connection failed before a complete response: ${err.message}`));
    const timer = setTimeout(() => finish(new Error(`no complete response within ${timeoutMs} ms`)), timeoutMs);
    socket.on('data', onData);
    socket.on('close', onClose);
    socket.on('error', onError);
  });
}

/**
 * Resolves 'refused' when a new TCP connection to the port is refused (or reset: it sat in the
 * backlog of a listener that then closed), 'accepted' when it is accepted.
 */
function tryConnect(port: number): Promise<'refused' | 'accepted'> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve('accepted');
    });
    socket.once('error', (err: NodeJS.ErrnoException) =>
      err.code === 'ECONNREFUSED' || err.code === 'ECONNRESET' ? resolve('refused') : reject(err),
    );
  });
}

async function waitUntilRefused(service: ServiceProcess, timeoutMs = 5000) {
  await eventually('new connections to be refused after SIGTERM', async () => (await tryConnect(service.port)) === 'refused', {
    timeoutMs,
    everyMs: 50,
  });
}

test('SIGTERM stops new connections, finishes the request in flight, exits 0 promptly, and a restart keeps the data', async () => {
  const deployment = await createDeployment();
  const email = 'admin@example.com';
  const password = `pw-${randomToken(12)}`;
  const apiKey = `prl_given_${randomToken(24)}`;
  const env = { ...deployment.env, BOOTSTRAP_ADMIN_EMAIL: email, BOOTSTRAP_ADMIN_PASSWORD: password, BOOTSTRAP_API_KEY: apiKey };
  let service: ServiceProcess | undefined;
  const socket = new net.Socket();
  try {
    // At debug a request's arrival is logged (at info only its completion): the test sees the login arrive.
    service = await startService({ dataDir: deployment.dataDir, env: { ...env, LOG_LEVEL: 'debug' } });
    const running = service;
    // An idle keep-alive connection (left by fetch's pool), as a browser or a proxy keeps one.
    assert.equal((await request(service, 'GET', '/v1/channels', { key: apiKey })).status, 200);
    if (!usingPostgres) assert.equal(existsSync(lockFile(deployment.dataDir)), true, 'no lock file while running');

    // A login whose body is half sent when SIGTERM arrives.
    const body = Buffer.from(JSON.stringify({ email, password }));
    await new Promise<void>((resolve, reject) => {
      socket.once('error', reject);
      socket.connect(service!.port, '127.0.0.1', () => {
        socket.off('error', reject);
        resolve();
      });
    });
    const response = readResponse(socket);
    response.catch(() => undefined);
    socket.write(
      `POST /v1/auth/login HTTP/1.1\r\nHost: 127.0.0.1:${service.port}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`,
    );
    socket.write(body.subarray(0, 10));
    const isLogin = (l: { msg: string; url?: unknown }) => l.msg === 'request received' && l.url === '/v1/auth/login';
    await service.waitFor(() => running.logs().some(isLogin), 'the login request to be received', 10_000);

    service.child.kill('SIGTERM');
    await service.waitForLog('shutting down', 5000);
    await waitUntilRefused(service);
    assert.equal(service.exit, undefined, 'the process exited with a request in flight');

    socket.write(body.subarray(10));
    const sentAt = Date.now();
    const res = await response;
    assert.equal(res.status, 200, res.body);
    assert.equal((JSON.parse(res.body) as { data: { email: string } }).data.email, email, res.body);
    assert.match(res.headers['set-cookie'] ?? '', /parley_session=/);
    // The client is told not to reuse the connection, which would hold the exit back.
    assert.equal(res.headers.connection, 'close');

    const exit = await Promise.race([service.exited, new Promise<'late'>((r) => setTimeout(() => r('late'), 8000).unref())]);
    assert.notEqual(exit, 'late', `the process had not exited 8 s after its last request finished\n${service.stdout}\n${service.stderr}`);
    assert.deepEqual(exit, { code: 0, signal: null }, service.stderr);
    const took = Date.now() - sentAt;
    assert.ok(took < 8000, `exit took ${took} ms`);
    assert.equal(service.stderr, '');
    assert.ok(!service.logs().some((l) => l.level === 'error' || l.level === 'fatal'), service.stdout);
    if (!usingPostgres) assert.equal(existsSync(lockFile(deployment.dataDir)), false, 'the lock file is still there after exit');

    service = await startService({ dataDir: deployment.dataDir, env });
    const again = await request(service, 'GET', '/v1/channels', { key: apiKey });
    assert.equal(again.status, 200, again.text);
    assert.equal((await request(service, 'POST', '/v1/auth/login', { body: { email, password } })).status, 200);
    assert.ok(!service.stdout.includes('Parley is ready'), 'the restart bootstrapped again');
    assert.deepEqual(await service.stop(), { code: 0, signal: null }, service.stderr);
  } finally {
    socket.destroy();
    service?.kill();
    await service?.exited;
    await deployment.cleanup();
  }
});
