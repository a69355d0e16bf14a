/** The companies a contact is linked to (relationships of any label, either way), each with its label and page. */
import { call, type Page } from '../../../api.ts';
import type { RelationshipRecord } from '../../../../http/v1/relationships.presenters.ts';
import { orgKey, usePagedList } from '../../../query.ts';
import { Link } from '../../../router.tsx';
import { ListState, Pager } from '../../../ui.tsx';

const linksOf = (contactId: string, cursor?: string) =>
  call<Page<RelationshipRecord>>('GET', '/v1/relationships', { query: { record: `contact:${contactId}`, cursor } });

export function CompaniesSection({ contactId }: { contactId: string }) {
  const links = usePagedList(orgKey('crm', 'relationships', { record: `contact:${contactId}` }), (cursor) => linksOf(contactId, cursor));
  const companies = links.items?.filter((l) => l.related.kind === 'company');
  return (
    <section className="section card" aria-labelledby="companies-title">
      <h2 id="companies-title">Companies</h2>
      <ListState items={companies} error={links.error} empty={<p className="muted">Not linked to a company.</p>}>
        {(items) => (
          <ul className="identity-list" aria-label="Companies">
            {items.map((l) => (
              <li key={l.id}>
                <Link className="strong" to={`/companies/${l.related.id}`}>
                  {l.related.display_name ?? 'Unnamed company'}
                </Link>{' '}
                <span className="muted">{l.label}</span>
              </li>
            ))}
          </ul>
        )}
      </ListState>
      <Pager list={links} />
    </section>
  );
}
