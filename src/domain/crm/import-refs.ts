/** What the CRM's imports resolve by name: an owner by a member's email or user id, once per import. */
import { and, eq } from 'drizzle-orm';
import type { Executor } from '../../db/client.ts';
import { memberships, users } from '../../db/schema.ts';
import { isUuid } from '../../lib/ids.ts';
import type { CellError } from './csv-import.ts';

/** The organization's members by id and by email (lower case), read once per import (`memo`). */
async function members(tx: Executor, organizationId: string, memo: Map<string, unknown>): Promise<Map<string, string>> {
  const known = memo.get('members') as Map<string, string> | undefined;
  if (known) return known;
  const rows = await tx
    .select({ id: users.id, email: users.email })
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.userId))
    .where(and(eq(memberships.organizationId, organizationId)));
  const map = new Map<string, string>();
  for (const r of rows) {
    map.set(r.id, r.id);
    map.set(r.email.toLowerCase(), r.id);
  }
  memo.set('members', map);
  return map;
}

/** An `owner` cell (a member's email or user id) as the member's user id, or the error naming the column. */
export async function resolveOwner(
  tx: Executor,
  organizationId: string,
  memo: Map<string, unknown>,
  owner: string | undefined,
): Promise<{ ok: true; userId: string | undefined } | { ok: false; error: CellError }> {
  if (owner === undefined) return { ok: true, userId: undefined };
  const key = owner.trim().toLowerCase();
  const userId = (await members(tx, organizationId, memo)).get(key);
  if (userId) return { ok: true, userId };
  return {
    ok: false,
    error: {
      field: 'owner',
      message: isUuid(key) ? 'not a member of this organization' : 'no member of this organization has this email',
    },
  };
}
