/**
 * The signed-in person: GET /v1/auth/session through TanStack Query, in the remembered organization
 * (once more in the session's own when that one answers 403). A browser without the readable CSRF
 * cookie has no session, so a signed-out visit asks nothing and logs no 401.
 */
import { createContext, useContext, type ReactNode } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { api, ApiError, currentOrganization, mayHaveSession, setOrganization, type SessionInfoRecord } from './api.ts';
import { setTimeZone } from './format.ts';

export const SESSION_KEY = ['session'] as const;

async function loadSession(): Promise<SessionInfoRecord | null> {
  if (!mayHaveSession()) return null;
  const remembered = currentOrganization();
  let session: SessionInfoRecord | undefined;
  try {
    session = await api.session();
  } catch (err) {
    if (!(err instanceof ApiError) || (err.status !== 401 && err.status !== 403)) throw err;
    if (err.status === 401 || !remembered) return null;
  }
  if (!session) {
    try {
      session = await api.session(null);
    } catch (err) {
      if (err instanceof ApiError && err.status === 401) return null;
      throw err;
    }
  }
  setOrganization(session.organization_id);
  setTimeZone(session.user.timezone);
  return session;
}

/** The session query: `data` is null when signed out. */
export function useSessionQuery() {
  return useQuery({ queryKey: SESSION_KEY, queryFn: loadSession, staleTime: 60_000, retry: false });
}

/** Refreshes what the dashboard knows of the session (after sign-in, an organization switch, a role change). */
export function useRefreshSession() {
  const client = useQueryClient();
  return () => client.invalidateQueries({ queryKey: SESSION_KEY });
}

/** Acts in another organization: the session is asked again in it (the API checks membership). */
export function useSwitchOrganization() {
  const client = useQueryClient();
  return async (organizationId: string) => {
    const previous = currentOrganization();
    try {
      const next = await api.session(organizationId);
      setOrganization(next.organization_id);
      setTimeZone(next.user.timezone);
      client.setQueryData(SESSION_KEY, next);
    } catch (err) {
      setOrganization(previous);
      throw err;
    }
  };
}

const SessionContext = createContext<SessionInfoRecord | undefined>(undefined);

export function SessionProvider({ session, children }: { session: SessionInfoRecord; children: ReactNode }) {
  return <SessionContext.Provider value={session}>{children}</SessionContext.Provider>;
}

/** The signed-in session; only inside the app's shell and the standalone signed-in pages. */
export function useSession(): SessionInfoRecord {
  const session = useContext(SessionContext);
  if (!session) throw new Error('useSession outside a signed-in page');
  return session;
}

/** Whether the signed-in person may do something (the role's permissions in this organization). */
export function useCan(permission: string): boolean {
  return useSession().permissions.includes(permission);
}
