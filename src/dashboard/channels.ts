/** Every channel of the organization, for pickers and names across the areas (one cache entry for all). */
import { useQuery } from '@tanstack/react-query';
import type { ChannelView } from '../http/v1/channels.presenters.ts';
import { allPages, call, type Page } from './api.ts';
import { orgKey } from './query.ts';

export function useAllChannels() {
  return useQuery({
    queryKey: orgKey('channels', 'all'),
    queryFn: () => allPages((cursor) => call<Page<ChannelView>>('GET', '/v1/channels', { query: { limit: '100', cursor } })),
    staleTime: 60_000,
  });
}
