/** Errors to answers: a refusal in the route's body shape, anything else a 500 with the request id; unknown routes 404, known paths with another method 405. */
import { DomainError } from '../../domain/errors.ts';
import { HttpError, internalError, sendError, toApiError } from '../errors.ts';
import type { App } from '../types.ts';

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

export function registerErrorHandlers(app: App): void {
  app.setErrorHandler((error, request, reply) => {
    const refusal = toApiError(error);
    const configured = request.routeOptions?.config?.errorShape ?? 'problem';
    // The contacts routes' code shape is for their own errors: credential and permission failures stay problems, as on every route.
    const authFailure = refusal?.code === 'unauthenticated' || refusal?.code === 'forbidden';
    const shape = configured === 'code' && authFailure ? 'problem' : configured;
    if (refusal) return sendError(reply, request, refusal, shape);
    request.log.error({ err: error }, 'unhandled error');
    return sendError(reply, request, internalError(request), shape);
  });

  app.setNotFoundHandler(async (request, reply) => {
    const path = request.url.split('?')[0] ?? '/';
    const allow: string[] = METHODS.filter((m) => m !== request.method && app.findRoute({ method: m, url: path }));
    if (allow.length > 0 && !app.findRoute({ method: request.method as 'GET', url: path })) {
      if (allow.includes('GET')) allow.push('HEAD');
      return sendError(
        reply,
        request,
        new HttpError('method_not_allowed', `${request.method} is not allowed on ${path}`, { extra: { allow } }),
        'problem',
      );
    }
    return sendError(reply, request, new DomainError('not_found', `no route ${request.method} ${path}`), 'problem');
  });
}
