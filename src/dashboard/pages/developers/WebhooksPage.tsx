/** Webhook endpoints: the list, and a new endpoint with its event filter picked from the catalogue. */
import { useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { CheckboxGroup, formErrors, TextField } from '../../forms.tsx';
import { formatDate } from '../../format.ts';
import { orgKey } from '../../query.ts';
import { Link } from '../../router.tsx';
import { useCan } from '../../session.tsx';
import { EmptyState, ErrorMessage, ListState, PageHeader, SecretBox, StatusBadge } from '../../ui.tsx';
import { webhooks, type WebhookEndpointRecord, type WebhookSettingsRecord } from './api.ts';

export const settingsKey = () => orgKey('webhook-endpoints');

export function useWebhookSettings() {
  return useQuery({ queryKey: settingsKey(), queryFn: webhooks.settings });
}

export function WebhooksPage() {
  const settings = useWebhookSettings();
  const canWrite = useCan('webhooks:write');
  const [created, setCreated] = useState<{ id: string; secret: string; url: string } | undefined>(undefined);
  return (
    <>
      <PageHeader
        title="Webhooks"
        description="Parley POSTs every event to your endpoints, signed (Standard Webhooks), retried until your server answers 2xx. Each attempt is in the delivery log."
      >
        <Link to="/developers/deliveries" className="button">
          Delivery log
        </Link>
      </PageHeader>
      {created ? (
        <SecretBox
          title={`Endpoint added: ${created.url}`}
          label="Signing secret"
          secret={created.secret}
          warning={
            <>
              Your server checks each message's signature with this secret. You can reveal it again on the{' '}
              <Link to={`/developers/webhooks/${created.id}`}>endpoint's page</Link>.
            </>
          }
          doneLabel="Done"
          onDone={() => setCreated(undefined)}
        />
      ) : null}
      <section className="section" aria-labelledby="endpoints-title">
        <h2 id="endpoints-title">Endpoints</h2>
        <ListState
          items={settings.data?.endpoints}
          error={settings.error}
          empty={<EmptyState title="No endpoints yet">Add the address of your server below to receive events.</EmptyState>}
        >
          {(endpoints) => <EndpointTable endpoints={endpoints} />}
        </ListState>
      </section>
      {canWrite && settings.data ? (
        <NewEndpointForm catalogue={settings.data.event_types} onCreated={setCreated} />
      ) : canWrite ? null : (
        <p className="muted">Only owners and admins add and change webhook endpoints.</p>
      )}
    </>
  );
}

function EndpointTable({ endpoints }: { endpoints: WebhookEndpointRecord[] }) {
  return (
    <div className="table-wrap">
      <table>
        <thead>
          <tr>
            <th scope="col">Endpoint</th>
            <th scope="col">Events</th>
            <th scope="col">State</th>
            <th scope="col">Last success</th>
          </tr>
        </thead>
        <tbody>
          {endpoints.map((e) => (
            <tr key={e.id}>
              <td>
                <Link to={`/developers/webhooks/${e.id}`} className="strong break-all">
                  {e.url}
                </Link>
                {e.description ? <div className="small muted">{e.description}</div> : null}
              </td>
              <td className="small">{e.event_types.length === 0 ? 'All events' : e.event_types.join(', ')}</td>
              <td>
                <EndpointState endpoint={e} />
              </td>
              <td className="small">{formatDate(e.health.last_success_at, 'Never')}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function EndpointState({ endpoint }: { endpoint: WebhookEndpointRecord }) {
  if (!endpoint.enabled) return <StatusBadge status="disabled" />;
  if (endpoint.health.consecutive_failures > 0)
    return <StatusBadge status="failed" label={`failing (${endpoint.health.consecutive_failures})`} />;
  return <StatusBadge status="enabled" />;
}

/** The catalogue as checkboxes: none picked means every event, which the form says; a type nothing emits yet is marked. */
export function EventTypePicker({
  catalogue,
  value,
  onChange,
  error,
}: {
  catalogue: WebhookSettingsRecord['event_types'];
  value: string[];
  onChange(value: string[]): void;
  error?: string;
}) {
  return (
    <CheckboxGroup
      legend="Events to send"
      description="Pick none to receive every event, including types added later."
      options={catalogue.map((t) => ({
        value: t.type,
        label: (
          <>
            <span className="mono">{t.type}</span>
            {t.reserved ? <span className="badge badge-warn badge-inline">reserved: nothing emits it yet</span> : null}
          </>
        ),
        description: t.description,
      }))}
      value={value}
      onChange={onChange}
      error={error}
    />
  );
}

function NewEndpointForm({
  catalogue,
  onCreated,
}: {
  catalogue: WebhookSettingsRecord['event_types'];
  onCreated(created: { id: string; secret: string; url: string }): void;
}) {
  const client = useQueryClient();
  const [url, setUrl] = useState('');
  const [description, setDescription] = useState('');
  const [types, setTypes] = useState<string[]>([]);
  const create = useMutation({
    mutationFn: webhooks.create,
    onSuccess: async (endpoint) => {
      setUrl('');
      setDescription('');
      setTypes([]);
      onCreated({ id: endpoint.id, secret: endpoint.secret, url: endpoint.url });
      await client.invalidateQueries({ queryKey: settingsKey() });
      window.scrollTo({ top: 0 });
    },
  });
  const errors = formErrors(create.error);

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    create.mutate({ url: url.trim(), description: description.trim(), event_types: types });
  }

  return (
    <section className="section card" aria-labelledby="new-endpoint-title">
      <h2 id="new-endpoint-title">Add an endpoint</h2>
      <form onSubmit={submit} noValidate>
        <ErrorMessage message={errors.message} />
        <TextField
          label="URL"
          type="url"
          value={url}
          onChange={setUrl}
          placeholder="https://example.com/parley-webhooks"
          error={errors.field('/url')}
          required
        />
        <TextField
          label="Description"
          value={description}
          onChange={setDescription}
          maxLength={500}
          error={errors.field('/description')}
          description="Optional: what this endpoint is for."
        />
        <EventTypePicker catalogue={catalogue} value={types} onChange={setTypes} error={errors.field('/event_types')} />
        <button type="submit" className="button button-primary" disabled={create.isPending}>
          {create.isPending ? 'Adding…' : 'Add endpoint'}
        </button>
      </form>
    </section>
  );
}
