/**
 * The channels that hold templates: those whose platform's capabilities offer template operations
 * (asked once per platform through one of its channels; the page never tests a platform's name).
 */
import { useQueries } from '@tanstack/react-query';
import { orgKey, usePagedList } from '../../query.ts';
import { channelsApi, type ChannelView } from './api.ts';

export type TemplateChannels = { channels: ChannelView[] | undefined; all: ChannelView[] | undefined; error: unknown };

export function useTemplateChannels(): TemplateChannels {
  const list = usePagedList(orgKey('channels', 'list'), (cursor) => channelsApi.list(cursor));
  const representatives = new Map<string, ChannelView>();
  for (const c of list.items ?? []) if (!representatives.has(c.platform)) representatives.set(c.platform, c);
  const asked = [...representatives.values()];
  const capabilities = useQueries({
    queries: asked.map((c) => ({ queryKey: orgKey('channels', c.id, 'capabilities'), queryFn: () => channelsApi.capabilities(c.id), staleTime: Infinity })),
  });
  const loaded = capabilities.every((q) => q.data !== undefined);
  const offering = new Set(asked.filter((_, i) => capabilities[i]?.data?.operations.includes('templates.submit')).map((c) => c.platform));
  return {
    channels: list.items && loaded ? list.items.filter((c) => offering.has(c.platform)) : undefined,
    all: list.items,
    error: list.error ?? capabilities.find((q) => q.error)?.error,
  };
}
