/**
 * The delivery log: one row per message to one endpoint, newest first, with filters in the address;
 * each opens to its attempts (status code, duration, response excerpt or error) and can be retried.
 * Live: every event marks the log stale, so new deliveries and their outcomes appear by themselves.
 */
import { useState } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { errorMessage } from '../../api.ts';
import { SelectField } from '../../forms.tsx';
import { formatDate } from '../../format.ts';
import { orgKey, usePagedList } from '../../query.ts';
import { useSearchParams } from '../../router.tsx';
import { useCan } from '../../session.tsx';
import { EmptyState, ErrorMessage, ListState, PageHeader, Pager, StatusBadge } from '../../ui.tsx';
import { webhooks, type DeliveryFilters, type WebhookDeliveryRecord, type WebhookEndpointRecord } from './api.ts';
import { useWebhookSettings } from './WebhooksPage.tsx';

export function DeliveriesPage() {
  const [params, setParams] = useSearchParams();
  const settings = useWebhookSettings();
  const filters: DeliveryFilters = {
    endpoint_id: params.get('endpoint_id') ?? undefined,
    status: params.get('status') ?? undefined,
    event_type: params.get('event_type') ?? undefined,
  };
  const set = (name: string, value: string) => {
    const next = new URLSearchParams(params);
    if (value) next.set(name, value);
    else next.delete(name);
    setParams(next, { replace: true });
  };
  return (
    <>
      <PageHeader
        title="Delivery log"
        description="Every message sent to your webhook endpoints, with each attempt. Failed ones can be sent again."
      />
      <div className="filters" role="search" aria-label="Filter deliveries">
        <SelectField
          label="Endpoint"
          value={filters.endpoint_id ?? ''}
          onChange={(v) => set('endpoint_id', v)}
          options={[{ value: '', label: 'All endpoints' }, ...(settings.data?.endpoints ?? []).map((e) => ({ value: e.id, label: e.url }))]}
        />
        <SelectField
          label="Status"
          value={filters.status ?? ''}
          onChange={(v) => set('status', v)}
          options={[
            { value: '', label: 'Any status' },
            { value: 'pending', label: 'Pending' },
            { value: 'succeeded', label: 'Succeeded' },
            { value: 'failed', label: 'Failed' },
          ]}
        />
        <SelectField
          label="Event type"
          value={filters.event_type ?? ''}
          onChange={(v) => set('event_type', v)}
          options={[{ value: '', label: 'Any type' }, ...(settings.data?.event_types ?? []).map((t) => ({ value: t.type, label: t.type }))]}
        />
      </div>
      <DeliveryList filters={filters} endpoints={settings.data?.endpoints ?? []} />
    </>
  );
}

/** Deliveries matching the filters; the endpoint page shows its own with the same list. */
export function DeliveryList({ filters, endpoints }: { filters: DeliveryFilters; endpoints: WebhookEndpointRecord[] }) {
  // A new delivery comes with its event on the live stream; its attempts' outcomes do not, so the
  // list is asked again while one it shows is still pending.
  const list = usePagedList(orgKey('webhook-deliveries', filters), (cursor) => webhooks.deliveries(filters, cursor), {
    refreshWhile: (items) => (items.some((d) => d.status === 'pending') ? 2000 : false),
  });
  const urls = new Map(endpoints.map((e) => [e.id, e.url]));
  return (
    <section className="section" aria-label="Deliveries">
      <ListState
        items={list.items}
        error={list.error}
        empty={<EmptyState title="No deliveries">Nothing was sent that matches these filters yet.</EmptyState>}
      >
        {(items) => (
          <ul className="delivery-list">
            {items.map((d) => (
              <DeliveryItem key={d.id} delivery={d} endpointUrl={urls.get(d.endpoint_id)} />
            ))}
          </ul>
        )}
      </ListState>
      <Pager list={list} />
    </section>
  );
}

function DeliveryItem({ delivery: d, endpointUrl }: { delivery: WebhookDeliveryRecord; endpointUrl: string | undefined }) {
  const client = useQueryClient();
  const canRetry = useCan('webhooks:write') && d.status !== 'succeeded';
  const [outcome, setOutcome] = useState<string | undefined>(undefined);
  const retry = useMutation({
    mutationFn: () => webhooks.retry(d.message_id, d.endpoint_id),
    onSuccess: async (result) => {
      setOutcome(
        result.retried.length > 0
          ? 'Sent again.'
          : `Not sent: ${result.skipped.map((s) => s.reason.replaceAll('_', ' ')).join(', ') || 'nothing to retry'}.`,
      );
      await client.invalidateQueries({ queryKey: orgKey('webhook-deliveries') });
    },
  });
  return (
    <li className="delivery card" data-delivery-id={d.id}>
      <div className="delivery-head">
        <StatusBadge status={d.status} />
        <span className="mono">{d.event_type}</span>
        {d.test ? <span className="badge badge-neutral">test</span> : null}
        <span className="small muted">{formatDate(d.created_at)}</span>
        <span className="small">
          {d.attempt_count} attempt{d.attempt_count === 1 ? '' : 's'}
          {d.last_status_code !== null ? `, last HTTP ${d.last_status_code}` : d.last_error ? `, ${d.last_error}` : ''}
        </span>
      </div>
      {endpointUrl ? <div className="small muted break-all">to {endpointUrl}</div> : null}
      {d.status === 'pending' && d.next_attempt_at ? <div className="small">Next attempt {formatDate(d.next_attempt_at)}</div> : null}
      <details>
        <summary>Attempts</summary>
        {d.attempts.length === 0 ? (
          <p className="small muted">No attempt yet.</p>
        ) : (
          <div className="table-wrap">
            <table>
              <caption className="visually-hidden">Attempts of this delivery, newest first</caption>
              <thead>
                <tr>
                  <th scope="col">When</th>
                  <th scope="col">Trigger</th>
                  <th scope="col">Status code</th>
                  <th scope="col">Duration</th>
                  <th scope="col">Response</th>
                </tr>
              </thead>
              <tbody>
                {d.attempts.map((a) => (
                  <tr key={a.id}>
                    <td className="small">{formatDate(a.attempted_at)}</td>
                    <td className="small">{a.trigger}</td>
                    <td>{a.status_code ?? '—'}</td>
                    <td>{a.duration_ms} ms</td>
                    <td className="small break-all">{a.error ?? a.response_body ?? '—'}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
        <p className="small muted">
          webhook-id <span className="mono">{d.message_id}</span>
        </p>
      </details>
      {canRetry ? (
        <div className="form-actions">
          <button type="button" className="button" disabled={retry.isPending} onClick={() => retry.mutate()}>
            {retry.isPending ? 'Retrying…' : 'Retry'}
          </button>
          <span role="status" className="small">
            {outcome}
          </span>
        </div>
      ) : null}
      {retry.error ? <ErrorMessage message={errorMessage(retry.error)} /> : null}
    </li>
  );
}
