/**
 * What every command gets: the global options, the output, the config store, and the SDK client for
 * the credential in force. The credential: an API key (--api-key or PARLEY_API_KEY, for scripts: no
 * login), else a signed-in profile: the one named (--profile or PARLEY_PROFILE), else the one for
 * --base-url (and --organization) when given, else the default (the last one logged in).
 */
import { readFileSync } from 'node:fs';
import { Parley } from '@parley/sdk';
import { ConfigStore, configDir, type ConfigFile, type Profile } from './config-store.ts';
import { notLoggedIn, usageError } from './errors.ts';
import { Output } from './output.ts';
import { coordinatedRefresh } from './token-refresh.ts';

export const DEFAULT_BASE_URL = 'http://localhost:8080';

export const VERSION: string = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string })
  .version;

/** The options every command takes (set before or after the command's name, or by environment). */
export type GlobalOptions = {
  baseUrl?: string;
  apiKey?: string;
  profile?: string;
  organization?: string;
  json?: boolean;
};

export type Credential = { kind: 'api-key'; apiKey: string } | { kind: 'profile'; name: string; profile: Profile };

export type Connection = { baseUrl: string; organizationId: string | undefined; credential: Credential };

/** A base URL as given, checked and without a trailing slash. */
export function normalizeBaseUrl(value: string): string {
  if (!URL.canParse(value)) throw usageError(`--base-url: ${JSON.stringify(value)} is not an absolute URL (e.g. http://localhost:8080)`);
  const url = new URL(value);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw usageError('--base-url: must be an http or https URL');
  return url.toString().replace(/\/+$/, '');
}

/** The profile name for a base URL and organization: an existing one that has them, if any. */
export function profileFor(config: ConfigFile, baseUrl: string, organizationId: string | undefined): string | undefined {
  const names = Object.keys(config.profiles).filter((name) => {
    const p = config.profiles[name]!;
    return p.base_url === baseUrl && (organizationId === undefined || p.organization_id === organizationId);
  });
  if (names.length <= 1) return names[0];
  // Several for one URL: the default one if it is among them, else the one without an organization.
  if (config.default_profile && names.includes(config.default_profile)) return config.default_profile;
  return names.find((n) => config.profiles[n]!.organization_id === null) ?? names[0];
}

export class Context {
  readonly globals: GlobalOptions;
  readonly output: Output;
  readonly store: ConfigStore;

  constructor(globals: GlobalOptions) {
    this.globals = globals;
    this.output = new Output({ json: Boolean(globals.json) });
    this.store = new ConfigStore(configDir());
  }

  /** The base URL asked for on the command line or in the environment, if any. */
  requestedBaseUrl(): string | undefined {
    return this.globals.baseUrl === undefined ? undefined : normalizeBaseUrl(this.globals.baseUrl);
  }

  /** The credential in force, and where it goes; exits 3 when there is none. */
  connection(): Connection {
    const baseUrl = this.requestedBaseUrl();
    const organization = this.globals.organization;
    if (this.globals.apiKey) {
      return {
        baseUrl: baseUrl ?? DEFAULT_BASE_URL,
        organizationId: organization,
        credential: { kind: 'api-key', apiKey: this.globals.apiKey },
      };
    }
    const config = this.store.read();
    let name = this.globals.profile;
    if (name !== undefined && !config.profiles[name]) {
      throw notLoggedIn(`no profile ${JSON.stringify(name)}: log in with \`parley login --profile ${name}\``);
    }
    name ??= baseUrl === undefined ? (config.default_profile ?? undefined) : profileFor(config, baseUrl, organization);
    const profile = name === undefined ? undefined : config.profiles[name];
    if (!name || !profile) {
      const where = baseUrl ? ` to ${baseUrl}` : '';
      throw notLoggedIn(`not logged in${where}: run \`parley login${baseUrl ? ` --base-url ${baseUrl}` : ''}\`, or set PARLEY_API_KEY`);
    }
    if (baseUrl !== undefined && profile.base_url !== baseUrl) {
      throw usageError(`profile ${JSON.stringify(name)} is for ${profile.base_url}, not ${baseUrl}`);
    }
    return {
      baseUrl: profile.base_url,
      organizationId: organization ?? profile.organization_id ?? undefined,
      credential: { kind: 'profile', name, profile },
    };
  }

  /** The SDK client for the credential in force; a profile's rotated tokens are saved as they come. */
  client(connection = this.connection(), extra: { fetch?: typeof fetch } = {}): Parley {
    const common = {
      baseUrl: connection.baseUrl,
      organizationId: connection.organizationId,
      userAgent: `parley-cli/${VERSION}`,
      ...(extra.fetch ? { fetch: extra.fetch } : {}),
    };
    const { credential } = connection;
    if (credential.kind === 'api-key') return new Parley({ ...common, apiKey: credential.apiKey });
    const { name, profile } = credential;
    // The tokens this process holds: a rotation replaces them, and is saved over them only.
    let held = profile.refresh_token;
    return new Parley({
      ...common,
      fetch: coordinatedRefresh(this.store, name, extra.fetch),
      accessToken: profile.access_token,
      refreshToken: profile.refresh_token ?? undefined,
      expiresAt: profile.expires_at ? new Date(profile.expires_at) : undefined,
      clientId: profile.client_id,
      onTokens: (tokens) => {
        this.store.update((config) => {
          const current = config.profiles[name];
          // Logged out, or logged in again meanwhile: those tokens are not ours to overwrite.
          if (!current || (current.refresh_token !== held && current.refresh_token !== tokens.refreshToken)) return;
          current.access_token = tokens.accessToken;
          current.refresh_token = tokens.refreshToken;
          current.expires_at = tokens.expiresAt?.toISOString() ?? null;
        });
        held = tokens.refreshToken;
      },
    });
  }
}
