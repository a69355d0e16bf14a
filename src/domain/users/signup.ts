/**
 * Open sign-up (SIGNUP=open): a new user, their own organization (they own it) and a session, as a
 * login would open. Each sign-up is charged to the login throttle of the address and of the email,
 * so neither guessing which emails have accounts (a taken one answers 409) nor making accounts in
 * bulk goes fast; a successful one forgets the email's count but not the address's.
 */
import { isUniqueViolation } from '../../db/errors.ts';
import { forbidden } from '../errors.ts';
import { createOrganization } from '../organizations/organizations.ts';
import { openSession, type LoginDeps, type LoginResult, type LoginThrottled } from '../sessions/sessions.ts';
import { settleAttempt, takeAttempt } from '../throttle/throttle.ts';
import { throttleKeys } from '../throttle/keys.ts';
import { assertEmailFree, emailTaken, normalizeEmail, normalizeName } from './accounts.ts';
import { assertPasswordRules } from './passwords.ts';
import { findUserById } from './users.ts';

export type SignupDeps = LoginDeps & { signup: 'open' | 'closed' };

export type SignupInput = { name: string; email: string; password: string; organizationName: string; ip: string; userAgent?: string };

export const SIGNUP_CLOSED = 'sign-up is closed on this server: ask an owner or admin of an organization for an invitation';

export async function signUp(deps: SignupDeps, input: SignupInput): Promise<(LoginResult & { organizationId: string }) | LoginThrottled> {
  if (deps.signup !== 'open') throw forbidden(SIGNUP_CLOSED);
  const name = normalizeName(input.name);
  const email = normalizeEmail(input.email);
  const organizationName = normalizeName(input.organizationName, '/organization_name');
  assertPasswordRules(input.password, '/password', { email });
  const addressKey = throttleKeys.loginAddress(input.ip);
  const accountKey = throttleKeys.loginAccount(email);
  const decision = await takeAttempt(deps, [
    { key: addressKey, policy: deps.throttle.address },
    { key: accountKey, policy: deps.throttle.account },
  ]);
  if (!decision.allowed) {
    return {
      throttled: decision.key === addressKey ? 'address' : 'account',
      retryAt: decision.retryAt,
      retryAfterSeconds: decision.retryAfterSeconds,
    };
  }
  await assertEmailFree(deps.db, email);
  const created = await deps.db
    .transaction((tx) =>
      createOrganization({ db: tx, clock: deps.clock }, { name: organizationName, owner: { email, name, password: input.password } }),
    )
    .catch((err: unknown) => {
      if (isUniqueViolation(err)) throw emailTaken();
      throw err;
    });
  await settleAttempt(deps, { forget: [accountKey], refund: [] });
  const user = await findUserById(deps.db, created.userId);
  if (!user) throw new Error('the new user vanished');
  const session = await openSession(deps, {
    userId: user.id,
    organizationId: created.organizationId,
    ip: input.ip,
    userAgent: input.userAgent,
  });
  return { user, organizationId: created.organizationId, ...session };
}
