/** Where you are signed in to the dashboard; revoke any other session. */
import { api, errorMessage } from '../../api.ts';
import { describeUserAgent, formatDate } from '../../format.ts';
import { orgKey, usePagedList } from '../../query.ts';
import { Table, useRowAction } from './parts.tsx';
import { EmptyState, ErrorMessage, ListState, PageHeader, Pager } from '../../ui.tsx';

export function SessionsPage() {
  const sessions = usePagedList(orgKey('sessions'), api.sessions);
  const revoke = useRowAction(orgKey('sessions'), api.revokeSession);

  return (
    <>
      <PageHeader title="Sessions" description="Where you are signed in to the dashboard. Revoke any session you do not recognise." />
      <ErrorMessage message={revoke.error ? errorMessage(revoke.error) : undefined} />
      <ListState items={sessions.items} error={sessions.error} empty={<EmptyState title="No sessions" />}>
        {(items) => (
          <>
            <Table label="Sessions" columns={['Device', 'IP address', 'Signed in', 'Last active', 'Expires']} actions={true}>
              {items.map((s) => {
                const busy = revoke.isPending && revoke.variables === s.id;
                return (
                  <tr key={s.id} className={s.current ? 'row-current' : undefined} aria-current={s.current ? 'true' : undefined}>
                    <td>
                      <span className="strong" title={s.user_agent ?? undefined}>
                        {describeUserAgent(s.user_agent)}
                      </span>
                      {s.current ? <span className="badge badge-ok badge-inline">This session</span> : null}
                    </td>
                    <td className="mono">{s.ip ?? '—'}</td>
                    <td className="nowrap">{formatDate(s.created_at)}</td>
                    <td className="nowrap">{formatDate(s.last_seen_at)}</td>
                    <td className="nowrap">{formatDate(s.expires_at)}</td>
                    <td className="actions">
                      {s.current ? (
                        <span className="muted small">Use Log out</span>
                      ) : (
                        <button type="button" className="button button-danger-outline" disabled={busy} onClick={() => revoke.mutate(s.id)}>
                          {busy ? 'Revoking…' : 'Revoke'}
                        </button>
                      )}
                    </td>
                  </tr>
                );
              })}
            </Table>
            <Pager list={sessions} />
          </>
        )}
      </ListState>
    </>
  );
}
