/**
 * When contacts are merged into one, what refers to the merged ones comes to the survivor: their
 * comments (their notes), the tasks linked to them, their deals (deal_contacts), their orders and their
 * relationships. A link the survivor has already (the same task or deal, or the same label to the
 * same record), or one that would link the survivor to itself, goes with the merged contact instead
 * (its foreign keys delete it).
 */
import { sql } from 'drizzle-orm';
import type { Executor } from '../../db/client.ts';

/** Moves the references to the merged contacts to the survivor, in the caller's transaction (before the merged contacts are deleted). */
export async function moveContactReferences(tx: Executor, organizationId: string, mergedIds: string[], into: string): Promise<void> {
  if (mergedIds.length === 0) return;
  const ids = sql`array[${sql.join(
    mergedIds.map((id) => sql`${id}::uuid`),
    sql`, `,
  )}]`;
  await tx.execute(sql`
    update comments set record_id = ${into}::uuid
     where organization_id = ${organizationId} and record_kind = 'contact' and record_id = any(${ids})`);
  // A customer's orders stay theirs (with no event: the order did not change, its customer's record did).
  await tx.execute(sql`
    update orders set contact_id = ${into}::uuid
     where organization_id = ${organizationId} and contact_id = any(${ids})`);
  await tx.execute(sql`
    insert into task_targets (task_id, organization_id, record_kind, record_id, created_at)
    select task_id, organization_id, 'contact', ${into}::uuid, min(created_at) from task_targets
     where organization_id = ${organizationId} and record_kind = 'contact' and record_id = any(${ids})
     group by task_id, organization_id
    on conflict do nothing`);
  await tx.execute(sql`
    insert into deal_contacts (deal_id, contact_id, organization_id, created_at)
    select deal_id, ${into}::uuid, organization_id, min(created_at) from deal_contacts
     where organization_id = ${organizationId} and contact_id = any(${ids})
     group by deal_id, organization_id
    on conflict do nothing`);
  // Each end in turn: the links that would repeat one (the survivor's, or an older one of the merged) or loop go; the rest move.
  for (const [end, other] of [
    ['from', 'to'],
    ['to', 'from'],
  ] as const) {
    const [endId, endKind, otherId] = [sql.raw(`${end}_id`), sql.raw(`${end}_kind`), sql.raw(`${other}_id`)];
    await tx.execute(sql`
      delete from relationships r
       where r.organization_id = ${organizationId} and r.${endKind} = 'contact' and r.${endId} = any(${ids})
         and (r.${otherId} = ${into}::uuid
              or exists (select 1 from relationships o
                          where o.label_id = r.label_id and o.${otherId} = r.${otherId} and o.${endKind} = 'contact'
                            and (o.${endId} = ${into}::uuid or (o.${endId} = any(${ids}) and o.id < r.id))))`);
    await tx.execute(sql`
      update relationships set ${endId} = ${into}::uuid
       where organization_id = ${organizationId} and ${endKind} = 'contact' and ${endId} = any(${ids})`);
  }
}
