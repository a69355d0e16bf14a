/**
 * One refresh at a time across every `parley` process of a profile. A refresh rotates the refresh
 * token, and the service takes a rotated token presented again for a stolen one and revokes the grant
 * (docs/oauth.md), so two commands of one profile (a `parley listen` running, a `parley send` in
 * another terminal) must not both refresh with the same token. The SDK refreshes through the fetch it
 * is given; this fetch holds a lock on the config file (proper-lockfile) around the token request:
 * inside it, when the file already holds a newer refresh token than the one being sent (another
 * process rotated meanwhile), the request is not sent and those tokens are the answer; otherwise it is
 * sent and its tokens are saved before the lock is let go, so the next process finds them.
 */
import lockfile from 'proper-lockfile';
import type { ConfigStore } from './config-store.ts';

/** The profile's tokens as the token endpoint would answer them. */
function tokenAnswer(profile: {
  access_token: string;
  refresh_token: string | null;
  expires_at: string | null;
  scope: string | null;
}): Response {
  const expiresIn = profile.expires_at ? Math.max(0, Math.floor((Date.parse(profile.expires_at) - Date.now()) / 1000)) : undefined;
  return Response.json(
    {
      access_token: profile.access_token,
      token_type: 'Bearer',
      refresh_token: profile.refresh_token ?? undefined,
      ...(expiresIn === undefined ? {} : { expires_in: expiresIn }),
      ...(profile.scope ? { scope: profile.scope } : {}),
    },
    { headers: { 'cache-control': 'no-store' } },
  );
}

async function isRefresh(request: Request): Promise<URLSearchParams | undefined> {
  if (request.method !== 'POST' || !new URL(request.url).pathname.endsWith('/v1/oauth/token')) return undefined;
  const form = new URLSearchParams(await request.clone().text());
  return form.get('grant_type') === 'refresh_token' ? form : undefined;
}

/** A fetch for the SDK of the profile `name`: every other request passes as it is. */
export function coordinatedRefresh(store: ConfigStore, name: string, send: typeof fetch = fetch): typeof fetch {
  return async (input, init) => {
    const request = new Request(input, init);
    const form = await isRefresh(request);
    if (!form) return send(request);
    const release = await lockfile.lock(store.file, {
      realpath: false,
      stale: 30_000,
      retries: { retries: 100, minTimeout: 50, maxTimeout: 500, factor: 1.5 },
    });
    try {
      const stored = store.read().profiles[name];
      if (stored?.refresh_token && stored.refresh_token !== form.get('refresh_token')) return tokenAnswer(stored);
      const response = await send(request);
      if (!response.ok) return response;
      const tokens = (await response.clone().json()) as { access_token: string; refresh_token?: string; expires_in?: number };
      store.update((config) => {
        const current = config.profiles[name];
        if (!current || current.refresh_token !== form.get('refresh_token')) return;
        current.access_token = tokens.access_token;
        current.refresh_token = tokens.refresh_token ?? current.refresh_token;
        current.expires_at = typeof tokens.expires_in === 'number' ? new Date(Date.now() + tokens.expires_in * 1000).toISOString() : null;
      });
      return response;
    } finally {
      await release();
    }
  };
}
