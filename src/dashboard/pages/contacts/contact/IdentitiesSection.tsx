/** Every id the contact is known by, from the record and from the channels they wrote on. */
import { useQuery } from '@tanstack/react-query';
import { orgKey } from '../../../query.ts';
import { ListState } from '../../../ui.tsx';
import { contactsApi } from '../api.ts';

const IDENTITY_NAMES: Record<string, string> = {
  phone: 'Phone',
  chatapp_id: 'Chat-app id',
  linked_id: 'Linked id',
  business_scoped_user_id: 'Business-scoped id',
  username: 'Username',
  email: 'Email',
  external_id: 'External id',
};

export function IdentitiesSection({ contactId }: { contactId: string }) {
  const identities = useQuery({ queryKey: orgKey('contacts', contactId, 'identities'), queryFn: () => contactsApi.identities(contactId) });
  return (
    <section className="section card" aria-labelledby="identities-title">
      <h2 id="identities-title">Identities</h2>
      <p className="small muted">Every id this person is known by, from the record and from the channels they wrote on.</p>
      <ListState items={identities.data} error={identities.error} empty={<p className="muted">No identities.</p>}>
        {(items) => (
          <ul className="identity-list" aria-label="Identities">
            {items.map((i) => (
              <li key={`${i.type}:${i.source ?? ''}:${i.value}`}>
                <span className="identity-type">{IDENTITY_NAMES[i.type] ?? i.type}</span>{' '}
                <span className="mono">{i.source ? `${i.source}:${i.value}` : i.value}</span>
              </li>
            ))}
          </ul>
        )}
      </ListState>
    </section>
  );
}
