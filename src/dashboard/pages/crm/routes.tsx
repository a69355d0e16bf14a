/** Lists and segments: the CRM's sets of records, kept by hand or found by a filter. */
import type { RouteObject } from 'react-router';
import { ListPage } from './ListPage.tsx';
import { ListsPage } from './ListsPage.tsx';
import { SegmentPage } from './SegmentPage.tsx';
import { SegmentsPage } from './SegmentsPage.tsx';

export const crmRoutes: RouteObject[] = [
  { path: 'lists', element: <ListsPage /> },
  { path: 'lists/:listId', element: <ListPage /> },
  { path: 'segments', element: <SegmentsPage /> },
  { path: 'segments/new', element: <SegmentPage /> },
  { path: 'segments/:segmentId', element: <SegmentPage /> },
];
