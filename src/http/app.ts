/**
 * The HTTP server: framework instance, request ids, authentication, validation, error mapping and
 * the OpenAPI document, then every route group.
 */
import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyBaseLogger } from 'fastify';
import cookie from '@fastify/cookie';
import securityHeaders from 'helmet';
import swagger from '@fastify/swagger';
import {
  jsonSchemaTransform,
  jsonSchemaTransformObject,
  serializerCompiler,
  validatorCompiler,
  type ZodTypeProvider,
} from 'fastify-type-provider-zod';
import {
  channelRouteDeps,
  mailSender,
  messageDeps,
  onboardingDeps,
  probeServices,
  templateDeps,
  webhookDeps,
  type Container,
} from '../container.ts';
import { DomainError } from '../domain/errors.ts';
import { createEventHub } from '../domain/events/stream.ts';
import { findUnstorableInput, toPointer } from '../lib/text.ts';
import { authenticate, type BearerAuthenticator } from './auth/authenticate.ts';
import { createAuthFailureLimiter } from './auth/failure-limit.ts';
import { trackConnections } from './drain.ts';
import { createRequestLimiter } from './rate-limit.ts';
import { failOpen } from '../lib/counters.ts';
import { HttpError, internalError, sendError, toApiError, type ErrorShape } from './errors.ts';
import { registerDashboard } from './dashboard.ts';
import { logRequests, requestLogging } from './request-log.ts';
import { asReference, withErrorResponses } from './openapi.ts';
import { registerDocsRoutes } from './v1/docs.ts';
import { registerHealthRoutes } from './v1/health.ts';
import { registerProbeRoutes } from './probes.ts';
import { loginThrottleOf, registerAuthRoutes } from './v1/auth.ts';
import { registerApiKeyRoutes } from './v1/api-keys.ts';
import { registerChannelRoutes } from './v1/channels.ts';
import { registerTemplateRoutes } from './v1/templates.ts';
import { registerBizapiRoutes } from './v1/bizapi.ts';
import { registerContactRoutes } from './v1/contacts.ts';
import { registerMessageRoutes } from './v1/messages.ts';
import { registerConversationRoutes } from './v1/conversations.ts';
import { registerProviderWebhookRoutes } from './providers/webhooks.ts';
import { registerWebhookRoutes } from './v1/webhooks.ts';
import { registerEventRoutes } from './v1/events.ts';
import { registerSandboxRoutes } from './sandbox/routes.ts';
import { registerAuthorizeRoutes } from './oauth/authorize.ts';
import { registerDeviceRoutes } from './oauth/device.ts';
import { registerOAuthClientRoutes } from './v1/oauth-clients.ts';
import { registerAuthorizationRoutes } from './v1/authorizations.ts';
import { registerOrganizationRoutes } from './v1/organizations.ts';
import { registerInvitationRoutes } from './v1/invitations.ts';
import { registerDiscoveryRoutes } from './oauth/discovery.ts';
import { registerIntrospectRoutes } from './oauth/introspect.ts';
import { registerRevokeRoutes } from './oauth/revoke.ts';
import { registerTokenRoutes } from './oauth/token.ts';
import { registerAccountRoutes } from './v1/account.ts';
import { registerSignupRoutes } from './v1/signup.ts';
import { registerPasswordResetRoutes } from './v1/password-resets.ts';

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

import type { App, RouteSummary } from './types.ts';

export type { App, RouteSummary };

export type AppOptions = { bearer?: BearerAuthenticator };

