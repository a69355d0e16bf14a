/** Password hashing with Argon2id (memory-hard). */
import { hash, verify } from '@node-rs/argon2';
import { invalid } from '../errors.ts';

const OPTIONS = { memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

export function hashPassword(password: string): Promise<string> {
  return hash(password, OPTIONS);
}

let dummyHash: Promise<string> | undefined;

/**
 * Verifies a password; with no stored hash it verifies against a dummy one, so a login for an
 * unknown email costs the same time as one for a known email.
 */
export async function verifyPassword(storedHash: string | undefined, password: string): Promise<boolean> {
  if (storedHash === undefined) {
    dummyHash ??= hashPassword('parley-dummy-password-for-timing');
    await verify(await dummyHash, password).catch(() => false);
    return false;
  }
  return verify(storedHash, password).catch(() => false);
}

/** What a new password must be: long enough to resist guessing, short enough to hash cheaply. */
export const PASSWORD_RULES = { minLength: 10, maxLength: 1024 } as const;

/**
 * Why a new password is refused, or undefined when it passes: too short or too long (counted in
 * characters), or the account's own email.
 */
export function passwordProblem(password: string, context: { email?: string } = {}): string | undefined {
  const length = [...password].length;
  if (length < PASSWORD_RULES.minLength) return `must be at least ${PASSWORD_RULES.minLength} characters`;
  if (length > PASSWORD_RULES.maxLength) return `must be at most ${PASSWORD_RULES.maxLength} characters`;
  if (password.trim().length === 0) return 'must not be only spaces';
  if (context.email && password.trim().toLowerCase() === context.email.trim().toLowerCase()) return 'must not be the email address';
  return undefined;
}

/** Refuses a new password that breaks the rules, naming the field it came in. */
export function assertPasswordRules(password: string, pointer: string, context: { email?: string } = {}): void {
  const problem = passwordProblem(password, context);
  if (problem) throw invalid(`${pointer.slice(1)} ${problem}`, [{ pointer, message: problem }]);
}
