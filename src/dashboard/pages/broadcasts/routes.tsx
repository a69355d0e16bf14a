/** Broadcasts: the list, the create flow (a draft edited in steps) and a broadcast's page. */
import type { RouteObject } from 'react-router';
import { Outlet } from '../../router.tsx';
import { BroadcastFormPage } from './BroadcastForm.tsx';
import { BroadcastPage } from './BroadcastPage.tsx';
import { BroadcastsPage } from './BroadcastsPage.tsx';

export const broadcastsRoutes: RouteObject[] = [
  {
    // The area's pages share a wrapper for their styles (styles.css, "Area: broadcasts").
    element: (
      <div className="broadcasts-area">
        <Outlet />
      </div>
    ),
    children: [
      { path: 'broadcasts', element: <BroadcastsPage /> },
      { path: 'broadcasts/new', element: <BroadcastFormPage /> },
      { path: 'broadcasts/:broadcastId', element: <BroadcastPage /> },
      { path: 'broadcasts/:broadcastId/edit', element: <BroadcastFormPage /> },
    ],
  },
];
