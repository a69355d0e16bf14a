/**
 * The rate-limit counters in Redis (REDIS_URL): a hash per bucket, `<prefix>rl:<bucket>`, holding its
 * window's start and count, moved by one Lua script per hit (one round trip, atomic): the window
 * starts over when the caller's time is past its end, as in the database store. Each key expires
 * after two windows without hits, so nothing needs purging. Commands are not queued while Redis is away: they fail at once (or after
 * the command timeout), and the caller lets requests through (lib/counters.ts, failOpen), while
 * ioredis keeps reconnecting in the background.
 */
import { createHash } from 'node:crypto';
import { Redis } from 'ioredis';
import type { CounterStore } from './counters.ts';

/** KEYS[1] the bucket; ARGV[1] now (ms), ARGV[2] the window (ms). Returns {count, window start}. */
const HIT = `
local now = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local start = tonumber(redis.call('HGET', KEYS[1], 's'))
local count
if start == nil or start + window <= now then
  start = now
  count = 1
  redis.call('HSET', KEYS[1], 's', ARGV[1], 'c', 1)
else
  count = redis.call('HINCRBY', KEYS[1], 'c', 1)
end
redis.call('PEXPIRE', KEYS[1], window * 2)
return {count, start}
`;
import type { Logger } from './logger.ts';

export type RedisCounterOptions = {
  url: string;
  /** Put before every key, so several deployments (or tests) can share one Redis. */
  keyPrefix: string;
  logger: Logger;
  connectTimeoutMs?: number;
  commandTimeoutMs?: number;
};

/** Connects (waiting up to connectTimeoutMs; an unreachable Redis is logged, not fatal) and returns the store. */
export async function createRedisCounterStore(options: RedisCounterOptions): Promise<CounterStore> {
  const redis = new Redis(options.url, {
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    connectTimeout: options.connectTimeoutMs ?? 2000,
    commandTimeout: options.commandTimeoutMs ?? 1000,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2000),
  });
  // Errors surface on the commands (and are logged there, once per outage); without a listener ioredis prints each one.
  redis.on('error', () => undefined);
  try {
    await redis.connect();
  } catch (err) {
    options.logger.warn(
      { err },
      'Redis (REDIS_URL) cannot be reached; rate limits are not applied until it can (reconnecting in the background)',
    );
  }
  const sha = createHash('sha1').update(HIT).digest('hex');
  let closed = false;
  return {
    kind: 'redis',
    async hit(bucket, nowMs, windowMs) {
      const [count, windowStart] = (await redis
        .evalsha(sha, 1, `${options.keyPrefix}rl:${bucket}`, nowMs, windowMs)
        .catch((err: unknown) => {
          if (!String((err as Error).message).startsWith('NOSCRIPT')) throw err;
          return redis.eval(HIT, 1, `${options.keyPrefix}rl:${bucket}`, nowMs, windowMs);
        })) as [number, number];
      return { count: Number(count), windowStart: Number(windowStart) };
    },
    async close() {
      if (closed) return;
      closed = true;
      if (redis.status === 'ready') await redis.quit().catch(() => redis.disconnect());
      else redis.disconnect();
    },
  };
}
