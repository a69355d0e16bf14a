/**
 * One webhook endpoint: change it, turn it off and on, reveal or rotate its secret (the old one keeps
 * signing through the overlap, which the page shows), send a test event, see its deliveries, delete it.
 */
import { useState, type FormEvent } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { errorMessage } from '../../api.ts';
import { formErrors, SelectField, TextField } from '../../forms.tsx';
import { formatDate } from '../../format.ts';
import { Link, useNavigate, useParams } from '../../router.tsx';
import { useCan } from '../../session.tsx';
import { ConfirmButton, ErrorMessage, Loading, PageHeader, SecretBox } from '../../ui.tsx';
import { webhooks, type WebhookEndpointRecord, type WebhookSettingsRecord } from './api.ts';
import { DeliveryList } from './DeliveriesPage.tsx';
import { describeMs } from './parts.tsx';
import { EndpointState, EventTypePicker, settingsKey, useWebhookSettings } from './WebhooksPage.tsx';

export function WebhookEndpointPage() {
  const { endpointId } = useParams();
  const settings = useWebhookSettings();
  const endpoint = settings.data?.endpoints.find((e) => e.id === endpointId);
  if (settings.error) return <ErrorMessage message={errorMessage(settings.error)} />;
  if (!settings.data) return <Loading />;
  if (!endpoint) {
    return (
      <>
        <PageHeader title="Endpoint not found" />
        <p>
          There is no such endpoint in this organization. Back to <Link to="/developers/webhooks">Webhooks</Link>.
        </p>
      </>
    );
  }
  return <EndpointDetails endpoint={endpoint} settings={settings.data} />;
}

function EndpointDetails({ endpoint, settings }: { endpoint: WebhookEndpointRecord; settings: WebhookSettingsRecord }) {
  const canWrite = useCan('webhooks:write');
  return (
    <>
      <PageHeader title="Webhook endpoint" description={<span className="break-all">{endpoint.url}</span>}>
        <Link to="/developers/webhooks" className="button">
          All endpoints
        </Link>
      </PageHeader>
      <section className="section card" aria-labelledby="state-title">
        <h2 id="state-title">State</h2>
        <p>
          <EndpointState endpoint={endpoint} />{' '}
          {endpoint.enabled ? null : <span className="small">{endpoint.disabled_reason ?? 'Disabled'}</span>}
        </p>
        <dl className="facts">
          <dt>Failures since the last success</dt>
          <dd>{endpoint.health.consecutive_failures}</dd>
          <dt>Last success</dt>
          <dd>{formatDate(endpoint.health.last_success_at, 'Never')}</dd>
          <dt>Last failure</dt>
          <dd>{formatDate(endpoint.health.last_failure_at, 'Never')}</dd>
        </dl>
        {canWrite ? <EnableToggle endpoint={endpoint} /> : null}
      </section>
      {canWrite ? (
        <>
          <EditForm endpoint={endpoint} catalogue={settings.event_types} />
          <SecretSection endpoint={endpoint} overlapMs={settings.delivery.secret_rotation_overlap_ms} />
          <TestSection endpoint={endpoint} catalogue={settings.event_types} />
        </>
      ) : null}
      <section className="section" aria-labelledby="endpoint-deliveries-title">
        <h2 id="endpoint-deliveries-title">Deliveries to this endpoint</h2>
        <DeliveryList filters={{ endpoint_id: endpoint.id }} endpoints={[endpoint]} />
      </section>
      {canWrite ? <DeleteSection endpoint={endpoint} /> : null}
    </>
  );
}

function useRefreshSettings() {
  const client = useQueryClient();
  return () => client.invalidateQueries({ queryKey: settingsKey() });
}

function EnableToggle({ endpoint }: { endpoint: WebhookEndpointRecord }) {
  const refresh = useRefreshSettings();
  const toggle = useMutation({ mutationFn: () => webhooks.update(endpoint.id, { enabled: !endpoint.enabled }), onSuccess: refresh });
  return (
    <>
      <button type="button" className="button" disabled={toggle.isPending} onClick={() => toggle.mutate()}>
        {endpoint.enabled ? 'Disable endpoint' : 'Enable endpoint'}
      </button>
      {endpoint.enabled ? <p className="small muted">Disabling fails its pending deliveries; retry them by hand later.</p> : null}
      {toggle.error ? <ErrorMessage message={errorMessage(toggle.error)} /> : null}
    </>
  );
}

function EditForm({ endpoint, catalogue }: { endpoint: WebhookEndpointRecord; catalogue: WebhookSettingsRecord['event_types'] }) {
  const refresh = useRefreshSettings();
  const [url, setUrl] = useState(endpoint.url);
  const [description, setDescription] = useState(endpoint.description);
  const [types, setTypes] = useState<string[]>(endpoint.event_types);
  const [saved, setSaved] = useState(false);
  const save = useMutation({
    mutationFn: () => webhooks.update(endpoint.id, { url: url.trim(), description: description.trim(), event_types: types }),
    onSuccess: async () => {
      await refresh();
      setSaved(true);
    },
  });
  const errors = formErrors(save.error);

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setSaved(false);
    save.mutate();
  }

  return (
    <section className="section card" aria-labelledby="edit-title">
      <h2 id="edit-title">Settings</h2>
      <form onSubmit={submit} noValidate>
        <ErrorMessage message={errors.message} />
        <TextField label="URL" type="url" value={url} onChange={setUrl} error={errors.field('/url')} required />
        <TextField label="Description" value={description} onChange={setDescription} maxLength={500} error={errors.field('/description')} />
        <EventTypePicker catalogue={catalogue} value={types} onChange={setTypes} error={errors.field('/event_types')} />
        <div className="form-actions">
          <button type="submit" className="button button-primary" disabled={save.isPending}>
            {save.isPending ? 'Saving…' : 'Save changes'}
          </button>
          <span role="status" className="small">
            {saved ? 'Saved.' : ''}
          </span>
        </div>
      </form>
    </section>
  );
}

