/** The OpenAPI document's frame (info, servers, security schemes) and how the route schemas become it. */
import swagger from '@fastify/swagger';
import { jsonSchemaTransform, jsonSchemaTransformObject } from 'fastify-type-provider-zod';
import type { Config } from '../../config.ts';
import { asReference, withErrorResponses } from '../openapi.ts';
import type { App } from '../types.ts';

/** Registers the document; the routes registered after it are in it. */
export async function registerOpenApiDocument(app: App, config: Pick<Config, 'baseUrl'>): Promise<void> {
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
