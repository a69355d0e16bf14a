/** Channels (with pairing) and message templates. */
import type { RouteObject } from 'react-router';
import { Outlet } from '../../router.tsx';
import { ChannelPage } from './ChannelPage.tsx';
import { ChannelsPage } from './ChannelsPage.tsx';
import { GroupPage, GroupsPage } from './GroupsPage.tsx';
import { NewChannelPage } from './NewChannelPage.tsx';
import { NewTemplatePage } from './NewTemplatePage.tsx';
import { TemplatesPage } from './TemplatesPage.tsx';

export const channelsRoutes: RouteObject[] = [
  {
    // The area's pages share a wrapper for their styles (styles.css, "Area: channels").
    element: (
      <div className="channels-area">
        <Outlet />
      </div>
    ),
    children: [
      { path: 'channels', element: <ChannelsPage /> },
      { path: 'channels/new', element: <NewChannelPage /> },
      { path: 'channels/:channelId', element: <ChannelPage /> },
      { path: 'channels/:channelId/groups', element: <GroupsPage /> },
      { path: 'channels/:channelId/groups/:groupKey', element: <GroupPage /> },
      { path: 'templates', element: <TemplatesPage /> },
      { path: 'templates/new', element: <NewTemplatePage /> },
    ],
  },
];
