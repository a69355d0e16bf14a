/**
 * The types every route file shares: the Fastify instance with the zod type provider, and what the
 * app adds to Fastify's requests, route config and instance. Route files import these, never app.ts.
 */
import type { FastifyBaseLogger, FastifyInstance, RawServerDefault } from 'fastify';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Actor } from '../domain/actor.ts';
import type { AuthRequirement } from './auth/authenticate.ts';
import type { ErrorShape } from './errors.ts';
import type { IdempotencyMode } from './idempotency.ts';
import type { RouteRateLimit } from './rate-limit.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Defaults to needing any valid credential. */
    auth?: AuthRequirement;
    /** Defaults to 'problem'. */
    errorShape?: ErrorShape;
    /** A per-address limit of the route's own, or false: no request limit (http/rate-limit.ts). */
    rateLimit?: RouteRateLimit;
    /** How the route takes Idempotency-Key (http/idempotency.ts): by default, the generic layer keeps and replays its answer. */
    idempotency?: IdempotencyMode;
  }
  interface FastifyRequest {
    actor: Actor | undefined;
  }
  interface FastifyInstance {
    /** Every route registered, for checks that the OpenAPI document lists them all. */
    routeSummaries: RouteSummary[];
  }
}

export type RouteSummary = {
  method: string;
  url: string;
  hidden: boolean;
  public: boolean;
  /** Open without a credential, though one may be sent (the OAuth protocol's client-authenticated endpoints). */
  optional: boolean;
  idempotency: IdempotencyMode | undefined;
};

export type App = FastifyInstance<RawServerDefault, IncomingMessage, ServerResponse, FastifyBaseLogger, ZodTypeProvider>;
