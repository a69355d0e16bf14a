/**
 * The operator's way back in: `npm run reset-password -- EMAIL` prints a one-time password-reset
 * link for the account, on the configuration and database `npm start` uses (DATA_DIR's embedded
 * database, or DATABASE_URL). Exit 0 with the link on stdout; non-zero with the reason on stderr.
 *
 * The embedded database serves one process at a time: while the service runs on it, this command
 * cannot open it and says so (stop the service, run the command, start it again). With
 * DATABASE_URL it works while the service runs.
 */
import { loadConfigOrFail, type Config } from '../config.ts';
import { openConfiguredDatabase } from '../container.ts';
import { migrate } from '../db/migrate.ts';
import { DomainError } from '../domain/errors.ts';
import { issuePasswordResetByEmail, passwordResetUrl } from '../domain/users/password-resets.ts';
import { systemClock } from '../lib/clock.ts';
import { LockedError } from '../lib/dir-lock.ts';
import { createLogger } from '../lib/logger.ts';

const USAGE = 'usage: npm run reset-password -- EMAIL';

function fail(message: string, code = 1): never {
  process.stderr.write(`parley: ${message}\n`);
  process.exit(code);
}

function minutes(ms: number): string {
  const m = Math.round(ms / 60_000);
  return m >= 120 && m % 60 === 0 ? `${m / 60} hours` : `${m} minutes`;
}

async function resetPassword(config: Config, email: string): Promise<void> {
  // Log records go to stderr: stdout is the link, for scripts to take.
  const logger = createLogger({ level: 'warn', destination: process.stderr });
  let database;
  try {
    database = await openConfiguredDatabase(config, logger);
  } catch (err) {
    if (err instanceof LockedError) {
      fail(
        `the service is running on this data folder (${config.dataDir}), and its embedded database serves one process at a time.\n` +
          '  Stop the service, run this command again, then start the service (the link stays valid).\n' +
          `  (With DATABASE_URL, this command works while the service runs.)\n  ${err.message}`,
      );
    }
    throw err;
  }
  try {
    await migrate(database);
    const reset = await issuePasswordResetByEmail({ db: database.db, clock: systemClock, ttlMs: config.passwordResetTtlMs }, email);
    process.stdout.write(
      [
        `Password reset link for ${reset.email} (one use, valid ${minutes(config.passwordResetTtlMs)}, until ${reset.expiresAt.toISOString()}):`,
        '',
        `  ${passwordResetUrl(config.appUrl, reset.token)}`,
        '',
        'Open it in a browser to set a new password; every session of the account ends.',
        '',
      ].join('\n'),
    );
  } catch (err) {
    if (err instanceof DomainError && err.code === 'not_found') fail(`no account has the email ${JSON.stringify(email.trim())}`);
    throw err;
  } finally {
    await database.close();
  }
}

async function main() {
  const args = process.argv.slice(2).filter((a) => a !== '--');
  if (args.length !== 1 || args[0]!.startsWith('-') || args[0]!.trim() === '') fail(USAGE, 2);
  await resetPassword(loadConfigOrFail(fail), args[0]!);
}

main().then(
  () => process.exit(0),
  (err: unknown) => fail(err instanceof Error ? err.message : String(err)),
);
