/**
 * Merging contacts that turn out to be one person. The oldest survives (or the one the caller
 * names); the others' identities, notes (comments), task links, deal links, relationships, tags,
 * consents, suppressions, messages and conversations move to it, their fields fill the survivor's
 * empty ones, and they are deleted with crm.record.deleted and contact.merged.
 */
import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import type { Executor } from '../../db/client.ts';
import { contactIdentities, contacts, conversations, messages } from '../../db/schema.ts';
import { customFieldsProblem } from '../crm/custom-fields.ts';
import { moveContactReferences } from '../crm/move-references.ts';
import { moveContactListEntries } from '../lists/lists.ts';
import { recordEvent } from '../events/outbox.ts';
import { recordContactEvents, type ContactRow } from './record.ts';

/** The survivor's fields after a merge: its empty ones filled from the others, its custom fields completed by theirs. */
export function mergedFields(survivor: ContactRow, others: ContactRow[], at: Date): ContactRow {
  const next: ContactRow = { ...survivor, updatedAt: at };
  for (const o of others) {
    next.name ??= o.name;
    next.email ??= o.email;
    next.phoneNumber ??= o.phoneNumber;
    if (!next.externalId && o.externalId) {
      next.externalSource = o.externalSource;
      next.externalId = o.externalId;
    }
    const fields = { ...o.customFields, ...next.customFields };
    if (!customFieldsProblem(fields)) next.customFields = fields;
  }
  return next;
}

/**
 * Merges the contacts into the oldest of them (or into `survivorId`, one of them), in the caller's
 * transaction, and records crm.record.deleted and contact.merged for each merged one. The caller
 * records the survivor's update.
 */
export async function mergeContacts(
  tx: Executor,
  organizationId: string,
  contactIds: string[],
  at: Date,
  options: { survivorId?: string } = {},
): Promise<{ survivor: ContactRow; merged: ContactRow[] }> {
  // Locked in id order, as the upsert locks, so the two cannot deadlock; then oldest first.
  const rows = await tx
    .select()
    .from(contacts)
    .where(and(eq(contacts.organizationId, organizationId), inArray(contacts.id, contactIds)))
    .orderBy(asc(contacts.id))
    .for('update');
  rows.sort(
    (a, b) =>
      Number(b.id === options.survivorId) - Number(a.id === options.survivorId) ||
      a.createdAt.getTime() - b.createdAt.getTime() ||
      (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
  );
  const [survivor, ...others] = rows;
  if (!survivor) throw new Error('mergeContacts: no such contacts');
  if (others.length === 0) return { survivor, merged: [] };
  const ids = others.map((o) => o.id);
  const into = survivor.id;

  await tx.update(contactIdentities).set({ contactId: into }).where(inArray(contactIdentities.contactId, ids));
  await moveContactReferences(tx, organizationId, ids, into);
  await moveContactListEntries(tx, organizationId, ids, into);
  const idList = sql.join(
    ids.map((id) => sql`${id}::uuid`),
    sql`, `,
  );
  await tx.execute(sql`
    insert into contact_tags (contact_id, tag_id, organization_id, created_at)
    select ${into}::uuid, tag_id, organization_id, min(created_at) from contact_tags
     where contact_id in (${idList}) group by tag_id, organization_id
    on conflict do nothing`);
  // Per channel scope, the latest consent statement wins.
  await tx.execute(sql`
    insert into contact_consents (id, organization_id, contact_id, channel, state, source, recorded_at, created_at, updated_at)
    select distinct on (channel) gen_random_uuid(), organization_id, ${into}::uuid, channel, state, source, recorded_at, created_at, ${at.toISOString()}::timestamptz
      from contact_consents where contact_id in (${idList}) order by channel, recorded_at desc
    on conflict (contact_id, channel) do update
       set state = excluded.state, source = excluded.source, recorded_at = excluded.recorded_at, updated_at = excluded.updated_at
     where excluded.recorded_at > contact_consents.recorded_at`);
  // Per channel scope, the suppression that lasts longer wins (no expiry lasts longest).
  await tx.execute(sql`
    insert into contact_suppressions (id, organization_id, contact_id, channel, reason, expires_at, message_id, created_at, updated_at)
    select distinct on (channel) gen_random_uuid(), organization_id, ${into}::uuid, channel, reason, expires_at, message_id, created_at, ${at.toISOString()}::timestamptz
      from contact_suppressions where contact_id in (${idList}) order by channel, expires_at desc nulls first
    on conflict (contact_id, channel) do update
       set reason = excluded.reason, expires_at = excluded.expires_at, message_id = excluded.message_id, updated_at = excluded.updated_at
     where contact_suppressions.expires_at is not null
       and (excluded.expires_at is null or excluded.expires_at > contact_suppressions.expires_at)`);
  await tx
    .update(messages)
    .set({ contactId: into })
    .where(and(eq(messages.organizationId, organizationId), inArray(messages.contactId, ids)));
  await tx
    .update(conversations)
    .set({ contactId: into })
    .where(and(eq(conversations.organizationId, organizationId), inArray(conversations.contactId, ids)));

  const next = mergedFields(survivor, others, at);
  // Their remaining tag assignments, consents and suppressions go with them (foreign keys cascade).
  await tx.delete(contacts).where(and(eq(contacts.organizationId, organizationId), inArray(contacts.id, ids)));
  await tx
    .update(contacts)
    .set({
      name: next.name,
      email: next.email,
      phoneNumber: next.phoneNumber,
      externalSource: next.externalSource,
      externalId: next.externalId,
      customFields: next.customFields,
      updatedAt: at,
    })
    .where(eq(contacts.id, into));
  for (const o of others) {
    await recordContactEvents(tx, o, 'deleted');
    await recordEvent(tx, organizationId, 'contact.merged', { contact_id: into, merged_contact_id: o.id, organization_id: organizationId });
  }
  return { survivor: next, merged: others };
}
