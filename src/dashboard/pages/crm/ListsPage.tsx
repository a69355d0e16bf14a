/** The organization's lists: a new one (name and kind), and every list with its size, by name. */
import { useState, type FormEvent } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { formatDate } from '../../format.ts';
import { formErrors, SelectField, TextField } from '../../forms.tsx';
import { orgKey, usePagedList } from '../../query.ts';
import { Link } from '../../router.tsx';
import { useCan } from '../../session.tsx';
import { EmptyState, ErrorMessage, ListState, PageHeader, Pager, Table } from '../../ui.tsx';
import { listsApi } from './api.ts';

export const KIND_LABELS: Record<string, string> = { contact: 'Contacts', company: 'Companies', deal: 'Deals' };

export function ListsPage() {
  const canWrite = useCan('crm:write');
  const list = usePagedList(orgKey('lists'), (cursor) => listsApi.list(cursor));
  return (
    <div className="crm-area">
      <PageHeader title="Lists" description="Sets of contacts, companies or deals you keep by hand, such as a newsletter's readers." />
      {canWrite ? <NewListForm /> : null}
      <ListState
        items={list.items}
        error={list.error}
        empty={<EmptyState title="No lists yet">Make one above, then add records to it.</EmptyState>}
      >
        {(items) => (
          <Table label="Lists" caption="Lists, by name" columns={['Name', 'Of', 'Records', 'Created']} className="lists-table">
            {items.map((l) => (
              <tr key={l.id} data-list-id={l.id}>
                <td className="strong">
                  <Link to={`/lists/${l.id}`}>{l.name}</Link>
                </td>
                <td data-label="Of">{KIND_LABELS[l.kind] ?? l.kind}</td>
                <td data-label="Records">{l.entry_count}</td>
                <td className="nowrap" data-label="Created">
                  {formatDate(l.created_at)}
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

function NewListForm() {
  const [name, setName] = useState('');
  const [kind, setKind] = useState('contact');
  const queryClient = useQueryClient();
  const create = useMutation({
    mutationFn: () => listsApi.create({ name: name.trim(), kind }),
    onSuccess: async () => {
      setName('');
      await queryClient.invalidateQueries({ queryKey: orgKey('lists') });
    },
  });
  const errors = formErrors(create.error);
  function submit(event: FormEvent) {
    event.preventDefault();
    create.mutate();
  }
  return (
    <form className="card filter-bar" onSubmit={submit} noValidate aria-label="New list">
      <ErrorMessage message={errors.summary('/name', '/kind')} />
      <TextField
        label="List name"
        value={name}
        onChange={setName}
        error={errors.field('/name')}
        maxLength={200}
        placeholder="e.g. Newsletter"
      />
      <SelectField
        label="Of"
        value={kind}
        onChange={setKind}
        error={errors.field('/kind')}
        options={Object.entries(KIND_LABELS).map(([value, label]) => ({ value, label }))}
      />
      <div className="filter-actions">
        <button type="submit" className="button button-primary" disabled={create.isPending}>
          {create.isPending ? 'Creating…' : 'Create list'}
        </button>
      </div>
    </form>
  );
}
