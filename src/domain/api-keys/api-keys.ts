/**
 * API keys. The secret is returned once, at creation; only its SHA-256 is stored, with a display
 * prefix and the last four characters. Revocation is a column checked on every request.
 */
import { and, eq, gt, isNull, lt, or } from 'drizzle-orm';
import type { Executor } from '../../db/client.ts';
import { listPage, newestFirstBy } from '../../db/list-query.ts';
import type { Page, PageResult } from '../../db/paginate.ts';
import { cursorKey } from '../paging.ts';
import { apiKeys } from '../../db/schema.ts';
import { randomToken, sha256Hex } from '../../lib/crypto.ts';
import { isUuid, uuidv7 } from '../../lib/ids.ts';
import type { Clock } from '../../lib/clock.ts';
import type { Actor } from '../actor.ts';
import { DomainError, invalid, notFound } from '../errors.ts';
import { isPermission, type Permission } from '../permissions.ts';

export const API_KEY_PREFIX = 'prl_';

export type ApiKeyRow = typeof apiKeys.$inferSelect;

/** What the API key functions take. */
export type ApiKeyDeps = { db: Executor; clock: Clock };

export type CreateApiKeyInput = { name: string; permissions: string[]; expiresAt?: Date; secret?: string };

/**
 * Creates a key in the actor's organization. It never grants a permission the actor lacks.
 * `secret` is for the bootstrap key only; otherwise a random one is made.
 */
export async function createApiKey(
  { db, clock }: ApiKeyDeps,
  actor: Actor,
  input: CreateApiKeyInput,
): Promise<{ row: ApiKeyRow; secret: string }> {
  const unknown = input.permissions.filter((p) => !isPermission(p));
  if (unknown.length > 0) {
    throw invalid(`unknown permission ${unknown.map((p) => JSON.stringify(p)).join(', ')}`, [
      { pointer: '/permissions', message: `unknown permission: ${unknown.join(', ')}` },
    ]);
  }
  const permissions = [...new Set(input.permissions as Permission[])];
  const missing = permissionsBeyond(actor, permissions);
  if (missing.length > 0) {
    throw new DomainError('forbidden', `cannot grant permission ${missing.join(', ')} that the creator does not hold`, {
      extra: { permissions: missing },
    });
  }
  const now = clock.now();
  if (input.expiresAt && input.expiresAt.getTime() <= now.getTime()) {
    throw invalid('expires_at must be in the future', [{ pointer: '/expires_at', message: 'must be in the future' }]);
  }
  const secret = input.secret ?? API_KEY_PREFIX + randomToken(30);
  const [row] = await db
    .insert(apiKeys)
    .values({
      id: uuidv7(),
      organizationId: actor.organizationId,
      name: input.name,
      prefix: secret.slice(0, API_KEY_PREFIX.length + 4),
      lastFour: secret.slice(-4),
      secretHash: sha256Hex(secret),
      permissions,
      createdByUserId: actor.kind === 'user' || actor.kind === 'oauth' ? actor.userId : null,
      createdByKeyId: actor.kind === 'api_key' ? actor.apiKeyId : null,
      createdAt: now,
      expiresAt: input.expiresAt ?? null,
    })
    .returning();
  return { row: row!, secret };
}

export async function listApiKeys({ db }: Pick<ApiKeyDeps, 'db'>, actor: Actor, page: Page): Promise<PageResult<ApiKeyRow>> {
  return listPage(db.select().from(apiKeys).$dynamic(), {
    where: [eq(apiKeys.organizationId, actor.organizationId), isNull(apiKeys.revokedAt)],
    order: newestFirstBy(apiKeys.createdAt, apiKeys.id),
    after: cursorKey(page.cursor),
    limit: page.limit,
  });
}

/**
 * The permissions in `wanted` that the actor may not hand out or take away: those it does not hold.
 * Owners and admins by dashboard session manage every key (and OAuth client) of their organization.
 */
export function permissionsBeyond(actor: Actor, wanted: readonly string[]): Permission[] {
  if (actor.kind === 'user' && (actor.role === 'owner' || actor.role === 'admin')) return [];
  return [...new Set(wanted)].filter(isPermission).filter((p) => !actor.permissions.has(p));
}

/**
 * Revokes a key of the actor's organization; takes effect on the next request. Nobody revokes a key
 * holding a permission they lack (a narrow key could otherwise switch off the integrations above it).
 */
export async function revokeApiKey({ db, clock }: ApiKeyDeps, actor: Actor, { keyId }: { keyId: string }): Promise<void> {
  if (!isUuid(keyId)) throw notFound('API key');
  const scope = and(eq(apiKeys.id, keyId), eq(apiKeys.organizationId, actor.organizationId), isNull(apiKeys.revokedAt));
  const [target] = await db.select({ permissions: apiKeys.permissions }).from(apiKeys).where(scope).limit(1);
  if (!target) throw notFound('API key');
  const missing = permissionsBeyond(actor, target.permissions);
  if (missing.length > 0) {
    throw new DomainError('forbidden', `cannot revoke a key holding permission ${missing.join(', ')} that the revoker does not hold`, {
      extra: { permissions: missing },
    });
  }
  const rows = await db.update(apiKeys).set({ revokedAt: clock.now() }).where(scope).returning({ id: apiKeys.id });
  if (rows.length === 0) throw notFound('API key');
}

