/** The organization and the person: settings, members and invitations, sessions, account, authorized apps. */
import type { RouteObject } from 'react-router';
import { PlannedPage } from '../planned.tsx';
import { SessionsPage } from './SessionsPage.tsx';

export const settingsRoutes: RouteObject[] = [
  { path: 'settings/organization', element: <PlannedPage title="Organization" /> },
  { path: 'settings/members', element: <PlannedPage title="Members" /> },
  { path: 'settings/sessions', element: <SessionsPage /> },
  { path: 'settings/account', element: <PlannedPage title="Your account" /> },
  { path: 'settings/authorized-apps', element: <PlannedPage title="Authorized apps" /> },
  { path: 'organizations/new', element: <PlannedPage title="New organization" /> },
];
