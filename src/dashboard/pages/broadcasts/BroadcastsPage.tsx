/** The organization's broadcasts, newest first, filtered by status (kept in the address), and the way to a new one. */
import { useAllChannels } from '../../channels.ts';
import { SelectField } from '../../forms.tsx';
import { formatDate } from '../../format.ts';
import { orgKey, usePagedList } from '../../query.ts';
import { Link } from '../../router.tsx';
import { useCan } from '../../session.tsx';
import { EmptyState, ListState, PageHeader, Pager, Table } from '../../ui.tsx';
import { useUrlFilters } from '../channels/url-filters.ts';
import { broadcastsApi } from './api.ts';
import { BroadcastBadge } from './parts.tsx';
import { ACTIVE_STATUSES, BROADCAST_STATUS, broadcastStatuses } from './statuses.ts';

export function BroadcastsPage() {
  const canSend = useCan('messages:send');
  const { values, set } = useUrlFilters(['status']);
  const status = values.status;
  const channels = useAllChannels();
  const names = new Map((channels.data ?? []).map((c) => [c.id, c.name]));
  const list = usePagedList(orgKey('broadcasts', 'list', status ?? 'all'), (cursor) => broadcastsApi.list(status, cursor), {
    // A sending broadcast's status changes by itself: asked again while one is on screen.
    refreshWhile: (items) => (items.some((b) => ACTIVE_STATUSES.has(b.status)) ? 5_000 : false),
  });
  return (
    <>
      <PageHeader title="Broadcasts" description="One approved template sent to many contacts, at a time and pace you choose.">
        {canSend ? (
          <Link className="button button-primary" to="/broadcasts/new">
            New broadcast
          </Link>
        ) : null}
      </PageHeader>
      <form className="filters" role="search" aria-label="Filter broadcasts" onSubmit={(e) => e.preventDefault()}>
        <SelectField
          label="Status"
          value={status ?? ''}
          onChange={(v) => set('status', v)}
          options={[{ value: '', label: 'Any status' }, ...broadcastStatuses.map((s) => ({ value: s, label: BROADCAST_STATUS[s].label }))]}
        />
      </form>
      <ListState
        items={list.items}
        error={list.error}
        empty={
          <EmptyState title={status ? 'No broadcasts match' : 'No broadcasts yet'}>
            {status ? 'Try another status.' : 'Send one approved template to a segment, a list, tags or pasted numbers.'}
          </EmptyState>
        }
      >
        {(items) => (
          <Table label="Broadcasts" caption="Broadcasts, newest first" columns={['Name', 'Status', 'Channel', 'Sends', 'Finished']}>
            {items.map((b) => (
              <tr key={b.id} data-broadcast-id={b.id}>
                <td className="strong">
                  <Link to={b.status === 'draft' && canSend ? `/broadcasts/${b.id}/edit` : `/broadcasts/${b.id}`}>{b.name}</Link>
                </td>
                <td data-label="Status">
                  <BroadcastBadge status={b.status} />
                </td>
                <td data-label="Channel">{names.get(b.channel_id) ?? '—'}</td>
                <td className="nowrap" data-label="Sends">
                  {b.started_at ? formatDate(b.started_at) : b.send_at ? formatDate(b.send_at) : b.status === 'draft' ? '—' : 'Now'}
                </td>
                <td className="nowrap" data-label="Finished">
                  {formatDate(b.finished_at)}
                </td>
              </tr>
            ))}
          </Table>
        )}
      </ListState>
      <Pager list={list} />
    </>
  );
}
