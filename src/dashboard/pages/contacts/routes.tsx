/** Contacts: the CRM's people. */
import type { RouteObject } from 'react-router';
import { NewContactPage } from './ContactForm.tsx';
import { ContactPage } from './ContactPage.tsx';
import { ContactsListPage } from './ContactsListPage.tsx';
import { ImportPage } from './ImportPage.tsx';

export const contactsRoutes: RouteObject[] = [
  { path: 'contacts', element: <ContactsListPage /> },
  { path: 'contacts/new', element: <NewContactPage /> },
  { path: 'contacts/import', element: <ImportPage /> },
  { path: 'contacts/:contactId', element: <ContactPage /> },
];
