/** The contact's deals, with their status and amount. */
import { orgKey, usePagedList } from '../../../query.ts';
import { Link } from '../../../router.tsx';
import { ListState, Pager, StatusBadge } from '../../../ui.tsx';
import { contactsApi } from '../api.ts';

function amountOf(amount: number | null, currency: string | null): string | null {
  if (amount === null || currency === null) return null;
  try {
    const digits = new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
    return new Intl.NumberFormat(undefined, { style: 'currency', currency }).format(amount / 10 ** digits);
  } catch {
    return `${amount} ${currency}`;
  }
}

export function DealsSection({ contactId }: { contactId: string }) {
  const deals = usePagedList(orgKey('deals', 'contact', contactId), (cursor) => contactsApi.deals(contactId, cursor));
  return (
    <section className="section card" aria-labelledby="deals-title">
      <h2 id="deals-title">Deals</h2>
      <ListState items={deals.items} error={deals.error} empty={<p className="muted">No deals with this contact.</p>}>
        {(items) => (
          <ul className="identity-list" aria-label="Deals">
            {items.map((d) => (
              <li key={d.id}>
                <Link className="strong" to={`/deals/${d.id}`}>
                  {d.name}
                </Link>{' '}
                <StatusBadge status={d.status} />
                {amountOf(d.amount, d.currency) ? <span className="muted">{amountOf(d.amount, d.currency)}</span> : null}
              </li>
            ))}
          </ul>
        )}
      </ListState>
      <Pager list={deals} />
    </section>
  );
}
