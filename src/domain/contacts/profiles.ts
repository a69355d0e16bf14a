/**
 * What a provider knows of people (the embedded engine's history sync: the phone's contacts, with
 * their privacy ids and names), applied to the contacts the CRM already has: the privacy id becomes a
 * `linked_id` identity (so a message naming the sender by it alone finds the contact), and the name
 * fills a contact that has none. Nobody is made a contact by it: the phone's address book is not the CRM.
 */
import { and, eq, inArray, isNull } from 'drizzle-orm';
import type { Executor } from '../../db/client.ts';
import { contactIdentities, contacts } from '../../db/schema.ts';
import { attachIdentities, normalizeIdentity } from './identities.ts';
import { loadContactRow, recordContactEvents } from './record.ts';

export type ContactProfile = { phone: string; lid?: string; name?: string };

export async function applyContactProfiles(tx: Executor, organizationId: string, profiles: ContactProfile[], at: Date): Promise<void> {
  const byValue = new Map<string, ContactProfile>();
  for (const p of profiles) {
    const ref = normalizeIdentity('phone', `+${p.phone.replace(/\D/g, '')}`);
    if (ref) byValue.set(ref.value, p);
  }
  if (byValue.size === 0) return;
  const owners = await tx
    .select({ contactId: contactIdentities.contactId, value: contactIdentities.value })
    .from(contactIdentities)
    .where(
      and(
        eq(contactIdentities.organizationId, organizationId),
        eq(contactIdentities.type, 'phone'),
        inArray(contactIdentities.value, [...byValue.keys()]),
      ),
    );
  for (const owner of owners) {
    const profile = byValue.get(owner.value)!;
    const lid = profile.lid ? normalizeIdentity('linked_id', profile.lid) : undefined;
    const linked = lid ? await attachIdentities(tx, organizationId, owner.contactId, [lid], at) : [];
    const named = profile.name
      ? await tx
          .update(contacts)
          .set({ name: profile.name, updatedAt: at })
          .where(and(eq(contacts.id, owner.contactId), eq(contacts.organizationId, organizationId), isNull(contacts.name)))
          .returning({ id: contacts.id })
      : [];
    if (linked.length > 0 || named.length > 0)
      await recordContactEvents(tx, await loadContactRow(tx, organizationId, owner.contactId), 'updated');
  }
}
