/** The applications the signed-in user authorized (their OAuth grants), and revoking one: dashboard session only. */
import { z } from 'zod';
import { listUserAuthorizations, revokeUserAuthorization, type AuthorizationDeps } from '../../domain/oauth/authorizations.ts';
import { PERMISSIONS } from '../../domain/permissions.ts';
import { actorOf } from '../auth/actor.ts';
import type { App } from '../types.ts';
import { errorResponses } from '../errors.ts';
import { OAuthClientSummarySchema } from '../oauth/consent.ts';
import { listOf, PageQuerySchema, PathId } from '../schemas.ts';
import { userActor } from './auth.ts';
import { presentAuthorization } from './authorizations.presenters.ts';

export const OAuthAuthorizationSchema = z
  .object({
    id: z.uuid().meta({ description: 'The grant: revoke it with DELETE /v1/auth/authorizations/{id}' }),
    client: OAuthClientSummarySchema,
    scopes: z.array(z.enum(PERMISSIONS)),
    organizations: z
      .array(z.object({ id: z.uuid(), name: z.string() }))
      .meta({ description: 'The organizations the application may reach' }),
    created_at: z.string().meta({ format: 'date-time', description: 'When the user approved it' }),
    last_used_at: z.string().nullable().meta({ format: 'date-time' }),
  })
  .meta({ id: 'OAuthAuthorization' });

export async function registerAuthorizationRoutes(app: App, services: AuthorizationDeps & { forget: () => void }) {
  const { forget, ...deps } = services;
  app.get(
    '/v1/auth/authorizations',
    {
      config: { auth: { sessionOnly: true } },
      schema: {
        tags: ['auth'],
        summary: 'The applications you authorized',
        description:
          'Your OAuth grants that can still be used (not revoked, with a token not yet expired), newest first: the application, the scopes and the organizations it may reach. Signing in again revokes none of them.',
        security: [{ session: [] }],
        querystring: PageQuerySchema,
        response: { 200: listOf(OAuthAuthorizationSchema), ...errorResponses([400, 401, 403]) },
      },
    },
    async (request) => {
      const page = await listUserAuthorizations(deps, userActor(actorOf(request)), request.query);
      return { data: page.items.map(presentAuthorization), meta: { next_cursor: page.nextCursor } };
    },
  );

  app.delete(
    '/v1/auth/authorizations/:grantID',
    {
      config: { auth: { sessionOnly: true } },
      schema: {
        tags: ['auth'],
        summary: 'Revoke an application you authorized',
        description:
          "Revokes the grant and every access and refresh token it issued: the application's next request with them is refused. Another user's grant, or one already revoked, answers 404.",
        security: [{ session: [] }],
        params: z.object({ grantID: PathId }),
        response: { 204: z.null().describe('Revoked'), ...errorResponses([400, 401, 403, 404]) },
      },
    },
    async (request, reply) => {
      await revokeUserAuthorization(deps, userActor(actorOf(request)), { grantId: request.params.grantID });
      // Other processes hear of it from the database (a trigger NOTIFYs); this one forgets now.
      forget();
      return reply.code(204).send(null);
    },
  );
}
