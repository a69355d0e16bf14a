/** API keys: create with chosen permissions (the secret shown once, with copy), list, revoke. */
import { useState, type FormEvent } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { PERMISSION_DESCRIPTIONS, PERMISSIONS } from '../../../domain/permissions.ts';
import { api, errorMessage, type ApiKeyRecord, type CreatedApiKeyRecord } from '../../api.ts';
import { CheckboxGroup, formErrors, TextField } from '../../forms.tsx';
import { formatDate } from '../../format.ts';
import { orgKey, usePagedList } from '../../query.ts';
import { useSession } from '../../session.tsx';
import { ConfirmButton, EmptyState, ErrorMessage, ListState, PageHeader, Pager, SecretBox, Table } from '../../ui.tsx';

const keysKey = () => orgKey('api-keys');

export function ApiKeysPage() {
  const session = useSession();
  const canRead = session.permissions.includes('api_keys:read');
  const canWrite = session.permissions.includes('api_keys:write');
  const [created, setCreated] = useState<CreatedApiKeyRecord | undefined>(undefined);

  return (
    <>
      <PageHeader
        title="API keys"
        description={
          <>
            Keys let your own software call the Parley API with the <code>X-Api-Key</code> header. Give each key only the permissions it
            needs.
          </>
        }
      />
      {created ? (
        <SecretBox
          title={`Your new API key “${created.name}”`}
          label="API key secret"
          secret={created.secret}
          warning={
            <>
              <strong>Copy it now: it will not be shown again.</strong> Parley keeps only a hash of the key. If you lose it, revoke it and
              create a new one.
            </>
          }
          doneLabel="I have copied the key"
          onDone={() => setCreated(undefined)}
        />
      ) : null}
      {canRead ? <KeyList canWrite={canWrite} /> : <ErrorMessage message="Your role cannot see this organization's API keys." />}
      {canWrite ? (
        <CreateKeyForm granted={session.permissions} onCreated={setCreated} />
      ) : (
        <p className="muted">Only owners and admins create and revoke API keys.</p>
      )}
    </>
  );
}

function KeyList({ canWrite }: { canWrite: boolean }) {
  const keys = usePagedList(keysKey(), api.apiKeys);
  return (
    <section className="section" aria-labelledby="keys-title">
      <h2 id="keys-title">Active keys</h2>
      <ListState
        items={keys.items}
        error={keys.error}
        empty={<EmptyState title="No API keys yet">Create one below to connect your software to Parley.</EmptyState>}
      >
        {(items) => (
          <Table
            label="API keys"
            columns={['Name', 'Key', 'Permissions', 'Created', 'Last used']}
            actions={canWrite}
            className="keys-table"
          >
            {items.map((key) => (
              <KeyRow key={key.id} apiKey={key} canWrite={canWrite} />
            ))}
          </Table>
        )}
      </ListState>
      <Pager list={keys} />
    </section>
  );
}

function KeyRow({ apiKey: key, canWrite }: { apiKey: ApiKeyRecord; canWrite: boolean }) {
  const client = useQueryClient();
  const revoke = useMutation({
    mutationFn: () => api.revokeApiKey(key.id),
    onSuccess: () => client.invalidateQueries({ queryKey: keysKey() }),
  });
  return (
    <tr data-key-id={key.id}>
      <td className="strong">{key.name}</td>
      <td className="mono nowrap">
        {key.prefix}…{key.last_four}
      </td>
      <td>
        <ul className="chips" aria-label="Permissions">
          {key.permissions.map((p) => (
            <li key={p} className="chip" title={PERMISSION_DESCRIPTIONS[p]}>
              {p}
            </li>
          ))}
        </ul>
      </td>
      <td>{formatDate(key.created_at)}</td>
      <td>{formatDate(key.last_used_at, 'Never')}</td>
      {canWrite ? (
        <td className="actions">
          <ConfirmButton
            label="Revoke"
            confirmLabel="Revoke key"
            question="Software using it stops working at once."
            busy={revoke.isPending}
            onConfirm={() => revoke.mutate()}
          />
          {revoke.error ? <ErrorMessage message={errorMessage(revoke.error)} /> : null}
        </td>
      ) : null}
    </tr>
  );
}

function CreateKeyForm({ granted, onCreated }: { granted: string[]; onCreated(key: CreatedApiKeyRecord): void }) {
  const client = useQueryClient();
  const [name, setName] = useState('');
  const [chosen, setChosen] = useState<string[]>([]);
  const create = useMutation({
    mutationFn: () =>
      api.createApiKey(
        name.trim(),
        PERMISSIONS.filter((p) => chosen.includes(p)),
      ),
    onSuccess: async (key) => {
      setName('');
      setChosen([]);
      onCreated(key);
      await client.invalidateQueries({ queryKey: keysKey() });
      window.scrollTo({ top: 0 });
    },
  });
  const errors = formErrors(create.error);

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    create.mutate();
  }

  return (
    <section className="section card" aria-labelledby="create-title">
      <h2 id="create-title">Create an API key</h2>
      <form onSubmit={submit} noValidate>
        <ErrorMessage message={errors.message} />
        <TextField
          label="Name"
          className="field-narrow"
          value={name}
          onChange={setName}
          maxLength={100}
          placeholder="e.g. CRM sync"
          error={errors.field('/name')}
        />
        <CheckboxGroup
          legend="Permissions"
          description="At most what your own role holds."
          options={PERMISSIONS.filter((p) => granted.includes(p)).map((p) => ({
            value: p,
            label: <span className="mono">{p}</span>,
            description: PERMISSION_DESCRIPTIONS[p],
          }))}
          value={chosen}
          onChange={setChosen}
          error={errors.field('/permissions')}
        />
        <button type="submit" className="button button-primary" disabled={create.isPending}>
          {create.isPending ? 'Creating…' : 'Create key'}
        </button>
      </form>
    </section>
  );
}
