/**
 * Contacts: create or upsert, read, list, change, delete, and resolve by identifiers. Every query is
 * scoped by the actor's organization; another organization's contact is simply not found.
 */
import { and, eq, gt, inArray, or, sql } from 'drizzle-orm';
import { given, listPage, newestFirstBy } from '../../db/list-query.ts';
import type { Page, PageResult } from '../../db/paginate.ts';
import { cursorKey } from '../paging.ts';
import { contacts, conversations, messages } from '../../db/schema.ts';
import { isUuid } from '../../lib/ids.ts';
import { nationalNumberCandidates } from '../../lib/phone.ts';
import type { Actor } from '../actor.ts';
import { DomainError, invalid, type FieldError } from '../errors.ts';
import type { ContactInput } from './fields.ts';
import { identityHoldersQuery, identityKey, normalizeIdentity, type IdentityRef } from './identities.ts';
import {
  contactNotFound,
  loadContactRow,
  recordContactEvents,
  selectTaggedContacts,
  taggedContactById,
  taggedContactsByIdentity,
  withTags,
  type ContactDeps,
  type ContactClockDeps,
  type TaggedContact,
} from './record.ts';
import { applyContactWrites, retryOnConflict } from './upsert.ts';
import { compileFilter } from '../segments/compile.ts';
import type { FilterGroup } from '../segments/filter.ts';

export async function getContact({ db }: ContactDeps, actor: Actor, { contactId }: { contactId: string }): Promise<TaggedContact> {
  if (!isUuid(contactId)) throw contactNotFound();
  const contact = await taggedContactById(db, actor.organizationId, contactId.toLowerCase());
  if (!contact) throw contactNotFound();
  return contact;
}

/**
 * Creates a contact, or updates the one the upsert rule matches (phone, then external_source +
 * external_id, then email). Records crm.record.created, or crm.record.updated and contact.updated;
 * nothing when an update changes nothing.
 */
export async function upsertContact(
  { db, clock }: ContactClockDeps,
  actor: Actor,
  input: ContactInput,
): Promise<{ status: 'created' | 'updated' | 'unchanged'; contact: TaggedContact }> {
  return retryOnConflict(() =>
    db.transaction(async (tx) => {
      const [outcome] = await applyContactWrites(tx, actor.organizationId, [{ input }], clock.now());
      if (!outcome || outcome.status === 'failed') throw outcome?.error ?? new Error('no outcome');
      if (outcome.status !== 'unchanged') await recordContactEvents(tx, outcome.row, outcome.status);
      const [contact] = await withTags(tx, [outcome.row]);
      return { status: outcome.status, contact: contact! };
    }),
  );
}

/** Changes the fields given (null clears one). Records crm.record.updated and contact.updated when something changed. */
export async function updateContact(
  { db, clock }: ContactClockDeps,
  actor: Actor,
  { contactId, fields: input }: { contactId: string; fields: ContactInput },
): Promise<TaggedContact> {
  if (!isUuid(contactId)) throw contactNotFound();
  return retryOnConflict(() =>
    db.transaction(async (tx) => {
      const [outcome] = await applyContactWrites(tx, actor.organizationId, [{ input, targetId: contactId }], clock.now());
      if (!outcome || outcome.status === 'failed') throw outcome?.error ?? new Error('no outcome');
      if (outcome.status === 'updated') await recordContactEvents(tx, outcome.row, 'updated');
      const [contact] = await withTags(tx, [outcome.row]);
      return contact!;
    }),
  );
}

/**
 * Deletes a contact with its identities, notes, tags, consents and suppressions. Messages and
 * conversations stay as history and lose the link. Records crm.record.deleted.
 */
