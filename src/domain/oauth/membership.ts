/**
 * What a membership ending does to the OAuth access the user gave: their grants stop reaching the
 * organization they left, and a grant that reaches nothing any more is revoked with its tokens. Runs
 * in the caller's transaction (the membership change and this are one commit).
 */
import { sql } from 'drizzle-orm';
import type { Executor } from '../../db/client.ts';
import type { Clock } from '../../lib/clock.ts';

export async function revokeMemberOAuthAccess(
  { db, clock }: { db: Executor; clock: Clock },
  { userId, organizationId }: { userId: string; organizationId: string },
): Promise<void> {
  const now = clock.now();
  await db.execute(sql`
    delete from oauth_grant_organizations o
     using oauth_grants g
     where o.grant_id = g.id and g.user_id = ${userId} and o.organization_id = ${organizationId}`);
  await db.execute(sql`
    with orphaned as (
      update oauth_grants g set revoked_at = ${now}
       where g.user_id = ${userId} and g.revoked_at is null
         and not exists (select 1 from oauth_grant_organizations o where o.grant_id = g.id)
      returning g.id)
    update oauth_tokens t set revoked_at = ${now}
      from orphaned where t.grant_id = orphaned.id and t.revoked_at is null`);
}
