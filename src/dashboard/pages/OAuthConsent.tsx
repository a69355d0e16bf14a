/**
 * What both OAuth pages (the consent page and the device page) show: the client, the scopes in words,
 * the organizations as a fieldset of checkboxes with a legend, Approve and Deny.
 */
import { useState, type FormEvent } from 'react';
import type { OAuthConsentRecord, SessionInfoRecord } from '../api.ts';
import { CheckboxGroup } from '../forms.tsx';

type ConsentFormProps = {
  consent: OAuthConsentRecord;
  session: SessionInfoRecord;
  busy: boolean;
  onApprove(organizationIds: string[]): void;
  onDeny(): void;
};

/** The organization preselected: the only one, or the one the dashboard acts in. */
function preselected(consent: OAuthConsentRecord, session: SessionInfoRecord): string[] {
  const ids = consent.organizations.map((o) => o.organization_id);
  if (ids.length === 1) return ids;
  return ids.filter((id) => id === session.organization_id);
}

export function ConsentForm({ consent, session, busy, onApprove, onDeny }: ConsentFormProps) {
  const [chosen, setChosen] = useState<string[]>(() => preselected(consent, session));

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    // In the order the list shows them.
    onApprove(consent.organizations.map((o) => o.organization_id).filter((id) => chosen.includes(id)));
  }

  return (
    <form onSubmit={submit} aria-label="Consent">
      <p>
        <span className="strong">{consent.client.name}</span> <span className="muted small mono">({consent.client.client_id})</span> asks
        to:
      </p>
      <ul className="oauth-scopes" aria-label="What it asks for">
        {consent.scopes.map((s) => (
          <li key={s.name}>
            {s.description} <span className="muted small mono">{s.name}</span>
          </li>
        ))}
      </ul>
      <CheckboxGroup
        legend="Organizations it may reach"
        options={consent.organizations.map((o) => ({
          value: o.organization_id,
          label: o.organization_name,
          description: `Your role: ${o.role}`,
        }))}
        value={chosen}
        onChange={setChosen}
        description={chosen.length === 0 ? 'Choose at least one organization to approve.' : undefined}
      />
      <div className="oauth-buttons">
        <button type="submit" className="button button-primary" disabled={busy || chosen.length === 0}>
          Approve
        </button>
        <button type="button" className="button" disabled={busy} onClick={onDeny}>
          Deny
        </button>
      </div>
      <p className="muted small">
        Approve only if you started this yourself, in {consent.client.name}. It acts as you, within these scopes, in the organizations you
        choose.
      </p>
    </form>
  );
}
