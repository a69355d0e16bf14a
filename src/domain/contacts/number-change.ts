/**
 * A customer's number changed (the provider reported it): the person keeps their contact, which now
 * holds the new number instead of the old one.
 */
import { and, eq, inArray, or } from 'drizzle-orm';
import type { Executor } from '../../db/client.ts';
import { contactIdentities, contacts } from '../../db/schema.ts';
import { attachIdentities, findIdentityOwners, normalizeIdentity, type IdentityRef } from './identities.ts';
import { mergeContacts } from './merge.ts';
import { loadContactRow, recordContactEvents } from './record.ts';

export type NumberChangeInput = {
  /** The old and the new number, international digits without `+`. */
  from: string;
  to: string;
  at: Date;
};

/** Moves a contact from one number to another, in the caller's transaction; undefined when nobody held the old number. */
export type NumberChanger = (tx: Executor, organizationId: string, input: NumberChangeInput) => Promise<{ contactId: string } | undefined>;

function refsOf(digits: string): IdentityRef[] {
  return [normalizeIdentity('phone', `+${digits}`), normalizeIdentity('chatapp_id', digits)].filter(
    (r): r is IdentityRef => r !== undefined,
  );
}

const sameRef = (refs: IdentityRef[]) =>
  or(
    ...refs.map((r) =>
      and(eq(contactIdentities.type, r.type), eq(contactIdentities.source, r.source), eq(contactIdentities.value, r.value)),
    ),
  );

/**
 * The contact holding the old number (contacts holding its phone and chat-app id apart are merged)
 * releases those identities and takes the new number's: the old number may be given to someone else,
 * and the new one is now this person's (another contact that held it loses it, and its phone_number
 * when it was that number). The contact's phone_number follows when it was the old number or empty.
 * Records contact.updated and crm.record.updated for each contact changed.
 */
export const changeContactNumber: NumberChanger = async (tx, organizationId, input) => {
  const oldRefs = refsOf(input.from);
  const newRefs = refsOf(input.to);
  const newPhone = newRefs.find((r) => r.type === 'phone')?.value;
  const oldPhone = oldRefs.find((r) => r.type === 'phone')?.value;
  if (oldRefs.length === 0 || newRefs.length === 0) return undefined;
  const holders = [...new Set((await findIdentityOwners(tx, organizationId, oldRefs)).values())];
  if (holders.length === 0) return undefined;
  let contact =
    holders.length > 1
      ? (await mergeContacts(tx, organizationId, holders, input.at)).survivor
      : await loadContactRow(tx, organizationId, holders[0]!);

  await tx
    .delete(contactIdentities)
    .where(and(eq(contactIdentities.organizationId, organizationId), eq(contactIdentities.contactId, contact.id), sameRef(oldRefs)));
  const others = [...new Set((await findIdentityOwners(tx, organizationId, newRefs)).values())].filter((id) => id !== contact.id);
  if (others.length > 0) {
    await tx
      .delete(contactIdentities)
      .where(and(eq(contactIdentities.organizationId, organizationId), inArray(contactIdentities.contactId, others), sameRef(newRefs)));
    for (const id of others) {
      const other = await loadContactRow(tx, organizationId, id);
      if (other.phoneNumber !== null && other.phoneNumber === newPhone) {
        const [updated] = await tx
          .update(contacts)
          .set({ phoneNumber: null, updatedAt: input.at })
          .where(eq(contacts.id, other.id))
          .returning();
        await recordContactEvents(tx, updated!, 'updated');
      }
    }
  }
  await attachIdentities(tx, organizationId, contact.id, newRefs, input.at);
  if (newPhone && (contact.phoneNumber === null || contact.phoneNumber === oldPhone)) {
    const [updated] = await tx
      .update(contacts)
      .set({ phoneNumber: newPhone, updatedAt: input.at })
      .where(eq(contacts.id, contact.id))
      .returning();
    contact = updated!;
  }
  await recordContactEvents(tx, contact, 'updated');
  return { contactId: contact.id };
};
