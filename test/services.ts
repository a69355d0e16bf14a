/**
 * The machine's services a test needs besides the database: each is checked once per test file,
 * and a missing one fails fast with what to do, instead of a test that hangs on reconnects.
 */
import net from 'node:net';

/** The Redis the rate-limit tests count in: TEST_REDIS_URL, default the machine's. */
export const TEST_REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

let redisCheck: Promise<void> | undefined;

/** Resolves once Redis answers PING at TEST_REDIS_URL; rejects within 2 s, saying how to start it, when it does not. */
export function requireRedis(): Promise<void> {
  redisCheck ??= new Promise<void>((resolve, reject) => {
    const url = new URL(TEST_REDIS_URL);
    const where = `${url.hostname}:${url.port || 6379}`;
    const fail = (why: string) => {
      socket.destroy();
      reject(
        new Error(
          `Redis is needed at ${where} (TEST_REDIS_URL) and ${why}: start one (apt-get install -y redis-server && redis-server --daemonize yes) or point TEST_REDIS_URL at one`,
        ),
      );
    };
    const socket = net.connect(Number(url.port || 6379), url.hostname);
    socket.setTimeout(2_000, () => fail('did not answer within 2 s'));
    socket.once('error', (err) => fail(`cannot be reached (${err.message})`));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.once('data', (chunk) => {
      socket.destroy();
      // A server with a password answers -NOAUTH: it is there, and the URL's credentials are the client's business.
      if (/^(\+PONG|-NOAUTH)/.test(String(chunk))) resolve();
      else fail(`answered ${JSON.stringify(String(chunk).slice(0, 60))} to PING`);
    });
  });
  return redisCheck;
}
