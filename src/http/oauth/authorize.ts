/**
 * The authorization code flow's user-facing half: GET /v1/oauth/authorize (the browser arrives from
 * the client) and the JSON routes of the dashboard's consent page (session only).
 */
import { z } from 'zod';
import type { Config } from '../../config.ts';
import {
  approveAuthorizationRequest,
  AUTHORIZATION_REQUEST_TTL_MS,
  AUTHORIZE_LIMITS,
  describeAuthorizationRequest,
  denyAuthorizationRequest,
  startAuthorization,
  type AuthorizationConsent,
  type AuthorizationDeps,
  type QueryValue,
} from '../../domain/oauth/authorization-requests.ts';
import { actorOf } from '../auth/actor.ts';
import type { App } from '../types.ts';
import { errorResponses } from '../errors.ts';
import { inputFrom } from '../input-location.ts';
import { dataOf, PathId } from '../schemas.ts';
import { userActor } from '../v1/auth.ts';
import { consentShape, OrganizationIdsSchema, presentConsent } from './consent.ts';
import { authorizationErrorPage } from './error-page.ts';

const TAG = 'oauth';

const AuthorizeQuerySchema = z.object({
  response_type: z.string().max(100).optional().meta({ description: 'Must be `code`', example: 'code' }),
  client_id: z
    .string()
    .max(AUTHORIZE_LIMITS.clientId)
    .optional()
    .meta({ description: 'The registered client (required)', example: 'pcl_8mZk2xQv7LrT' }),
  redirect_uri: z
    .string()
    .max(AUTHORIZE_LIMITS.redirectUri)
    .optional()
    .meta({ description: "One of the client's registered redirect URIs, exactly (required)", example: 'http://127.0.0.1:53682/callback' }),
  scope: z.string().max(AUTHORIZE_LIMITS.scope).optional().meta({
    description: 'Space-delimited scopes, each registered for the client; empty: all it registered',
    example: 'channels:read messages:read',
  }),
  state: z
    .string()
    .max(AUTHORIZE_LIMITS.state)
    .optional()
    .meta({ description: 'Returned unchanged with the answer; the client checks it', example: 'af0ifjsldkj' }),
  code_challenge: z.string().max(AUTHORIZE_LIMITS.codeChallenge).optional().meta({
    description: 'PKCE: base64url of the SHA-256 of the code verifier (43 characters); required for public clients',
    example: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
  }),
  code_challenge_method: z.string().max(100).optional().meta({ description: 'Must be `S256` (`plain` is refused)', example: 'S256' }),
});

const AuthorizationRequestSchema = z
  .object({ id: z.uuid(), ...consentShape, redirect_uri: z.string().meta({ description: 'Where the browser goes after the decision' }) })
  .meta({ id: 'OAuthAuthorizationRequest' });

const ApproveBodySchema = z.object({ organization_ids: OrganizationIdsSchema }).meta({ id: 'ApproveOAuthAuthorization' });

const RedirectSchema = z
  .object({
    redirect_to: z.string().meta({
      description: "The client's redirect_uri with the answer (code and state, or error=access_denied and state): send the browser there",
    }),
  })
  .meta({ id: 'OAuthRedirect' });

export type OAuthAuthorizationRequestRecord = z.infer<typeof AuthorizationRequestSchema>;
export type OAuthRedirectRecord = z.infer<typeof RedirectSchema>;

function presentRequest(request: AuthorizationConsent): z.infer<typeof AuthorizationRequestSchema> {
  return { id: request.requestId, ...presentConsent(request), redirect_uri: request.redirectUri };
}

/** What the authorization routes use: the database, the clock, and the addresses and code lifetime from the settings. */
export type AuthorizeServices = AuthorizationDeps & { settings: Pick<Config, 'appUrl' | 'baseUrl'> & { codeTtlMs: number } };

