/**
 * The channels that hold templates: those whose platform's capabilities offer template operations
 * (asked once per platform through one of its channels; the page never tests a platform's name).
 */
import { useQueries } from '@tanstack/react-query';
import { useAllChannels } from '../../channels.ts';
import { orgKey } from '../../query.ts';
import { channelsApi, type ChannelView } from './api.ts';

export type TemplateChannels = { channels: ChannelView[] | undefined; all: ChannelView[] | undefined; error: unknown };

export function useTemplateChannels(): TemplateChannels {
  const list = useAllChannels();
  const representatives = new Map<string, ChannelView>();
  for (const c of list.data ?? []) if (!representatives.has(c.platform)) representatives.set(c.platform, c);
  const asked = [...representatives.values()];
  const capabilities = useQueries({
    queries: asked.map((c) => ({
      queryKey: orgKey('channels', c.id, 'capabilities'),
      queryFn: () => channelsApi.capabilities(c.id),
      staleTime: Infinity,
    })),
  });
  const loaded = capabilities.every((q) => q.data !== undefined);
  const offering = new Set(asked.filter((_, i) => capabilities[i]?.data?.operations.includes('templates.submit')).map((c) => c.platform));
  return {
    channels: list.data && loaded ? list.data.filter((c) => offering.has(c.platform)) : undefined,
    all: list.data,
    error: list.error ?? capabilities.find((q) => q.error)?.error,
  };
}
