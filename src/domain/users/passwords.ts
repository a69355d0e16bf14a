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

export const PASSWORD_MIN_LENGTH = 8;
export const PASSWORD_MAX_LENGTH = 1024;

/** What is wrong with a new password, or undefined when it is acceptable. */
export function passwordProblem(password: string): string | undefined {
  if ([...password].length < PASSWORD_MIN_LENGTH) return `must be at least ${PASSWORD_MIN_LENGTH} characters`;
  if (password.length > PASSWORD_MAX_LENGTH) return `must be at most ${PASSWORD_MAX_LENGTH} characters`;
  if (password.trim().length === 0) return 'must not be only spaces';
  return undefined;
}

/** Refuses a new password that breaks the rules (passwordProblem) or is the account's own email, naming the field it came in. */
export function assertPasswordRules(password: string, pointer: string, context: { email?: string } = {}): void {
  const sameAsEmail = context.email !== undefined && password.trim().toLowerCase() === context.email.trim().toLowerCase();
  const problem = passwordProblem(password) ?? (sameAsEmail ? 'must not be the email address' : undefined);
  if (problem) throw invalid(`${pointer.slice(1)} ${problem}`, [{ pointer, message: problem }]);
}
