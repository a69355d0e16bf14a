/** Developers: webhooks and their delivery log, the event log, API keys, OAuth clients. */
import type { RouteObject } from 'react-router';
import { ApiKeysPage } from './ApiKeysPage.tsx';
import { DeliveriesPage } from './DeliveriesPage.tsx';
import { EventsPage } from './EventsPage.tsx';
import { OAuthClientsPage } from './OAuthClientsPage.tsx';
import { WebhookEndpointPage } from './WebhookEndpointPage.tsx';
import { WebhooksPage } from './WebhooksPage.tsx';

export const developersRoutes: RouteObject[] = [
  { path: 'developers/webhooks', element: <WebhooksPage /> },
  { path: 'developers/webhooks/:endpointId', element: <WebhookEndpointPage /> },
  { path: 'developers/deliveries', element: <DeliveriesPage /> },
  { path: 'developers/events', element: <EventsPage /> },
  { path: 'developers/api-keys', element: <ApiKeysPage /> },
  { path: 'developers/oauth-clients', element: <OAuthClientsPage /> },
];
