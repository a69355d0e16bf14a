import { useEffect, useRef, useState, type FormEvent } from 'react';
import { PERMISSION_DESCRIPTIONS, PERMISSIONS, type Permission } from '../../../domain/permissions.ts';
import { api, errorMessage, type ApiKey, type CreatedApiKey } from '../../api.ts';
import { formatDate } from '../../format.ts';
import { useSession } from '../../session.tsx';
import { EmptyState, ErrorMessage, LoadMore, Loading, PageHeader, usePaged } from '../../ui.tsx';

export function ApiKeysPage() {
  const session = useSession();
  const canRead = session.permissions.includes('api_keys:read');
  const canWrite = session.permissions.includes('api_keys:write');
  const [created, setCreated] = useState<CreatedApiKey | undefined>(undefined);

  return (
    <>
      <PageHeader
        title="API keys"
        description={
          <>
            Keys let your own software call the Parley API with the <code>X-Api-Key</code> header. Give each key only the permissions it needs.
          </>
        }
      />
      {created ? <NewSecret created={created} onDone={() => setCreated(undefined)} /> : null}
      {canRead ? <KeyList canWrite={canWrite} created={created} /> : <ErrorMessage message="Your role cannot see this organization's API keys." />}
      {canWrite ? (
        <CreateKeyForm granted={session.permissions} onCreated={setCreated} />
      ) : (
        <p className="muted">Only owners and admins create and revoke API keys.</p>
      )}
    </>
  );
}

