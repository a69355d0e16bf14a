/**
 * The signed-in app's frame: the sidebar (organization switcher, navigation, account) beside the
 * page. Below 800 px the sidebar folds away behind a menu button and opens over the page.
 */
import { useEffect, useState, type FormEvent } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, ApiError, errorMessage } from './api.ts';
import { AvailabilityToggle } from './availability.tsx';
import { useLiveState } from './live.tsx';
import { InboxAlerts } from './pages/inbox/alerts.tsx';
import { NavLink, Outlet, useLocation, useNavigate } from './router.tsx';
import { SESSION_KEY, useSession, useSwitchOrganization } from './session.tsx';
import { Brand, ErrorMessage } from './ui.tsx';

type NavItem = { to: string; label: string; permission?: string };
type NavGroup = { label: string; items: NavItem[] };

const NAV: NavGroup[] = [
  {
    label: 'Messaging',
    items: [
      { to: '/inbox', label: 'Inbox', permission: 'messages:read' },
      { to: '/contacts', label: 'Contacts', permission: 'contacts:read' },
      { to: '/channels', label: 'Channels', permission: 'channels:read' },
      { to: '/templates', label: 'Templates', permission: 'templates:read' },
      { to: '/broadcasts', label: 'Broadcasts', permission: 'messages:read' },
    ],
  },
  {
    label: 'CRM',
    items: [
      { to: '/companies', label: 'Companies', permission: 'crm:read' },
      { to: '/deals', label: 'Deals', permission: 'crm:read' },
      { to: '/tasks', label: 'Tasks', permission: 'crm:read' },
      { to: '/lists', label: 'Lists', permission: 'crm:read' },
      { to: '/segments', label: 'Segments', permission: 'crm:read' },
    ],
  },
  {
    label: 'Developers',
    items: [
      { to: '/developers/webhooks', label: 'Webhooks', permission: 'webhooks:read' },
      { to: '/developers/deliveries', label: 'Delivery log', permission: 'webhooks:read' },
      { to: '/developers/events', label: 'Events', permission: 'webhooks:read' },
      { to: '/developers/api-keys', label: 'API keys', permission: 'api_keys:read' },
      { to: '/developers/oauth-clients', label: 'OAuth apps', permission: 'oauth_clients:read' },
    ],
  },
  {
    label: 'Organization',
    items: [
      { to: '/settings/organization', label: 'Settings' },
      { to: '/settings/members', label: 'Members', permission: 'members:read' },
      { to: '/settings/automations', label: 'Automations', permission: 'automations:read' },
      { to: '/settings/teams', label: 'Teams', permission: 'teams:read' },
      { to: '/settings/bots', label: 'Bots', permission: 'bots:read' },
      { to: '/settings/sessions', label: 'Sessions' },
      { to: '/settings/account', label: 'Your account' },
      { to: '/settings/authorized-apps', label: 'Authorized apps' },
    ],
  },
];

export function Shell() {
  const session = useSession();
  const switchOrganization = useSwitchOrganization();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const location = useLocation();
  const live = useLiveState();
  const [menuOpen, setMenuOpen] = useState(false);

  // A page change on a phone closes the menu.
  useEffect(() => setMenuOpen(false), [location.pathname]);

  const organization = session.organizations.find((o) => o.organization_id === session.organization_id);

  const switcher = useMutation({ mutationFn: switchOrganization });
  const logout = useMutation({
    mutationFn: () =>
      api.logout().catch((err: unknown) => {
        // 401: the session had already ended, which is what logging out wants.
        if (!(err instanceof ApiError) || err.status !== 401) throw err;
      }),
    onSuccess: () => {
      queryClient.clear();
      queryClient.setQueryData(SESSION_KEY, null);
      navigate('/login', { replace: true, state: { notice: 'You have been logged out.' } });
    },
  });
  const error = switcher.error
    ? `Could not switch organization: ${errorMessage(switcher.error)}`
    : logout.error
      ? `Could not log out: ${errorMessage(logout.error)}`
      : undefined;

  const allowed = (item: NavItem) => !item.permission || session.permissions.includes(item.permission);

  return (
    <div className={menuOpen ? 'shell menu-open' : 'shell'}>
      <header className="topbar">
        <button
          type="button"
          className="menu-button"
          aria-expanded={menuOpen}
          aria-controls="sidebar"
          onClick={() => setMenuOpen((open) => !open)}
        >
          <span aria-hidden="true">☰</span> Menu
        </button>
        <Brand />
        <span className="topbar-org">{organization?.organization_name}</span>
      </header>
      <aside className="sidebar" id="sidebar">
        <Brand />
        <div className="org">
          {session.organizations.length > 1 ? (
            <label className="org-switcher">
              <span className="sidebar-label">Organization</span>
              <select
                value={session.organization_id}
                disabled={switcher.isPending}
                onChange={(e) => {
                  logout.reset();
                  switcher.mutate(e.target.value);
                }}
              >
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
        <SidebarSearch />
        <nav aria-label="Main">
          {NAV.map((group) => {
            const items = group.items.filter(allowed);
            if (items.length === 0) return null;
            return (
              <div key={group.label}>
                <span className="sidebar-label">{group.label}</span>
                <ul>
                  {items.map((item) => (
                    <li key={item.to}>
                      <NavLink to={item.to} className={({ isActive }) => (isActive ? 'nav-link active' : 'nav-link')}>
                        {item.label}
                      </NavLink>
                    </li>
                  ))}
                  {group.label === 'Developers' ? (
                    <li>
                      <a className="nav-link" href="/v1/docs/" target="_blank" rel="noopener">
                        API reference <span aria-hidden="true">↗</span>
                        <span className="visually-hidden"> (opens in a new tab)</span>
                      </a>
                    </li>
                  ) : null}
                </ul>
              </div>
            );
          })}
        </nav>
        <div className="account">
          <div className="account-name">{session.user.name}</div>
          <div className="account-email">{session.user.email}</div>
          <AvailabilityToggle />
          <div className={`live-state live-${live}`} role="status">
            {live === 'live' ? 'Live updates on' : live === 'connecting' ? 'Connecting live updates…' : 'Live updates reconnecting…'}
          </div>
          <InboxAlerts />
          <button
            type="button"
            className="button button-sidebar"
            onClick={() => {
              switcher.reset();
              logout.mutate();
            }}
          >
            Log out
          </button>
        </div>
      </aside>
      <main className="content" id="content">
        <ErrorMessage
          message={error}
          onDismiss={() => {
            switcher.reset();
            logout.reset();
          }}
        />
        {/* A new organization starts its pages afresh. */}
        <div key={session.organization_id}>
          <Outlet />
        </div>
      </main>
    </div>
  );
}

/** The box above the navigation: its words open the search page (GET /v1/search). */
function SidebarSearch() {
  const navigate = useNavigate();
  const [words, setWords] = useState('');
  function submit(event: FormEvent) {
    event.preventDefault();
    if (words.trim() === '') return;
    navigate(`/search?q=${encodeURIComponent(words.trim())}`);
    setWords('');
  }
  return (
    <form className="sidebar-search" role="search" aria-label="Quick search" onSubmit={submit}>
      <label className="visually-hidden" htmlFor="sidebar-search-input">
        Search contacts, companies, deals and messages
      </label>
      <input
        id="sidebar-search-input"
        type="search"
        value={words}
        maxLength={200}
        placeholder="Search…"
        onChange={(e) => setWords(e.target.value)}
      />
    </form>
  );
}
