/**
 * Whether this process should be sent traffic (GET /readyz): the database answers, within a bound,
 * and nobody is applying migrations to it. A process applying its own migrations at start does not
 * listen yet, so this is what the processes already serving see while another one migrates.
 */
import type { Database } from './client.ts';
import { isDatabaseUnavailable } from './errors.ts';
import { migrationsApplying } from './migrate.ts';

export type Readiness = { ready: true } | { ready: false; reason: string };

export async function checkReadiness(database: Pick<Database, 'db' | 'availability'>, timeoutMs = 2000): Promise<Readiness> {
  if (!database.availability.up()) return { ready: false, reason: 'the database cannot be reached' };
  let timer: NodeJS.Timeout | undefined;
  try {
    const applying = await Promise.race([
      migrationsApplying(database.db),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error('timed out')), timeoutMs);
      }),
    ]);
    return applying ? { ready: false, reason: 'database migrations are being applied' } : { ready: true };
  } catch (err) {
    // Public: the outage is named, not the server's address (the operator's log has it).
    return {
      ready: false,
      reason: isDatabaseUnavailable(err) ? 'the database cannot be reached' : 'the database did not answer the readiness check',
    };
  } finally {
    clearTimeout(timer);
  }
}
