/**
 * First start: on an empty database, create an organization, its owner and an all-permission API
 * key, from the BOOTSTRAP_* settings or generated. Runs under the migration lock, so two processes
 * starting at once bootstrap once.
 */
import { sql } from 'drizzle-orm';
import { queryRows, type Database } from '../../db/client.ts';
import { MIGRATION_LOCK_KEY } from '../../db/migrate.ts';
import { randomToken } from '../../lib/crypto.ts';
import type { Clock } from '../../lib/clock.ts';
import { createApiKey } from '../api-keys/api-keys.ts';
import { PERMISSIONS } from '../permissions.ts';
import { createOrganization } from './organizations.ts';

export type BootstrapSettings = {
  organizationName: string;
  adminEmail: string | undefined;
  adminPassword: string | undefined;
  apiKey: string | undefined;
};

/** What was created; secrets are set only when they were generated (so must be shown once). */
export type BootstrapResult =
  | { created: false }
  | {
      created: true;
      organizationId: string;
      email: string;
      generatedPassword: string | undefined;
      generatedApiKey: string | undefined;
    };

export const DEFAULT_ADMIN_EMAIL = 'owner@parley.local';

export async function bootstrap(database: Database, settings: BootstrapSettings, clock: Clock): Promise<BootstrapResult> {
  return database.withAdvisoryLock(MIGRATION_LOCK_KEY, async (tx) => {
    const [existing] = await queryRows<{ n: number }>(tx, sql`select count(*)::int as n from organizations`);
    if ((existing?.n ?? 0) > 0) return { created: false };
    const email = settings.adminEmail ?? DEFAULT_ADMIN_EMAIL;
    const password = settings.adminPassword ?? randomToken(18);
    const { organizationId } = await createOrganization(
      { db: tx, clock },
      { name: settings.organizationName, owner: { email, name: 'Owner', password, emailVerified: settings.adminEmail !== undefined } },
    );
    const key = await createApiKey(
      { db: tx, clock },
      { kind: 'system', organizationId, permissions: new Set(PERMISSIONS) },
      { name: 'Bootstrap key', permissions: [...PERMISSIONS], secret: settings.apiKey },
    );
    return {
      created: true,
      organizationId,
      email,
      generatedPassword: settings.adminPassword === undefined ? password : undefined,
      generatedApiKey: settings.apiKey === undefined ? key.secret : undefined,
    };
  });
}
