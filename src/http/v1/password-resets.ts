/**
 * Password-reset links: an owner or admin makes a one-time link for a member (shown once, and
 * mailed when SMTP is configured), and anyone holding a link's token sets a new password with it.
 */
import { z } from 'zod';
import type { Config } from '../../config.ts';
import type { SendMail } from '../../lib/mail.ts';
import { createPasswordReset, redeemPasswordReset, type PasswordResetDeps } from '../../domain/users/password-resets.ts';
import { actorOf } from '../auth/actor.ts';
import type { App } from '../types.ts';
import { errorResponses, HttpError } from '../errors.ts';
import { inputFrom } from '../input-location.ts';
import { dataOf, PathId } from '../schemas.ts';
import { NewPasswordSchema } from './account.ts';
import { loginRateLimit } from './auth.ts';

const PasswordResetLinkSchema = z
  .object({
    user_id: z.uuid(),
    email: z.string().meta({ description: 'Whose password the link resets' }),
    url: z.string().meta({
      description: 'The one-time link, shown only in this answer: the token is in the fragment, so it never reaches a server log',
    }),
    expires_at: z.string().meta({ format: 'date-time' }),
    mailed: z.boolean().meta({
      description:
        'Whether the link is also being mailed to the member (SMTP_URL is set); a failed mail is logged and does not fail the request',
    }),
  })
  .meta({ id: 'PasswordResetLink' });
export type PasswordResetLinkRecord = z.infer<typeof PasswordResetLinkSchema>;

const RedeemBodySchema = z
  .object({
    token: z
      .string()
      .min(1)
      .max(200)
      .meta({ description: 'The token of the link (after `#token=`)', example: 'plp_Q2xvdWR5IHdpdGggYSBjaGFuY2Ugb2YgcmFpbg' }),
    new_password: NewPasswordSchema,
  })
  .meta({ id: 'PasswordReset' });

export type PasswordResetServices = Omit<PasswordResetDeps, 'ttlMs'> & {
  settings: Pick<Config, 'appUrl' | 'passwordResetTtlMs' | 'loginThrottle' | 'loginRateLimitPerMinute'>;
  sendMail: SendMail | undefined;
};

export async function registerPasswordResetRoutes(app: App, services: PasswordResetServices) {
  const { settings, sendMail, ...deps } = services;
  const ttlMinutes = Math.round(settings.passwordResetTtlMs / 60_000);
  // A token is 32 random bytes: the throttle only keeps a flood of guesses from costing the database.
  const guesses = {
    freeAttempts: settings.loginThrottle.addressFreeAttempts,
    baseDelayMs: 1000,
    maxDelayMs: settings.loginThrottle.maxDelayMs,
    forgiveEveryMs: 60_000,
  };

  app.post(
    '/v1/organizations/:organizationID/members/:userID/password-reset',
    {
      config: { auth: { permission: 'members:write', organizationParam: 'organizationID' }, idempotency: 'no-replay' },
      schema: {
        tags: ['organizations'],
        summary: 'Make a password-reset link for a member',
        description:
          `A one-time link (\`{APP_URL}/reset-password#token=…\`) that lets the member set a new password, valid ${ttlMinutes} minutes; it is shown only in this answer, and mailed to the member when SMTP_URL is set. ` +
          "Only an owner resets an owner's password. A person who also belongs to another organization is refused (403): their account is not this organization's to hand over. " +
          'Using the link ends all their sessions; a newer password voids older unused links.',
        params: z.object({ organizationID: PathId, userID: PathId }),
        response: { 201: dataOf(PasswordResetLinkSchema), ...errorResponses([400, 401, 403, 404]) },
      },
    },
    async (request, reply) => {
      const reset = await createPasswordReset(
        { ...deps, ttlMs: settings.passwordResetTtlMs, mail: { appUrl: settings.appUrl, send: sendMail } },
        actorOf(request),
        {
          organizationId: request.params.organizationID,
          userId: request.params.userID,
        },
      );
      return reply.code(201).send({
        data: {
          user_id: reset.userId,
          email: reset.email,
          url: reset.url,
          expires_at: reset.expiresAt.toISOString(),
          mailed: reset.mailed,
        },
      });
    },
  );

  app.post(
    '/v1/auth/password-reset',
    {
      config: { auth: { public: true }, ...loginRateLimit(settings, 'password-reset') },
      schema: {
        tags: ['auth'],
        summary: 'Set a new password with a reset link',
        description:
          'Takes the token of a password-reset link and the new password. A link works once: used again, voided by a newer password, or expired, it answers 410; an unknown token 404. ' +
          'Every session of the user ends (sign in again). Tokens presented from one address are throttled (429 with Retry-After).',
        security: [],
        body: RedeemBodySchema,
        response: { 204: z.null().describe('Password set; sign in with it'), ...errorResponses([400, 404, 410, 429]) },
      },
    },
    async (request, reply) => {
      const result = await inputFrom(
        'body',
        redeemPasswordReset(
          { ...deps, throttle: guesses },
          { token: request.body.token, newPassword: request.body.new_password, ip: request.ip },
        ),
      );
      if ('throttled' in result) {
        void reply.header('retry-after', String(result.retryAfterSeconds));
        throw new HttpError(
          'rate_limited',
          `too many reset tokens from this address; try again in ${result.retryAfterSeconds} s (at ${result.retryAt.toISOString()})`,
        );
      }
      return reply.code(204).send(null);
    },
  );
}