export async function registerAuthorizeRoutes(app: App, services: AuthorizeServices) {
  const { settings, ...base } = services;
  const deps = { ...base, issuer: settings.baseUrl };
  const consentPage = `${settings.appUrl.replace(/\/+$/, '')}/oauth/authorize`;

  app.get(
    '/v1/oauth/authorize',
    {
      config: { auth: { public: true } },
      // A HEAD request (a link checker, a prefetch) must not store a pending request.
      exposeHeadRoute: false,
      // The handler checks the parameters itself: whether a problem is shown or sent back to the client depends on which.
      attachValidation: true,
      schema: {
        tags: [TAG],
        summary: 'Start the authorization code flow',
        description:
          'Opened in the browser by the client (RFC 6749 §4.1, PKCE per RFC 7636). An unknown `client_id`, a `redirect_uri` that is missing or not exactly one the client registered, or a client not registered for `authorization_code` ' +
          'show an HTML error page (400) and never redirect. Once the client and redirect_uri are right, every other problem goes back to the redirect_uri (303) with `error`, `error_description`, `state` and `iss` (RFC 9207): ' +
          '`unsupported_response_type` (response_type not `code`), `invalid_scope` (an unknown scope or one the client is not registered for; an empty scope means all the client registered), ' +
          '`invalid_request` (a missing response_type; a public client without `code_challenge`; `code_challenge_method` other than `S256`, `plain` included; a code_challenge that is not 43 base64url characters; a parameter given twice). ' +
          `A valid request is stored for ${AUTHORIZATION_REQUEST_TTL_MS / 60_000} minutes and answered 303 to the dashboard's consent page (\`${consentPage}?request=<id>\`), where the user signs in if needed, ` +
          'chooses the organizations the client may reach, and approves (the browser then goes to the redirect_uri with `code`, `state` and `iss`) or denies (`error=access_denied`).',
        security: [],
        querystring: AuthorizeQuerySchema,
        response: {
          303: z.null().describe('See Other: `Location` is the consent page, or the redirect_uri with the error'),
          400: {
            description: 'An HTML page naming the problem (unknown client, wrong redirect_uri): nothing is redirected',
            content: { 'text/html': { schema: z.string() } },
          },
        },
      },
    },
    async (request, reply) => {
      const query = request.query as Record<string, QueryValue>;
      const result = await startAuthorization(deps, {
        responseType: query.response_type,
        clientId: query.client_id,
        redirectUri: query.redirect_uri,
        scope: query.scope,
        state: query.state,
        codeChallenge: query.code_challenge,
        codeChallengeMethod: query.code_challenge_method,
      });
      void reply.header('cache-control', 'no-store');
      switch (result.kind) {
        case 'error_page':
          return reply.code(400).type('text/html; charset=utf-8').send(authorizationErrorPage(result.problem));
        case 'redirect':
          return reply.redirect(result.location, 303);
        case 'consent':
          return reply.redirect(`${consentPage}?request=${result.requestId}`, 303);
        default:
          return result satisfies never;
      }
    },
  );

  const session = { auth: { sessionOnly: true } } as const;
  const params = z.object({ requestID: PathId });

  app.get(
    '/v1/oauth/authorization-requests/:requestID',
    {
      config: session,
      schema: {
        tags: [TAG],
        summary: 'A pending authorization request, for the consent page',
        description:
          "The client, the scopes in words, the redirect_uri and the signed-in user's organizations to choose from. 404 for an unknown request (or one another user decided), 409 once decided, 410 once expired.",
        security: [{ session: [] }],
        params,
        response: { 200: dataOf(AuthorizationRequestSchema), ...errorResponses([404, 409, 410]) },
      },
    },
    async (request) => ({
      data: presentRequest(await describeAuthorizationRequest(deps, userActor(actorOf(request)), { requestId: request.params.requestID })),
    }),
  );

  app.post(
    '/v1/oauth/authorization-requests/:requestID/approve',
    {
      config: session,
      schema: {
        tags: [TAG],
        summary: 'Approve an authorization request',
        description:
          `Approves it for the chosen organizations (403 for one the user is not a member of). The answer's \`redirect_to\` is the redirect_uri with a one-time \`code\` (valid ${Math.round(settings.codeTtlMs / 1000)} s), ` +
          '`state` and `iss`: send the browser there. A request is decided once: of two approvals at once one wins, the other gets 409.',
        security: [{ session: [] }],
        params,
        body: ApproveBodySchema,
        response: { 200: dataOf(RedirectSchema), ...errorResponses([400, 403, 404, 409, 410]) },
      },
    },
    async (request) => {
      const result = await inputFrom(
        'body',
        approveAuthorizationRequest({ ...deps, codeTtlMs: settings.codeTtlMs }, userActor(actorOf(request)), {
          requestId: request.params.requestID,
          organizationIds: request.body.organization_ids,
        }),
      );
      return { data: { redirect_to: result.redirectTo } };
    },
  );

  app.post(
    '/v1/oauth/authorization-requests/:requestID/deny',
    {
      config: session,
      schema: {
        tags: [TAG],
        summary: 'Deny an authorization request',
        description:
          "The answer's `redirect_to` is the redirect_uri with `error=access_denied`, `state` and `iss`: send the browser there.",
        security: [{ session: [] }],
        params,
        response: { 200: dataOf(RedirectSchema), ...errorResponses([404, 409, 410]) },
      },
    },
    async (request) => {
      const result = await denyAuthorizationRequest(deps, userActor(actorOf(request)), { requestId: request.params.requestID });
      return { data: { redirect_to: result.redirectTo } };
    },
  );
}
