/**
 * Contact identities: every id a person is known by (phone, chat-app ids and privacy ids, username,
 * email, external ids). One row per value, unique in the organization, so one value names at most one
 * contact; lookups, upserts and inbound resolution all go through this table.
 */
import { and, asc, eq, sql, type SQL } from 'drizzle-orm';
import { queryRows, type Executor } from '../../db/client.ts';
import { contactIdentities } from '../../db/schema.ts';
import { uuidv7 } from '../../lib/ids.ts';
import { normalizePhone } from '../../lib/phone.ts';
import type { Actor } from '../actor.ts';
import { loadContactRow, type ContactDeps } from './record.ts';
import { batchRows } from '../../db/batch-rows.ts';

export const IDENTITY_TYPES = ['phone', 'chatapp_id', 'linked_id', 'business_scoped_user_id', 'username', 'email', 'external_id'] as const;
export type IdentityType = (typeof IDENTITY_TYPES)[number];

/** A normalized identity value; source is '' for every type but external_id. */
export type IdentityRef = { type: IdentityType; source: string; value: string };

export const IDENTITY_VALUE_MAX = 256;

export function isIdentityType(type: string): type is IdentityType {
  return (IDENTITY_TYPES as readonly string[]).includes(type);
}

export function identityKey(ref: IdentityRef): string {
  return `${ref.type}\u0000${ref.source}\u0000${ref.value}`;
}

/**
 * The stored form of an identity value, or undefined when it is not a valid value of its type:
 * phone in E.164; email lower-case; chat-app ids without `+` or an address suffix (`@s.whatsapp.net`,
 * `@c.us`; `@lid` on linked ids); usernames lower-case without `@`.
 */
export function normalizeIdentity(type: IdentityType, value: string, source?: string): IdentityRef | undefined {
  const v = value.trim();
  if (v.length === 0 || v.length > IDENTITY_VALUE_MAX) return undefined;
  switch (type) {
    case 'phone': {
      const e164 = normalizePhone(v);
      return e164 ? { type, source: '', value: e164 } : undefined;
    }
    case 'email':
      return v.includes('@') ? { type, source: '', value: v.toLowerCase() } : undefined;
    case 'chatapp_id': {
      const address = /^\+?(\d+)@[a-z0-9.]+$/i.exec(v);
      return { type, source: '', value: address ? address[1]! : v.replace(/^\+(?=\d+$)/, '') };
    }
    case 'linked_id':
      return { type, source: '', value: v.replace(/@lid$/i, '') };
    case 'username': {
      const name = v.replace(/^@/, '').toLowerCase();
      return name ? { type, source: '', value: name } : undefined;
    }
    case 'business_scoped_user_id':
      return { type, source: '', value: v };
    case 'external_id': {
      const s = source?.trim();
      return s ? { type, source: s, value: v } : undefined;
    }
    default:
      return type satisfies never;
  }
}

/** The identities a contact's own fields stand for. */
export function primaryIdentities(c: {
  phoneNumber: string | null;
  email: string | null;
  externalSource: string | null;
  externalId: string | null;
}): IdentityRef[] {
  const refs: IdentityRef[] = [];
  if (c.phoneNumber) refs.push({ type: 'phone', source: '', value: c.phoneNumber });
  if (c.externalSource && c.externalId) refs.push({ type: 'external_id', source: c.externalSource, value: c.externalId });
  if (c.email) refs.push({ type: 'email', source: '', value: c.email.toLowerCase() });
  return refs;
}

/** A subquery of the ids of the contacts holding any of the identities (at least one). */
export function identityHoldersQuery(organizationId: string, refs: IdentityRef[]): SQL {
  if (refs.length === 1) {
    const [r] = refs as [IdentityRef];
    return sql`select i.contact_id from contact_identities i
                where i.organization_id = ${organizationId} and i.type = ${r.type} and i.source = ${r.source} and i.value = ${r.value}`;
  }
  return sql`select i.contact_id from ${batchRows(JSON.stringify(refs), 'k', 'type text, source text, value text', 'jsonb')}
               join contact_identities i on i.organization_id = ${organizationId} and i.type = k.type and i.source = k.source and i.value = k.value`;
}

/** Which contact holds each of the given identities, by identityKey; absent keys belong to nobody. */
export async function findIdentityOwners(db: Executor, organizationId: string, refs: IdentityRef[]): Promise<Map<string, string>> {
  const owners = new Map<string, string>();
  if (refs.length === 0) return owners;
  const rows =
    refs.length === 1
      ? await db
          .select({
            contact_id: contactIdentities.contactId,
            type: contactIdentities.type,
            source: contactIdentities.source,
            value: contactIdentities.value,
          })
          .from(contactIdentities)
          .where(
            and(
              eq(contactIdentities.organizationId, organizationId),
              eq(contactIdentities.type, refs[0]!.type),
              eq(contactIdentities.source, refs[0]!.source),
              eq(contactIdentities.value, refs[0]!.value),
            ),
          )
      : await queryRows<{ contact_id: string; type: string; source: string; value: string }>(
          db,
          sql`select i.contact_id, i.type, i.source, i.value
                from ${batchRows(JSON.stringify(refs), 'k', 'type text, source text, value text', 'jsonb')}
                join contact_identities i
                  on i.organization_id = ${organizationId} and i.type = k.type and i.source = k.source and i.value = k.value`,
        );
  for (const r of rows) owners.set(identityKey({ type: r.type as IdentityType, source: r.source, value: r.value }), r.contact_id);
  return owners;
}

/** Adds identities to a contact; a value some contact already holds is left where it is. Returns those added. */
export async function attachIdentities(
  db: Executor,
  organizationId: string,
  contactId: string,
  refs: IdentityRef[],
  now: Date,
): Promise<IdentityRef[]> {
  if (refs.length === 0) return [];
  const rows = await db
    .insert(contactIdentities)
    .values(refs.map((r) => ({ id: uuidv7(), organizationId, contactId, type: r.type, source: r.source, value: r.value, createdAt: now })))
    .onConflictDoNothing()
    .returning({ type: contactIdentities.type, source: contactIdentities.source, value: contactIdentities.value });
  return rows.map((r) => ({ type: r.type as IdentityType, source: r.source, value: r.value }));
}

/** An identity as stored: source '' for every type but external_id. */
export type IdentityRow = typeof contactIdentities.$inferSelect & { type: IdentityType };

export async function identitiesOf(db: Executor, contactId: string): Promise<IdentityRow[]> {
  const rows = await db
    .select()
    .from(contactIdentities)
    .where(eq(contactIdentities.contactId, contactId))
    .orderBy(asc(contactIdentities.createdAt), asc(contactIdentities.id));
  return rows as IdentityRow[];
}

/** Every identity of a contact of the actor's organization, oldest first. */
export async function listContactIdentities(
  { db }: ContactDeps,
  actor: Actor,
  { contactId }: { contactId: string },
): Promise<IdentityRow[]> {
  const contact = await loadContactRow(db, actor.organizationId, contactId);
  return identitiesOf(db, contact.id);
}
