/**
 * The dashboard shell: decides from GET /v1/auth/session whether to show the login page or the
 * app, keeps the chosen organization, and routes between the pages under /app/.
 */
import { StrictMode, useCallback, useEffect, useState, type ReactNode } from 'react';
import { createRoot } from 'react-dom/client';
import { api, ApiError, currentOrganization, errorMessage, setOrganization, setUnauthenticatedHandler, type SessionInfo } from './api.ts';
import { setTimeZone } from './format.ts';
import { Link, navigate, useRoute } from './router.tsx';
import { ErrorMessage, Loading, PageHeader } from './ui.tsx';
import { ApiKeysPage } from './pages/ApiKeysPage.tsx';
import { ChannelsPage } from './pages/ChannelsPage.tsx';
import { DevicePage } from './pages/DevicePage.tsx';
import { InvitationPage } from './pages/InvitationPage.tsx';
import { LoginPage } from './pages/LoginPage.tsx';
import { OAuthAuthorizePage } from './pages/OAuthAuthorizePage.tsx';
import { SessionsPage } from './pages/SessionsPage.tsx';
import { ResetPasswordPage } from './pages/ResetPasswordPage.tsx';
import { SignupPage } from './pages/SignupPage.tsx';
import { loginPathFor, safeReturnTo } from './return-to.ts';
import { BASE } from './base.ts';

type State =
  | { kind: 'loading' }
  | { kind: 'anonymous'; notice?: string }
  | { kind: 'failed'; error: string }
  | { kind: 'ready'; session: SessionInfo };

const DEFAULT_ROUTE = '/channels';
const LOGIN_ROUTE = '/login';
const SIGNUP_ROUTE = '/signup';

/** Pages for anyone, signed in or not: a reset link works without a session (and ends them all). */
const PUBLIC: Record<string, () => ReactNode> = {
  '/reset-password': ResetPasswordPage,
};

/** Pages that stand alone, outside the app's shell: where an application sends a person to approve it. */
const STANDALONE: Record<string, (props: { session: SessionInfo }) => ReactNode> = {
  '/oauth/authorize': OAuthAuthorizePage,
  '/device': DevicePage,
};

/** Pages that stand alone and are open signed in or out: an invitation link signs a new person up. */
const OPEN = new Set(['/invitations']);

/** Where the sign-in page's ?return_to= points, as a route under /app; undefined when it points nowhere of ours. */
function returnRoute(): string | undefined {
  const target = safeReturnTo(new URLSearchParams(window.location.search).get('return_to'), window.location.origin);
  return target === undefined ? undefined : target.slice(BASE.length) || '/';
}

/**
 * The session in the remembered organization; when that answers 403 (the user is no longer a member
 * of it, or another user signs in on this browser) once more in the session's own one.
 */
async function loadSession(): Promise<SessionInfo | undefined> {
  const remembered = currentOrganization();
  try {
    return await api.session();
  } catch (err) {
    if (!(err instanceof ApiError) || (err.status !== 401 && err.status !== 403)) throw err;
    if (err.status === 401 || !remembered) return undefined;
  }
  try {
    return await api.session(null);
  } catch (err) {
    if (err instanceof ApiError && err.status === 401) return undefined;
    throw err;
  }
}

function App() {
  const [state, setState] = useState<State>({ kind: 'loading' });
  const route = useRoute();

  const refresh = useCallback(async (afterLogin = false) => {
    try {
      const session = await loadSession();
      if (!session) {
        setState({
          kind: 'anonymous',
          // Logged in, yet no session: the browser dropped the cookie (a Secure cookie over plain http).
          notice: afterLogin ? 'You were signed in, but this browser did not keep the session cookie. Open Parley at its configured address (BASE_URL).' : undefined,
        });
        return;
      }
      setOrganization(session.organization_id);
      setTimeZone(session.user.timezone);
      setState({ kind: 'ready', session });
    } catch (err) {
      setState({ kind: 'failed', error: errorMessage(err) });
    }
  }, []);

  useEffect(() => {
    setUnauthenticatedHandler(() => setState({ kind: 'anonymous', notice: 'Your session has ended. Sign in again.' }));
    void refresh();
    return () => setUnauthenticatedHandler(undefined);
  }, [refresh]);

  useEffect(() => {
    // Signed out on a standalone page: sign in, then come back to it.
    if (state.kind === 'anonymous' && route in STANDALONE) navigate(loginPathFor(window.location.pathname + window.location.search), { replace: true });
    // Signed in on the sign-in page (just now, or with a session already): on to ?return_to=, a path of this dashboard only.
    if (state.kind === 'ready' && (route === LOGIN_ROUTE || route === SIGNUP_ROUTE)) navigate(returnRoute() ?? DEFAULT_ROUTE, { replace: true });
  }, [state.kind, route]);

  const Public = PUBLIC[route];
  if (Public) return <Public />;

  switch (state.kind) {
    case 'loading':
      return (
        <main className="center">
          <Loading />
        </main>
      );
    case 'failed':
      return (
        <main className="center">
          <div className="card narrow">
            <h1>Parley is not answering</h1>
            <ErrorMessage message={state.error} />
            <button type="button" className="button button-primary" onClick={() => void refresh()}>
              Try again
            </button>
          </div>
        </main>
      );
    case 'anonymous':
      if (OPEN.has(route)) return <InvitationPage session={undefined} />;
      if (route === SIGNUP_ROUTE) return <SignupPage onSignedUp={() => refresh(true)} />;
      return <LoginPage notice={state.notice} onLoggedIn={() => refresh(true)} />;
    case 'ready': {
      if (OPEN.has(route)) return <InvitationPage session={state.session} />;
      const Standalone = STANDALONE[route];
      if (Standalone) return <Standalone session={state.session} />;
      if (route === LOGIN_ROUTE || route === SIGNUP_ROUTE) {
        return (
          <main className="center">
            <Loading />
          </main>
        );
      }
      return (
        <Shell
          session={state.session}
          onSession={(session) => setState({ kind: 'ready', session })}
          onLoggedOut={() => setState({ kind: 'anonymous', notice: 'You have been logged out.' })}
        />
      );
    }
  }
}

