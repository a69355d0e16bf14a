/** Contacts: the CRM's people. */
import type { RouteObject } from 'react-router';
import { PlannedPage } from '../planned.tsx';

export const contactsRoutes: RouteObject[] = [
  { path: 'contacts', element: <PlannedPage title="Contacts" /> },
  { path: 'contacts/new', element: <PlannedPage title="New contact" /> },
  { path: 'contacts/import', element: <PlannedPage title="Import contacts" /> },
  { path: 'contacts/:contactId', element: <PlannedPage title="Contact" /> },
];
