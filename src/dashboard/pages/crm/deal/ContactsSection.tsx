/** The deal's contacts, by name, each a link to its contact page. */
import { useQueries } from '@tanstack/react-query';
import { orgKey } from '../../../query.ts';
import { Link } from '../../../router.tsx';
import { contactsApi } from '../../contacts/api.ts';
import { contactLabel } from '../../contacts/ContactsListPage.tsx';

export function ContactsSection({ contactIds }: { contactIds: string[] }) {
  const contacts = useQueries({
    queries: contactIds.map((id) => ({ queryKey: orgKey('contacts', id), queryFn: () => contactsApi.get(id) })),
  });
  return (
    <section className="section card" aria-labelledby="deal-contacts-title">
      <h2 id="deal-contacts-title">Contacts</h2>
      {contactIds.length === 0 ? (
        <p className="muted">No contacts on this deal.</p>
      ) : (
        <ul className="plain-list" aria-label="Contacts of this deal">
          {contactIds.map((id, i) => {
            const c = contacts[i]?.data;
            return (
              <li key={id}>
                <Link to={`/contacts/${id}`}>{c ? contactLabel(c) : 'A contact'}</Link>
              </li>
            );
          })}
        </ul>
      )}
    </section>
  );
}
