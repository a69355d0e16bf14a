/**
 * The request limits (docs/rate-limits.md): per API key, per OAuth client, per dashboard user, per
 * address for requests without a credential, and a route's own per-address limit (login, sign-up,
 * password resets). Counted in one-minute windows (each bucket's starts at its first request) in the shared store (lib/counters.ts), so
 * they hold across processes. Every counted response carries RateLimit-Limit, -Remaining, -Reset
 * and -Policy (draft-ietf-httpapi-ratelimit-headers-06, for the bucket closest to its limit); over a
 * limit the answer is 429 with Retry-After and a problem body naming the limit.
 *
 * A bucket found over its limit is remembered in this process until its window ends, so a client
 * hammering past its limit costs no more store round trips. A store that cannot count lets the
 * request through (failOpen).
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config.ts';
import type { Actor } from '../domain/actor.ts';
import { HttpError } from './errors.ts';
import { addressSubject } from '../domain/throttle/keys.ts';
import type { Clock } from '../lib/clock.ts';
import type { FailOpenCounter } from '../lib/counters.ts';

export const RATE_LIMIT_WINDOW_MS = 60_000;

/** A route's own limit, per address, on top of the others; `false` exempts the route from every request limit. */
export type RouteRateLimit = false | { name: string; perMinute: number };

/**
 * Routes no request limit counts: health probes (load balancers poll them), provider webhooks (the
 * provider sends many from few addresses and retries what is refused; they are verified and answered
 * fast), the sandbox (the service calling itself) and the dashboard's static files.
 */
const EXEMPT_PREFIXES = ['/v1/health', '/v1/providers/', '/sandbox/', '/app/'];
const EXEMPT_EXACT = new Set(['/', '/app', '/sandbox']);

export function isExemptRoute(url: string | undefined, config: { rateLimit?: RouteRateLimit } | undefined): boolean {
  if (config?.rateLimit === false) return true;
  if (url === undefined) return false;
  return EXEMPT_EXACT.has(url) || EXEMPT_PREFIXES.some((p) => url.startsWith(p));
}

type Bucket = { key: string; limit: number; what: string };

/** The buckets that count this request, in the order their refusal is reported. */
export function bucketsOf(
  actor: Actor | undefined,
  address: string,
  limits: Config['rateLimits'],
  route: RouteRateLimit | undefined,
): Bucket[] {
  const buckets: Bucket[] = [];
  const subject = addressSubject(address);
  if (route && route.perMinute > 0)
    buckets.push({ key: `route:${route.name}:ip:${subject}`, limit: route.perMinute, what: `${route.name} requests from this address` });
  if (!actor)
    buckets.push({ key: `ip:${subject}`, limit: limits.addressPerMinute, what: 'requests without a credential from this address' });
  else if (actor.kind === 'api_key')
    buckets.push({ key: `key:${actor.apiKeyId}`, limit: limits.apiKeyPerMinute, what: 'requests with this API key' });
  else if (actor.kind === 'oauth')
    buckets.push({ key: `client:${actor.clientId}`, limit: limits.oauthClientPerMinute, what: 'requests by this OAuth client' });
  else if (actor.kind === 'user')
    buckets.push({ key: `user:${actor.userId}`, limit: limits.userPerMinute, what: "requests with this user's sessions" });
  return buckets.filter((b) => b.limit > 0);
}

type Counted = Bucket & { count: number; windowEnd: number };

export type RequestLimiter = {
  /** Counts the request in its buckets, sets the RateLimit headers, and throws rate_limited when one is over. */
  check(request: FastifyRequest, reply: FastifyReply): Promise<void>;
};

export function createRequestLimiter(
  deps: { count: FailOpenCounter; clock: Clock },
  limits: Config['rateLimits'],
  options: { maxRemembered?: number } = {},
): RequestLimiter {
  /** Buckets over their limit in this process -> the end of that window. */
  const over = new Map<string, number>();
  const maxRemembered = options.maxRemembered ?? 100_000;
  const remember = (key: string, end: number, now: number) => {
    if (over.size >= maxRemembered) {
      for (const [k, until] of over) if (until <= now) over.delete(k);
      if (over.size >= maxRemembered) over.delete(over.keys().next().value!);
    }
    over.set(key, end);
  };

  // With every limit off, only a route's own limit can count a request.
  const anyLimit = limits.addressPerMinute > 0 || limits.apiKeyPerMinute > 0 || limits.oauthClientPerMinute > 0 || limits.userPerMinute > 0;
  return {
    async check(request, reply) {
      const config = request.routeOptions.config as { rateLimit?: RouteRateLimit } | undefined;
      if (!anyLimit && !config?.rateLimit) return;
      if (isExemptRoute(request.routeOptions.url, config)) return;
      const buckets = bucketsOf(request.actor, request.ip, limits, config?.rateLimit);
      if (buckets.length === 0) return;
      const now = deps.clock.now().getTime();
      const counted = await Promise.all(
        buckets.map(async (bucket): Promise<Counted | undefined> => {
          const until = over.get(bucket.key);
          if (until !== undefined && until > now) return { ...bucket, count: bucket.limit + 1, windowEnd: until };
          const hit = await deps.count(bucket.key, now, RATE_LIMIT_WINDOW_MS);
          if (hit === undefined) return undefined;
          const windowEnd = hit.windowStart + RATE_LIMIT_WINDOW_MS;
          if (hit.count > bucket.limit) remember(bucket.key, windowEnd, now);
          return { ...bucket, count: hit.count, windowEnd };
        }),
      );
      const known = counted.filter((c): c is Counted => c !== undefined);
      if (known.length === 0) return;
      // The headers describe the bucket with the least left (the first refused one, when one is).
      const exceeded = known.find((c) => c.count > c.limit);
      const shown = exceeded ?? known.reduce((a, b) => (b.limit - b.count < a.limit - a.count ? b : a));
      const resetSeconds = Math.max(1, Math.ceil((shown.windowEnd - now) / 1000));
      void reply.header('ratelimit-limit', String(shown.limit));
      void reply.header('ratelimit-remaining', String(Math.max(0, shown.limit - shown.count)));
      void reply.header('ratelimit-reset', String(resetSeconds));
      void reply.header('ratelimit-policy', `${shown.limit};w=${RATE_LIMIT_WINDOW_MS / 1000}`);
      if (!exceeded) return;
      void reply.header('retry-after', String(resetSeconds));
      throw new HttpError('rate_limited', `too many ${exceeded.what}: the limit is ${exceeded.limit} a minute; retry in ${resetSeconds} s`);
    },
  };
}
