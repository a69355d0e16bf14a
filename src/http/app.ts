/**
 * The HTTP server, put together in steps (app/): the framework instance with its request ids,
 * validation, connection drain and route index; the security headers; the guards (bad-credential
 * limit, authentication, request limits); the error handlers; the OpenAPI document; every route group.
 */
import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyBaseLogger } from 'fastify';
import cookie from '@fastify/cookie';
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Container } from '../container.ts';
import { DomainError } from '../domain/errors.ts';
import { findUnstorableInput, toPointer } from '../lib/text.ts';
import type { BearerAuthenticator } from './auth/authenticate.ts';
import { problemClientErrorHandler } from './client-error.ts';
import { drainOnClose } from './drain.ts';
import { fastifyTrustProxy } from './trust-proxy.ts';
import { HttpError, internalError, sendError, type ErrorShape } from './errors.ts';
import { logRequests, requestLogging } from './request-log.ts';
import { registerErrorHandlers } from './app/error-handlers.ts';
import { registerGuards } from './app/guards.ts';
import { registerIdempotency, type IdempotencyMode } from './idempotency.ts';
import { registerOpenApiDocument } from './app/openapi-document.ts';
import { registerRouteGroups } from './app/routes.ts';
import { securityHeaderSettings } from './app/security.ts';
import type { App, RouteSummary } from './types.ts';

export type { App, RouteSummary };

export type AppOptions = { bearer?: BearerAuthenticator };

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export async function buildApp(container: Container, options: AppOptions = {}): Promise<App> {
  const { config } = container;
  const { values: securityHeaderValues, dashboardCsp } = securityHeaderSettings(config);
  const app = Fastify({
    loggerInstance: container.logger as FastifyBaseLogger,
    bodyLimit: config.bodyLimitBytes,
    trustProxy: fastifyTrustProxy(config.trustProxy),
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    },
    routerOptions: { ignoreTrailingSlash: true },
    forceCloseConnections: 'idle',
    return503OnClosing: true,
    clientErrorHandler: problemClientErrorHandler(securityHeaderValues),
    ...requestLogging(),
    frameworkErrors: (error, request, reply) => {
      void reply.header('x-request-id', request.id).headers(securityHeaderValues);
      const refusal =
        error.code === 'FST_ERR_BAD_URL'
          ? new DomainError('invalid', 'the request path is not valid: it holds a malformed percent-encoding')
          : error.code === 'FST_ERR_MAX_PARAM_LENGTH'
            ? new HttpError('uri_too_long', 'a path segment is longer than the limit')
            : undefined;
      if (!refusal) request.log.error({ err: error }, 'unhandled framework error');
      return sendError(reply, request, refusal ?? internalError(request), frameworkErrorShape(request.url));
    },
  }).withTypeProvider<ZodTypeProvider>();

  // Every body, query and params string is checked before the route's schema: one that PostgreSQL
  // could not store (NUL, a lone surrogate) or input nested too deep is a 400 naming the field.
  app.setValidatorCompiler((route) => {
    const validate = validatorCompiler(route as Parameters<typeof validatorCompiler>[0]);
    return (data: unknown) => {
      const bad = findUnstorableInput(data);
      if (bad)
        return { error: [{ keyword: 'storable', instancePath: toPointer(bad.path), schemaPath: '#', params: {}, message: bad.message }] };
      return validate(data);
    };
  });
  app.setSerializerCompiler(serializerCompiler);
  // A close lets answers in flight finish, then cuts what is left after SHUTDOWN_TIMEOUT_MS.
  drainOnClose(app, config.shutdownTimeoutMs);
  // Bodies are JSON only; anything else is a 415 (the OAuth routes add form bodies in their scope).
  app.removeContentTypeParser(['text/plain']);

  app.decorateRequest('actor', undefined);
  logRequests(app);
  const routes: RouteSummary[] = [];
  app.decorate('routeSummaries', routes);
  // The framework answers a malformed path before any route is known: the path's route group still
  // decides the body shape (the contacts routes answer {error, code}).
  const codeShapePrefixes = new Set<string>();
  const frameworkErrorShape = (url: string): ErrorShape => {
    const path = url.split('?')[0]!;
    for (const prefix of codeShapePrefixes) if (path === prefix || path.startsWith(`${prefix}/`)) return 'code';
    return 'problem';
  };
  app.addHook('onRoute', (route) => {
    if ((route.config as { errorShape?: ErrorShape } | undefined)?.errorShape === 'code')
      codeShapePrefixes.add(route.url.split('/:')[0]!.replace(/\/$/, ''));
    for (const method of [route.method].flat()) {
      routes.push({
        method,
        url: route.url,
        hidden: Boolean((route.schema as { hide?: boolean } | undefined)?.hide),
        public: Boolean(route.config && 'auth' in route.config && route.config.auth && 'public' in route.config.auth),
        optional: Boolean(route.config && 'auth' in route.config && route.config.auth && 'optional' in route.config.auth),
        idempotency: (route.config as { idempotency?: IdempotencyMode } | undefined)?.idempotency,
      });
    }
  });
  // Every answer, by route pattern (never the raw URL: one series per route, not per id) and status.
  const { metrics } = container;
  app.addHook('onResponse', (request, reply, done) => {
    metrics.observeRequest(
      request.method,
      request.is404 ? 'unmatched' : (request.routeOptions.url ?? 'unmatched'),
      reply.statusCode,
      reply.elapsedTime / 1000,
    );
    done();
  });
  // The headers every answer carries, in one synchronous hook (an async one costs a promise and a turn per request).
  app.addHook('onRequest', (request, reply, done) => {
    void reply.headers(securityHeaderValues);
    void reply.header('x-request-id', request.id);
    // What a credential can read is never kept by a browser or a proxy; a route may still set its own.
    const auth = request.routeOptions.config?.auth;
    if (!(auth && 'public' in auth)) void reply.header('cache-control', 'no-store');
    done();
  });
  await app.register(cookie);
  const trustedOrigins = new Set([new URL(config.baseUrl).origin, new URL(config.appUrl).origin]);
  const authDeps = {
    db: container.database.db,
    clock: container.clock,
    apiKeys: container.apiKeys,
    trustedOrigins,
    bearer: options.bearer ?? container.bearer.authenticate,
  };
  registerGuards(app, container, authDeps);
  // After the guards (the key belongs to the credential) and the schemas (a malformed request keeps no key).
  registerIdempotency(app, container);
  registerErrorHandlers(app);
  await registerOpenApiDocument(app, config);
  await registerRouteGroups(app, container, { authDeps, dashboardCsp });
  return app;
}
