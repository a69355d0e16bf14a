/**
 * The applications a user authorized: their grants that can still be used (not revoked, with a
 * token not yet expired), each with its client, scopes and the organizations it reaches; and the
 * user's revocation of one, which takes every token of the grant with it. Signing in again changes
 * none of this: grants end only when revoked, when their client is deleted, or when the user leaves
 * every organization they reach (membership.ts).
 */
import { and, asc, eq, inArray, isNull, sql } from 'drizzle-orm';
import type { Executor } from '../../db/client.ts';
import { listPage, mapPage, newestFirstBy } from '../../db/list-query.ts';
import type { Page, PageResult } from '../../db/paginate.ts';
import { cursorKey } from '../paging.ts';
import { oauthClients, oauthGrantOrganizations, oauthGrants, oauthTokens, organizations } from '../../db/schema.ts';
import type { Clock } from '../../lib/clock.ts';
import { isUuid } from '../../lib/ids.ts';
import { notFound } from '../errors.ts';
import { isPermission, type Permission } from '../permissions.ts';
import type { UserActor } from './consent.ts';
import { revokeGrant } from './tokens.ts';

export type AuthorizationDeps = { db: Executor; clock: Clock };

export type UserAuthorization = {
  id: string;
  client: { clientId: string; name: string };
  scopes: Permission[];
  organizations: Array<{ id: string; name: string }>;
  createdAt: Date;
  lastUsedAt: Date | null;
};

/** The signed-in user's usable grants, newest first. */
export async function listUserAuthorizations(
  { db, clock }: AuthorizationDeps,
  actor: UserActor,
  page: Page,
): Promise<PageResult<UserAuthorization>> {
  const now = clock.now();
  const grants = await listPage(
    db
      .select({
        id: oauthGrants.id,
        scopes: oauthGrants.scopes,
        createdAt: oauthGrants.createdAt,
        lastUsedAt: oauthGrants.lastUsedAt,
        clientId: oauthClients.clientId,
        clientName: oauthClients.name,
      })
      .from(oauthGrants)
      .innerJoin(oauthClients, eq(oauthClients.id, oauthGrants.clientId))
      .$dynamic(),
    {
      where: [
        eq(oauthGrants.userId, actor.userId),
        isNull(oauthGrants.revokedAt),
        sql`exists (select 1 from ${oauthTokens} t where t.grant_id = ${oauthGrants.id} and t.revoked_at is null and t.expires_at > ${now})`,
      ],
      order: newestFirstBy(oauthGrants.createdAt, oauthGrants.id),
      after: cursorKey(page.cursor),
      limit: page.limit,
    },
  );
  const ids = grants.items.map((r) => r.id);
  const reached =
    ids.length === 0
      ? []
      : await db
          .select({ grantId: oauthGrantOrganizations.grantId, id: organizations.id, name: organizations.name })
          .from(oauthGrantOrganizations)
          .innerJoin(organizations, eq(organizations.id, oauthGrantOrganizations.organizationId))
          .where(inArray(oauthGrantOrganizations.grantId, ids))
          .orderBy(asc(organizations.name), asc(organizations.id));
  return mapPage(grants, (row) => ({
    id: row.id,
    client: { clientId: row.clientId, name: row.clientName },
    scopes: row.scopes.filter(isPermission),
    organizations: reached.filter((o) => o.grantId === row.id).map((o) => ({ id: o.id, name: o.name })),
    createdAt: row.createdAt,
    lastUsedAt: row.lastUsedAt,
  }));
}

/**
 * Revokes one of the user's grants and every token it issued, in one transaction; the client's next
 * request with any of them is refused. Another user's grant, or one already revoked, is not found.
 */
export async function revokeUserAuthorization(
  { db, clock }: AuthorizationDeps,
  actor: UserActor,
  { grantId }: { grantId: string },
): Promise<void> {
  if (!isUuid(grantId)) throw notFound('authorization');
  const now = clock.now();
  await db.transaction(async (tx) => {
    const [grant] = await tx
      .select({ id: oauthGrants.id })
      .from(oauthGrants)
      .where(and(eq(oauthGrants.id, grantId), eq(oauthGrants.userId, actor.userId), isNull(oauthGrants.revokedAt)))
      .for('update');
    if (!grant) throw notFound('authorization');
    await revokeGrant(tx, now, grant.id);
  });
}
