/** The consent page of the authorization code flow: GET /v1/oauth/authorize sends the browser here with ?request=. */
import { useMutation, useQuery } from '@tanstack/react-query';
import { api, ApiError, errorMessage, type SessionInfoRecord } from '../api.ts';
import { orgKey } from '../query.ts';
import { ErrorMessage, Loading } from '../ui.tsx';
import { ConsentForm } from './OAuthConsent.tsx';
import { StandaloneCard } from './StandaloneCard.tsx';

/** What a refusal to show the request means to the person looking at it. */
function explain(err: unknown): string | undefined {
  if (err === null || err === undefined) return undefined;
  if (err instanceof ApiError && err.status === 404)
    return 'This authorization request does not exist. Go back to the application and start again.';
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

const TITLE = 'Authorize an application';

export function OAuthAuthorizePage({ session }: { session: SessionInfoRecord }) {
  const requestId = new URLSearchParams(window.location.search).get('request') ?? '';
  const request = useQuery({
    queryKey: orgKey('oauth-authorization-request', requestId),
    queryFn: () => api.authorizationRequest(requestId),
    enabled: requestId !== '',
    retry: false,
    staleTime: Infinity,
  });
  const decide = useMutation({
    mutationFn: (organizationIds: string[] | undefined) =>
      organizationIds ? api.approveAuthorization(requestId, organizationIds) : api.denyAuthorization(requestId),
    onSuccess: ({ redirect_to }) => window.location.assign(redirect_to),
  });

  if (!requestId) {
    return (
      <StandaloneCard title={TITLE} session={session}>
        <ErrorMessage message="This page is opened by an application asking for access. Start again from the application." />
      </StandaloneCard>
    );
  }
  if (decide.data) {
    return (
      <StandaloneCard title={TITLE} session={session}>
        <p role="status">Taking you back to {shownTarget(decide.data.redirect_to)}…</p>
      </StandaloneCard>
    );
  }
  if (!request.data) {
    return (
      <StandaloneCard title={TITLE} session={session}>
        {request.error ? <ErrorMessage message={explain(request.error)} /> : <Loading />}
      </StandaloneCard>
    );
  }
  return (
    <StandaloneCard title={`Authorize ${request.data.client.name}`} session={session}>
      <ErrorMessage message={explain(decide.error)} />
      <ConsentForm
        consent={request.data}
        session={session}
        busy={decide.isPending}
        onApprove={(ids) => decide.mutate(ids)}
        onDeny={() => decide.mutate(undefined)}
      />
      <p className="muted small">
        Afterwards you go back to <span className="mono">{shownTarget(request.data.redirect_uri)}</span>.
      </p>
    </StandaloneCard>
  );
}
