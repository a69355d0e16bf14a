/** One list: its records (newest first), adding records by id, removing one, deleting the list. */
import { useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { errorMessage } from '../../api.ts';
import { formatDate } from '../../format.ts';
import { formErrors, TextField } from '../../forms.tsx';
import { orgKey, usePagedList } from '../../query.ts';
import { Link, useNavigate, useParams } from '../../router.tsx';
import { useCan } from '../../session.tsx';
import { ConfirmButton, EmptyState, ErrorMessage, ListState, Loading, PageHeader, Pager, Table } from '../../ui.tsx';
import { listsApi, type ListRecord } from './api.ts';
import { KIND_LABELS } from './ListsPage.tsx';

const recordPath = (kind: string, id: string) => (kind === 'contact' ? `/contacts/${id}` : undefined);

export function ListPage() {
  const { listId = '' } = useParams();
  const list = useQuery({ queryKey: orgKey('lists', listId), queryFn: () => listsApi.get(listId) });
  if (list.error && !list.data)
    return (
      <div className="crm-area">
        <PageHeader title="List">
          <BackToLists />
        </PageHeader>
        <ErrorMessage message={errorMessage(list.error)} />
      </div>
    );
  if (!list.data) return <Loading />;
  return <ListView list={list.data} />;
}

function BackToLists() {
  return (
    <Link className="button" to="/lists">
      Back to lists
    </Link>
  );
}

function ListView({ list }: { list: ListRecord }) {
  const canWrite = useCan('crm:write');
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const entries = usePagedList(orgKey('lists', list.id, 'entries'), (cursor) => listsApi.entries(list.id, cursor));
  const refresh = () => queryClient.invalidateQueries({ queryKey: orgKey('lists') });
  const removeEntry = useMutation({ mutationFn: (recordId: string) => listsApi.removeEntry(list.id, recordId), onSuccess: refresh });
  const remove = useMutation({
    mutationFn: () => listsApi.remove(list.id),
    onSuccess: () => {
      // The lists are fetched afresh; this page's own queries are left alone, so nothing asks for the list that is gone.
      queryClient.removeQueries({ queryKey: orgKey('lists'), predicate: (q) => q.queryKey[3] !== list.id });
      navigate('/lists');
    },
  });
  return (
    <div className="crm-area">
      <PageHeader title={list.name} description={`${KIND_LABELS[list.kind] ?? list.kind}: ${list.entry_count} in the list`}>
        <BackToLists />
      </PageHeader>
      {canWrite ? <AddEntriesForm list={list} onAdded={refresh} /> : null}
      <ErrorMessage message={removeEntry.error ? errorMessage(removeEntry.error) : undefined} />
      <ListState items={entries.items} error={entries.error} empty={<EmptyState title="Nothing in this list yet" />}>
        {(items) => (
          <Table label="Records in the list" columns={['Name', 'Added']} actions={canWrite} className="entries-table">
            {items.map((e) => {
              const to = recordPath(e.record.kind, e.record.id);
              const name = e.record.display_name ?? e.record.id;
              return (
                <tr key={e.record.id}>
                  <td className="strong">{to ? <Link to={to}>{name}</Link> : name}</td>
                  <td className="nowrap" data-label="Added">
                    {formatDate(e.added_at)}
                  </td>
                  {canWrite ? (
                    <td>
                      <button
                        type="button"
                        className="button"
                        aria-label={`Remove ${name} from the list`}
                        disabled={removeEntry.isPending}
                        onClick={() => removeEntry.mutate(e.record.id)}
                      >
                        Remove
                      </button>
                    </td>
                  ) : null}
                </tr>
              );
            })}
          </Table>
        )}
      </ListState>
      <Pager list={entries} />
      {canWrite ? (
        <section className="section" aria-labelledby="delete-list-title">
          <h2 id="delete-list-title">Delete this list</h2>
          <p className="small muted">Its records stay; only the list goes.</p>
          <ConfirmButton
            label="Delete list"
            confirmLabel="Delete"
            question="Delete this list?"
            busy={remove.isPending}
            onConfirm={() => remove.mutate()}
          />
          <ErrorMessage message={remove.error ? errorMessage(remove.error) : undefined} />
        </section>
      ) : null}
    </div>
  );
}

function AddEntriesForm({ list, onAdded }: { list: ListRecord; onAdded(): void }) {
  const [ids, setIds] = useState('');
  const add = useMutation({
    mutationFn: () =>
      listsApi.add(
        list.id,
        ids.split(/[\s,;]+/).filter((s) => s !== ''),
      ),
    onSuccess: () => {
      setIds('');
      onAdded();
    },
  });
  const errors = formErrors(add.error);
  function submit(event: FormEvent) {
    event.preventDefault();
    add.mutate();
  }
  const kind = (KIND_LABELS[list.kind] ?? list.kind).toLowerCase();
  return (
    <form className="card filter-bar" onSubmit={submit} noValidate aria-label="Add to the list">
      <ErrorMessage message={errors.message} />
      <TextField
        label={`Add ${kind} by id`}
        value={ids}
        onChange={setIds}
        error={errors.field('/record_ids')}
        description="One or more ids, separated by spaces or commas"
        maxLength={40_000}
      />
      <div className="filter-actions">
        <button type="submit" className="button button-primary" disabled={add.isPending || ids.trim() === ''}>
          {add.isPending ? 'Adding…' : 'Add'}
        </button>
      </div>
      {add.data ? (
        <p className="small" role="status">
          {add.data.added.length} added{add.data.existing.length ? `, ${add.data.existing.length} already in the list` : ''}.
        </p>
      ) : null}
    </form>
  );
}
