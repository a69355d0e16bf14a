/** The consent page of the authorization code flow: GET /v1/oauth/authorize sends the browser here with ?request=. */
import { useEffect, useState } from 'react';
import { api, ApiError, errorMessage, type OAuthAuthorizationRequest, type SessionInfo } from '../api.ts';
import { ErrorMessage, Loading } from '../ui.tsx';
import { ConsentForm, OAuthCard } from './OAuthConsent.tsx';

type State =
  | { kind: 'loading' }
  | { kind: 'failed'; message: string }
  | { kind: 'ready'; request: OAuthAuthorizationRequest }
  | { kind: 'leaving'; to: string };

/** What a refusal to show the request means to the person looking at it. */
function explain(err: unknown): string {
  if (err instanceof ApiError && err.status === 404) return 'This authorization request does not exist. Go back to the application and start again.';
  return errorMessage(err);
}

/** The address the browser is sent to, as people recognise it. */
function shownTarget(uri: string): string {
  try {
    const url = new URL(uri);
    return url.host ? `${url.protocol}//${url.host}` : url.protocol;
  } catch {
    return 'the application';
  }
}

export function OAuthAuthorizePage({ session }: { session: SessionInfo }) {
  const requestId = new URLSearchParams(window.location.search).get('request') ?? '';
  const [state, setState] = useState<State>(requestId ? { kind: 'loading' } : { kind: 'failed', message: 'This page is opened by an application asking for access. Start again from the application.' });
  const [error, setError] = useState<string | undefined>(undefined);
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    if (!requestId) return;
    let live = true;
    api
      .authorizationRequest(requestId)
      .then((request) => live && setState({ kind: 'ready', request }))
      .catch((err: unknown) => live && setState({ kind: 'failed', message: explain(err) }));
    return () => {
      live = false;
    };
  }, [requestId]);

  async function decide(decision: () => Promise<{ redirect_to: string }>) {
    setBusy(true);
    setError(undefined);
    try {
      const { redirect_to } = await decision();
      setState({ kind: 'leaving', to: redirect_to });
      window.location.assign(redirect_to);
    } catch (err) {
      setError(explain(err));
      setBusy(false);
    }
  }

  switch (state.kind) {
    case 'loading':
      return (
        <OAuthCard title="Authorize an application" session={session}>
          <Loading />
        </OAuthCard>
      );
    case 'failed':
      return (
        <OAuthCard title="Authorize an application" session={session}>
          <ErrorMessage message={state.message} />
        </OAuthCard>
      );
    case 'leaving':
      return (
        <OAuthCard title="Authorize an application" session={session}>
          <p role="status">Taking you back to {shownTarget(state.to)}…</p>
        </OAuthCard>
      );
    case 'ready':
      return (
        <OAuthCard title={`Authorize ${state.request.client.name}`} session={session}>
          <ErrorMessage message={error} />
          <ConsentForm
            consent={state.request}
            session={session}
            busy={busy}
            onApprove={(ids) => void decide(() => api.approveAuthorization(requestId, ids))}
            onDeny={() => void decide(() => api.denyAuthorization(requestId))}
          />
          <p className="muted small">
            Afterwards you go back to <span className="mono">{shownTarget(state.request.redirect_uri)}</span>.
          </p>
        </OAuthCard>
      );
  }
}
