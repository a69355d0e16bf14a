/**
 * The operator's routes, outside /v1 and outside the public OpenAPI document (hidden): liveness
 * (GET /livez: the process answers; no database), readiness (GET /readyz: the database answers and
 * no migrations are being applied) and Prometheus metrics (GET /metrics, behind a token and/or an
 * address allow-list). None logs a successful answer at info level. An API process serves them beside the API; a
 * worker-only process serves only them (buildProbeApp), on PORT. docs/operations.md has the details.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyRequest } from 'fastify';
import ipaddr from 'ipaddr.js';
import type { TrustProxy } from '../config.ts';
import type { Readiness } from '../db/readiness.ts';
import { DomainError } from '../domain/errors.ts';
import type { Metrics } from '../metrics/metrics.ts';
import { internalError, sendError } from './errors.ts';
import { problemClientErrorHandler } from './client-error.ts';
import { drainOnClose } from './drain.ts';
import { fastifyTrustProxy } from './trust-proxy.ts';
import { logRequests, requestLogging } from './request-log.ts';

/** Who may read /metrics (config.metrics). */
export type MetricsAccessRule = { token: string | undefined; allow: string[] | undefined };

export type ProbeServices = {
  readiness(): Promise<Readiness>;
  metrics: Pick<Metrics, 'contentType' | 'render'>;
  access: MetricsAccessRule;
};

/** A readiness check is shared by the probes that arrive while it runs, and reused this long. */
const READINESS_REUSE_MS = 1000;
const READINESS_RETRY_AFTER_SECONDS = 5;

export async function registerProbeRoutes(app: FastifyInstance, services: ProbeServices) {
  // Probes are called every few seconds by orchestrators: never rate limited, and no line at info, not
  // even for a 503 (an outage is logged once each way by the readiness check). A refused /metrics read
  // (a wrong token) is logged like any refused request.
  const options = { config: { auth: { public: true }, rateLimit: false as const, quietLog: 'always' as const }, schema: { hide: true } };
  const metricsOptions = { ...options, config: { ...options.config, quietLog: 'successes' as const } };
  const refuse = metricsRefusal(services.access);

  app.get('/livez', options, async (_request, reply) => reply.header('cache-control', 'no-store').send({ status: 'alive' }));

  let last: { at: number; result: Promise<Readiness> } | undefined;
  const readiness = () => {
    const now = Date.now();
    if (!last || now - last.at >= READINESS_REUSE_MS) last = { at: now, result: services.readiness() };
    return last.result;
  };
  app.get('/readyz', options, async (_request, reply) => {
    const result = await readiness();
    void reply.header('cache-control', 'no-store');
    if (result.ready) return reply.send({ status: 'ready' });
    return reply
      .code(503)
      .header('retry-after', String(READINESS_RETRY_AFTER_SECONDS))
      .send({ status: 'not_ready', reason: result.reason });
  });

  app.get('/metrics', metricsOptions, async (request, reply) => {
    const refusal = refuse(request);
    if (refusal) {
      if (refusal.code === 'unauthenticated') void reply.header('www-authenticate', 'Bearer realm="metrics"');
      return sendError(reply, request, refusal, 'problem');
    }
    const text = await services.metrics.render();
    return reply.header('cache-control', 'no-store').type(services.metrics.contentType).send(text);
  });
}

/** Headers a proxy adds: a request carrying one came through a proxy, whatever its socket says. */
const FORWARDING_HEADERS = ['forwarded', 'x-forwarded-for', 'x-forwarded-host', 'x-real-ip'];

/**
 * The refusal for a /metrics request, or undefined when it may read them. METRICS_TOKEN: the
 * request must carry `Authorization: Bearer <token>` (401). METRICS_ALLOW: the client address
 * (request.ip, so behind TRUST_PROXY the forwarded one) must be in a range (403). Both set: both
 * apply. Neither: only a loopback peer with no forwarding header (a proxy on the same machine
 * would otherwise hand the metrics to anyone).
 */
export function metricsRefusal(rule: MetricsAccessRule): (request: FastifyRequest) => DomainError | undefined {
  const tokenDigest = rule.token === undefined ? undefined : digest(rule.token);
  const ranges = rule.allow?.map((entry) => (entry.includes('/') ? ipaddr.parseCIDR(entry) : single(entry)));
  return (request) => {
    if (tokenDigest) {
      const header = request.headers.authorization;
      const given = typeof header === 'string' && /^Bearer\s+/i.test(header) ? header.replace(/^Bearer\s+/i, '').trim() : undefined;
      if (given === undefined || !timingSafeEqual(digest(given), tokenDigest)) {
        return new DomainError('unauthenticated', 'the metrics need the token set in METRICS_TOKEN, as Authorization: Bearer <token>');
      }
    }
    if (ranges) {
      const client = parseAddress(request.ip);
      if (!client || !ranges.some(([range, bits]) => client.kind() === range.kind() && client.match(range, bits))) {
        return new DomainError('forbidden', 'this address may not read the metrics (METRICS_ALLOW)');
      }
    }
    if (!tokenDigest && !ranges) {
      const peer = parseAddress(request.socket.remoteAddress);
      const proxied = FORWARDING_HEADERS.some((name) => request.headers[name] !== undefined);
      if (!peer || peer.range() !== 'loopback' || proxied) {
        return new DomainError('forbidden', 'the metrics are served to loopback clients only unless METRICS_TOKEN or METRICS_ALLOW is set');
      }
    }
    return undefined;
  };
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}

function single(address: string): [ipaddr.IPv4 | ipaddr.IPv6, number] {
  const parsed = ipaddr.process(address);
  return [parsed, parsed.kind() === 'ipv4' ? 32 : 128];
}

/** The address as ipaddr.js sees it, an IPv4-mapped IPv6 address as IPv4; undefined when unparsable. */
function parseAddress(address: string | undefined): ipaddr.IPv4 | ipaddr.IPv6 | undefined {
  if (!address || !ipaddr.isValid(address)) return undefined;
  return ipaddr.process(address);
}

/**
 * The HTTP server of a worker-only process: the probes and the metrics, nothing else, so a worker
 * is watched (and health-checked in a container) like an API process.
 */
export async function buildProbeApp(
  logger: FastifyBaseLogger,
  services: ProbeServices,
  options: { trustProxy: TrustProxy; shutdownTimeoutMs: number },
) {
  const app = Fastify({
    loggerInstance: logger,
    trustProxy: fastifyTrustProxy(options.trustProxy),
    return503OnClosing: true,
    // Idle connections close with the server; a scrape still being answered drains (drain.ts), as on the API.
    forceCloseConnections: 'idle',
    clientErrorHandler: problemClientErrorHandler(),
    ...requestLogging(),
  });
  drainOnClose(app, options.shutdownTimeoutMs);
  logRequests(app);
  app.setNotFoundHandler((request, reply) =>
    sendError(
      reply,
      request,
      new DomainError(
        'not_found',
        `no route ${request.method} ${request.url.split('?')[0]}: a worker process serves /livez, /readyz and /metrics only`,
      ),
      'problem',
    ),
  );
  app.setErrorHandler((error, request, reply) => {
    request.log.error({ err: error }, 'unhandled error');
    return sendError(reply, request, internalError(request), 'problem');
  });
  await registerProbeRoutes(app, services);
  return app;
}
