/**
 * The device flow's user-facing half (RFC 8628): POST /v1/oauth/device, which devices call (JSON as
 * the spec says, or a form as RFC 8628 clients send; OAuth error bodies), and the JSON routes of the
 * dashboard's verification page (session only, JSON only).
 */
import type { FastifyReply } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  approveDeviceAuthorization,
  denyDeviceAuthorization,
  lookupDeviceAuthorization,
  startDeviceAuthorization,
  USER_CODE_THROTTLE,
  type DeviceDecision,
  type DeviceDeps,
  type DeviceFlowSettings,
  type UserCodeThrottled,
} from '../../domain/oauth/device-authorizations.ts';
import { AUTHORIZE_LIMITS } from '../../domain/oauth/authorization-requests.ts';
import { GRANT_TYPES } from '../../domain/oauth/vocabulary.ts';
import { actorOf } from '../auth/actor.ts';
import type { App } from '../types.ts';
import { errorResponses, HttpError } from '../errors.ts';
import { inputFrom } from '../input-location.ts';
import { dataOf } from '../schemas.ts';
import { userActor } from '../v1/auth.ts';
import { consentShape, OAuthClientSummarySchema, OrganizationIdsSchema, presentConsent } from './consent.ts';
import { registerOAuthFormParser } from './form.ts';

const TAG = 'oauth';

const DeviceRequestSchema = z
  .object({
    client_id: z.string().min(1).max(AUTHORIZE_LIMITS.clientId).meta({ example: 'pcl_8mZk2xQv7LrT' }),
    scope: z.string().max(AUTHORIZE_LIMITS.scope).optional().meta({
      description: 'Space-delimited scopes, each registered for the client; absent or empty: all it registered',
      example: 'channels:read messages:read',
    }),
  })
  .meta({ id: 'DeviceAuthorizationRequest' });

const DeviceAuthorizationSchema = z
  .object({
    device_code: z.string().meta({ description: 'What the device polls the token endpoint with. Shown once; only a hash is stored.' }),
    user_code: z.string().meta({ description: 'What the person types on the verification page: 8 letters, shown as XXXX-XXXX' }),
    verification_uri: z.string().meta({ description: 'The verification page on the dashboard (APP_URL/device)' }),
    verification_uri_complete: z.string().meta({ description: 'The verification page with the user code filled in' }),
    expires_in: z.number().int().meta({ description: 'Seconds until the codes expire' }),
    interval: z.number().int().meta({ description: 'Seconds the device waits between polls' }),
  })
  .meta({ id: 'DeviceAuthorization' });

const UserCodeSchema = z
  .string()
  .min(1)
  .max(32)
  .meta({ description: 'The code the device shows (case, dashes and spaces do not matter)', example: 'BCDF-GHJK' });

const LookupBodySchema = z.object({ user_code: UserCodeSchema }).meta({ id: 'DeviceUserCode' });
const ApproveBodySchema = z
  .object({ user_code: UserCodeSchema, organization_ids: OrganizationIdsSchema })
  .meta({ id: 'ApproveDeviceAuthorization' });

const DeviceVerificationSchema = z
  .object({ user_code: z.string().meta({ description: 'The code, as XXXX-XXXX' }), ...consentShape })
  .meta({ id: 'DeviceVerification' });

const DeviceDecisionSchema = z
  .object({ user_code: z.string(), status: z.enum(['approved', 'denied']), client: OAuthClientSummarySchema })
  .meta({ id: 'DeviceDecision' });

export type DeviceVerificationRecord = z.infer<typeof DeviceVerificationSchema>;
export type DeviceDecisionRecord = z.infer<typeof DeviceDecisionSchema>;

function presentDecision(decision: DeviceDecision): z.infer<typeof DeviceDecisionSchema> {
  return {
    user_code: decision.userCode,
    status: decision.status,
    client: { client_id: decision.client.clientId, name: decision.client.name },
  };
}

/** A throttled guess becomes a 429 with Retry-After; anything else passes through. */
function unlessThrottled<T extends object>(reply: FastifyReply, result: T | UserCodeThrottled): T {
  if (!('throttled' in result)) return result;
  void reply.header('retry-after', String(result.retryAfterSeconds));
  const whose = result.throttled === 'user' ? 'your account' : 'this address';
  throw new HttpError(
    'rate_limited',
    `too many wrong codes from ${whose}; try again in ${result.retryAfterSeconds} s (at ${result.retryAt.toISOString()})`,
  );
}

/** What the device routes use: the database, the clock, and the verification address and code lifetimes from the settings. */
export type DeviceServices = DeviceDeps & { settings: DeviceFlowSettings };

