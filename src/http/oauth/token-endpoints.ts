/**
 * What the token, introspection and revocation endpoints share: their plugin scope's body parsers,
 * the no-store headers, the Basic challenge on a 401, and the client credentials of the request.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { DomainError } from '../../domain/errors.ts';
import type { ClientAuthInput } from '../../domain/oauth/client-auth.ts';
import { oauthError } from '../../domain/oauth/errors.ts';
import type { App } from '../types.ts';
import { registerOAuthFormParser } from './form.ts';

export const TAG = 'oauth';
export const FORM_ONLY = 'the body must be application/x-www-form-urlencoded (RFC 6749 §3.2)';

/**
 * A plugin scope for OAuth endpoints: `formOnly` takes form bodies and refuses every other type as
 * invalid_request (the token endpoint); otherwise JSON or form. Every answer is no-store.
 */
export async function oauthEndpointScope(
  app: App,
  options: { formOnly: boolean },
  routes: (scope: App) => void | Promise<void>,
): Promise<void> {
  await app.register(async (plain: FastifyInstance) => {
    const scope = plain.withTypeProvider<ZodTypeProvider>() as unknown as App;
    if (options.formOnly) scope.removeAllContentTypeParsers();
    await registerOAuthFormParser(scope);
    if (options.formOnly)
      scope.addContentTypeParser('*', (_request, _payload, done) => done(oauthError('invalid_request', FORM_ONLY), undefined));
    scope.addHook('onRequest', async (_request, reply) => {
      void reply.header('cache-control', 'no-store');
      void reply.header('pragma', 'no-cache');
    });
    // RFC 6749 §5.2: a client that authenticated with HTTP Basic and failed is challenged for Basic.
    scope.addHook('onError', async (_request, reply, error) => {
      if (error instanceof DomainError && error.extra?.basic_auth)
        void reply.header('www-authenticate', 'Basic realm="parley", charset="UTF-8"');
    });
    await routes(scope);
  });
}

function header(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** The client credentials a request carries (Authorization header, client_id, client_secret). */
export function clientAuthOf(
  request: FastifyRequest,
  body: { client_id?: string; client_secret?: string } | null | undefined,
): ClientAuthInput {
  const authorization = header(request, 'authorization');
  return {
    // A bearer or API key caller is not a client authenticating.
    authorization: authorization !== undefined && /^Basic\s/i.test(authorization) ? authorization : undefined,
    clientId: body?.client_id,
    clientSecret: body?.client_secret,
  };
}
