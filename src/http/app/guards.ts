/**
 * What every request passes before its route: the per-address limit on bad credentials (before any
 * lookup), authentication into an actor, and the request limits (http/rate-limit.ts).
 */
import type { Container } from '../../container.ts';
import { DomainError } from '../../domain/errors.ts';
import { failOpen } from '../../lib/counters.ts';
import { authenticate, type AuthDeps } from '../auth/authenticate.ts';
import { createAuthFailureLimiter } from '../auth/failure-limit.ts';
import { HttpError } from '../errors.ts';
import { createRequestLimiter } from '../rate-limit.ts';
import type { App } from '../types.ts';

export function registerGuards(app: App, container: Container, authDeps: AuthDeps): void {
  const { config } = container;
  // Both count in the shared store (Redis or the database) and let requests through while it cannot count.
  const count = failOpen(container.counters, container.logger);
  const authFailures =
    config.authFailureLimitPerMinute > 0
      ? createAuthFailureLimiter({ perMinute: config.authFailureLimitPerMinute, clock: container.clock, count })
      : undefined;
  const requestLimits = createRequestLimiter({ count, clock: container.clock }, config.rateLimits);
  app.addHook('onRequest', async (request, reply) => {
    // Unknown routes answer 404/405 to anyone; they hold nothing to protect.
    if (request.is404) return;
    const requirement = request.routeOptions.config.auth ?? {};
    // Before any lookup: an address sending bad credentials is stopped without costing the database.
    const wait = 'public' in requirement ? undefined : authFailures?.retryAfter(request.ip);
    if (wait !== undefined) {
      void reply.header('retry-after', String(wait));
      throw new HttpError(
        'rate_limited',
        `too many requests with a missing or invalid credential from this address; try again in ${wait} s`,
      );
    }
    try {
      request.actor = await authenticate(request, requirement, authDeps);
    } catch (err) {
      if (err instanceof DomainError && err.code === 'unauthenticated') await authFailures?.recordFailure(request.ip);
      // A credential refused for this route (permission, organization) still counts against its limit, and over it the answer is 429.
      else if (request.actor) await requestLimits.check(request, reply);
      throw err;
    }
    await requestLimits.check(request, reply);
  });
}
