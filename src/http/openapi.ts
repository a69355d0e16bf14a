/**
 * The error side of the OpenAPI document, added to every operation in one place: the statuses any
 * route can answer whatever its handler does (credentials, the X-Organization-Id header, body limits,
 * rate limits, an unavailable database), each in the body shape and media type the route really
 * sends (http/errors.ts): problem bodies as application/problem+json, the contacts routes' `{error,
 * code}` and the OAuth routes' `{error, error_description}` as application/json.
 */
import type { FastifySchema } from 'fastify';
import type { SwaggerTransform } from '@fastify/swagger';
import type { ErrorShape } from './errors.ts';

type JsonSchema = Record<string, unknown>;
type RouteSchema = { response?: Record<string, JsonSchema>; hide?: boolean; [key: string]: unknown };

const TITLES: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  409: 'Conflict',
  413: 'Payload Too Large',
  414: 'URI Too Long',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Content',
  429: 'Too Many Requests',
  431: 'Request Header Fields Too Large',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};

const RETRY_AFTER = { type: 'string', description: 'Seconds to wait before retrying' };

const SHAPES: Record<string, ErrorShape> = { Problem: 'problem', CodeError: 'code', OAuthError: 'oauth' };

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/** The media type and schema of an error body in the given shape; credential failures are problems on every route. */
function errorBody(status: number, shape: ErrorShape): { media: string; schema: JsonSchema } {
  const auth = status === 401 || status === 403;
  if (shape === 'problem' || auth) return { media: 'application/problem+json', schema: ref('Problem') };
  return { media: 'application/json', schema: ref(shape === 'code' ? 'CodeError' : 'OAuthError') };
}

/** The error statuses a route answers before (or whatever) its handler runs. */
export function commonErrorStatuses(method: string, isPublic: boolean, takesInput = false): number[] {
  const statuses = [414, 429, 500, 503];
  // A credential is looked at (and X-Organization-Id checked) on every route that is not public.
  if (!isPublic) statuses.push(400, 401, 403);
  // Path parameters and queries are validated (and a malformed path refused) on public routes too.
  if (takesInput) statuses.push(400);
  if (method !== 'GET' && method !== 'HEAD') statuses.push(400, 413, 415);
  return [...new Set(statuses)].sort();
}

function errorResponse(status: number, shape: ErrorShape, description?: string): JsonSchema {
  const { media, schema } = errorBody(status, shape);
  return {
    description: description ?? TITLES[status] ?? 'Error',
    content: { [media]: { schema } },
    ...(status === 429 || status === 503 ? { headers: { 'retry-after': RETRY_AFTER } } : {}),
  };
}

/**
 * Wraps the zod transform: error responses a route declares get the media type it really sends,
 * and the common error statuses are added where the route does not declare them.
 */
export function withErrorResponses(transform: SwaggerTransform<FastifySchema>): SwaggerTransform<FastifySchema> {
  return (input) => {
    const output = transform(input);
    const schema = output.schema as RouteSchema | undefined;
    if (!schema || schema.hide) return output;
    const config = input.route?.config as { auth?: unknown; errorShape?: ErrorShape } | undefined;
    const shape = config?.errorShape ?? 'problem';
    const auth = config?.auth;
    const isPublic = Boolean(auth && typeof auth === 'object' && 'public' in auth);
    const method = [input.route?.method ?? 'GET'].flat()[0]!.toUpperCase();
    const response: Record<string, JsonSchema> = { ...schema.response };
    for (const [status, declared] of Object.entries(response)) {
      const name = typeof declared.$ref === 'string' ? declared.$ref.split('/').pop() : undefined;
      if (Number(status) < 400 || !name || !(name in SHAPES)) continue;
      response[status] = errorResponse(Number(status), SHAPES[name]!, typeof declared.description === 'string' ? declared.description : undefined);
    }
    const takesInput = Boolean(input.schema?.params || input.schema?.querystring || /\/:/.test(input.url));
    for (const status of commonErrorStatuses(method, isPublic, takesInput)) {
      response[String(status)] ??= errorResponse(status, shape);
    }
    // Node answers an oversized header block itself, before any route is known: no body to speak of.
    response['431'] ??= { type: 'null', description: `${TITLES[431]} (from the HTTP server; the body is not part of the contract)` };
    return { ...output, schema: { ...schema, response } as FastifySchema };
  };
}
