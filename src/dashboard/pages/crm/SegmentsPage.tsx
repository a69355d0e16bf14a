/** The organization's segments, each with its count now, and the way to a new one. */
import { useQuery } from '@tanstack/react-query';
import { formatDate } from '../../format.ts';
import { orgKey, usePagedList } from '../../query.ts';
import { Link } from '../../router.tsx';
import { useCan } from '../../session.tsx';
import { EmptyState, ListState, PageHeader, Pager, Table } from '../../ui.tsx';
import { segmentsApi } from './api.ts';

export function SegmentsPage() {
  const canWrite = useCan('crm:write');
  const list = usePagedList(orgKey('segments'), (cursor) => segmentsApi.list(cursor));
  return (
    <div className="crm-area">
      <PageHeader
        title="Segments"
        description="Contacts found by a filter (tags, lists, custom fields, consents, last message, company), counted as they are now."
      >
        {canWrite ? (
          <Link className="button button-primary" to="/segments/new">
            New segment
          </Link>
        ) : null}
      </PageHeader>
      <ListState
        items={list.items}
        error={list.error}
        empty={<EmptyState title="No segments yet">Build one from a filter over your contacts.</EmptyState>}
      >
        {(items) => (
          <Table label="Segments" caption="Segments, by name" columns={['Name', 'Contacts now', 'Changed']} className="segments-table">
            {items.map((s) => (
              <tr key={s.id} data-segment-id={s.id}>
                <td className="strong">
                  <Link to={`/segments/${s.id}`}>{s.name}</Link>
                </td>
                <td data-label="Contacts now">
                  <SegmentCount id={s.id} />
                </td>
                <td className="nowrap" data-label="Changed">
                  {formatDate(s.updated_at)}
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

function SegmentCount({ id }: { id: string }) {
  const count = useQuery({ queryKey: orgKey('segments', id, 'count'), queryFn: () => segmentsApi.count(id) });
  if (count.error) return <span className="muted">—</span>;
  return <>{count.data ? count.data.count.toLocaleString() : '…'}</>;
}
