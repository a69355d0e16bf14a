/** The company list: name search, owner filter and sort (kept in the URL), by cursor. */
import { useState, type FormEvent } from 'react';
import { formatDate } from '../../../format.ts';
import { SelectField, TextField } from '../../../forms.tsx';
import { orgKey, usePagedList } from '../../../query.ts';
import { Link, useSearchParams } from '../../../router.tsx';
import { useCan } from '../../../session.tsx';
import { EmptyState, ListState, PageHeader, Pager, Table } from '../../../ui.tsx';
import { crmApi, type CompanyFilter } from '../api.ts';

const SORTS = [
  { value: '-created_at', label: 'Newest first' },
  { value: 'created_at', label: 'Oldest first' },
  { value: 'name', label: 'Name, A to Z' },
  { value: '-name', label: 'Name, Z to A' },
  { value: '-updated_at', label: 'Recently updated' },
];

const OWNERS = [
  { value: '', label: 'Anyone' },
  { value: 'me', label: 'Me' },
  { value: 'none', label: 'No owner' },
];

type Filter = Required<CompanyFilter>;

export function CompaniesListPage() {
  const [params, setParams] = useSearchParams();
  const filter: Filter = { name: params.get('name') ?? '', sort: params.get('sort') ?? '', owner: params.get('owner') ?? '' };
  const canWrite = useCan('crm:write');
  const list = usePagedList(orgKey('crm', 'companies', 'list', filter), (cursor) => crmApi.companies(filter, cursor));
  const filtered = filter.name !== '' || filter.owner !== '';

  function apply(next: Filter) {
    const out = new URLSearchParams();
    for (const [k, v] of Object.entries(next)) if (v.trim() && !(k === 'sort' && v === '-created_at')) out.set(k, v.trim());
    setParams(out);
  }

  return (
    <div className="crm-area">
      <PageHeader title="Companies" description="The organizations your customers work for, with their deals, tasks and comments.">
        {canWrite ? (
          <Link className="button button-primary" to="/companies/new">
            New company
          </Link>
        ) : null}
      </PageHeader>
      <FilterForm key={JSON.stringify(filter)} filter={filter} onApply={apply} />
      <ListState
        items={list.items}
        error={list.error}
        empty={
          filtered ? (
            <EmptyState title="No companies match">Try another name or owner, or clear the filters.</EmptyState>
          ) : (
            <EmptyState title="No companies yet">Add the companies your contacts work for, then their deals.</EmptyState>
          )
        }
      >
        {(items) => (
          <Table
            label="Company list"
            caption={`Companies${filtered ? ' matching the filters' : ''}`}
            columns={['Name', 'Domain', 'Phone', 'City', 'Updated']}
            className="companies-table"
          >
            {items.map((c) => (
              <tr key={c.id} data-company-id={c.id}>
                <td className="strong">
                  <Link to={`/companies/${c.id}`}>{c.name}</Link>
                </td>
                <td data-label="Domain">{c.domain ?? '—'}</td>
                <td className="mono nowrap" data-label="Phone">
                  {c.phone ?? '—'}
                </td>
                <td data-label="City">{c.address?.city ?? '—'}</td>
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
function FilterForm({ filter, onApply }: { filter: Filter; onApply(filter: Filter): void }) {
  const [draft, setDraft] = useState(filter);
  const set = (k: keyof Filter) => (v: string) => setDraft((d) => ({ ...d, [k]: v }));
  function submit(event: FormEvent) {
    event.preventDefault();
    onApply(draft);
  }
  return (
    <form className="filter-bar" role="search" aria-label="Filter companies" onSubmit={submit}>
      <TextField label="Name" type="search" value={draft.name} onChange={set('name')} placeholder="Part of the name" maxLength={200} />
      <SelectField label="Owner" value={draft.owner} onChange={set('owner')} options={OWNERS} />
      <SelectField label="Sort" value={draft.sort || '-created_at'} onChange={set('sort')} options={SORTS} />
      <div className="filter-actions">
        <button type="submit" className="button button-primary">
          Apply
        </button>
        {filter.name || filter.owner || filter.sort ? (
          <button type="button" className="button" onClick={() => onApply({ name: '', owner: '', sort: '' })}>
            Clear filters
          </button>
        ) : null}
      </div>
    </form>
  );
}
