/**
 * The CRM: companies, the deals board and deals, the signed-in person's tasks, and the sets of
 * records (lists kept by hand, segments found by a filter).
 */
import type { RouteObject } from 'react-router';
import { CompaniesListPage } from './companies/CompaniesListPage.tsx';
import { CompanyPage } from './companies/CompanyPage.tsx';
import { NewCompanyPage } from './companies/CompanyForm.tsx';
import { BoardPage } from './deals/BoardPage.tsx';
import { NewDealPage } from './deals/DealForm.tsx';
import { DealPage } from './deals/DealPage.tsx';
import { ListPage } from './ListPage.tsx';
import { ListsPage } from './ListsPage.tsx';
import { SegmentPage } from './SegmentPage.tsx';
import { SegmentsPage } from './SegmentsPage.tsx';
import { MyTasksPage } from './tasks/MyTasksPage.tsx';

export const crmRoutes: RouteObject[] = [
  { path: 'companies', element: <CompaniesListPage /> },
  { path: 'companies/new', element: <NewCompanyPage /> },
  { path: 'companies/:companyId', element: <CompanyPage /> },
  { path: 'deals', element: <BoardPage /> },
  { path: 'deals/new', element: <NewDealPage /> },
  { path: 'deals/:dealId', element: <DealPage /> },
  { path: 'tasks', element: <MyTasksPage /> },
  { path: 'lists', element: <ListsPage /> },
  { path: 'lists/:listId', element: <ListPage /> },
  { path: 'segments', element: <SegmentsPage /> },
  { path: 'segments/new', element: <SegmentPage /> },
  { path: 'segments/:segmentId', element: <SegmentPage /> },
];
