/**
 * The provider modules, one line each: the one place that knows which platforms exist. A new
 * engine is a new folder exporting a ProviderModule and one line here.
 */
import { gatewayProvider } from './gateway/module.ts';
import { officialProvider } from './official/module.ts';
import type { AdapterOptions, ProviderAdapter, ProviderDefaultsConfig, ProviderModule } from './provider.ts';
import type { Operation } from './capabilities.ts';

const MODULES = {
  chatapp_official: officialProvider,
  chatapp_unofficial: gatewayProvider,
} satisfies Record<string, ProviderModule>;

export type Platform = keyof typeof MODULES;

/** Every platform's name, in registry order. */
export const PLATFORMS = Object.keys(MODULES) as [Platform, ...Platform[]];

/** The module of a platform; an unknown name is a bug (platforms come from the database or a validated request). */
export function providerModule(platform: Platform | string): ProviderModule {
  const module = (MODULES as Record<string, ProviderModule>)[platform];
  if (!module) throw new Error(`no provider module for platform ${platform}`);
  return module;
}

/** The platforms whose support matrix row names the operation. */
export function platformsWith(operation: Operation): Platform[] {
  return PLATFORMS.filter((p) => MODULES[p].capabilities.operations.includes(operation));
}

/** Each platform's channel defaults from the installation's config. */
export function installationDefaults(config: ProviderDefaultsConfig): Partial<Record<Platform, Record<string, unknown>>> {
  return Object.fromEntries(PLATFORMS.map((p) => [p, MODULES[p].settings.installationDefaults?.(config) ?? {}]));
}

export type ProviderRegistry = {
  /** The adapter of a platform. */
  get(platform: Platform | string): ProviderAdapter;
};

/** targets: where calls may go; timeoutMs: one provider call's limit (PROVIDER_TIMEOUT_MS; 15 s when unset). */
export function createProviderRegistry(options: AdapterOptions): ProviderRegistry {
  const adapters = new Map<string, ProviderAdapter>(
    PLATFORMS.map((p) => [p, { ...MODULES[p].createAdapter(options), platform: p, sends: MODULES[p].sends, inbound: MODULES[p].inbound }]),
  );
  return {
    get(platform) {
      const adapter = adapters.get(platform);
      if (!adapter) throw new Error(`no provider adapter for platform ${platform}`);
      return adapter;
    },
  };
}