export async function buildApp(container: Container, options: AppOptions = {}): Promise<App> {
  const { config } = container;
  const app = Fastify({
    loggerInstance: container.logger as FastifyBaseLogger,
    bodyLimit: config.bodyLimitBytes,
    trustProxy: config.trustProxy,
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    },
    routerOptions: { ignoreTrailingSlash: true },
    forceCloseConnections: 'idle',
    return503OnClosing: true,
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
  const drain = trackConnections(app.server, config.shutdownTimeoutMs);
  app.addHook('preClose', async () => drain.begin());
  app.addHook('onClose', async () => drain.done());
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
  const helmetOptions = {
    contentSecurityPolicy: {
      directives: {
        defaultSrc: ["'self'"],
        imgSrc: ["'self'", 'data:'],
        styleSrc: ["'self'", "'unsafe-inline'"],
        scriptSrc: ["'self'"],
        // No page of ours is ever framed (the consent and device pages least of all: clickjacking).
        frameAncestors: ["'none'"],
        // Only an https deployment may tell browsers to upgrade; on plain http it would break the page.
        upgradeInsecureRequests: config.secureCookies ? [] : null,
      },
    },
    hsts: config.secureCookies,
    frameguard: { action: 'deny' as const },
  };
  // Helmet's headers, computed once (its middleware would parse the directives on every request) and
  // set from the prepared object. A malformed path never reaches the hooks: frameworkErrors (above) sets them itself.
  const securityHeaderValues = headersOf(securityHeaders(helmetOptions));
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
  // The dashboard's pages may show the images and media messages point at (an outbound picture by URL):
  // from https addresses, and plain http ones on a plain-http deployment, never scripts or frames.
  const mediaSources = ["'self'", 'data:', 'https:', ...(config.secureCookies ? [] : ['http:'])];
  const dashboardCsp = headerOf(
    securityHeaders.contentSecurityPolicy({
      directives: { ...helmetOptions.contentSecurityPolicy.directives, imgSrc: mediaSources, mediaSrc: mediaSources },
    }),
    'content-security-policy',
  );
  const trustedOrigins = new Set([new URL(config.baseUrl).origin, new URL(config.appUrl).origin]);
  const authDeps = {
    db: container.database.db,
    clock: container.clock,
    apiKeys: container.apiKeys,
    trustedOrigins,
    bearer: options.bearer ?? container.bearer.authenticate,
  };
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

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Parley API',
        version: '1.0.0',
        description:
          'Business messaging and CRM. Authenticate with `X-Api-Key`, an OAuth access token (`Authorization: Bearer`), or the dashboard session cookie. ' +
          'Lists return `{data: [...], meta: {next_cursor}}`; pass `cursor` (and `limit`, default 50, maximum 200) to page. ' +
          'Errors are RFC 9457 problem bodies, except the contacts routes (`{error, code}`) and the OAuth token endpoints (`{error, error_description}`). ' +
          'Requests are rate limited per API key, per OAuth client, per dashboard user, and per address without a credential: counted responses carry `RateLimit-Limit`, `RateLimit-Remaining`, `RateLimit-Reset` and `RateLimit-Policy`; over a limit the answer is 429 with `Retry-After`.',
      },
      servers: [{ url: config.baseUrl }],
      components: {
        securitySchemes: {
          apiKey: { type: 'apiKey', in: 'header', name: 'X-Api-Key', description: 'An API key; its permissions are the scopes below.' },
          bearer: { type: 'http', scheme: 'bearer', description: 'An OAuth 2.0 access token.' },
          session: {
            type: 'apiKey',
            in: 'cookie',
            name: 'parley_session',
            description:
              'Dashboard session cookie set by POST /v1/auth/login. Every write (POST, PUT, PATCH, DELETE) made with it must also send the `X-CSRF-Token` header holding the value of the readable `parley_csrf` cookie set beside it; without it the answer is 403. Reads need no token.',
          },
          clientBasic: {
            type: 'http',
            scheme: 'basic',
            description: 'OAuth client credentials (client_secret_basic): client_id and client_secret, form-encoded, as HTTP Basic.',
          },
        },
      },
      security: [{ apiKey: [] }, { bearer: [] }, { session: [] }],
    },
    transform: withErrorResponses(jsonSchemaTransform),
    transformObject: (input) => asReference(optionalNullableBodies(jsonSchemaTransformObject(input))),
  });

  await registerHealthRoutes(app, { pingDatabase: () => container.database.ping(), pingQueue: () => container.queue.ping() });
  await registerProbeRoutes(app, probeServices(container));
  await registerAuthRoutes(app, { db: container.database.db, clock: container.clock, settings: config });
  const oauthFlows = { db: container.database.db, clock: container.clock };
  await registerAuthorizeRoutes(app, {
    ...oauthFlows,
    settings: { appUrl: config.appUrl, baseUrl: config.baseUrl, codeTtlMs: config.oauth.codeTtlMs },
  });
  await registerDeviceRoutes(app, {
    ...oauthFlows,
    settings: {
      appUrl: config.appUrl,
      deviceCodeTtlMs: config.oauth.deviceCodeTtlMs,
      devicePollIntervalMs: config.oauth.devicePollIntervalMs,
    },
  });
  // A change this process makes to OAuth access (a revocation, a client changed) is forgotten here at once; other processes hear of it from the database.
  const forgetOAuth = () => {
    container.bearer.forget();
    container.oauthClients.forget();
  };
  const tokenServices = { db: container.database.db, clock: container.clock, clients: container.oauthClients.find };
  await registerTokenRoutes(app, {
    ...tokenServices,
    forget: forgetOAuth,
    lifetimes: { accessTokenTtlMs: config.oauth.accessTokenTtlMs, refreshTokenTtlMs: config.oauth.refreshTokenTtlMs },
  });
  await registerIntrospectRoutes(app, tokenServices);
  await registerRevokeRoutes(app, { ...tokenServices, forget: forgetOAuth });
  await registerDiscoveryRoutes(app, { baseUrl: config.baseUrl });
  await registerApiKeyRoutes(app, { db: container.database.db, clock: container.clock, apiKeys: container.apiKeys });
  await registerOAuthClientRoutes(app, { ...oauthFlows, forget: forgetOAuth });
  await registerAuthorizationRoutes(app, { ...oauthFlows, forget: forgetOAuth });
  const credentials = {
    forget: () => {
      container.apiKeys.forget();
      forgetOAuth();
    },
  };
  await registerOrganizationRoutes(app, { db: container.database.db, clock: container.clock, credentials });
  await registerInvitationRoutes(app, {
    db: container.database.db,
    clock: container.clock,
    settings: {
      ttlMs: config.invitationTtlMs,
      appUrl: config.appUrl,
      sessionTtlHours: config.sessionTtlHours,
      secureCookies: config.secureCookies,
    },
    sendMail: mailSender(container, 'invitation'),
  });
  await registerChannelRoutes(app, channelRouteDeps(container));
  await registerTemplateRoutes(app, templateDeps(container));
  await registerBizapiRoutes(app, onboardingDeps(container));
  await registerContactRoutes(app, { db: container.database.db, clock: container.clock });
  await registerMessageRoutes(app, messageDeps(container), { db: container.database.db, store: container.mediaStore });
  await registerConversationRoutes(app, { db: container.database.db, clock: container.clock });
  await registerWebhookRoutes(app, webhookDeps(container));
  // One LISTEN for every event stream this process serves; stopped when the server closes.
  const eventHub = createEventHub({ database: container.database, logger: container.logger, pollMs: config.eventStream.pollMs });
  app.addHook('onClose', () => eventHub.close());
  await registerEventRoutes(app, {
    database: container.database,
    retentionDays: config.eventRetentionDays,
    hub: eventHub,
    stream: { heartbeatMs: config.eventStream.heartbeatMs },
    // An open stream's credential, checked again as the request first was (a revoked one ends the stream).
    reauthenticate: (request) => authenticate(request, request.routeOptions.config.auth ?? {}, authDeps),
  });
  await registerProviderWebhookRoutes(app, {
    db: container.database.db,
    queue: container.queue,
    clock: container.clock,
    logger: container.logger,
    sealer: container.sealer,
    providers: container.providers,
    installationSecrets: () => [config.official.appSecret, container.sandbox?.officialAppSecret].filter((s): s is string => Boolean(s)),
    installationVerifyTokens: () =>
      [config.official.verifyToken, container.sandbox?.officialVerifyToken].filter((s): s is string => Boolean(s)),
  });
  const accounts = { db: container.database.db, clock: container.clock };
  await registerAccountRoutes(app, { ...accounts, throttle: loginThrottleOf(config) });
  await registerSignupRoutes(app, { ...accounts, settings: config });
  await registerPasswordResetRoutes(app, { ...accounts, settings: config, sendMail: mailSender(container, 'password-reset') });
  if (config.providerSandbox) await registerSandboxRoutes(app, container);
  await registerDocsRoutes(app, { upgradeInsecureRequests: config.secureCookies });
  await registerDashboard(app, { contentSecurityPolicy: dashboardCsp });
  return app;
}

