/**
 * The invitation link's page (/app/invitations#token=…), open signed in or out. The token travels in
 * the fragment, which no server sees; the page keeps it for this tab only (so signing in and coming
 * back works) and takes it out of the address bar. It shows the invitation, then: signed out with a
 * new email, a sign-up form; signed out with an existing account, a link to sign in and return;
 * signed in, accept as that user.
 */
import { useEffect, useState, type FormEvent } from 'react';
import { api, ApiError, errorMessage, type InvitationPreview, type SessionInfo } from '../api.ts';
import { BASE } from '../base.ts';
import { loginPathFor } from '../return-to.ts';
import { Link } from '../router.tsx';
import { ErrorMessage, Loading } from '../ui.tsx';
import { OAuthCard } from './OAuthConsent.tsx';

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

type Props = { session: SessionInfo | undefined };

type State =
  | { kind: 'loading' }
  | { kind: 'missing' }
  | { kind: 'failed'; error: string }
  | { kind: 'open'; invitation: InvitationPreview }
  | { kind: 'accepted'; invitation: InvitationPreview };

function explain(err: unknown): string {
  if (err instanceof ApiError && err.status === 404) return 'This invitation link is not valid. Check that you opened the whole link, or ask for a new invitation.';
  return errorMessage(err);
}

export function InvitationPage({ session }: Props) {
  const [token] = useState(takeToken);
  const [state, setState] = useState<State>({ kind: 'loading' });
  const [error, setError] = useState<string | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  const [name, setName] = useState('');
  const [password, setPassword] = useState('');

  useEffect(() => {
    if (!token) {
      setState({ kind: 'missing' });
      return;
    }
    api.lookupInvitation(token).then(
      (invitation) => setState({ kind: 'open', invitation }),
      (err: unknown) => setState({ kind: 'failed', error: explain(err) }),
    );
  }, [token]);

  async function accept(invitation: InvitationPreview, signUp?: { name: string; password: string }) {
    setBusy(true);
    setError(undefined);
    try {
      await api.acceptInvitation(token!, signUp);
      sessionStorage.removeItem(STORAGE_KEY);
      setPassword('');
      setState({ kind: 'accepted', invitation });
    } catch (err) {
      setError(errorMessage(err));
    } finally {
      setBusy(false);
    }
  }

  function signUp(event: FormEvent<HTMLFormElement>, invitation: InvitationPreview) {
    event.preventDefault();
    void accept(invitation, { name: name.trim(), password });
  }

  switch (state.kind) {
    case 'loading':
      return (
        <main className="center">
          <Loading />
        </main>
      );
    case 'missing':
      return (
        <OAuthCard session={session} title="Invitation">
          <ErrorMessage message="This page needs the whole invitation link. Open the link you were sent again." />
        </OAuthCard>
      );
    case 'failed':
      return (
        <OAuthCard session={session} title="Invitation">
          <ErrorMessage message={state.error} />
        </OAuthCard>
      );
    case 'accepted':
      return (
        <OAuthCard session={session} title={`Welcome to ${state.invitation.organization_name}`}>
          <div className="alert alert-ok" role="status">
            You joined {state.invitation.organization_name} as {state.invitation.role}.
          </div>
          {/* A full load: the dashboard starts again with the session (a new one, after a sign-up). */}
          <a className="button button-primary button-block" href={`${BASE}/`}>
            Open Parley
          </a>
        </OAuthCard>
      );
    case 'open': {
      const { invitation } = state;
      const title = `Join ${invitation.organization_name}`;
      const intro = (
        <p>
          {invitation.inviter_name ?? 'An administrator'} invited <span className="strong">{invitation.email}</span> to join{' '}
          <span className="strong">{invitation.organization_name}</span> as {invitation.role}.
        </p>
      );
      if (session) {
        const same = session.user.email.toLowerCase() === invitation.email.toLowerCase();
        return (
          <OAuthCard session={session} title={title}>
            {intro}
            <ErrorMessage message={error} />
            {same ? (
              <button type="button" className="button button-primary button-block" disabled={busy} onClick={() => void accept(invitation)}>
                {busy ? 'Joining…' : `Accept as ${session.user.email}`}
              </button>
            ) : (
              <ErrorMessage message={`You are signed in as ${session.user.email}. Sign out and sign in as ${invitation.email} to accept this invitation.`} />
            )}
          </OAuthCard>
        );
      }
      if (invitation.account_exists) {
        return (
          <OAuthCard session={session} title={title}>
            {intro}
            <p className="muted">{invitation.email} already has a Parley account: sign in, and you come back here to accept.</p>
            <Link to={loginPathFor(`${BASE}/invitations`)} className="button button-primary button-block">
              Sign in to accept
            </Link>
          </OAuthCard>
        );
      }
      return (
        <OAuthCard session={session} title={title}>
          {intro}
          <form onSubmit={(e) => signUp(e, invitation)} aria-label="Create your account">
            <p className="muted">Create your account to join.</p>
            <ErrorMessage message={error} />
            <label className="field">
              <span>Email</span>
              <input type="email" name="email" autoComplete="username" value={invitation.email} readOnly />
            </label>
            <label className="field">
              <span>Your name</span>
              <input type="text" name="name" autoComplete="name" required maxLength={200} autoFocus value={name} onChange={(e) => setName(e.target.value)} />
            </label>
            <label className="field">
              <span>Password</span>
              <input type="password" name="password" autoComplete="new-password" required minLength={8} maxLength={1024} value={password} onChange={(e) => setPassword(e.target.value)} />
            </label>
            <button type="submit" className="button button-primary button-block" disabled={busy}>
              {busy ? 'Creating your account…' : 'Create account and join'}
            </button>
          </form>
        </OAuthCard>
      );
    }
  }
}