const GUESSES = `A code is an attempt: after ${USER_CODE_THROTTLE.user.freeAttempts} wrong codes from one user (or ${USER_CODE_THROTTLE.address.freeAttempts} from one address) each further one must wait twice as long as the last, up to ${USER_CODE_THROTTLE.user.maxDelayMs / 60_000} minutes (429 with Retry-After). A code another user decided is unknown (404); 409 once decided, 410 once expired.`;

export async function registerDeviceRoutes(app: App, services: DeviceServices) {
  const { settings, ...deps } = services;

  // The device endpoint takes forms too, in a scope of its own: the session routes below stay JSON only.
  await app.register(async (plain) => {
    const scope = plain.withTypeProvider<ZodTypeProvider>();
    await registerOAuthFormParser(scope);
    scope.post(
      '/v1/oauth/device',
      {
        config: { auth: { public: true }, errorShape: 'oauth' },
        schema: {
          tags: [TAG],
          summary: 'Start the device flow',
          description:
            'RFC 8628 device authorization request, as JSON `{client_id, scope}` or form-encoded. The person opens `verification_uri_complete` (or `verification_uri` and types `user_code`), signs in, chooses organizations and approves; ' +
            `meanwhile the device polls POST /v1/oauth/token with \`grant_type=${GRANT_TYPES.deviceCode}\` every \`interval\` seconds. ` +
            'Errors are OAuth bodies `{error, error_description}`: `invalid_client` (401) for an unknown client_id, `unauthorized_client` for a client not registered for the device grant, `invalid_scope`, ' +
            '`invalid_request` for a missing, oversized, repeated or malformed parameter or another content type (415).',
          security: [],
          consumes: ['application/json', 'application/x-www-form-urlencoded'],
          body: DeviceRequestSchema,
          response: { 200: DeviceAuthorizationSchema, ...errorResponses([400, 401], 'oauth') },
        },
      },
      async (request, reply) => {
        const started = await startDeviceAuthorization(
          { ...deps, settings },
          { clientId: request.body.client_id, scope: request.body.scope },
        );
        void reply.header('cache-control', 'no-store');
        return {
          device_code: started.deviceCode,
          user_code: started.userCode,
          verification_uri: started.verificationUri,
          verification_uri_complete: started.verificationUriComplete,
          expires_in: started.expiresIn,
          interval: started.interval,
        };
      },
    );
  });

  const session = { auth: { sessionOnly: true } } as const;

  app.post(
    '/v1/oauth/device/lookup',
    {
      config: session,
      schema: {
        tags: [TAG],
        summary: 'Look up a device by its user code, for the verification page',
        description: `The client asking, the scopes in words and the signed-in user's organizations to choose from. ${GUESSES}`,
        security: [{ session: [] }],
        body: LookupBodySchema,
        response: { 200: dataOf(DeviceVerificationSchema), ...errorResponses([400, 404, 409, 410, 429]) },
      },
    },
    async (request, reply) => {
      const consent = unlessThrottled(
        reply,
        await inputFrom(
          'body',
          lookupDeviceAuthorization(deps, userActor(actorOf(request)), { userCode: request.body.user_code, address: request.ip }),
        ),
      );
      return { data: { user_code: consent.userCode, ...presentConsent(consent) } };
    },
  );

  app.post(
    '/v1/oauth/device/approve',
    {
      config: session,
      schema: {
        tags: [TAG],
        summary: 'Approve a device',
        description: `Approves the device for the chosen organizations (403 for one the user is not a member of); its next poll of the token endpoint gets the token. A device is decided once: of two approvals at once one wins, the other gets 409. ${GUESSES}`,
        security: [{ session: [] }],
        body: ApproveBodySchema,
        response: { 200: dataOf(DeviceDecisionSchema), ...errorResponses([400, 403, 404, 409, 410, 429]) },
      },
    },
    async (request, reply) => {
      const decision = await inputFrom(
        'body',
        approveDeviceAuthorization(deps, userActor(actorOf(request)), {
          userCode: request.body.user_code,
          address: request.ip,
          organizationIds: request.body.organization_ids,
        }),
      );
      return { data: presentDecision(unlessThrottled(reply, decision)) };
    },
  );

  app.post(
    '/v1/oauth/device/deny',
    {
      config: session,
      schema: {
        tags: [TAG],
        summary: 'Deny a device',
        description: `The device's next poll of the token endpoint gets access_denied. ${GUESSES}`,
        security: [{ session: [] }],
        body: LookupBodySchema,
        response: { 200: dataOf(DeviceDecisionSchema), ...errorResponses([400, 404, 409, 410, 429]) },
      },
    },
    async (request, reply) => {
      const decision = await inputFrom(
        'body',
        denyDeviceAuthorization(deps, userActor(actorOf(request)), { userCode: request.body.user_code, address: request.ip }),
      );
      return { data: presentDecision(unlessThrottled(reply, decision)) };
    },
  );
}
