/**
 * Tags: organization-wide names (matched case-insensitively, shown as first written) assigned to
 * contacts. Assigning records crm.list.entry_added, removing crm.list.entry_removed, with the tag
 * name as the list and no list_id: a tag is a list kept on the contact (docs/crm.md "Lists").
 */
import { and, asc, eq, sql } from 'drizzle-orm';
import { batchRows } from '../../db/batch-rows.ts';
import { queryRows, type Executor } from '../../db/client.ts';
import { contactTags, tags } from '../../db/schema.ts';
import { uuidv7 } from '../../lib/ids.ts';
import type { Actor } from '../actor.ts';
import { DomainError, invalid, notFound } from '../errors.ts';
import { recordEvent } from '../events/outbox.ts';
import { loadContactRow, OBJECT_KIND, type ContactDeps, type ContactClockDeps } from './record.ts';

export const TAG_NAME_MAX = 100;

/** A tag as assigned to a contact. */
export type TagAssignment = { name: string; assignedAt: Date };

/** A tag name as stored: trimmed, inner runs of spaces made one; invalid (at /tag) without characters or with control characters. */
export function normalizeTagName(name: string): string {
  const clean = name.trim().replace(/\s+/g, ' ');
  // eslint-disable-next-line no-control-regex
  if (clean.length === 0 || clean.length > TAG_NAME_MAX || /[\u0000-\u001f\u007f]/.test(clean)) {
    throw invalid(`tag must be 1 to ${TAG_NAME_MAX} printable characters`, [
      { pointer: '/tag', message: `1 to ${TAG_NAME_MAX} printable characters` },
    ]);
  }
  return clean;
}

export async function listContactTags({ db }: ContactDeps, actor: Actor, { contactId }: { contactId: string }): Promise<TagAssignment[]> {
  const contact = await loadContactRow(db, actor.organizationId, contactId);
  const rows = await db
    .select({ name: tags.name, assignedAt: contactTags.createdAt })
    .from(contactTags)
    .innerJoin(tags, eq(tags.id, contactTags.tagId))
    .where(eq(contactTags.contactId, contact.id))
    .orderBy(asc(sql`lower(${tags.name})`));
  return rows;
}

/** Assigns a tag, making the name when the organization has none like it. `created` is false when it was already assigned. */
export async function addContactTag(
  { db, clock }: ContactClockDeps,
  actor: Actor,
  { contactId, tag: name }: { contactId: string; tag: string },
): Promise<{ tag: TagAssignment; created: boolean }> {
  const clean = normalizeTagName(name);
  return db.transaction(async (tx) => {
    // Held: a deletion of the contact under way waits, or it is not found (never a foreign-key failure).
    const contact = await loadContactRow(tx, actor.organizationId, contactId, { lock: true });
    const now = clock.now();
    await tx.insert(tags).values({ id: uuidv7(), organizationId: actor.organizationId, name: clean, createdAt: now }).onConflictDoNothing();
    const [tag] = await tx
      .select()
      .from(tags)
      .where(and(eq(tags.organizationId, actor.organizationId), sql`lower(${tags.name}) = lower(${clean})`))
      .limit(1);
    // The assignment as it is after this statement, new or already there: an upsert returns the row
    // either way, where a conflict that did nothing left a read after it to miss a row removed meanwhile.
    const [assigned] = await tx
      .insert(contactTags)
      .values({ contactId: contact.id, tagId: tag!.id, organizationId: actor.organizationId, createdAt: now })
      .onConflictDoUpdate({ target: [contactTags.contactId, contactTags.tagId], set: { createdAt: sql`${contactTags.createdAt}` } })
      .returning({ createdAt: contactTags.createdAt, inserted: sql<boolean>`xmax = 0` });
    if (assigned!.inserted) {
      await recordEvent(tx, actor.organizationId, 'crm.list.entry_added', {
        list: tag!.name,
        list_id: null,
        record_id: contact.id,
        object_kind: OBJECT_KIND,
        organization_id: actor.organizationId,
      });
    }
    return { tag: { name: tag!.name, assignedAt: assigned!.createdAt }, created: assigned!.inserted };
  });
}

