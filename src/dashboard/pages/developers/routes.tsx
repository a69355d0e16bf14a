/** Developers: webhooks and their delivery log, the event log, API keys, OAuth clients. */
import type { RouteObject } from 'react-router';
import { PlannedPage } from '../planned.tsx';
import { ApiKeysPage } from './ApiKeysPage.tsx';

export const developersRoutes: RouteObject[] = [
  { path: 'developers/webhooks', element: <PlannedPage title="Webhooks" /> },
  { path: 'developers/webhooks/:endpointId', element: <PlannedPage title="Webhook endpoint" /> },
  { path: 'developers/deliveries', element: <PlannedPage title="Delivery log" /> },
  { path: 'developers/events', element: <PlannedPage title="Events" /> },
  { path: 'developers/api-keys', element: <ApiKeysPage /> },
  { path: 'developers/oauth-clients', element: <PlannedPage title="OAuth apps" /> },
];
