/**
 * The contact of an inbound message: found by any identity the provider gave (or the phone), made
 * when there is none, merged when the identities turn out to belong to two contacts.
 */
import { eq } from 'drizzle-orm';
import type { Executor } from '../../db/client.ts';
import { contacts } from '../../db/schema.ts';
import { uuidv7 } from '../../lib/ids.ts';
import { attachIdentities, findIdentityOwners, identityKey, isIdentityType, normalizeIdentity, type IdentityRef } from './identities.ts';
import { mergeContacts } from './merge.ts';
import { loadContactRow, recordContactEvents, type ContactRow } from './record.ts';

export type InboundContactInput = {
  /** E.164. */
  phone: string;
  profileName?: string;
  identities: Array<{ type: string; value: string }>;
  at: Date;
};

/** The identities of the sender we can store: unknown types and external ids (no source) are skipped. */
function inboundRefs(input: InboundContactInput): IdentityRef[] {
  const refs = new Map<string, IdentityRef>();
  for (const given of [{ type: 'phone', value: input.phone }, ...input.identities]) {
    if (!isIdentityType(given.type) || given.type === 'external_id' || typeof given.value !== 'string') continue;
    const ref = normalizeIdentity(given.type, given.value);
    if (ref) refs.set(identityKey(ref), ref);
  }
  return [...refs.values()];
}

/**
 * Finds the contact of an inbound message's sender, in the caller's transaction. Creates it when no
 * identity is known (recording contact.updated and crm.record.created); attaches identities it did
 * not have; merges contacts the identities show to be one person (crm.record.updated for the
 * survivor, crm.record.deleted for each merged one) and returns the survivor.
 */
export async function resolveInboundContact(
  tx: Executor,
  organizationId: string,
  input: InboundContactInput,
): Promise<{ contactId: string; created: boolean }> {
  return resolve(tx, organizationId, input, 0);
}

async function resolve(
  tx: Executor,
  organizationId: string,
  input: InboundContactInput,
  attempt: number,
): Promise<{ contactId: string; created: boolean }> {
  const refs = inboundRefs(input);
  if (refs.length === 0) throw new Error('resolveInboundContact: the sender has no usable phone number or identity');
  const owners = await findIdentityOwners(tx, organizationId, refs);
  const ids = [...new Set(owners.values())];
  const phone = refs.find((r) => r.type === 'phone')?.value ?? null;
  const name = input.profileName?.trim().slice(0, 200) || null;

  if (ids.length === 0) {
    const row: ContactRow = {
      id: uuidv7(),
      organizationId,
      phoneNumber: phone,
      name,
      email: null,
      externalSource: null,
      externalId: null,
      customFields: {},
      createdAt: input.at,
      updatedAt: input.at,
    };
    await tx.insert(contacts).values(row);
    const added = await attachIdentities(tx, organizationId, row.id, refs, input.at);
    if (added.length < refs.length && attempt < 2) {
      // Another transaction took one of these identities since we looked: it made this person first.
      await tx.delete(contacts).where(eq(contacts.id, row.id));
      return resolve(tx, organizationId, input, attempt + 1);
    }
    await recordContactEvents(tx, row, 'created', { contactUpdated: true });
    return { contactId: row.id, created: true };
  }

  let changed = false;
  let contact: ContactRow;
  if (ids.length > 1) {
    contact = (await mergeContacts(tx, organizationId, ids, input.at)).survivor;
    changed = true;
  } else {
    contact = await loadContactRow(tx, organizationId, ids[0]!);
  }
  const missing = refs.filter((r) => !owners.has(identityKey(r)));
  const added = await attachIdentities(tx, organizationId, contact.id, missing, input.at);

  const patch: Partial<ContactRow> = {};
  if (!contact.name && name) patch.name = name;
  if (
    !contact.phoneNumber &&
    phone &&
    (owners.get(identityKey({ type: 'phone', source: '', value: phone })) !== undefined || added.some((r) => r.type === 'phone'))
  ) {
    patch.phoneNumber = phone;
  }
  if (Object.keys(patch).length > 0) {
    contact = { ...contact, ...patch, updatedAt: input.at };
    await tx
      .update(contacts)
      .set({ ...patch, updatedAt: input.at })
      .where(eq(contacts.id, contact.id));
    changed = true;
  }
  if (changed) await recordContactEvents(tx, contact, 'updated');
  return { contactId: contact.id, created: false };
}
