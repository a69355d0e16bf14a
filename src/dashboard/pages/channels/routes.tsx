/** Channels (with pairing) and message templates. */
import type { RouteObject } from 'react-router';
import { PlannedPage } from '../planned.tsx';
import { ChannelsPage } from './ChannelsPage.tsx';

export const channelsRoutes: RouteObject[] = [
  { path: 'channels', element: <ChannelsPage /> },
  { path: 'channels/new', element: <PlannedPage title="New channel" /> },
  { path: 'channels/:channelId', element: <PlannedPage title="Channel" /> },
  { path: 'templates', element: <PlannedPage title="Templates" /> },
  { path: 'templates/new', element: <PlannedPage title="New template" /> },
];
