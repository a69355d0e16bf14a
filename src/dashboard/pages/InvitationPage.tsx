/**
 * The invitation link's page (/app/invitations#token=…), open signed in or out. The token travels in
 * the fragment, which no server sees; the page keeps it for this tab only (so signing in and coming
 * back works) and takes it out of the address bar. It shows the invitation, then: signed out with a
 * new email, a sign-up form; signed out with an existing account, a link to sign in and return;
 * signed in, accept as that user.
 */
import { useState, type FormEvent } from 'react';
import { useMutation, useQuery } from '@tanstack/react-query';
import { api, ApiError, errorMessage, type InvitationPreviewRecord, type SessionInfoRecord } from '../api.ts';
import { BASE } from '../base.ts';
import { formErrors, TextField } from '../forms.tsx';
import { loginPathFor } from '../return-to.ts';
import { Link } from '../router.tsx';
import { ErrorMessage, Loading } from '../ui.tsx';
import { StandaloneCard } from './StandaloneCard.tsx';
import { NewPasswordField } from './sign-in-form.tsx';

const STORAGE_KEY = 'parley.invitation';

/** The token from the fragment (remembered for this tab) or, after a sign-in round trip, from the tab's memory. */
function takeToken(): string | undefined {
  const fromHash = new URLSearchParams(window.location.hash.slice(1)).get('token');
  if (fromHash) {
    sessionStorage.setItem(STORAGE_KEY, fromHash);
    window.history.replaceState(null, '', window.location.pathname + window.location.search);
    return fromHash;
  }
  return sessionStorage.getItem(STORAGE_KEY) ?? undefined;
}

type Props = { session: SessionInfoRecord | undefined };

function explain(err: unknown): string {
  if (err instanceof ApiError && err.status === 404)
    return 'This invitation link is not valid. Check that you opened the whole link, or ask for a new invitation.';
  return errorMessage(err);
}

export function InvitationPage({ session }: Props) {
  const [token] = useState(takeToken);
  const [name, setName] = useState('');
  const [password, setPassword] = useState('');
  const lookup = useQuery({
    queryKey: ['invitation', token],
    queryFn: () => api.lookupInvitation(token!),
    enabled: Boolean(token),
    retry: false,
    staleTime: Infinity,
  });
  const accept = useMutation({
    mutationFn: (signUp: { name: string; password: string } | undefined) => api.acceptInvitation(token!, signUp),
    onSuccess: () => {
      sessionStorage.removeItem(STORAGE_KEY);
      setPassword('');
    },
  });

  if (!token) {
    return (
      <StandaloneCard session={session} title="Invitation">
        <ErrorMessage message="This page needs the whole invitation link. Open the link you were sent again." />
      </StandaloneCard>
    );
  }
  if (lookup.error) {
    return (
      <StandaloneCard session={session} title="Invitation">
        <ErrorMessage message={explain(lookup.error)} />
      </StandaloneCard>
    );
  }
  if (!lookup.data) {
    return (
      <main className="center">
        <Loading />
      </main>
    );
  }
  const invitation: InvitationPreviewRecord = lookup.data;
  if (accept.isSuccess) {
    return (
      <StandaloneCard session={session} title={`Welcome to ${invitation.organization_name}`}>
        <div className="alert alert-ok" role="status">
          You joined {invitation.organization_name} as {invitation.role}.
        </div>
        {/* A full load: the dashboard starts again with the session (a new one, after a sign-up). */}
        <a className="button button-primary button-block" href={`${BASE}/`}>
          Open Parley
        </a>
      </StandaloneCard>
    );
  }

  const title = `Join ${invitation.organization_name}`;
  const intro = (
    <p>
      {invitation.inviter_name ?? 'An administrator'} invited <span className="strong">{invitation.email}</span> to join{' '}
      <span className="strong">{invitation.organization_name}</span> as {invitation.role}.
    </p>
  );
  const errors = formErrors(accept.error);
  const summary = errors.summary('/name', '/password');

  if (session) {
    const same = session.user.email.toLowerCase() === invitation.email.toLowerCase();
    return (
      <StandaloneCard session={session} title={title}>
        {intro}
        <ErrorMessage message={summary} />
        {same ? (
          <button
            type="button"
            className="button button-primary button-block"
            disabled={accept.isPending}
            onClick={() => accept.mutate(undefined)}
          >
            {accept.isPending ? 'Joining…' : `Accept as ${session.user.email}`}
          </button>
        ) : (
          <ErrorMessage
            message={`You are signed in as ${session.user.email}. Sign out and sign in as ${invitation.email} to accept this invitation.`}
          />
        )}
      </StandaloneCard>
    );
  }
  if (invitation.account_exists) {
    return (
      <StandaloneCard session={session} title={title}>
        {intro}
        <p className="muted">{invitation.email} already has a Parley account: sign in, and you come back here to accept.</p>
        <Link to={loginPathFor(`${BASE}/invitations`)} className="button button-primary button-block">
          Sign in to accept
        </Link>
      </StandaloneCard>
    );
  }

  function signUp(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    accept.mutate({ name: name.trim(), password });
  }

  return (
    <StandaloneCard session={session} title={title}>
      {intro}
      <form onSubmit={signUp} aria-label="Create your account">
        <p className="muted">Create your account to join.</p>
        <ErrorMessage message={summary} />
        <label className="field">
          <span>Email</span>
          <input type="email" name="email" autoComplete="username" value={invitation.email} readOnly />
        </label>
        <TextField
          label="Your name"
          name="name"
          autoComplete="name"
          required
          maxLength={200}
          autoFocus
          value={name}
          onChange={setName}
          error={errors.field('/name')}
        />
        <NewPasswordField value={password} onChange={setPassword} error={errors.field('/password')} />
        <button type="submit" className="button button-primary button-block" disabled={accept.isPending}>
          {accept.isPending ? 'Creating your account…' : 'Create account and join'}
        </button>
      </form>
    </StandaloneCard>
  );
}
