/**
 * A signed-in user's own account (dashboard sessions only): change the name and email, change the
 * password. The current password is a login attempt (the login throttle counts it); after a new
 * email or password the user's other sessions end, the one that asked stays.
 */
import { z } from 'zod';
import { changePassword, MAX_EMAIL_LENGTH, MAX_NAME_LENGTH, updateAccount, type AccountDeps } from '../../domain/users/accounts.ts';
import { invalid } from '../../domain/errors.ts';
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from '../../domain/users/passwords.ts';
import { actorOf } from '../auth/actor.ts';
import type { App } from '../types.ts';
import { errorResponses } from '../errors.ts';
import { inputFrom } from '../input-location.ts';
import { dataOf } from '../schemas.ts';
import { presentUser } from './auth.presenters.ts';
import { throttledLogin, UserSessionRecordSchema, userActor } from './auth.ts';

/** A password as a new one is checked: the rules' lengths (the rest is checked by the domain). */
export const NewPasswordSchema = z
  .string()
  .min(PASSWORD_MIN_LENGTH)
  .max(PASSWORD_MAX_LENGTH)
  .meta({ description: `At least ${PASSWORD_MIN_LENGTH} characters, not the email address`, example: 'a long passphrase of yours' });

const CurrentPasswordSchema = z
  .string()
  .min(1)
  .max(PASSWORD_MAX_LENGTH)
  .meta({ description: 'Your password now', example: 'correct horse battery staple' });

const AccountChangeSchema = z
  .object({
    name: z.string().min(1).max(MAX_NAME_LENGTH).optional().meta({ example: 'Ana Souza' }),
    email: z.string().min(3).max(MAX_EMAIL_LENGTH).optional().meta({ example: 'ana@example.com' }),
    current_password: CurrentPasswordSchema.optional().meta({ description: 'Required when the email changes' }),
  })
  .meta({ id: 'AccountChange' });

const PasswordChangeSchema = z
  .object({ current_password: CurrentPasswordSchema, new_password: NewPasswordSchema })
  .meta({ id: 'PasswordChange' });

const PasswordChangedSchema = z
  .object({ ended_sessions: z.number().int().meta({ description: 'How many of your other sessions were signed out', example: 2 }) })
  .meta({ id: 'PasswordChanged' });

export type PasswordChangedRecord = z.infer<typeof PasswordChangedSchema>;
export type AccountChangeRequest = z.input<typeof AccountChangeSchema>;

const THROTTLE_NOTE =
  'A wrong current password counts as a failed login for your email and your address (403 naming `/current_password`); once the login throttle holds, every attempt answers 429 with Retry-After until the wait is over.';

export async function registerAccountRoutes(app: App, deps: AccountDeps) {
  app.patch(
    '/v1/auth/account',
    {
      config: { auth: { sessionOnly: true } },
      schema: {
        tags: ['auth'],
        summary: 'Change your name or email',
        description: `Changes the signed-in user's name and/or email. A new email needs \`current_password\` and is not verified yet; an email another account uses is a 409 naming \`/email\`. After a new email, your other sessions end (this one stays) and unused password-reset links stop working. ${THROTTLE_NOTE}`,
        security: [{ session: [] }],
        body: AccountChangeSchema,
        response: { 200: dataOf(UserSessionRecordSchema), ...errorResponses([400, 401, 403, 409, 429]) },
      },
    },
    async (request, reply) => {
      const { name, email, current_password: currentPassword } = request.body;
      if (name === undefined && email === undefined)
        throw invalid('nothing to change: send name or email', [{ pointer: '/', location: 'body', message: 'needs name or email' }]);
      const result = await inputFrom(
        'body',
        updateAccount(deps, userActor(actorOf(request)), { name, email, currentPassword, ip: request.ip }),
      );
      if ('throttled' in result) throw throttledLogin(reply, result, 'failed password checks');
      return { data: presentUser(result) };
    },
  );

  app.post(
    '/v1/auth/password',
    {
      config: { auth: { sessionOnly: true } },
      schema: {
        tags: ['auth'],
        summary: 'Change your password',
        description: `Sets a new password (at least ${PASSWORD_MIN_LENGTH} characters, not your email) after checking the current one. Your other sessions end (this one stays) and unused password-reset links stop working. ${THROTTLE_NOTE}`,
        security: [{ session: [] }],
        body: PasswordChangeSchema,
        response: { 200: dataOf(PasswordChangedSchema), ...errorResponses([400, 401, 403, 429]) },
      },
    },
    async (request, reply) => {
      const result = await inputFrom(
        'body',
        changePassword(deps, userActor(actorOf(request)), {
          currentPassword: request.body.current_password,
          newPassword: request.body.new_password,
          ip: request.ip,
        }),
      );
      if ('throttled' in result) throw throttledLogin(reply, result, 'failed password checks');
      return { data: { ended_sessions: result.endedSessions } };
    },
  );
}
