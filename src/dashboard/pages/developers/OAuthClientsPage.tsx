/**
 * OAuth apps: the organization's registered clients (CLIs, third-party apps), a new one with its
 * secret shown once, a secret rotated, a client deleted (its tokens stop working at once).
 */
import { useState, type FormEvent } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { PERMISSION_DESCRIPTIONS, PERMISSIONS } from '../../../domain/permissions.ts';
import { errorMessage } from '../../api.ts';
import { CheckboxGroup, formErrors, SelectField, TextField } from '../../forms.tsx';
import { formatDate } from '../../format.ts';
import { orgKey, usePagedList } from '../../query.ts';
import { useCan, useSession } from '../../session.tsx';
import { ConfirmButton, EmptyState, ErrorMessage, ListState, PageHeader, Pager, SecretBox } from '../../ui.tsx';
import { oauthClients, type OAuthClientRecord } from './api.ts';

const GRANTS = [
  {
    value: 'authorization_code',
    label: 'Authorization code (with PKCE)',
    description: 'Web and native apps that send the person to the consent page',
  },
  {
    value: 'urn:ietf:params:oauth:grant-type:device_code',
    label: 'Device code',
    description: 'CLIs and devices: the person approves on another screen',
  },
  { value: 'refresh_token', label: 'Refresh token', description: 'Keeps access without asking again' },
];

const clientsKey = () => orgKey('oauth-clients');

export function OAuthClientsPage() {
  const canWrite = useCan('oauth_clients:write');
  const list = usePagedList(clientsKey(), oauthClients.list);
  const [secret, setSecret] = useState<{ name: string; clientId: string; secret: string } | undefined>(undefined);
  return (
    <>
      <PageHeader
        title="OAuth apps"
        description={
          <>
            Register the apps that act for people in this organization through OAuth 2.0 (see <a href="/v1/docs/">the API reference</a>). A
            person approves each app and the scopes it asks for.
          </>
        }
      />
      {secret ? (
        <SecretBox
          title={`Client secret of ${secret.name}`}
          label="Client secret"
          secret={secret.secret}
          warning={
            <>
              <strong>Copy it now: it will not be shown again.</strong> Client id <span className="mono">{secret.clientId}</span>.
            </>
          }
          doneLabel="I have copied the secret"
          onDone={() => setSecret(undefined)}
        />
      ) : null}
      <section className="section" aria-labelledby="clients-title">
        <h2 id="clients-title">Registered apps</h2>
        <ListState items={list.items} error={list.error} empty={<EmptyState title="No OAuth apps yet">Register one below.</EmptyState>}>
          {(clients) => (
            <ul className="client-list">
              {clients.map((c) => (
                <ClientItem
                  key={c.client_id}
                  client={c}
                  canWrite={canWrite}
                  onSecret={(s) => setSecret({ name: c.name, clientId: c.client_id, secret: s })}
                />
              ))}
            </ul>
          )}
        </ListState>
        <Pager list={list} />
      </section>
      {canWrite ? <RegisterForm onSecret={setSecret} /> : <p className="muted">Only owners and admins register OAuth apps.</p>}
    </>
  );
}

function ClientItem({ client, canWrite, onSecret }: { client: OAuthClientRecord; canWrite: boolean; onSecret(secret: string): void }) {
  const queryClient = useQueryClient();
  const remove = useMutation({
    mutationFn: () => oauthClients.remove(client.client_id),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: clientsKey() }),
  });
  const rotate = useMutation({
    mutationFn: () => oauthClients.rotateSecret(client.client_id),
    onSuccess: (r) => onSecret(r.client_secret),
  });
  return (
    <li className="card client-item" data-client-id={client.client_id}>
      <div className="client-head">
        <strong>{client.name}</strong> <span className="badge badge-neutral">{client.type}</span>
      </div>
      <dl className="facts">
        <dt>Client id</dt>
        <dd className="mono break-all">{client.client_id}</dd>
        <dt>Grants</dt>
        <dd>{client.grant_types.map((g) => GRANTS.find((x) => x.value === g)?.label ?? g).join(', ')}</dd>
        <dt>Scopes</dt>
        <dd className="mono small">{client.scopes.join(' ')}</dd>
        {client.redirect_uris.length > 0 ? (
          <>
            <dt>Redirect URIs</dt>
            <dd className="break-all small">{client.redirect_uris.join(', ')}</dd>
          </>
        ) : null}
        <dt>Registered</dt>
        <dd>{formatDate(client.created_at)}</dd>
      </dl>
      {canWrite ? (
        <div className="form-actions">
          {client.type === 'confidential' ? (
            <ConfirmButton
              label="Rotate secret"
              confirmLabel="Rotate now"
              question="The current secret stops working at once."
              busy={rotate.isPending}
              onConfirm={() => rotate.mutate()}
            />
          ) : null}
          <ConfirmButton
            label="Delete"
            confirmLabel="Delete app"
            question={`Delete ${client.name}? Its tokens stop working at once.`}
            busy={remove.isPending}
            onConfirm={() => remove.mutate()}
          />
        </div>
      ) : null}
      {remove.error || rotate.error ? <ErrorMessage message={errorMessage(remove.error ?? rotate.error)} /> : null}
    </li>
  );
}

