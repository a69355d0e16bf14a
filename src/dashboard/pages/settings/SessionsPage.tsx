import { useEffect, useState } from 'react';
import { api, errorMessage, type SessionView } from '../../api.ts';
import { describeUserAgent, formatDate } from '../../format.ts';
import { ErrorMessage, Loading, PageHeader } from '../../ui.tsx';

export function SessionsPage() {
  const [sessions, setSessions] = useState<SessionView[] | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const [busy, setBusy] = useState<string | undefined>(undefined);

  useEffect(() => {
    let live = true;
    api
      .sessions()
      .then((list) => {
        if (live) setSessions(list);
      })
      .catch((err: unknown) => {
        if (live) setError(errorMessage(err));
      });
    return () => {
      live = false;
    };
  }, []);

  async function revoke(id: string) {
    setBusy(id);
    setError(undefined);
    try {
      await api.revokeSession(id);
      setSessions((prev) => prev?.filter((s) => s.id !== id));
    } catch (err) {
      setError(errorMessage(err));
    } finally {
      setBusy(undefined);
    }
  }

  return (
    <>
      <PageHeader title="Sessions" description="Where you are signed in to the dashboard. Revoke any session you do not recognise." />
      <ErrorMessage message={error} />
      {sessions === undefined ? (
        error ? null : <Loading />
      ) : (
        <div className="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Device</th>
                <th scope="col">IP address</th>
                <th scope="col">Signed in</th>
                <th scope="col">Last active</th>
                <th scope="col">Expires</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {sessions.map((s) => (
                <tr key={s.id} className={s.current ? 'row-current' : undefined} aria-current={s.current ? 'true' : undefined}>
                  <td>
                    <span className="strong" title={s.user_agent ?? undefined}>
                      {describeUserAgent(s.user_agent)}
                    </span>
                    {s.current ? <span className="badge badge-ok badge-inline">This session</span> : null}
                  </td>
                  <td className="mono">{s.ip ?? '—'}</td>
                  <td>{formatDate(s.created_at)}</td>
                  <td>{formatDate(s.last_seen_at)}</td>
                  <td>{formatDate(s.expires_at)}</td>
                  <td className="actions">
                    {s.current ? (
                      <span className="muted small">Use Log out</span>
                    ) : (
                      <button type="button" className="button button-danger-outline" disabled={busy === s.id} onClick={() => void revoke(s.id)}>
                        {busy === s.id ? 'Revoking…' : 'Revoke'}
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}
