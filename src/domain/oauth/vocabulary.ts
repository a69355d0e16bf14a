/**
 * The OAuth server's shared vocabulary: what its secrets look like, how scopes are written, the
 * user-code alphabet, and the client lookup every endpoint starts with. Every secret is an opaque
 * random string with a recognisable prefix; only its SHA-256 is stored (see sha256Hex).
 */
import { eq } from 'drizzle-orm';
import type { Executor } from '../../db/client.ts';
import { oauthClients } from '../../db/schema.ts';
import { isPermission, type Permission } from '../permissions.ts';

export const OAUTH_PREFIXES = {
  clientId: 'pcl_',
  clientSecret: 'pcs_',
  accessToken: 'pla_',
  refreshToken: 'plr_',
  authorizationCode: 'plc_',
  deviceCode: 'pld_',
} as const;

export const GRANT_TYPES = {
  authorizationCode: 'authorization_code',
  refreshToken: 'refresh_token',
  deviceCode: 'urn:ietf:params:oauth:grant-type:device_code',
} as const;
export type GrantType = (typeof GRANT_TYPES)[keyof typeof GRANT_TYPES];
export const GRANT_TYPE_VALUES: readonly GrantType[] = Object.values(GRANT_TYPES);

/** RFC 8628 §6.1: consonants only, no vowels (no words) and nothing that looks alike. */
export const USER_CODE_ALPHABET = 'BCDFGHJKLMNPQRSTVWXZ';
export const USER_CODE_LENGTH = 8;

/** XXXX-XXXX, as people read and type it. */
export function formatUserCode(normalized: string): string {
  return `${normalized.slice(0, 4)}-${normalized.slice(4)}`;
}

/** What a person typed, as stored: upper case, dashes and spaces dropped; undefined when it cannot be a user code. */
export function normalizeUserCode(typed: string): string | undefined {
  const code = typed.toUpperCase().replace(/[\s-]/g, '');
  if (code.length !== USER_CODE_LENGTH) return undefined;
  for (const ch of code) if (!USER_CODE_ALPHABET.includes(ch)) return undefined;
  return code;
}

export type ScopeParse = { ok: true; scopes: Permission[] } | { ok: false; unknown: string[] };

/** A space-delimited scope string (RFC 6749 §3.3) into known permissions, deduplicated, in the given order. */
export function parseScope(scope: string): ScopeParse {
  const words = scope.split(' ').filter((w) => w.length > 0);
  const unknown = words.filter((w) => !isPermission(w));
  if (unknown.length > 0) return { ok: false, unknown };
  return { ok: true, scopes: [...new Set(words as Permission[])] };
}

export function formatScope(scopes: readonly string[]): string {
  return scopes.join(' ');
}

export type OAuthClient = typeof oauthClients.$inferSelect;

/** The registered client with this public client_id, if any. */
export async function findClient(db: Executor, clientId: string): Promise<OAuthClient | undefined> {
  const [row] = await db.select().from(oauthClients).where(eq(oauthClients.clientId, clientId)).limit(1);
  return row;
}
