/**
 * Open sign-up: whether it is open (for the dashboard's sign-in page), and POST /v1/auth/signup,
 * which makes a user, their own organization and a session, and sets the cookie a login sets.
 */
import { z } from 'zod';
import type { Config } from '../../config.ts';
import { MAX_EMAIL_LENGTH, MAX_NAME_LENGTH } from '../../domain/users/accounts.ts';
import { signUp, SIGNUP_CLOSED, type SignupDeps } from '../../domain/users/signup.ts';
import { SESSION_COOKIE } from '../auth/authenticate.ts';
import type { App } from '../types.ts';
import { errorResponses } from '../errors.ts';
import { inputFrom } from '../input-location.ts';
import { dataOf } from '../schemas.ts';
import { NewPasswordSchema } from './account.ts';
import { presentUser } from './auth.presenters.ts';
import { loginRateLimit, loginThrottleOf, setSessionCookies, throttledLogin, UserSessionRecordSchema } from './auth.ts';

const SignupBodySchema = z
  .object({
    name: z.string().min(1).max(MAX_NAME_LENGTH).meta({ example: 'Ana Souza' }),
    email: z.string().min(3).max(MAX_EMAIL_LENGTH).meta({ example: 'ana@example.com' }),
    password: NewPasswordSchema,
    organization_name: z.string().min(1).max(MAX_NAME_LENGTH).meta({ example: 'Acme GmbH' }),
  })
  .meta({ id: 'Signup' });

const SignupStateSchema = z
  .object({ open: z.boolean().meta({ description: 'Whether POST /v1/auth/signup takes new accounts (SIGNUP=open)', example: false }) })
  .meta({ id: 'SignupState' });

const SignedUpSchema = z
  .object({ user: UserSessionRecordSchema, organization_id: z.uuid().meta({ description: 'The new organization, owned by the new user' }) })
  .meta({ id: 'SignedUp' });

export type SignupStateRecord = z.infer<typeof SignupStateSchema>;
export type SignedUpRecord = z.infer<typeof SignedUpSchema>;

export type SignupServices = Omit<SignupDeps, 'throttle' | 'ttlHours' | 'signup'> & {
  settings: Pick<Config, 'signup' | 'secureCookies' | 'sessionTtlHours' | 'loginThrottle' | 'loginRateLimitPerMinute'>;
};

export async function registerSignupRoutes(app: App, services: SignupServices) {
  const { settings, ...rest } = services;
  const deps: SignupDeps = { ...rest, signup: settings.signup, ttlHours: settings.sessionTtlHours, throttle: loginThrottleOf(settings) };

  app.get(
    '/v1/auth/signup',
    {
      config: { auth: { public: true } },
      schema: {
        tags: ['auth'],
        summary: 'Is sign-up open',
        description:
          'Whether anyone may create an account and organization here (SIGNUP=open) or only invited people (closed, the default).',
        security: [],
        response: { 200: dataOf(SignupStateSchema) },
      },
    },
    async () => ({ data: { open: settings.signup === 'open' } }),
  );

  app.post(
    '/v1/auth/signup',
    {
      config: { auth: { public: true }, ...loginRateLimit(settings, 'signup') },
      schema: {
        tags: ['auth'],
        summary: 'Sign up',
        description:
          `Creates a user, their own organization (they are its owner) and a session, and sets the \`${SESSION_COOKIE}\` cookie as POST /v1/auth/login does. ` +
          `Only when the server runs with SIGNUP=open; otherwise 403 (\`${SIGNUP_CLOSED}\`). An email another account uses is a 409 naming \`/email\`. ` +
          'Each sign-up counts against the login throttle of the address and of the email (429 with Retry-After once it holds).',
        security: [],
        body: SignupBodySchema,
        response: { 201: dataOf(SignedUpSchema), ...errorResponses([400, 403, 409, 429]) },
      },
    },
    async (request, reply) => {
      const { name, email, password, organization_name: organizationName } = request.body;
      const result = await inputFrom(
        'body',
        signUp(deps, { name, email, password, organizationName, ip: request.ip, userAgent: request.headers['user-agent'] }),
      );
      if ('throttled' in result) throw throttledLogin(reply, result, 'attempts');
      setSessionCookies(reply, { token: result.token, expiresAt: result.expiresAt }, settings.secureCookies);
      return reply.code(201).send({ data: { user: presentUser(result.user), organization_id: result.organizationId } });
    },
  );
}
