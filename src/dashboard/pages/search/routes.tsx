/** Search: one box over contacts, companies, deals and messages. */
import type { RouteObject } from 'react-router';
import { SearchPage } from './SearchPage.tsx';

export const searchRoutes: RouteObject[] = [{ path: 'search', element: <SearchPage /> }];
