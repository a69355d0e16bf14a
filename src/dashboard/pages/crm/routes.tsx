/** The CRM: companies, the deals board and deals, and the signed-in person's tasks. */
import type { RouteObject } from 'react-router';
import { CompaniesListPage } from './companies/CompaniesListPage.tsx';
import { CompanyPage } from './companies/CompanyPage.tsx';
import { NewCompanyPage } from './companies/CompanyForm.tsx';
import { BoardPage } from './deals/BoardPage.tsx';
import { NewDealPage } from './deals/DealForm.tsx';
import { DealPage } from './deals/DealPage.tsx';
import { MyTasksPage } from './tasks/MyTasksPage.tsx';

export const crmRoutes: RouteObject[] = [
  { path: 'companies', element: <CompaniesListPage /> },
  { path: 'companies/new', element: <NewCompanyPage /> },
  { path: 'companies/:companyId', element: <CompanyPage /> },
  { path: 'deals', element: <BoardPage /> },
  { path: 'deals/new', element: <NewDealPage /> },
  { path: 'deals/:dealId', element: <DealPage /> },
  { path: 'tasks', element: <MyTasksPage /> },
];