/** Removes a tag from a contact; not_found when it was not assigned. The name stays in the organization. */
export async function removeContactTag(
  { db }: ContactDeps,
  actor: Actor,
  { contactId, tag: name }: { contactId: string; tag: string },
): Promise<void> {
  const clean = normalizeTagName(name);
  await db.transaction(async (tx) => {
    const contact = await loadContactRow(tx, actor.organizationId, contactId);
    const [tag] = await tx
      .select()
      .from(tags)
      .where(and(eq(tags.organizationId, actor.organizationId), sql`lower(${tags.name}) = lower(${clean})`))
      .limit(1);
    const removed = tag
      ? await tx
          .delete(contactTags)
          .where(and(eq(contactTags.contactId, contact.id), eq(contactTags.tagId, tag.id)))
          .returning()
      : [];
    if (removed.length === 0) throw notFound('tag assignment');
    await recordEvent(tx, actor.organizationId, 'crm.list.entry_removed', {
      list: tag!.name,
      list_id: null,
      record_id: contact.id,
      object_kind: OBJECT_KIND,
      organization_id: actor.organizationId,
    });
  });
}

/** What separates the tags of one imported value ("VIP; Wholesale", "VIP|Wholesale"). */
export const TAG_LIST_SEPARATORS = /[;|]/;

/**
 * The tag names of an imported row's `tags`: a string split on `;` or `|`, or (JSON lines) an array
 * of names; blanks are skipped and a name repeated in any case counts once. An error names why.
 */
export function readTagList(value: unknown): { ok: true; names: string[] } | { ok: false; message: string } {
  if (value === undefined || value === null) return { ok: true, names: [] };
  let parts: unknown[];
  if (typeof value === 'string') parts = value.split(TAG_LIST_SEPARATORS);
  else if (Array.isArray(value)) parts = value;
  else return { ok: false, message: 'tags are a text of names separated by ; or |, or an array of names' };
  const names = new Map<string, string>();
  for (const part of parts) {
    if (typeof part !== 'string') return { ok: false, message: 'every tag is a text' };
    if (part.trim() === '') continue;
    try {
      const name = normalizeTagName(part);
      if (!names.has(name.toLowerCase())) names.set(name.toLowerCase(), name);
    } catch (err) {
      if (err instanceof DomainError) return { ok: false, message: `every tag must be 1 to ${TAG_NAME_MAX} printable characters` };
      throw err;
    }
  }
  return { ok: true, names: [...names.values()] };
}

/**
 * Assigns tags to many contacts of the organization at once (an import's batch), making the names
 * it has none like; records no events (imports record none per contact). Answers the assignments
 * that are new, as `contactId` + NUL + the lowercased name. A contact deleted meanwhile is skipped.
 */
export async function assignTagsInBulk(
  tx: Executor,
  organizationId: string,
  pairs: Array<{ contactId: string; name: string }>,
  now: Date,
): Promise<Set<string>> {
  if (pairs.length === 0) return new Set();
  const names = new Map<string, string>();
  for (const { name } of pairs) if (!names.has(name.toLowerCase())) names.set(name.toLowerCase(), name);
  const newTags = [...names.values()].map((name) => ({ id: uuidv7(), name }));
  await tx.execute(sql`insert into tags (id, organization_id, name, created_at)
    select r.id, ${organizationId}, r.name, ${now} from ${batchRows(JSON.stringify(newTags), 'r', 'id uuid, name text')}
    on conflict do nothing`);
  const rows = await queryRows<{ contact_id: string; name: string }>(
    tx,
    sql`with added as (
      insert into contact_tags (contact_id, tag_id, organization_id, created_at)
      select c.id, t.id, ${organizationId}, ${now}
        from ${batchRows(JSON.stringify(pairs.map((p) => ({ contact_id: p.contactId, name: p.name }))), 'r', 'contact_id uuid, name text')}
        join contacts c on c.id = r.contact_id and c.organization_id = ${organizationId}
        join tags t on t.organization_id = ${organizationId} and lower(t.name) = lower(r.name)
        -- A contact deleted since the batch read it is skipped, not a foreign-key failure.
        for key share of c
      on conflict do nothing
      returning contact_id, tag_id)
    select added.contact_id, lower(t.name) as name from added join tags t on t.id = added.tag_id`,
  );
  return new Set(rows.map((r) => `${r.contact_id}\u0000${r.name}`));
}
