/**
 * Invitations: owners and admins invite by email with a role (the one-time link is in the answer once,
 * and mailed when SMTP is configured), list and cancel pending ones; the link's page looks it up and
 * accepts it (public routes, throttled per address).
 */
import type { FastifyReply } from 'fastify';
import { z } from 'zod';
import {
  acceptInvitation,
  cancelInvitation,
  createInvitation,
  INVITATION_THROTTLE,
  INVITATION_TOKEN_PREFIX,
  listInvitations,
  lookupInvitation,
  type InvitationDeps,
  type InvitationSettings,
  type InvitationThrottled,
  type SendMail,
} from '../../domain/invitations/invitations.ts';
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from '../../domain/users/passwords.ts';
import { SESSION_COOKIE } from '../auth/authenticate.ts';
import { actorOf } from '../auth/actor.ts';
import type { App } from '../types.ts';
import { errorResponses, HttpError } from '../errors.ts';
import { inputFrom } from '../input-location.ts';
import { dataOf, listOf, PageQuerySchema, PathId } from '../schemas.ts';
import { setSessionCookies, userActor } from './auth.ts';
import { inPathOrganization, OrganizationParams, RoleSchema } from './organizations.ts';
import { presentInvitation } from './invitations.presenters.ts';

const TAG = 'organizations';

export const InvitationSchema = z
  .object({
    id: z.uuid(),
    email: z.string(),
    role: RoleSchema,
    invited_by_user_id: z.uuid().nullable().meta({ description: 'Null when an API key invited' }),
    created_at: z.string().meta({ format: 'date-time' }),
    expires_at: z.string().meta({ format: 'date-time' }),
  })
  .meta({ id: 'Invitation' });

export const CreatedInvitationSchema = InvitationSchema.extend({
  token: z.string().meta({ description: 'The one-time secret. Shown this once; only its hash is stored.' }),
  url: z.string().meta({
    description:
      'The one-time link to hand to the invitee: APP_URL/invitations#token=… (the secret is in the fragment, which no server logs)',
  }),
  mailed: z.boolean().meta({
    description: 'Whether the link is also being mailed (SMTP_URL is set); a failed mail is logged and does not fail the invitation',
  }),
}).meta({ id: 'CreatedInvitation' });

export const InvitationPreviewSchema = z
  .object({
    organization_name: z.string(),
    role: RoleSchema,
    email: z.string(),
    inviter_name: z.string().nullable(),
    account_exists: z
      .boolean()
      .meta({ description: 'Whether the email already has an account: sign in and accept, instead of signing up' }),
    expires_at: z.string().meta({ format: 'date-time' }),
  })
  .meta({ id: 'InvitationPreview' });

export const AcceptedInvitationSchema = z
  .object({
    organization_id: z.uuid(),
    user_id: z.uuid(),
    role: RoleSchema,
    created: z.boolean().meta({ description: 'Whether a new user was signed up (and signed in with the session cookie)' }),
  })
  .meta({ id: 'AcceptedInvitation' });

export type InvitationPreviewRecord = z.infer<typeof InvitationPreviewSchema>;
export type AcceptedInvitationRecord = z.infer<typeof AcceptedInvitationSchema>;

const TokenSchema = z
  .string()
  .min(1)
  .max(200)
  .meta({
    description: `The token from the link's fragment (${INVITATION_TOKEN_PREFIX}…)`,
    example: 'pli_Qm8vX2kR7tL0pZ4nW9cY3hJ6sB1dF5gA8eU2iO7kT0',
  });
const CreateBodySchema = z
  .object({ email: z.email().max(320).meta({ example: 'ana@example.com' }), role: RoleSchema.meta({ example: 'member' }) })
  .meta({ id: 'CreateInvitationRequest' });
const LookupBodySchema = z.object({ token: TokenSchema }).meta({ id: 'InvitationToken' });
const AcceptBodySchema = z
  .object({
    token: TokenSchema,
    name: z.string().trim().min(1).max(200).optional().meta({ description: 'Signing up: your name', example: 'Ana Lima' }),
    password: z
      .string()
      .min(1)
      .max(PASSWORD_MAX_LENGTH)
      .optional()
      .meta({ description: `Signing up: at least ${PASSWORD_MIN_LENGTH} characters` }),
  })
  .meta({ id: 'AcceptInvitationRequest' });

function unlessThrottled<T extends object>(reply: FastifyReply, result: T | InvitationThrottled): T {
  if (!('throttled' in result)) return result;
  void reply.header('retry-after', String(result.retryAfterSeconds));
  throw new HttpError(
    'rate_limited',
    `too many unknown invitation links from this address; try again in ${result.retryAfterSeconds} s (at ${result.retryAt.toISOString()})`,
  );
}

/** What the invitation routes use: the database, the clock, the link's lifetime and address, the mail sender when SMTP is set, and the session settings. */
export type InvitationServices = InvitationDeps & {
  settings: InvitationSettings & { sessionTtlHours: number; secureCookies: boolean };
  sendMail?: SendMail;
};

const THROTTLED = `Each unknown link is an attempt: after ${INVITATION_THROTTLE.freeAttempts} from one address each further one waits twice as long as the last, up to ${INVITATION_THROTTLE.maxDelayMs / 60_000} minutes (429 with Retry-After).`;

