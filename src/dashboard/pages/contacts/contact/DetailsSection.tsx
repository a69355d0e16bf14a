/** The contact's own fields, read-only (the Edit button swaps in ContactForm). */
import { formatDate } from '../../../format.ts';
import type { ContactRecord } from '../api.ts';

export function DetailsSection({ contact }: { contact: ContactRecord }) {
  const pairs: Array<[string, string, string?]> = [
    ['Name', contact.name ?? '—'],
    ['Phone number', contact.phone_number ?? '—', 'mono'],
    ['Email', contact.email ?? '—'],
    ['External id', contact.external_id ? `${contact.external_source ?? ''} ${contact.external_id}`.trim() : '—'],
    ...Object.entries(contact.custom_fields).map(([key, value]): [string, string] => [
      key,
      typeof value === 'string' ? value : JSON.stringify(value),
    ]),
    ['Updated', formatDate(contact.updated_at)],
  ];
  return (
    <section className="section card" aria-labelledby="details-title">
      <h2 id="details-title">Details</h2>
      <dl className="details">
        {pairs.map(([term, value, className], i) => (
          <div key={i} className="details-pair">
            <dt>{term}</dt>
            <dd className={className}>{value}</dd>
          </div>
        ))}
      </dl>
    </section>
  );
}
