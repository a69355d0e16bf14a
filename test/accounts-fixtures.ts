/** People for the account tests: a user of a given role in an organization, signed in or not. */
import { randomToken } from '../src/lib/crypto.ts';
import { addMember } from '../src/domain/organizations/organizations.ts';
import type { Role } from '../src/domain/permissions.ts';
import { loginCookie, OWNER_PASSWORD, type TestServer } from './harness.ts';

export type Person = { userId: string; email: string; password: string; organizationId: string };

/** A new user of the organization (the bootstrapped one by default) with the role. */
export async function addPerson(
  server: TestServer,
  role: Role,
  options: { organizationId?: string; label?: string } = {},
): Promise<Person> {
  const organizationId = options.organizationId ?? server.organizationId;
  const email = `${options.label ?? role}-${randomToken(4)
    .toLowerCase()
    .replace(/[^a-z0-9]/g, 'x')}@example.com`;
  const userId = await addMember(
    { db: server.container.database.db, clock: server.container.clock },
    { organizationId, email, name: `${role} person`, password: OWNER_PASSWORD, role },
  );
  return { userId, email, password: OWNER_PASSWORD, organizationId };
}

/** The person signed in: a Cookie header value. */
export function signIn(server: TestServer, person: { email: string; password: string }): Promise<string> {
  return loginCookie(server, person.email, person.password);
}
