/** The organization and the person: settings, members and invitations, teams, automations, bots, sessions, account, authorized apps. */
import type { RouteObject } from 'react-router';
import { AccountPage } from './AccountPage.tsx';
import { AuthorizedAppsPage } from './AuthorizedAppsPage.tsx';
import { AutomationsPage } from './AutomationsPage.tsx';
import { BotsPage } from './BotsPage.tsx';
import { MembersPage } from './MembersPage.tsx';
import { NewOrganizationPage, OrganizationPage } from './OrganizationPage.tsx';
import { SessionsPage } from './SessionsPage.tsx';
import { TeamsPage } from './TeamsPage.tsx';

export const settingsRoutes: RouteObject[] = [
  { path: 'settings/organization', element: <OrganizationPage /> },
  { path: 'settings/members', element: <MembersPage /> },
  { path: 'settings/automations', element: <AutomationsPage /> },
  { path: 'settings/teams', element: <TeamsPage /> },
  { path: 'settings/bots', element: <BotsPage /> },
  { path: 'settings/sessions', element: <SessionsPage /> },
  { path: 'settings/account', element: <AccountPage /> },
  { path: 'settings/authorized-apps', element: <AuthorizedAppsPage /> },
  { path: 'organizations/new', element: <NewOrganizationPage /> },
];
