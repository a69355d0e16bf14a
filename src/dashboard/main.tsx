/**
 * The dashboard: react-router under /app, TanStack Query for server state, the session deciding
 * between the sign-in pages and the app. Pages live in pages/<area>/ and each area lists its routes.
 */
import { StrictMode, useEffect, type ReactNode } from 'react';
import { createRoot } from 'react-dom/client';
import { QueryClientProvider, useQueryClient } from '@tanstack/react-query';
import { createBrowserRouter, RouterProvider, type RouteObject } from 'react-router';
import { errorMessage, setUnauthenticatedHandler, type SessionInfoRecord } from './api.ts';
import { BASE } from './base.ts';
import { LiveEventsProvider } from './live.tsx';
import { queryClient } from './query.ts';
import { Navigate, Outlet, useLocation, useSearchParams } from './router.tsx';
import { SESSION_KEY, SessionProvider, useRefreshSession, useSessionQuery } from './session.tsx';
import { Shell } from './shell.tsx';
import { ErrorMessage, Loading, PageHeader } from './ui.tsx';
import { loginPathFor, safeReturnTo } from './return-to.ts';
import { DevicePage } from './pages/DevicePage.tsx';
import { InvitationPage } from './pages/InvitationPage.tsx';
import { LoginPage } from './pages/LoginPage.tsx';
import { OAuthAuthorizePage } from './pages/OAuthAuthorizePage.tsx';
import { ResetPasswordPage } from './pages/ResetPasswordPage.tsx';
import { SignupPage } from './pages/SignupPage.tsx';
import { broadcastsRoutes } from './pages/broadcasts/routes.tsx';
import { channelsRoutes } from './pages/channels/routes.tsx';
import { contactsRoutes } from './pages/contacts/routes.tsx';
import { crmRoutes } from './pages/crm/routes.tsx';
import { developersRoutes } from './pages/developers/routes.tsx';
import { inboxRoutes } from './pages/inbox/routes.tsx';
import { settingsRoutes } from './pages/settings/routes.tsx';
import { searchRoutes } from './pages/search/routes.tsx';

const DEFAULT_ROUTE = '/inbox';

function Centered({ children }: { children: ReactNode }) {
  return <main className="center">{children}</main>;
}

/** The session as the pages see it: loading, failed (with a retry), or known (null when signed out). */
function useKnownSession(): { session: SessionInfoRecord | null | undefined; view?: ReactNode } {
  const query = useSessionQuery();
  const refresh = useRefreshSession();
  if (query.isPending)
    return {
      session: undefined,
      view: (
        <Centered>
          <Loading />
        </Centered>
      ),
    };
  if (query.isError) {
    return {
      session: undefined,
      view: (
        <Centered>
          <div className="card narrow">
            <h1>Parley is not answering</h1>
            <ErrorMessage message={errorMessage(query.error)} />
            <button type="button" className="button button-primary" onClick={() => void refresh()}>
              Try again
            </button>
          </div>
        </Centered>
      ),
    };
  }
  return { session: query.data };
}

/** Routes that need a session: signed out, the sign-in page, then back here. */
function RequireSession({ children, live = false }: { children: ReactNode; live?: boolean }) {
  const { session, view } = useKnownSession();
  const location = useLocation();
  if (view) return view;
  if (!session) return <Navigate to={loginPathFor(BASE + location.pathname + location.search)} replace state={location.state as unknown} />;
  return (
    <SessionProvider session={session}>
      {live ? <LiveEventsProvider organizationId={session.organization_id}>{children}</LiveEventsProvider> : children}
    </SessionProvider>
  );
}

/** The sign-in and sign-up pages: a signed-in visitor goes on to ?return_to= (a path of this dashboard only). */
function SignedOutOnly({ page }: { page: 'login' | 'signup' }) {
  const { session, view } = useKnownSession();
  const refresh = useRefreshSession();
  const [params] = useSearchParams();
  const location = useLocation();
  if (view) return view;
  if (session) {
    const target = safeReturnTo(params.get('return_to'), window.location.origin);
    return <Navigate to={target === undefined ? DEFAULT_ROUTE : target.slice(BASE.length) || '/'} replace />;
  }
  const afterSignIn = async () => {
    await refresh();
  };
  if (page === 'signup') return <SignupPage onSignedUp={afterSignIn} />;
  const notice = (location.state as { notice?: string } | null)?.notice;
  return <LoginPage notice={notice} onLoggedIn={afterSignIn} />;
}

/** Open signed in or out (an invitation link may sign a new person up). */
function WithOptionalSession({ render }: { render(session: SessionInfoRecord | undefined): ReactNode }) {
  const { session, view } = useKnownSession();
  if (view) return view;
  return <>{render(session ?? undefined)}</>;
}

function StandalonePage({ render }: { render(session: SessionInfoRecord): ReactNode }) {
  const { session } = useKnownSession();
  return <RequireSession>{session ? render(session) : null}</RequireSession>;
}

/** A call answered 401: the session ended elsewhere (expired, revoked, logged out): back to sign in. */
function SessionEndWatcher({ children }: { children: ReactNode }) {
  const client = useQueryClient();
  useEffect(() => {
    setUnauthenticatedHandler(() => {
      client.clear();
      client.setQueryData(SESSION_KEY, null);
      void router.navigate(loginPathFor(window.location.pathname + window.location.search), {
        replace: true,
        state: { notice: 'Your session has ended. Sign in again.' },
      });
    });
    return () => setUnauthenticatedHandler(undefined);
  }, [client]);
  return <>{children}</>;
}

function NotFound() {
  return (
    <>
      <PageHeader title="Page not found" />
      <p>There is no page here. Pick one from the menu.</p>
    </>
  );
}

const appRoutes: RouteObject[] = [
  { index: true, element: <Navigate to={DEFAULT_ROUTE} replace /> },
  ...inboxRoutes,
  ...contactsRoutes,
  ...crmRoutes,
  ...channelsRoutes,
  ...broadcastsRoutes,
  ...developersRoutes,
  ...settingsRoutes,
  ...searchRoutes,
  // Addresses of earlier versions of the dashboard.
  { path: 'api-keys', element: <Navigate to="/developers/api-keys" replace /> },
  { path: 'sessions', element: <Navigate to="/settings/sessions" replace /> },
  { path: '*', element: <NotFound /> },
];

const router = createBrowserRouter(
  [
    {
      element: (
        <SessionEndWatcher>
          <Outlet />
        </SessionEndWatcher>
      ),
      children: [
        { path: 'reset-password', element: <ResetPasswordPage /> },
        { path: 'invitations', element: <WithOptionalSession render={(session) => <InvitationPage session={session} />} /> },
        { path: 'login', element: <SignedOutOnly page="login" /> },
        { path: 'signup', element: <SignedOutOnly page="signup" /> },
        { path: 'oauth/authorize', element: <StandalonePage render={(session) => <OAuthAuthorizePage session={session} />} /> },
        { path: 'device', element: <StandalonePage render={(session) => <DevicePage session={session} />} /> },
        {
          element: (
            <RequireSession live>
              <Shell />
            </RequireSession>
          ),
          children: appRoutes,
        },
      ],
    },
  ],
  { basename: BASE },
);

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      <RouterProvider router={router} />
    </QueryClientProvider>
  </StrictMode>,
);
