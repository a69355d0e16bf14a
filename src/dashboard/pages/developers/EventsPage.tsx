/** The event log (GET /v1/events, order=desc): newest first, each row its type, a summary and its time; its body on request. */
import { SelectField } from '../../forms.tsx';
import { formatDate } from '../../format.ts';
import { orgKey, usePagedList } from '../../query.ts';
import { useSearchParams } from '../../router.tsx';
import { EmptyState, ListState, PageHeader, Pager } from '../../ui.tsx';
import { events } from './api.ts';
import { eventSummary } from './event-summary.ts';
import { JsonBlock } from './parts.tsx';
import { useWebhookSettings } from './WebhooksPage.tsx';

export function EventsPage() {
  const [params, setParams] = useSearchParams();
  const type = params.get('type') ?? undefined;
  const settings = useWebhookSettings();
  const list = usePagedList(orgKey('events', type ?? 'all'), (cursor) => events.page(type, cursor));
  return (
    <>
      <PageHeader
        title="Events"
        description="Everything that happened in this organization, newest first, as your webhooks receive it. Integrations read the same log with GET /v1/events."
      />
      <div className="filters" role="search" aria-label="Filter events">
        <SelectField
          label="Event type"
          value={type ?? ''}
          onChange={(v) => setParams(v ? { type: v } : {}, { replace: true })}
          options={[
            { value: '', label: 'All types' },
            ...(settings.data?.event_types ?? []).map((t) => ({ value: t.type, label: t.type })),
          ]}
        />
      </div>
      <ListState
        items={list.items}
        error={list.error}
        empty={<EmptyState title="No events yet">Events appear as messages, contacts and channels change.</EmptyState>}
      >
        {(items) => (
          <ul className="event-list">
            {items.map((e) => (
              <li key={e.id} className="card event-item" data-event-id={e.id}>
                <details>
                  <summary>
                    <span className="event-head">
                      <span className="mono event-type">{e.type}</span>
                      <time className="small muted" dateTime={e.created_at}>
                        {formatDate(e.created_at)}
                      </time>
                    </span>
                    <span className="event-summary">{eventSummary(e)}</span>
                  </summary>
                  <p className="small muted">
                    id <span className="mono">{e.id}</span>
                  </p>
                  <JsonBlock value={e.data} label={`Body of ${e.type}`} />
                </details>
              </li>
            ))}
          </ul>
        )}
      </ListState>
      <Pager list={list} />
    </>
  );
}