export async function deleteContact({ db }: ContactDeps, actor: Actor, { contactId }: { contactId: string }): Promise<void> {
  await db.transaction(async (tx) => {
    const row = await loadContactRow(tx, actor.organizationId, contactId);
    await tx
      .update(messages)
      .set({ contactId: null })
      .where(and(eq(messages.organizationId, actor.organizationId), eq(messages.contactId, row.id)));
    await tx
      .update(conversations)
      .set({ contactId: null })
      .where(and(eq(conversations.organizationId, actor.organizationId), eq(conversations.contactId, row.id)));
    // Identities, notes, tag assignments, consents and suppressions go with it (foreign keys cascade).
    await tx.delete(contacts).where(and(eq(contacts.id, row.id), eq(contacts.organizationId, actor.organizationId)));
    await recordContactEvents(tx, row, 'deleted');
  });
}

export type ContactListQuery = Page & {
  tag?: string;
  search?: string;
  externalSource?: string;
  updatedAfter?: Date;
  /** A segment filter, as parseFilter checked it (domain/segments). */
  filter?: FilterGroup;
};

const likePrefix = (s: string) => `${s.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/**
 * Newest first. `search` is a case-insensitive prefix of the name or email, or a prefix of the phone
 * number in any international format ("+49 30", "004930", "4930"); digits without + or 00 also find
 * the numbers whose national number they are, in any country ("030 1234567" finds +49 30 1234567, and
 * +33 30 1234567 too: there is no default country to choose between them).
 */
export async function listContacts(
  { db, clock }: ContactClockDeps,
  actor: Actor,
  query: ContactListQuery,
): Promise<PageResult<TaggedContact>> {
  const org = actor.organizationId;
  const search = query.search?.trim();
  let searchCondition;
  if (search) {
    const lower = likePrefix(search.toLowerCase());
    const alternatives = [sql`lower(${contacts.name}) like ${lower}`, sql`lower(${contacts.email}) like ${lower}`];
    if (/^[+(]?[\d\s().-]+$/.test(search) && /\d/.test(search)) {
      let digits = search.replace(/\D/g, '');
      const international = search.startsWith('+') || digits.startsWith('00');
      if (!search.startsWith('+') && digits.startsWith('00')) digits = digits.slice(2);
      if (digits) alternatives.push(sql`${contacts.phoneNumber} like ${likePrefix(`+${digits}`)}`);
      // Without + or 00 the digits may also be a national number: equality on each country's form (indexed).
      const national = international ? [] : nationalNumberCandidates(digits);
      if (national.length > 0) alternatives.push(inArray(contacts.phoneNumber, national));
    }
    searchCondition = or(...alternatives);
  }
  const page = await listPage(db.select().from(contacts).$dynamic(), {
    where: [
      eq(contacts.organizationId, org),
      given(
        query.tag,
        (tag) => sql`exists (select 1 from contact_tags ct join tags t on t.id = ct.tag_id
                        where ct.contact_id = ${contacts.id} and t.organization_id = ${org} and lower(t.name) = lower(${tag.trim()}))`,
      ),
      searchCondition,
      given(query.externalSource, (source) => eq(contacts.externalSource, source)),
      given(query.updatedAfter, (after) => gt(contacts.updatedAt, after)),
      given(query.filter, (filter) => compileFilter(filter, { organizationId: org, now: clock.now() })),
    ],
    order: newestFirstBy(contacts.createdAt, contacts.id),
    after: cursorKey(query.cursor),
    limit: query.limit,
  });
  return { items: await withTags(db, page.items), nextCursor: page.nextCursor };
}

/** The contact holding a phone number written in any common format; invalid when it is no phone number. */
export async function findContactByPhone({ db }: ContactDeps, actor: Actor, { phone }: { phone: string }): Promise<TaggedContact> {
  const ref = normalizeIdentity('phone', phone);
  if (!ref)
    throw invalid('phone is not a possible phone number', [
      { pointer: '/phone', message: 'not a possible phone number (write it with its country code)' },
    ]);
  const [contact] = await taggedContactsByIdentity(db, actor.organizationId, ref);
  if (!contact) throw contactNotFound();
  return contact;
}

export const LOOKUP_TYPES = ['contact_id', 'phone', 'chatapp', 'chatapp_id', 'email', 'external_id'] as const;
export type LookupIdentifier = { type: string; value: string; source?: string | null };

/**
 * The identities an identifier stands for: `chatapp` is a chat-app address (a number in any format,
 * or `<digits>@s.whatsapp.net`, `<digits>@c.us`, `<id>@lid`); `chatapp_id` is the chat app's own id
 * for the person (its user id, a linked id or a business-scoped user id).
 */
function refsOf(identifier: LookupIdentifier, index: number): IdentityRef[] {
  const value = identifier.value;
  const bad = (message: string, field = 'value'): never => {
    throw invalid(`identifiers[${index}].${field}: ${message}`, [{ pointer: `/identifiers/${index}/${field}`, message }]);
  };
  switch (identifier.type) {
    case 'phone':
      return [normalizeIdentity('phone', value) ?? bad('not a possible phone number')];
    case 'email':
      return [normalizeIdentity('email', value) ?? bad('not an email address')];
    case 'external_id':
      if (!identifier.source?.trim()) bad('required when type is external_id', 'source');
      return [normalizeIdentity('external_id', value, identifier.source!) ?? bad('must not be empty')];
    case 'chatapp': {
      const v = value.trim();
      if (/@lid$/i.test(v)) return [normalizeIdentity('linked_id', v) ?? bad('must not be empty')];
      const phone = normalizeIdentity('phone', v.replace(/@[a-z0-9.]+$/i, ''));
      if (!phone) bad('not a chat-app number or address');
      return [phone!, { type: 'chatapp_id', source: '', value: phone!.value.slice(1) }];
    }
    case 'chatapp_id':
      return (['chatapp_id', 'linked_id', 'business_scoped_user_id'] as const).map(
        (t) => normalizeIdentity(t, value) ?? bad('must not be empty'),
      );
    default:
      return bad(`unknown identifier type; expected one of ${LOOKUP_TYPES.join(', ')}`, 'type');
  }
}

/**
 * Resolves identifiers to one contact: not_found when none matches, conflict when they match
 * different contacts. Identifiers that match nothing do not stop the others from matching.
 */
export async function lookupContact(
  { db }: ContactDeps,
  actor: Actor,
  { identifiers }: { identifiers: LookupIdentifier[] },
): Promise<TaggedContact> {
  const refs: IdentityRef[] = [];
  const ids: string[] = [];
  const errors: FieldError[] = [];
  identifiers.forEach((identifier, index) => {
    try {
      if (identifier.type === 'contact_id') {
        if (!identifier.value.trim()) throw invalid('empty', [{ pointer: `/identifiers/${index}/value`, message: 'must not be empty' }]);
        if (isUuid(identifier.value.trim())) ids.push(identifier.value.trim().toLowerCase());
      } else refs.push(...refsOf(identifier, index));
    } catch (err) {
      if (err instanceof DomainError && err.fieldErrors) errors.push(...err.fieldErrors);
      else throw err;
    }
  });
  if (errors.length > 0)
    throw invalid(
      `identifiers are invalid: ${errors.map((e) => `${e.pointer.slice(1).replaceAll('/', '.')}: ${e.message}`).join('; ')}`,
      errors,
    );

  if (ids.length === 0 && refs.length === 0) throw new DomainError('not_found', 'contact not found');
  const unique = dedupe(refs);
  // One query: the contacts any identifier names, with their tags (prepared for the common single identifier).
  const matches =
    ids.length === 0 && unique.length === 1
      ? await taggedContactsByIdentity(db, actor.organizationId, unique[0]!)
      : await selectTaggedContacts(
          db,
          actor.organizationId,
          or(
            ids.length > 0 ? inArray(contacts.id, ids) : undefined,
            unique.length > 0 ? sql`${contacts.id} in (${identityHoldersQuery(actor.organizationId, unique)})` : undefined,
          )!,
          identifiers.length + 1,
        );
  if (matches.length === 0) throw new DomainError('not_found', 'contact not found');
  if (matches.length > 1) throw new DomainError('conflict', `the identifiers match ${matches.length} different contacts`);
  return matches[0]!;
}

function dedupe(refs: IdentityRef[]): IdentityRef[] {
  return [...new Map(refs.map((r) => [identityKey(r), r])).values()];
}
