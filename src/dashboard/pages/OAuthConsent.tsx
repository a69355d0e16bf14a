/**
 * What both OAuth pages (the consent page and the device page) show: a card of their own outside
 * the app's shell, and the consent itself: the client, the scopes in words, the organizations as
 * checkboxes, Approve and Deny.
 */
import { useState, type FormEvent, type ReactNode } from 'react';
import type { OAuthConsent, SessionInfo } from '../api.ts';
import { usePageTitle } from '../ui.tsx';

export function OAuthCard({ title, session, children }: { title: string; session: SessionInfo | undefined; children: ReactNode }) {
  usePageTitle(title);
  return (
    <main className="login">
      <section className="card login-card oauth-card" aria-labelledby="oauth-title">
        <div className="brand brand-dark">
          <span className="brand-mark" aria-hidden="true">
            P
          </span>
          Parley
        </div>
        <h1 id="oauth-title">{title}</h1>
        {children}
        {session ? (
          <p className="muted small oauth-account">
            Signed in as <span className="strong">{session.user.email}</span>
          </p>
        ) : null}
      </section>
    </main>
  );
}

type ConsentFormProps = {
  consent: OAuthConsent;
  session: SessionInfo;
  busy: boolean;
  onApprove(organizationIds: string[]): void;
  onDeny(): void;
};

/** The organization preselected: the only one, or the one the dashboard acts in. */
function preselected(consent: OAuthConsent, session: SessionInfo): Set<string> {
  const ids = consent.organizations.map((o) => o.organization_id);
  if (ids.length === 1) return new Set(ids);
  return new Set(ids.filter((id) => id === session.organization_id));
}

export function ConsentForm({ consent, session, busy, onApprove, onDeny }: ConsentFormProps) {
  const [chosen, setChosen] = useState<Set<string>>(() => preselected(consent, session));

  function toggle(id: string, on: boolean) {
    setChosen((prev) => {
      const next = new Set(prev);
      if (on) next.add(id);
      else next.delete(id);
      return next;
    });
  }

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    // In the order the list shows them.
    onApprove(consent.organizations.map((o) => o.organization_id).filter((id) => chosen.has(id)));
  }

  return (
    <form onSubmit={submit} aria-label="Consent">
      <p>
        <span className="strong">{consent.client.name}</span> <span className="muted small mono">({consent.client.client_id})</span> asks to:
      </p>
      <ul className="oauth-scopes" aria-label="What it asks for">
        {consent.scopes.map((s) => (
          <li key={s.name}>
            {s.description} <span className="muted small mono">{s.name}</span>
          </li>
        ))}
      </ul>
      <fieldset className="permissions">
        <legend>Organizations it may reach</legend>
        <div className="oauth-organizations">
          {consent.organizations.map((o) => (
            <label key={o.organization_id} className="permission">
              <input type="checkbox" name="organization_ids" value={o.organization_id} checked={chosen.has(o.organization_id)} onChange={(e) => toggle(o.organization_id, e.target.checked)} />
              <span>
                <span className="permission-name">{o.organization_name}</span>
                <span className="permission-description">Your role: {o.role}</span>
              </span>
            </label>
          ))}
        </div>
      </fieldset>
      {chosen.size === 0 ? <p className="muted small">Choose at least one organization to approve.</p> : null}
      <div className="oauth-buttons">
        <button type="submit" className="button button-primary" disabled={busy || chosen.size === 0}>
          Approve
        </button>
        <button type="button" className="button" disabled={busy} onClick={onDeny}>
          Deny
        </button>
      </div>
      <p className="muted small">Approve only if you started this yourself, in {consent.client.name}. It acts as you, within these scopes, in the organizations you choose.</p>
    </form>
  );
}
