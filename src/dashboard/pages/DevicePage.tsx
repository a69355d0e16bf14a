/** The device verification page (RFC 8628): the code the device shows, then the consent, then the outcome. */
import { useState, type FormEvent } from 'react';
import { api, ApiError, errorMessage, type DeviceDecision, type DeviceVerification, type SessionInfo } from '../api.ts';
import { ErrorMessage } from '../ui.tsx';
import { ConsentForm, OAuthCard } from './OAuthConsent.tsx';

type State = { kind: 'enter' } | { kind: 'consent'; device: DeviceVerification } | { kind: 'done'; decision: DeviceDecision };

function explain(err: unknown): string {
  if (err instanceof ApiError && err.status === 404) return 'No device is waiting for this code. Check the code your device shows and try again.';
  return errorMessage(err);
}

export function DevicePage({ session }: { session: SessionInfo }) {
  const [code, setCode] = useState(() => new URLSearchParams(window.location.search).get('user_code') ?? '');
  const [state, setState] = useState<State>({ kind: 'enter' });
  const [error, setError] = useState<string | undefined>(undefined);
  const [busy, setBusy] = useState(false);

  async function run<T>(work: () => Promise<T>, then: (result: T) => void) {
    setBusy(true);
    setError(undefined);
    try {
      then(await work());
    } catch (err) {
      setError(explain(err));
    } finally {
      setBusy(false);
    }
  }

  function lookup(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    void run(() => api.lookupDevice(code.trim()), (device) => setState({ kind: 'consent', device }));
  }

  function startOver() {
    setError(undefined);
    setCode('');
    setState({ kind: 'enter' });
  }

  switch (state.kind) {
    case 'enter':
      return (
        <OAuthCard title="Connect a device" session={session}>
          <form onSubmit={lookup} aria-label="Device code">
            <p className="muted">Enter the code your device shows. If it was filled in for you, check that it matches.</p>
            <ErrorMessage message={error} />
            <label className="field">
              <span>Code</span>
              <input
                type="text"
                name="user_code"
                className="mono oauth-code"
                autoComplete="off"
                autoCapitalize="characters"
                spellCheck={false}
                required
                maxLength={32}
                placeholder="BCDF-GHJK"
                autoFocus
                value={code}
                onChange={(e) => setCode(e.target.value)}
              />
            </label>
            <button type="submit" className="button button-primary button-block" disabled={busy || code.trim() === ''}>
              {busy ? 'Checking…' : 'Continue'}
            </button>
          </form>
        </OAuthCard>
      );
    case 'consent': {
      const { device } = state;
      return (
        <OAuthCard title={`Connect ${device.client.name}`} session={session}>
          <p>
            Check that your device shows <span className="mono strong">{device.user_code}</span>.
          </p>
          <ErrorMessage message={error} />
          <ConsentForm
            consent={device}
            session={session}
            busy={busy}
            onApprove={(ids) => void run(() => api.approveDevice(device.user_code, ids), (decision) => setState({ kind: 'done', decision }))}
            onDeny={() => void run(() => api.denyDevice(device.user_code), (decision) => setState({ kind: 'done', decision }))}
          />
        </OAuthCard>
      );
    }
    case 'done': {
      const { decision } = state;
      const approved = decision.status === 'approved';
      return (
        <OAuthCard title={approved ? 'Device connected' : 'Access denied'} session={session}>
          <div className={approved ? 'alert alert-ok' : 'alert alert-info'} role="status">
            {approved
              ? `${decision.client.name} can now reach the organizations you chose. Go back to your device: it continues by itself.`
              : `${decision.client.name} was not given access. You can close this page.`}
          </div>
          <button type="button" className="button" onClick={startOver}>
            Enter another code
          </button>
        </OAuthCard>
      );
    }
  }
}
