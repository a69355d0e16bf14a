/** A contact row with its tag names (what every contact read returns), and the events a change of one records. */
import { and, asc, eq, inArray, sql, type SQL } from 'drizzle-orm';
import type { Db, Executor } from '../../db/client.ts';
import { preparedOn } from '../../db/prepared.ts';
import { contacts, contactTags, tags } from '../../db/schema.ts';
import type { Clock } from '../../lib/clock.ts';
import { isUuid } from '../../lib/ids.ts';
import { recordEvent } from '../events/outbox.ts';
import { notFound } from '../errors.ts';

export type ContactRow = typeof contacts.$inferSelect;

/** A contact with the names of the tags assigned to it, in name order. */
export type TaggedContact = ContactRow & { tags: string[] };

/** What the contact functions take: the database, and the clock for those that stamp or compare times. */
export type ContactDeps = { db: Executor };
export type ContactClockDeps = { db: Executor; clock: Clock };

export const OBJECT_KIND = 'contact';

export const contactNotFound = () => notFound('contact');

/** Loads a contact of the organization; another organization's id is simply not found. */
/**
 * A contact of the organization, or not_found. `lock`: held (FOR KEY SHARE, as a foreign key's check
 * holds it) until the transaction ends, so a deletion under way waits, or has happened and it is not
 * found: a write that points at the contact never meets a foreign-key violation.
 */
export async function loadContactRow(
  db: Executor,
  organizationId: string,
  contactId: string,
  options: { lock?: boolean } = {},
): Promise<ContactRow> {
  if (!isUuid(contactId)) throw contactNotFound();
  const query = db
    .select()
    .from(contacts)
    .where(and(eq(contacts.id, contactId), eq(contacts.organizationId, organizationId)))
    .limit(1);
  const [row] = options.lock ? await query.for('key share') : await query;
  if (!row) throw contactNotFound();
  return row;
}

const tagged = (row: ContactRow, tagNames: string[]): TaggedContact => ({ ...row, tags: tagNames });

const TAG_NAMES = sql<
  string[] | string
>`coalesce((select json_agg(t.name order by lower(t.name), t.name) from contact_tags ct join tags t on t.id = ct.tag_id where ct.contact_id = "contacts"."id"), '[]'::json)`;

type SelectedRow = { contact: ContactRow; tags: string[] | string };
const fromSelected = (rows: SelectedRow[]) =>
  rows.map((r) => tagged(r.contact, typeof r.tags === 'string' ? (JSON.parse(r.tags) as string[]) : r.tags));

/**
 * The organization's contacts matching a condition, with their tag names, in one query:
 * the read path of lookups (a round trip saved is most of their time).
 */
export async function selectTaggedContacts(db: Executor, organizationId: string, condition: SQL, limit: number): Promise<TaggedContact[]> {
  const rows = await db
    .select({ contact: contacts, tags: TAG_NAMES })
    .from(contacts)
    .where(and(eq(contacts.organizationId, organizationId), condition))
    .limit(limit);
  return fromSelected(rows);
}

/*
 * The two hottest reads, as prepared statements: PostgreSQL plans them once per connection instead
 * of on every request, which is most of a lookup's database time (about 0.2 ms prepared against 0.9 ms).
 */
function prepareReads(db: Db) {
  const byId = db
    .select({ contact: contacts, tags: TAG_NAMES })
    .from(contacts)
    .where(and(eq(contacts.organizationId, sql.placeholder('org')), eq(contacts.id, sql.placeholder('id'))))
    .limit(1)
    .prepare('contacts_record_by_id');
  const byIdentity = db
    .select({ contact: contacts, tags: TAG_NAMES })
    .from(contacts)
    .where(
      and(
        eq(contacts.organizationId, sql.placeholder('org')),
        sql`${contacts.id} in (select i.contact_id from contact_identities i
              where i.organization_id = ${sql.placeholder('org')} and i.type = ${sql.placeholder('type')}
                and i.source = ${sql.placeholder('source')} and i.value = ${sql.placeholder('value')})`,
      ),
    )
    .limit(2)
    .prepare('contacts_record_by_identity');
  return { byId, byIdentity };
}
const readsOf = preparedOn(prepareReads);

/** The contact with this id, or undefined. */
export async function taggedContactById(db: Executor, organizationId: string, contactId: string): Promise<TaggedContact | undefined> {
  const reads = readsOf(db);
  if (!reads) return (await selectTaggedContacts(db, organizationId, eq(contacts.id, contactId), 1))[0];
  return fromSelected((await reads.byId.execute({ org: organizationId, id: contactId })) as SelectedRow[])[0];
}

/** The contacts holding one identity: none, one, or (for ids some channels reuse) two. */
export async function taggedContactsByIdentity(
  db: Executor,
  organizationId: string,
  ref: { type: string; source: string; value: string },
): Promise<TaggedContact[]> {
  const reads = readsOf(db);
  if (!reads) {
    return selectTaggedContacts(
      db,
      organizationId,
      sql`${contacts.id} in (select i.contact_id from contact_identities i where i.organization_id = ${organizationId} and i.type = ${ref.type} and i.source = ${ref.source} and i.value = ${ref.value})`,
      2,
    );
  }
  return fromSelected((await reads.byIdentity.execute({ org: organizationId, ...ref })) as SelectedRow[]);
}

/** The rows, in their order, with their tag names (one query for all). */
export async function withTags(db: Executor, rows: ContactRow[]): Promise<TaggedContact[]> {
  const byContact = new Map<string, string[]>();
  if (rows.length > 0) {
    const assigned = await db
      .select({ contactId: contactTags.contactId, name: tags.name })
      .from(contactTags)
      .innerJoin(tags, eq(tags.id, contactTags.tagId))
      .where(
        inArray(
          contactTags.contactId,
          rows.map((r) => r.id),
        ),
      )
      .orderBy(asc(sql`lower(${tags.name})`), asc(tags.name));
    for (const a of assigned) byContact.set(a.contactId, [...(byContact.get(a.contactId) ?? []), a.name]);
  }
  return rows.map((row) => tagged(row, byContact.get(row.id) ?? []));
}

/** What a person reading a webhook would call the contact. */
export function displayName(row: Pick<ContactRow, 'name' | 'email' | 'phoneNumber' | 'externalSource' | 'externalId'>): string | null {
  return row.name ?? row.email ?? row.phoneNumber ?? (row.externalId ? `${row.externalSource}:${row.externalId}` : null);
}

function recordBody(row: ContactRow) {
  return { object_kind: OBJECT_KIND, record_id: row.id, display_name: displayName(row), organization_id: row.organizationId };
}

/**
 * The events of one contact change, in the caller's transaction: crm.record.* always, and
 * contact.updated on updates (and on creates that come from inbound messages).
 */
export async function recordContactEvents(
  tx: Executor,
  row: ContactRow,
  change: 'created' | 'updated' | 'deleted',
  options: { contactUpdated?: boolean } = {},
): Promise<void> {
  if (options.contactUpdated ?? change === 'updated') {
    await recordEvent(tx, row.organizationId, 'contact.updated', {
      contact_id: row.id,
      name: row.name,
      organization_id: row.organizationId,
    });
  }
  await recordEvent(tx, row.organizationId, `crm.record.${change}`, recordBody(row));
}