type ShellProps = { session: SessionInfo; onSession(session: SessionInfo): void; onLoggedOut(): void };

function Shell({ session, onSession, onLoggedOut }: ShellProps) {
  const route = useRoute();
  const [error, setError] = useState<string | undefined>(undefined);
  const [switching, setSwitching] = useState(false);

  useEffect(() => {
    if (route === '/') navigate(DEFAULT_ROUTE, { replace: true });
  }, [route]);

  const organization = session.organizations.find((o) => o.organization_id === session.organization_id);

  async function switchOrganization(id: string) {
    const previous = session.organization_id;
    setSwitching(true);
    setError(undefined);
    try {
      const next = await api.session(id);
      setOrganization(next.organization_id);
      onSession(next);
    } catch (err) {
      setOrganization(previous);
      setError(`Could not switch organization: ${errorMessage(err)}`);
    } finally {
      setSwitching(false);
    }
  }

  async function logout() {
    setError(undefined);
    try {
      await api.logout();
    } catch (err) {
      // 401: the session had already ended, which is what logging out wants.
      if (!(err instanceof ApiError) || err.status !== 401) {
        setError(`Could not log out: ${errorMessage(err)}`);
        return;
      }
    }
    onLoggedOut();
  }

  let page: ReactNode;
  switch (route) {
    case '/':
    case '/channels':
      page = <ChannelsPage />;
      break;
    case '/api-keys':
      page = <ApiKeysPage session={session} />;
      break;
    case '/sessions':
      page = <SessionsPage />;
      break;
    default:
      page = <NotFound />;
  }

  const nav = (to: string, label: string) => (
    <li>
      <Link to={to} className={route === to ? 'nav-link active' : 'nav-link'} aria-current={route === to ? 'page' : undefined}>
        {label}
      </Link>
    </li>
  );

  return (
    <div className="shell">
      <aside className="sidebar">
        <div className="brand">
          <span className="brand-mark" aria-hidden="true">
            P
          </span>
          Parley
        </div>
        <div className="org">
          {session.organizations.length > 1 ? (
            <label className="org-switcher">
              <span className="sidebar-label">Organization</span>
              <select value={session.organization_id} disabled={switching} onChange={(e) => void switchOrganization(e.target.value)}>
                {session.organizations.map((o) => (
                  <option key={o.organization_id} value={o.organization_id}>
                    {o.organization_name}
                  </option>
                ))}
              </select>
            </label>
          ) : (
            <>
              <span className="sidebar-label">Organization</span>
              <div className="org-name">{organization?.organization_name ?? 'Unknown organization'}</div>
            </>
          )}
          <div className="org-role">Your role: {session.role}</div>
        </div>
        <nav aria-label="Main">
          <span className="sidebar-label">Messaging</span>
          <ul>{nav('/channels', 'Channels')}</ul>
          <span className="sidebar-label">Settings</span>
          <ul>
            {nav('/api-keys', 'API keys')}
            {nav('/sessions', 'Sessions')}
          </ul>
          <span className="sidebar-label">Developers</span>
          <ul>
            <li>
              <a className="nav-link" href="/v1/docs/" target="_blank" rel="noopener">
                API reference <span aria-hidden="true">↗</span>
              </a>
            </li>
          </ul>
        </nav>
        <div className="account">
          <div className="account-name">{session.user.name}</div>
          <div className="account-email">{session.user.email}</div>
          <button type="button" className="button button-sidebar" onClick={() => void logout()}>
            Log out
          </button>
        </div>
      </aside>
      <main className="content">
        <ErrorMessage message={error} onDismiss={() => setError(undefined)} />
        {/* A new organization starts its pages afresh. */}
        <div key={session.organization_id}>{page}</div>
      </main>
    </div>
  );
}

function NotFound() {
  return (
    <>
      <PageHeader title="Page not found" />
      <p>
        There is no page here. Go to <Link to={DEFAULT_ROUTE}>Channels</Link>.
      </p>
    </>
  );
}

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