function RegisterForm({ onSecret }: { onSecret(secret: { name: string; clientId: string; secret: string }): void }) {
  const session = useSession();
  const queryClient = useQueryClient();
  const [name, setName] = useState('');
  const [type, setType] = useState<'public' | 'confidential'>('public');
  const [redirects, setRedirects] = useState('');
  const [grants, setGrants] = useState<string[]>(['urn:ietf:params:oauth:grant-type:device_code', 'refresh_token']);
  const [scopes, setScopes] = useState<string[]>([]);
  const [registered, setRegistered] = useState<string | undefined>(undefined);
  const register = useMutation({
    mutationFn: oauthClients.create,
    onSuccess: async (created) => {
      if (created.client_secret) onSecret({ name: created.name, clientId: created.client_id, secret: created.client_secret });
      setRegistered(`Registered ${created.name}: client id ${created.client_id}.`);
      setName('');
      setRedirects('');
      setScopes([]);
      await queryClient.invalidateQueries({ queryKey: clientsKey() });
    },
  });
  const errors = formErrors(register.error);

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setRegistered(undefined);
    register.mutate({
      name: name.trim(),
      type,
      redirect_uris: redirects
        .split(/\s+/)
        .map((u) => u.trim())
        .filter(Boolean),
      grant_types: grants,
      scopes,
    });
  }

  return (
    <section className="section card" aria-labelledby="register-title">
      <h2 id="register-title">Register an app</h2>
      <form onSubmit={submit} noValidate>
        <ErrorMessage message={errors.message} />
        <p role="status" className="small">
          {registered}
        </p>
        <div className="form-row">
          <TextField
            label="App name"
            value={name}
            onChange={setName}
            maxLength={100}
            error={errors.field('/name')}
            description="Shown to people when they approve it."
            required
          />
          <SelectField
            label="Client type"
            value={type}
            onChange={(v) => setType(v as 'public' | 'confidential')}
            error={errors.field('/type')}
            options={[
              { value: 'public', label: 'Public (CLI, native or browser app; PKCE, no secret)' },
              { value: 'confidential', label: 'Confidential (a server that keeps a secret)' },
            ]}
          />
        </div>
        <TextField
          label="Redirect URIs"
          multiline
          rows={2}
          value={redirects}
          onChange={setRedirects}
          error={errors.field('/redirect_uris')}
          description="For the authorization code grant: one per line, https, or http on a loopback address."
        />
        <CheckboxGroup legend="Grant types" options={GRANTS} value={grants} onChange={setGrants} error={errors.field('/grant_types')} />
        <CheckboxGroup
          legend="Scopes it may ask for"
          description="At most what your own role holds."
          options={PERMISSIONS.filter((p) => session.permissions.includes(p)).map((p) => ({
            value: p,
            label: <span className="mono">{p}</span>,
            description: PERMISSION_DESCRIPTIONS[p],
          }))}
          value={scopes}
          onChange={setScopes}
          error={errors.field('/scopes')}
        />
        <button type="submit" className="button button-primary" disabled={register.isPending}>
          {register.isPending ? 'Registering…' : 'Register app'}
        </button>
      </form>
    </section>
  );
}