/** The list; a key made on this page joins it at the top (without its secret). */
function KeyList({ canWrite, created }: { canWrite: boolean; created: CreatedApiKey | undefined }) {
  const keys = usePaged<ApiKey>((cursor) => api.apiKeys(cursor));
  const [confirming, setConfirming] = useState<string | undefined>(undefined);
  const [revoking, setRevoking] = useState<string | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const { update } = keys;

  useEffect(() => {
    if (!created) return;
    const { secret: _secret, ...record } = created;
    update((items) => [record, ...items.filter((k) => k.id !== record.id)]);
  }, [created, update]);

  async function revoke(key: ApiKey) {
    setRevoking(key.id);
    setError(undefined);
    try {
      await api.revokeApiKey(key.id);
      keys.update((items) => items.filter((k) => k.id !== key.id));
      setConfirming(undefined);
    } catch (err) {
      setError(errorMessage(err));
    } finally {
      setRevoking(undefined);
    }
  }

  return (
    <section className="section" aria-labelledby="keys-title">
      <h2 id="keys-title">Active keys</h2>
      <ErrorMessage message={keys.error ?? error} onDismiss={error ? () => setError(undefined) : undefined} />
      {keys.items === undefined ? (
        keys.error ? null : <Loading />
      ) : keys.items.length === 0 ? (
        <EmptyState title="No API keys yet">Create one below to connect your software to Parley.</EmptyState>
      ) : (
        <div className="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Key</th>
                <th scope="col" className="col-permissions">Permissions</th>
                <th scope="col">Created</th>
                <th scope="col">Last used</th>
                {canWrite ? (
                  <th scope="col">
                    <span className="visually-hidden">Actions</span>
                  </th>
                ) : null}
              </tr>
            </thead>
            <tbody>
              {keys.items.map((key) => (
                <tr key={key.id} data-key-id={key.id}>
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
                      {confirming === key.id ? (
                        <div className="confirm" role="group" aria-label={`Confirm revoking ${key.name}`}>
                          <span className="small">Software using it stops working at once.</span>
                          <div className="confirm-buttons">
                            <button type="button" className="button button-danger" disabled={revoking === key.id} onClick={() => void revoke(key)}>
                              {revoking === key.id ? 'Revoking…' : 'Revoke key'}
                            </button>
                            <button type="button" className="button" disabled={revoking === key.id} onClick={() => setConfirming(undefined)}>
                              Cancel
                            </button>
                          </div>
                        </div>
                      ) : (
                        <button type="button" className="button button-danger-outline" onClick={() => setConfirming(key.id)}>
                          Revoke
                        </button>
                      )}
                    </td>
                  ) : null}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <LoadMore paged={keys} />
    </section>
  );
}

/** The secret of a key just made: shown this once, with a copy button. */
function NewSecret({ created, onDone }: { created: CreatedApiKey; onDone(): void }) {
  const input = useRef<HTMLInputElement>(null);
  const [copied, setCopied] = useState<'yes' | 'failed' | undefined>(undefined);

  async function copy() {
    try {
      await navigator.clipboard.writeText(created.secret);
      setCopied('yes');
    } catch {
      // No clipboard access (insecure origin or denied): select the text for a manual copy.
      input.current?.focus();
      input.current?.select();
      setCopied(document.execCommand('copy') ? 'yes' : 'failed');
    }
  }

  return (
    <section className="secret-box" role="region" aria-labelledby="secret-title">
      <h2 id="secret-title">Your new API key “{created.name}”</h2>
      <p className="secret-warning">
        <strong>Copy it now: it will not be shown again.</strong> Parley keeps only a hash of the key. If you lose it, revoke it and create a new one.
      </p>
      <div className="secret-row">
        <input
          ref={input}
          className="secret-value mono"
          aria-label="API key secret"
          readOnly
          value={created.secret}
          spellCheck={false}
          autoComplete="off"
          onFocus={(e) => e.currentTarget.select()}
        />
        <button type="button" className="button button-primary" onClick={() => void copy()}>
          {copied === 'yes' ? 'Copied' : 'Copy'}
        </button>
      </div>
      {copied === 'failed' ? <p className="small">Copying was blocked by the browser: the key is selected, press Ctrl+C (⌘C).</p> : null}
      <button type="button" className="button" onClick={onDone}>
        I have copied the key
      </button>
    </section>
  );
}

function CreateKeyForm({ granted, onCreated }: { granted: string[]; onCreated(key: CreatedApiKey): void }) {
  const [name, setName] = useState('');
  const [chosen, setChosen] = useState<ReadonlySet<Permission>>(new Set());
  const [error, setError] = useState<string | undefined>(undefined);
  const [busy, setBusy] = useState(false);

  function toggle(permission: Permission, on: boolean) {
    setChosen((prev) => {
      const next = new Set(prev);
      if (on) next.add(permission);
      else next.delete(permission);
      return next;
    });
  }

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (!name.trim()) return setError('Give the key a name, such as the software that will use it.');
    if (chosen.size === 0) return setError('Choose at least one permission.');
    setBusy(true);
    setError(undefined);
    try {
      const key = await api.createApiKey(name.trim(), PERMISSIONS.filter((p) => chosen.has(p)));
      setName('');
      setChosen(new Set());
      onCreated(key);
      window.scrollTo({ top: 0 });
    } catch (err) {
      setError(errorMessage(err));
    } finally {
      setBusy(false);
    }
  }

  return (
    <section className="section card" aria-labelledby="create-title">
      <h2 id="create-title">Create an API key</h2>
      <form onSubmit={submit} noValidate>
        <ErrorMessage message={error} />
        <label className="field field-narrow">
          <span>Name</span>
          <input name="name" maxLength={100} placeholder="e.g. CRM sync" value={name} onChange={(e) => setName(e.target.value)} />
        </label>
        <fieldset className="permissions">
          <legend>Permissions</legend>
          <div className="permission-grid">
            {PERMISSIONS.map((p) => {
              const allowed = granted.includes(p);
              return (
                <label key={p} className={allowed ? 'permission' : 'permission disabled'}>
                  <input type="checkbox" name="permissions" value={p} checked={chosen.has(p)} disabled={!allowed} onChange={(e) => toggle(p, e.target.checked)} />
                  <span>
                    <span className="mono permission-name">{p}</span>
                    <span className="permission-description">{PERMISSION_DESCRIPTIONS[p]}</span>
                  </span>
                </label>
              );
            })}
          </div>
        </fieldset>
        <button type="submit" className="button button-primary" disabled={busy}>
          {busy ? 'Creating…' : 'Create key'}
        </button>
      </form>
    </section>
  );
}
