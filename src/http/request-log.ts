/**
 * One log line per request, written when the answer is sent (Fastify's own two lines, on arrival and
 * on completion, are turned off: a log write is a good part of a fast request's cost). A route marked
 * `quietLog` writes its successful answers at debug only ('successes': the health check, whose
 * failures are logged like any other answer), or every answer ('always': the operator's probes, asked
 * every few seconds by an orchestrator; an outage is logged once each way by the readiness check, not
 * once per probe).
 */
import { LogController, type FastifyBaseLogger, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { safeUrl, type Logger } from '../lib/logger.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Answers logged at debug, not info: the successful ones (health checks) or all (probes). */
    quietLog?: 'successes' | 'always';
  }
}

/** Fastify's log lines, minus the two it writes for every request (its error lines stay). */
class OneLinePerRequest extends LogController {
  override incomingRequest(): void {}
  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (error) super.requestCompleted(error, request, reply);
  }
}

/** The Fastify options that leave request logging to logRequests (the request id logged as request_id). */
export const requestLogging = () => ({ logController: new OneLinePerRequest({ requestIdLogLabel: 'request_id' }) });

/** Adds the one line per request: method, URL (secrets and personal values censored), status, time, route; the request id comes with the request's logger. */
export function logRequests(app: FastifyInstance): void {
  // Arrival is logged at debug only (where a request that never finishes can be seen).
  app.addHook('onRequest', (request, _reply, done) => {
    if (enabled(request.log, 'debug')) request.log.debug({ method: request.method, url: safeUrl(request.url) }, 'request received');
    done();
  });
  app.addHook('onResponse', (request, reply, done) => {
    logResponse(request, reply);
    done();
  });
}

function logResponse(request: FastifyRequest, reply: FastifyReply): void {
  const quietLog = request.routeOptions.config?.quietLog;
  const quiet = quietLog === 'always' || (quietLog === 'successes' && reply.statusCode < 400);
  const level = quiet ? 'debug' : 'info';
  if (!enabled(request.log, level)) return;
  request.log[level](
    {
      method: request.method,
      url: safeUrl(request.url),
      status: reply.statusCode,
      ms: Math.round(reply.elapsedTime * 100) / 100,
      route: request.is404 ? null : (request.routeOptions.url ?? null),
      remote_address: request.ip,
    },
    'request completed',
  );
}

/** The request loggers are pino's (lib/logger.ts). */
const enabled = (log: FastifyBaseLogger, level: 'debug' | 'info') => (log as unknown as Logger).isLevelEnabled(level);