function SecretSection({ endpoint, overlapMs }: { endpoint: WebhookEndpointRecord; overlapMs: number }) {
  const refresh = useRefreshSettings();
  const [shown, setShown] = useState<{ secret: string; previous: string | null; until: string | null; rotated: boolean } | undefined>(
    undefined,
  );
  const reveal = useMutation({
    mutationFn: () => webhooks.secret(endpoint.id),
    onSuccess: (s) => setShown({ secret: s.secret, previous: s.previous_secret, until: s.previous_secret_expires_at, rotated: false }),
  });
  const rotate = useMutation({
    mutationFn: () => webhooks.rotate(endpoint.id),
    onSuccess: async (r) => {
      setShown({ secret: r.secret, previous: null, until: r.previous_secret_expires_at, rotated: true });
      await refresh();
    },
  });
  const overlapping = endpoint.previous_secret_expires_at;
  return (
    <section className="section card" aria-labelledby="secret-title">
      <h2 id="secret-title">Signing secret</h2>
      <p className="small muted">
        Rotating makes a new secret. For {describeMs(overlapMs)} every message is signed with both the new and the old one, so your server
        can switch without losing a message.
      </p>
      {overlapping ? (
        <p className="alert alert-info" role="status">
          The previous secret still signs beside the new one until {formatDate(overlapping)}.
        </p>
      ) : null}
      {shown ? (
        <SecretBox
          title={shown.rotated ? 'New signing secret' : 'Signing secret'}
          label="Signing secret"
          secret={shown.secret}
          warning={
            shown.rotated && shown.until ? (
              <>The old secret keeps signing until {formatDate(shown.until)}. Update your server before then.</>
            ) : shown.previous && shown.until ? (
              <>The previous secret also signs until {formatDate(shown.until)}.</>
            ) : (
              <>Keep it secret: anyone holding it can forge messages to your server.</>
            )
          }
          doneLabel="Hide secret"
          onDone={() => setShown(undefined)}
        />
      ) : (
        <div className="form-actions">
          <button type="button" className="button" disabled={reveal.isPending} onClick={() => reveal.mutate()}>
            Reveal secret
          </button>
          <ConfirmButton
            label="Rotate secret"
            confirmLabel="Rotate now"
            question="Make a new secret? The old one keeps signing for the overlap."
            busy={rotate.isPending}
            onConfirm={() => rotate.mutate()}
          />
        </div>
      )}
      {reveal.error || rotate.error ? <ErrorMessage message={errorMessage(reveal.error ?? rotate.error)} /> : null}
    </section>
  );
}

function TestSection({ endpoint, catalogue }: { endpoint: WebhookEndpointRecord; catalogue: WebhookSettingsRecord['event_types'] }) {
  const client = useQueryClient();
  const [type, setType] = useState<string>(endpoint.event_types[0] ?? 'message.new');
  const send = useMutation({
    mutationFn: () => webhooks.test(endpoint.id, type),
    onSuccess: () => client.invalidateQueries({ queryKey: ['org'] }),
  });
  const result = send.data;
  return (
    <section className="section card" aria-labelledby="test-title">
      <h2 id="test-title">Send a test event</h2>
      <p className="small muted">
        Sends the catalogue's example body of the type now, signed like any message, with the header x-parley-webhook-test: true.
      </p>
      <SelectField
        label="Event type to test"
        value={type}
        onChange={setType}
        options={catalogue.map((t) => ({ value: t.type, label: t.type }))}
      />
      <button type="button" className="button" disabled={send.isPending} onClick={() => send.mutate()}>
        {send.isPending ? 'Sending…' : 'Send test event'}
      </button>
      <div role="status" className="test-result">
        {result ? (
          <p className={result.succeeded ? 'alert alert-ok' : 'alert alert-error'}>
            {result.succeeded ? 'Delivered' : 'Not delivered'}:{' '}
            {result.attempt.status_code !== null ? `HTTP ${result.attempt.status_code}` : (result.attempt.error ?? 'no answer')} in{' '}
            {result.attempt.duration_ms} ms
          </p>
        ) : null}
      </div>
      {send.error ? <ErrorMessage message={errorMessage(send.error)} /> : null}
    </section>
  );
}

function DeleteSection({ endpoint }: { endpoint: WebhookEndpointRecord }) {
  const refresh = useRefreshSettings();
  const navigate = useNavigate();
  const remove = useMutation({
    mutationFn: () => webhooks.remove(endpoint.id),
    onSuccess: async () => {
      await refresh();
      navigate('/developers/webhooks');
    },
  });
  return (
    <section className="section" aria-labelledby="delete-title">
      <h2 id="delete-title">Delete endpoint</h2>
      <ConfirmButton
        label="Delete endpoint"
        confirmLabel="Delete"
        question="Delete it with its delivery log?"
        busy={remove.isPending}
        onConfirm={() => remove.mutate()}
      />
      {remove.error ? <ErrorMessage message={errorMessage(remove.error)} /> : null}
    </section>
  );
}
