/**
 * How the gateway adapter's calls reach a channel's engine: the HTTP protocol's client and session path
 * for a channel naming a `gateway_base`, the embedded engine for one without (null when this service
 * runs none). Shared by adapter.ts and the feature modules beside it (profiles.ts, calls.ts).
 */
import type { AdapterOptions, ChannelConnection, ProviderError } from '../provider.ts';
import { createGatewayClient } from './client.ts';
import type { EmbeddedEngine } from './embedded/engine.ts';

export type GatewaySettings = { gateway_base: string; session: string };

/** Which engine serves a channel: the HTTP protocol when it names a gateway, else the embedded one. */
export function engineOf(connection: Pick<ChannelConnection, 'settings'>): 'http' | 'embedded' {
  return connection.settings.gateway_base ? 'http' : 'embedded';
}

export const NO_ENGINE: ProviderError = {
  code: 'engine_unavailable',
  title: 'the embedded engine does not run in this service',
  retryable: false,
};

export type GatewayAccess = {
  /** The HTTP protocol's client of a channel's gateway. */
  client(connection: ChannelConnection): ReturnType<typeof createGatewayClient>;
  /** The channel's session, encoded for a path (`sessions/{session}/...`). */
  session(connection: ChannelConnection): string;
  /** The embedded engine for a channel without a gateway_base (null when this service runs none); undefined for an HTTP one. */
  embedded(connection: ChannelConnection): EmbeddedEngine | null | undefined;
};

export function gatewayAccess(options: AdapterOptions): GatewayAccess {
  return {
    client(connection) {
      const s = connection.settings as unknown as GatewaySettings;
      return createGatewayClient({
        base: s.gateway_base,
        apiKey: connection.credentials.api_key ?? '',
        policy: options.targets,
        timeoutMs: options.timeoutMs,
      });
    },
    session: (connection) => encodeURIComponent((connection.settings as unknown as GatewaySettings).session),
    embedded: (connection) => (engineOf(connection) === 'embedded' ? (options.embedded ?? null) : undefined),
  };
}
