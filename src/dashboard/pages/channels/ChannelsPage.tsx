/** The channels of the organization: status, health and last error of each, live. */
import { SelectField } from '../../forms.tsx';
import { formatDate } from '../../format.ts';
import { orgKey, usePagedList } from '../../query.ts';
import { Link } from '../../router.tsx';
import { useCan } from '../../session.tsx';
import { EmptyState, ListState, PageHeader, Pager, StatusBadge } from '../../ui.tsx';
import {
  CHANNEL_STATUS_OPTIONS,
  channelsApi,
  engineLabel,
  PLATFORM_LABELS,
  platformLabel,
  type ChannelFilters,
  type ChannelView,
  type Platform,
} from './api.ts';
import { useUrlFilters } from './url-filters.ts';

export function ChannelsPage() {
  const canWrite = useCan('channels:write');
  const { values: filters, set: setFilter } = useUrlFilters<keyof ChannelFilters>(['status', 'platform']);
  const filtered = Boolean(filters.status || filters.platform);
  const channels = usePagedList(orgKey('channels', 'list', filters), (cursor) => channelsApi.list(cursor, filters));
  return (
    <>
      <PageHeader title="Channels" description="The messaging numbers this organization sends and receives on.">
        {canWrite ? (
          <Link className="button button-primary" to="/channels/new">
            New channel
          </Link>
        ) : null}
      </PageHeader>
      {filtered || (channels.items?.length ?? 0) > 0 ? (
        <form className="filters" role="search" aria-label="Filter channels" onSubmit={(e) => e.preventDefault()}>
          <SelectField
            label="Status"
            value={filters.status ?? ''}
            onChange={(v) => setFilter('status', v)}
            options={[{ value: '', label: 'Any status' }, ...CHANNEL_STATUS_OPTIONS.map((s) => ({ value: s, label: s }))]}
          />
          <SelectField
            label="Platform"
            value={filters.platform ?? ''}
            onChange={(v) => setFilter('platform', v)}
            options={[
              { value: '', label: 'Any platform' },
              ...(Object.keys(PLATFORM_LABELS) as Platform[]).map((p) => ({ value: p, label: PLATFORM_LABELS[p] })),
            ]}
          />
        </form>
      ) : null}
      <ListState
        items={channels.items}
        error={channels.error}
        empty={
          filtered ? (
            <EmptyState title="No channels match">Try other filters.</EmptyState>
          ) : (
            <EmptyState title="No channels yet">
              {canWrite ? (
                <>
                  A channel connects Parley to a messaging number. <Link to="/channels/new">Add the first one</Link>.
                </>
              ) : (
                'A channel connects Parley to a messaging number; an admin adds them.'
              )}
            </EmptyState>
          )
        }
      >
        {(items) => <ChannelTable channels={items} />}
      </ListState>
      <Pager list={channels} />
    </>
  );
}

/** The channels as a table: name, platform and engine, number, status, health. */
export function ChannelTable({ channels }: { channels: ChannelView[] }) {
  return (
    // It scrolls sideways on a phone: focusable, so a keyboard can scroll it too.
    <div className="table-wrap" tabIndex={0} role="region" aria-label="Channels">
      <table className="channels-table">
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Platform</th>
            <th scope="col">Phone number</th>
            <th scope="col">Status</th>
            <th scope="col">Health</th>
            <th scope="col">Created</th>
          </tr>
        </thead>
        <tbody>
          {channels.map((c) => (
            <tr key={c.id}>
              <td className="strong">
                <Link to={`/channels/${c.id}`}>{c.name}</Link>
                {c.sandbox ? <span className="badge badge-neutral badge-inline">sandbox</span> : null}
              </td>
              <td>
                {platformLabel(c.platform)}
                <div className="muted small">{engineLabel(c)}</div>
              </td>
              <td className="mono nowrap">{c.display_phone_number ?? '—'}</td>
              <td>
                <StatusBadge status={c.status} />
                {c.status_reason ? <div className="muted small">{c.status_reason}</div> : null}
              </td>
              <td>
                <HealthSummary health={c.health} />
              </td>
              <td className="nowrap">{formatDate(c.created_at)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** The last error (or "No errors"), and the failed checks in a row or the engine's reconnect attempts and its next try. */
export function HealthSummary({ health }: { health: ChannelView['health'] }) {
  return (
    <div className="small">
      {health.last_error_message || health.last_error_code ? (
        <>
          <div>
            <span className="visually-hidden">Last error: </span>
            {health.last_error_code ? <span className="mono">{health.last_error_code}</span> : null} {health.last_error_message}
          </div>
          <div className="muted">{formatDate(health.last_error_at)}</div>
        </>
      ) : (
        <div className="muted">No errors</div>
      )}
      {health.next_retry_at ? (
        // The engine reconnects by itself: how often it tried, and when it tries next.
        <div className="muted">
          {health.reconnect_attempts} reconnect {health.reconnect_attempts === 1 ? 'attempt' : 'attempts'}; next try{' '}
          {formatDate(health.next_retry_at)}
        </div>
      ) : health.reconnect_attempts > 0 ? (
        <div className="muted">{health.reconnect_attempts} failed checks in a row</div>
      ) : null}
    </div>
  );
}
