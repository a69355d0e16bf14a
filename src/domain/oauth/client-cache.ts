/**
 * Registered clients, remembered per process for the endpoints every token request goes through
 * (the token endpoint, introspection, revocation): a refresh grant then costs one statement. A
 * change to any client (a new secret, narrower scopes, deletion) makes every process forget them: a
 * trigger NOTIFYs OAUTH_ACCESS_CHANGED (see bearer.ts), and the process that made the change also
 * forgets at once. Entries live at most ttlMs in any case; unknown client ids are not remembered.
 */
import type { Executor } from '../../db/client.ts';
import { findClient, type OAuthClient } from './vocabulary.ts';

export type ClientLookup = (clientId: string) => Promise<OAuthClient | undefined>;
export type ClientCache = { find: ClientLookup; forget(): void };

const MAX_ENTRIES = 10_000;

export function createClientCache(db: Executor, options: { ttlMs: number; now?: () => number }): ClientCache {
  const now = options.now ?? Date.now;
  const cache = new Map<string, { client: OAuthClient; until: number }>();
  // A lookup that began before a forget() must not store what it read.
  let generation = 0;
  return {
    async find(clientId) {
      const hit = cache.get(clientId);
      if (hit && hit.until > now()) return hit.client;
      const started = generation;
      const client = await findClient(db, clientId);
      if (client && started === generation) {
        if (cache.size >= MAX_ENTRIES) cache.clear();
        cache.set(clientId, { client, until: now() + options.ttlMs });
      }
      return client;
    },
    forget() {
      generation++;
      cache.clear();
    },
  };
}
