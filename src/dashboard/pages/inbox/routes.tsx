/** The inbox: conversations and their threads. */
import type { RouteObject } from 'react-router';
import { InboxPage } from './InboxPage.tsx';

export const inboxRoutes: RouteObject[] = [
  { path: 'inbox', element: <InboxPage /> },
  { path: 'inbox/:conversationId', element: <InboxPage /> },
];
