/** The OAuth applications you approved (your grants): what each may do and where, and revoking one. */
import { errorMessage } from '../../api.ts';
import { formatDate } from '../../format.ts';
import { orgKey, usePagedList } from '../../query.ts';
import { EmptyState, ErrorMessage, ListState, PageHeader, Pager } from '../../ui.tsx';
import { settingsApi, type OAuthAuthorizationRecord } from './api.ts';
import { ConfirmButton, Table, useRowAction } from './parts.tsx';

export function AuthorizedAppsPage() {
  const apps = usePagedList<OAuthAuthorizationRecord>(orgKey('authorized-apps'), settingsApi.authorizations);
  const revoke = useRowAction(orgKey('authorized-apps'), settingsApi.revokeAuthorization);
  return (
    <>
      <PageHeader
        title="Authorized apps"
        description="Applications you let act as you through OAuth. Revoking one ends its access at once, in every organization it reached."
      />
      <ErrorMessage message={revoke.error ? errorMessage(revoke.error) : undefined} />
      <ListState
        items={apps.items}
        error={apps.error}
        empty={
          <EmptyState title="No authorized apps">
            When you approve an application (a command-line tool, an integration), it shows here.
          </EmptyState>
        }
      >
        {(items) => (
          <>
            <Table label="Authorized apps" columns={['Application', 'Scopes', 'Organizations', 'Approved', 'Last used']} actions={true}>
              {items.map((a) => (
                <tr key={a.id}>
                  <td>
                    <span className="strong">{a.client.name}</span>
                    <div className="small muted mono">{a.client.client_id}</div>
                  </td>
                  <td>
                    <ul className="chips" aria-label={`Scopes of ${a.client.name}`}>
                      {a.scopes.map((s) => (
                        <li key={s} className="chip mono">
                          {s}
                        </li>
                      ))}
                    </ul>
                  </td>
                  <td>{a.organizations.map((o) => o.name).join(', ')}</td>
                  <td className="nowrap">{formatDate(a.created_at)}</td>
                  <td className="nowrap">{formatDate(a.last_used_at, 'Never')}</td>
                  <td className="actions">
                    <ConfirmButton
                      label="Revoke"
                      name={a.client.name}
                      confirmLabel="Revoke access"
                      question="Its tokens stop working at once."
                      busy={revoke.isPending && revoke.variables === a.id}
                      onConfirm={() => revoke.mutate(a.id)}
                    />
                  </td>
                </tr>
              ))}
            </Table>
            <Pager list={apps} />
          </>
        )}
      </ListState>
    </>
  );
}
