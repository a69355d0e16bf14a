/** The device verification page (RFC 8628): the code the device shows, then the consent, then the outcome. */
import { useState, type FormEvent } from 'react';
import { useMutation } from '@tanstack/react-query';
import { api, ApiError, errorMessage, type DeviceDecisionRecord, type DeviceVerificationRecord, type SessionInfoRecord } from '../api.ts';
import { TextField } from '../forms.tsx';
import { ErrorMessage } from '../ui.tsx';
import { ConsentForm } from './OAuthConsent.tsx';
import { StandaloneCard } from './StandaloneCard.tsx';

function explain(err: unknown): string | undefined {
  if (err === null || err === undefined) return undefined;
  if (err instanceof ApiError && err.status === 404)
    return 'No device is waiting for this code. Check the code your device shows and try again.';
  return errorMessage(err);
}

type Decision = { approve: true; organizationIds: string[] } | { approve: false };

export function DevicePage({ session }: { session: SessionInfoRecord }) {
  const [code, setCode] = useState(() => new URLSearchParams(window.location.search).get('user_code') ?? '');
  const lookup = useMutation({ mutationFn: (userCode: string) => api.lookupDevice(userCode) });
  const decide = useMutation({
    mutationFn: ({ device, decision }: { device: DeviceVerificationRecord; decision: Decision }): Promise<DeviceDecisionRecord> =>
      decision.approve ? api.approveDevice(device.user_code, decision.organizationIds) : api.denyDevice(device.user_code),
  });

  function submitCode(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    decide.reset();
    lookup.mutate(code.trim());
  }

  function startOver() {
    lookup.reset();
    decide.reset();
    setCode('');
  }

  if (decide.data) {
    const decision = decide.data;
    const approved = decision.status === 'approved';
    return (
      <StandaloneCard title={approved ? 'Device connected' : 'Access denied'} session={session}>
        <div className={approved ? 'alert alert-ok' : 'alert alert-info'} role="status">
          {approved
            ? `${decision.client.name} can now reach the organizations you chose. Go back to your device: it continues by itself.`
            : `${decision.client.name} was not given access. You can close this page.`}
        </div>
        <button type="button" className="button" onClick={startOver}>
          Enter another code
        </button>
      </StandaloneCard>
    );
  }

  if (lookup.data) {
    const device = lookup.data;
    return (
      <StandaloneCard title={`Connect ${device.client.name}`} session={session}>
        <p>
          Check that your device shows <span className="mono strong">{device.user_code}</span>.
        </p>
        <ErrorMessage message={explain(decide.error)} />
        <ConsentForm
          consent={device}
          session={session}
          busy={decide.isPending}
          onApprove={(organizationIds) => decide.mutate({ device, decision: { approve: true, organizationIds } })}
          onDeny={() => decide.mutate({ device, decision: { approve: false } })}
        />
      </StandaloneCard>
    );
  }

  return (
    <StandaloneCard title="Connect a device" session={session}>
      <form onSubmit={submitCode} aria-label="Device code">
        <p className="muted">Enter the code your device shows. If it was filled in for you, check that it matches.</p>
        <ErrorMessage message={explain(lookup.error)} />
        <TextField
          label="Code"
          name="user_code"
          autoFocus
          className="oauth-code-field"
          autoComplete="off"
          required
          maxLength={32}
          placeholder="BCDF-GHJK"
          value={code}
          onChange={setCode}
        />
        <button type="submit" className="button button-primary button-block" disabled={lookup.isPending || code.trim() === ''}>
          {lookup.isPending ? 'Checking…' : 'Continue'}
        </button>
      </form>
    </StandaloneCard>
  );
}
