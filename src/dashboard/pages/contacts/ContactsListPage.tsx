/** The contact list: search and tag filter (kept in the URL), newest first, by cursor. */
import { useState, type FormEvent } from 'react';
import { formatDate } from '../../format.ts';
import { TextField } from '../../forms.tsx';
import { orgKey, usePagedList } from '../../query.ts';
import { Link, useSearchParams } from '../../router.tsx';
import { useCan } from '../../session.tsx';
import { EmptyState, ListState, PageHeader, Pager, Table } from '../../ui.tsx';
import { contactsApi, type ContactRecord } from './api.ts';

/** What a contact is called on the page: its name, else its number, else its email or external id. */
export function contactLabel(contact: ContactRecord): string {
  return (
    contact.name ||
    contact.phone_number ||
    contact.email ||
    (contact.external_id ? `${contact.external_source}:${contact.external_id}` : 'Unnamed contact')
  );
}

export function ContactsListPage() {
  const [params, setParams] = useSearchParams();
  const search = params.get('search') ?? '';
  const tag = params.get('tag') ?? '';
  const canWrite = useCan('contacts:write');
  const list = usePagedList(orgKey('contacts', 'list', { search, tag }), (cursor) => contactsApi.list({ search, tag }, cursor));
  const filtered = search !== '' || tag !== '';

  function filterBy(next: { search?: string; tag?: string }) {
    const merged = { search, tag, ...next };
    const out = new URLSearchParams();
    if (merged.search.trim()) out.set('search', merged.search.trim());
    if (merged.tag.trim()) out.set('tag', merged.tag.trim());
    setParams(out);
  }

  return (
    <div className="contacts-area">
      <PageHeader title="Contacts" description="The people your organization talks to, with their notes, tags, consents and conversations.">
        {canWrite ? (
          <>
            <Link className="button" to="/contacts/import">
              Import CSV
            </Link>
            <Link className="button button-primary" to="/contacts/new">
              New contact
            </Link>
          </>
        ) : null}
      </PageHeader>
      <FilterForm key={`${search}\u0000${tag}`} search={search} tag={tag} onApply={filterBy} />
      <ListState
        items={list.items}
        error={list.error}
        empty={
          filtered ? (
            <EmptyState title="No contacts match">Try another search or tag, or clear the filters.</EmptyState>
          ) : (
            <EmptyState title="No contacts yet">
              Contacts appear when customers write in; you can also add one or import a CSV file.
            </EmptyState>
          )
        }
      >
        {(items) => (
          <Table
            label="Contact list"
            caption={`Contacts${filtered ? ' matching the filters' : ''}`}
            columns={['Name', 'Phone number', 'Email', 'Tags', 'Updated']}
            className="contacts-table"
          >
            {items.map((c) => (
              <tr key={c.id} data-contact-id={c.id}>
                <td className="strong contact-name">
                  <Link to={`/contacts/${c.id}`}>{contactLabel(c)}</Link>
                </td>
                <td className="mono nowrap" data-label="Phone">
                  {c.phone_number ?? '—'}
                </td>
                <td data-label="Email">{c.email ?? '—'}</td>
                <td data-label="Tags">
                  {c.tags.length ? (
                    <ul className="chips" aria-label="Tags">
                      {c.tags.map((t) => (
                        <li key={t}>
                          <button
                            type="button"
                            className="chip chip-button"
                            onClick={() => filterBy({ tag: t })}
                            aria-label={`Show contacts tagged ${t}`}
                          >
                            {t}
                          </button>
                        </li>
                      ))}
                    </ul>
                  ) : (
                    <span className="muted">—</span>
                  )}
                </td>
                <td className="nowrap" data-label="Updated">
                  {formatDate(c.updated_at)}
                </td>
              </tr>
            ))}
          </Table>
        )}
      </ListState>
      <Pager list={list} />
    </div>
  );
}

/** The filters, applied on submit (so typing does not fetch on every key) and kept in the URL. */
function FilterForm({ search, tag, onApply }: { search: string; tag: string; onApply(filter: { search: string; tag: string }): void }) {
  const [draftSearch, setDraftSearch] = useState(search);
  const [draftTag, setDraftTag] = useState(tag);
  function submit(event: FormEvent) {
    event.preventDefault();
    onApply({ search: draftSearch, tag: draftTag });
  }
  return (
    <form className="filter-bar" role="search" aria-label="Filter contacts" onSubmit={submit}>
      <TextField
        label="Search"
        type="search"
        value={draftSearch}
        onChange={setDraftSearch}
        placeholder="Name, email or number"
        maxLength={200}
      />
      <TextField label="Tag" value={draftTag} onChange={setDraftTag} placeholder="e.g. vip" maxLength={100} />
      <div className="filter-actions">
        <button type="submit" className="button button-primary">
          Apply
        </button>
        {search || tag ? (
          <button type="button" className="button" onClick={() => onApply({ search: '', tag: '' })}>
            Clear filters
          </button>
        ) : null}
      </div>
    </form>
  );
}
