import { api, type Channel } from '../../api.ts';
import { channelStatusClass, formatDate } from '../../format.ts';
import { EmptyState, ErrorMessage, LoadMore, Loading, PageHeader, usePaged } from '../../ui.tsx';

const PLATFORMS: Record<string, string> = {
  chatapp_official: 'ChatApp (official API)',
  chatapp_unofficial: 'ChatApp (linked device)',
};

export function ChannelsPage() {
  const channels = usePaged<Channel>((cursor) => api.channels(cursor));
  return (
    <>
      <PageHeader title="Channels" description="The messaging numbers this organization sends and receives on." />
      <ErrorMessage message={channels.error} />
      {channels.items === undefined ? (
        channels.error ? null : <Loading />
      ) : channels.items.length === 0 ? (
        <EmptyState title="No channels yet">
          Channels connect Parley to a messaging number. Connect one through the API; see the <a href="/v1/docs/">API reference</a>.
        </EmptyState>
      ) : (
        <div className="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Platform</th>
                <th scope="col">Phone number</th>
                <th scope="col">Status</th>
                <th scope="col">Created</th>
              </tr>
            </thead>
            <tbody>
              {channels.items.map((c) => (
                <tr key={c.id}>
                  <td className="strong">{c.name}</td>
                  <td>{PLATFORMS[c.platform] ?? c.platform}</td>
                  <td className="mono">{c.display_phone_number ?? '—'}</td>
                  <td>
                    <span className={channelStatusClass(c.status)}>{c.status}</span>
                    {c.status_reason ? <div className="muted small">{c.status_reason}</div> : null}
                  </td>
                  <td>{formatDate(c.created_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <LoadMore paged={channels} />
    </>
  );
}
