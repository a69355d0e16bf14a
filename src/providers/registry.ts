/** The adapters, by platform: the one place that maps a platform to its implementation. */
import { createGatewayAdapter } from './gateway/adapter.ts';
import { createOfficialAdapter } from './official/adapter.ts';
import type { TargetPolicy } from '../lib/safe-fetch.ts';
import type { Platform, ProviderAdapter } from './provider.ts';

export type ProviderRegistry = {
  official: ReturnType<typeof createOfficialAdapter>;
  gateway: ProviderAdapter;
  get(platform: Platform): ProviderAdapter;
};

/** targets: where calls may go; timeoutMs: one provider call's limit (PROVIDER_TIMEOUT_MS; 15 s when unset). */
export function createProviderRegistry(options: { targets: TargetPolicy; timeoutMs?: number }): ProviderRegistry {
  const official = createOfficialAdapter(options);
  const gateway = createGatewayAdapter(options);
  return {
    official,
    gateway,
    get(platform) {
      switch (platform) {
        case 'chatapp_official':
          return official;
        case 'chatapp_unofficial':
          return gateway;
        default:
          return platform satisfies never;
      }
    },
  };
}
