/**
 * Server state through TanStack Query: one client, query keys that start with the organization
 * (switching organization never shows another's cached rows), cursor-paged lists, and mutations
 * whose API errors keep their field errors for the form to show inline.
 */
import { keepPreviousData, QueryClient, useInfiniteQuery, type QueryKey } from '@tanstack/react-query';
import { ApiError, currentOrganization, type Page } from './api.ts';

export const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      // A 4xx will not change by asking again; a network blip or a 5xx may.
      retry: (count, error) => count < 2 && !(error instanceof ApiError && error.status >= 400 && error.status < 500),
      staleTime: 10_000,
      refetchOnWindowFocus: false,
    },
    mutations: { retry: false },
  },
});

/** A query key scoped to the organization the dashboard acts in. */
export function orgKey(...parts: unknown[]): QueryKey {
  return ['org', currentOrganization() ?? 'none', ...parts];
}

export type PagedList<T> = {
  items: T[] | undefined;
  error: unknown;
  isLoading: boolean;
  /** The rows shown are the previous filter's, while the new one's load. */
  isPlaceholder: boolean;
  hasMore: boolean;
  loadingMore: boolean;
  loadMore(): void;
  refetch(): void;
};

/** A cursor-paged list: the first page at once, more on "Load more"; refetching keeps the pages loaded. */
export function usePagedList<T>(
  key: QueryKey,
  fetchPage: (cursor: string | undefined) => Promise<Page<T>>,
  options: {
    enabled?: boolean /** Ask again every so many ms while this says so (work the server finishes without an event). */;
    refreshWhile?: (items: T[]) => number | false;
  } = {},
): PagedList<T> {
  const query = useInfiniteQuery({
    queryKey: key,
    queryFn: ({ pageParam }) => fetchPage(pageParam),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.meta.next_cursor ?? undefined,
    enabled: options.enabled,
    // A new filter keeps the rows on screen until its own arrive (no flash of "Loading…").
    placeholderData: keepPreviousData,
    refetchInterval: options.refreshWhile ? (q) => options.refreshWhile!(q.state.data?.pages.flatMap((p) => p.data) ?? []) : undefined,
  });
  return {
    items: query.data?.pages.flatMap((p) => p.data),
    error: query.error,
    isLoading: query.isPending && options.enabled !== false,
    isPlaceholder: query.isPlaceholderData,
    hasMore: query.hasNextPage,
    loadingMore: query.isFetchingNextPage,
    loadMore: () => void query.fetchNextPage(),
    refetch: () => void query.refetch(),
  };
}