export async function registerInvitationRoutes(app: App, services: InvitationServices) {
  const { settings, sendMail, ...deps } = services;

  app.post(
    '/v1/organizations/:organizationID/invitations',
    {
      config: { ...inPathOrganization({ permission: 'members:write' }), idempotency: 'no-replay' },
      schema: {
        tags: [TAG],
        summary: 'Invite someone',
        description:
          `Owners and admins invite an email with a role (only an owner invites an owner). The answer holds the one-time link, shown this once; it expires after ${Math.round(settings.ttlMs / 3_600_000)} hours. ` +
          'With SMTP_URL set the link is also mailed, after the invitation is stored; a mail that fails is logged and does not fail the request. A new invitation for the same email replaces a pending one. An email that is already a member: 409 naming /email.',
        params: OrganizationParams,
        body: CreateBodySchema,
        response: { 201: dataOf(CreatedInvitationSchema), ...errorResponses([400, 401, 403, 404, 409]) },
      },
    },
    async (request, reply) => {
      const created = await inputFrom('body', createInvitation({ ...deps, settings, sendMail }, actorOf(request), request.body));
      return reply
        .code(201)
        .send({ data: { ...presentInvitation(created.row), token: created.token, url: created.url, mailed: created.mailed } });
    },
  );

  app.get(
    '/v1/organizations/:organizationID/invitations',
    {
      config: inPathOrganization({ permission: 'members:read' }),
      schema: {
        tags: [TAG],
        summary: 'List pending invitations',
        description:
          'Invitations not yet accepted, cancelled or expired, newest first (then id). Links are never shown again. Paginated: pass `meta.next_cursor` as `cursor` for the next page.',
        params: OrganizationParams,
        querystring: PageQuerySchema,
        response: { 200: listOf(InvitationSchema), ...errorResponses([400, 401, 403, 404]) },
      },
    },
    async (request) => {
      const page = await listInvitations(deps, actorOf(request), request.query);
      return { data: page.items.map(presentInvitation), meta: { next_cursor: page.nextCursor } };
    },
  );

  app.delete(
    '/v1/organizations/:organizationID/invitations/:invitationID',
    {
      config: inPathOrganization({ permission: 'members:write' }),
      schema: {
        tags: [TAG],
        summary: 'Cancel an invitation',
        description: 'Its link stops working at once (410 for whoever opens it).',
        params: z.object({ organizationID: PathId, invitationID: PathId }),
        response: { 204: z.null().describe('Cancelled'), ...errorResponses([400, 401, 403, 404]) },
      },
    },
    async (request, reply) => {
      await cancelInvitation(deps, actorOf(request), { invitationId: request.params.invitationID });
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/v1/invitations/lookup',
    {
      config: { auth: { public: true } },
      schema: {
        tags: [TAG],
        summary: 'Look up an invitation link',
        description: `What the invitation page shows: the organization, the role, the email invited, who invited, and whether that email already has an account. Unknown link: 404; accepted, cancelled or expired: 410. ${THROTTLED}`,
        security: [],
        body: LookupBodySchema,
        response: { 200: dataOf(InvitationPreviewSchema), ...errorResponses([400, 404, 410, 429]) },
      },
    },
    async (request, reply) => {
      const preview = unlessThrottled(
        reply,
        await inputFrom('body', lookupInvitation(deps, { token: request.body.token, address: request.ip })),
      );
      return {
        data: {
          organization_name: preview.organizationName,
          role: preview.role,
          email: preview.email,
          inviter_name: preview.inviterName,
          account_exists: preview.accountExists,
          expires_at: preview.expiresAt.toISOString(),
        },
      };
    },
  );

  app.post(
    '/v1/invitations/accept',
    {
      config: { auth: { public: true, optionalSession: true } },
      schema: {
        tags: [TAG],
        summary: 'Accept an invitation',
        description:
          `Signed in (session cookie): adds you to the organization; your email must be the invitation's (403 otherwise; 409 if already a member). Signed out: signs up a new user with \`name\` and \`password\` (at least ${PASSWORD_MIN_LENGTH} characters) and sets the \`${SESSION_COOKIE}\` session cookie, as login does; ` +
          `an email that already has an account answers 409: sign in, then accept. A link works once: accepted, cancelled or expired answers 410; unknown 404. ${THROTTLED}`,
        security: [],
        body: AcceptBodySchema,
        response: { 200: dataOf(AcceptedInvitationSchema), ...errorResponses([400, 403, 404, 409, 410, 429]) },
      },
    },
    async (request, reply) => {
      const actor = request.actor ? userActor(request.actor) : undefined;
      const accepted = unlessThrottled(
        reply,
        await inputFrom(
          'body',
          acceptInvitation({ ...deps, sessionTtlHours: settings.sessionTtlHours }, actor, {
            token: request.body.token,
            name: request.body.name,
            password: request.body.password,
            address: request.ip,
            userAgent: request.headers['user-agent'],
          }),
        ),
      );
      if (accepted.session) setSessionCookies(reply, accepted.session, settings.secureCookies);
      return {
        data: { organization_id: accepted.organizationId, user_id: accepted.userId, role: accepted.role, created: accepted.created },
      };
    },
  );
}