/**
 * A body schema that also accepts null (`.nullish()`: the route works without a body) is an optional
 * request body in the document; @fastify/swagger marks every body required.
 */
function optionalNullableBodies<T>(document: T): T {
  const paths =
    (
      document as {
        paths?: Record<
          string,
          Record<
            string,
            { requestBody?: { required?: boolean; content?: Record<string, { schema?: { anyOf?: Array<{ type?: string }> } }> } }
          >
        >;
      }
    ).paths ?? {};
  for (const operations of Object.values(paths)) {
    for (const operation of Object.values(operations)) {
      const body = operation?.requestBody;
      if (!body?.content) continue;
      const acceptsNull = Object.values(body.content).every((media) => media.schema?.anyOf?.some((s) => s.type === 'null'));
      if (acceptsNull) body.required = false;
    }
  }
  return document;
}

type Middleware = (req: never, res: never, next: () => void) => void;

/** The headers one of helmet's middlewares sets, by lower-case name (computed once, at start). */
function headersOf(middleware: Middleware): Readonly<Record<string, string>> {
  const headers: Record<string, string> = {};
  const res = { setHeader: (key: string, value: string) => (headers[key.toLowerCase()] = value), removeHeader: () => undefined };
  middleware({} as never, res as never, () => undefined);
  return Object.freeze(headers);
}

/** The value one of helmet's middlewares sets for a header (computed once, at start). */
function headerOf(middleware: Middleware, name: string): string {
  return headersOf(middleware)[name] ?? '';
}