type FoundKey = { actor: Extract<Actor, { kind: 'api_key' }>; expiresAt: Date | null; lastUsedAt: Date | null };

/** The actor of a presented secret; undefined when unknown, revoked or expired. */
async function findApiKey(db: Executor, secret: string, now: Date): Promise<FoundKey | undefined> {
  if (secret.length < 16 || secret.length > 256) return undefined;
  const [row] = await db
    .select({
      id: apiKeys.id,
      organizationId: apiKeys.organizationId,
      permissions: apiKeys.permissions,
      lastUsedAt: apiKeys.lastUsedAt,
      expiresAt: apiKeys.expiresAt,
    })
    .from(apiKeys)
    .where(
      and(eq(apiKeys.secretHash, sha256Hex(secret)), isNull(apiKeys.revokedAt), or(isNull(apiKeys.expiresAt), gt(apiKeys.expiresAt, now))),
    )
    .limit(1);
  if (!row) return undefined;
  return {
    actor: {
      kind: 'api_key',
      organizationId: row.organizationId,
      apiKeyId: row.id,
      permissions: new Set(row.permissions.filter(isPermission)),
    },
    expiresAt: row.expiresAt,
    lastUsedAt: row.lastUsedAt,
  };
}

/** last_used_at is kept to the minute, so a busy key does not write on every request. */
function lastUseIsStale(lastUsedAt: Date | null, now: Date): boolean {
  return !lastUsedAt || now.getTime() - lastUsedAt.getTime() > 60_000;
}

async function touchApiKey(db: Executor, keyId: string, now: Date): Promise<void> {
  await db
    .update(apiKeys)
    .set({ lastUsedAt: now })
    .where(and(eq(apiKeys.id, keyId), or(isNull(apiKeys.lastUsedAt), lt(apiKeys.lastUsedAt, new Date(now.getTime() - 60_000)))));
}

/** The NOTIFY channel on which a change that can withdraw a key is announced (a trigger on api_keys). */
export const API_KEYS_CHANGED = 'parley_cache';

export type ApiKeyAuthenticator = {
  authenticate(secret: string): Promise<Actor | undefined>;
  /** Forgets every cached key and every remembered unknown one (a key was created or revoked, or a change may have been missed). */
  forget(): void;
};

export type ApiKeyCacheOptions = {
  ttlMs: number;
  /** How long a secret that matched no usable key is refused without asking the database again. */
  negativeTtlMs: number;
  maxEntries?: number;
  onError?: (err: unknown) => void;
};

/**
 * Authenticates API keys with a process cache in front of the database, so a request with a known
 * key costs no round trip. Every process forgets its cache when a key is created, revoked, expires
 * early or loses permissions (a trigger NOTIFYs API_KEYS_CHANGED; the process that made the change
 * also forgets at once), and entries live at most ttlMs in any case. Secrets that matched nothing
 * are remembered (by their hash) for negativeTtlMs, so a client repeating a bad key costs one
 * lookup, not one per request. Expiry is checked on every use; last_used_at is written to the
 * minute: with the lookup when the key is not cached, else in the background.
 */
export function createApiKeyAuthenticator({ db, clock }: ApiKeyDeps, options: ApiKeyCacheOptions): ApiKeyAuthenticator {
  const cache = new Map<string, FoundKey & { cachedAt: number }>();
  /** Hash of an unknown secret -> when it was found unknown; oldest first (Map order). */
  const unknown = new Map<string, number>();
  const maxEntries = options.maxEntries ?? 10_000;
  return {
    async authenticate(secret) {
      const now = clock.now();
      const hash = sha256Hex(secret);
      let entry = cache.get(hash);
      if (entry && (now.getTime() - entry.cachedAt > options.ttlMs || (entry.expiresAt && entry.expiresAt <= now))) {
        cache.delete(hash);
        entry = undefined;
      }
      if (!entry) {
        const refusedAt = unknown.get(hash);
        if (refusedAt !== undefined) {
          if (now.getTime() - refusedAt < options.negativeTtlMs) return undefined;
          unknown.delete(hash);
        }
        const found = await findApiKey(db, secret, now);
        if (!found) {
          if (options.negativeTtlMs > 0) {
            // Bounded: random secrets push out the oldest entries, never grow the map.
            if (unknown.size >= maxEntries) unknown.delete(unknown.keys().next().value!);
            unknown.set(hash, now.getTime());
          }
          return undefined;
        }
        if (cache.size >= maxEntries) cache.clear();
        entry = { ...found, cachedAt: now.getTime() };
        cache.set(hash, entry);
        // Loaded from the database anyway: record the use before answering (a key's first use shows at once).
        if (lastUseIsStale(entry.lastUsedAt, now)) {
          entry.lastUsedAt = now;
          await touchApiKey(db, entry.actor.apiKeyId, now);
        }
      } else if (lastUseIsStale(entry.lastUsedAt, now)) {
        entry.lastUsedAt = now;
        touchApiKey(db, entry.actor.apiKeyId, now).catch((err: unknown) => options.onError?.(err));
      }
      return entry.actor;
    },
    forget() {
      cache.clear();
      unknown.clear();
    },
  };
}
