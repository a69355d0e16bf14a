/** The inbox: conversations and their threads. */
import type { RouteObject } from 'react-router';
import { PlannedPage } from '../planned.tsx';

export const inboxRoutes: RouteObject[] = [
  { path: 'inbox', element: <PlannedPage title="Inbox" /> },
  { path: 'inbox/:conversationId', element: <PlannedPage title="Inbox" /> },
];
