/**
 * The linked-device session's auth state (the library's creds and signal keys) in PostgreSQL: one row
 * per value in channel_session_keys, serialized with the library's BufferJSON and sealed with the
 * service's key. No local files: a session moves between workers and survives restarts. Every write
 * runs in one transaction behind the lease fence, so a process that lost the session writes nothing.
 */
import { and, eq, inArray, sql } from 'drizzle-orm';
import type { AuthenticationCreds, AuthenticationState, SignalDataSet, SignalDataTypeMap } from 'baileys';
import type { Db, Executor } from '../../../db/client.ts';
import { channelSessionKeys } from '../../../db/schema.ts';
import type { Sealer } from '../../../lib/crypto.ts';
import { library, loadLibrary } from './library.ts';

/** Checks, inside the write's transaction, that this process still holds the session's lease; throws LeaseLostError when not. */
export type LeaseFence = (tx: Executor) => Promise<void>;

/** A write refused because another process holds the session now (or nobody does). */
export class LeaseLostError extends Error {
  constructor(channelId: string) {
    super(`channel ${channelId}: this process no longer holds the session's lease`);
    this.name = 'LeaseLostError';
  }
}

export type AuthStateDeps = { db: Db; sealer: Sealer; fence: LeaseFence };

export type PostgresAuthState = {
  state: AuthenticationState;
  /** Writes the creds as they are now (on the library's creds.update). */
  saveCreds(): Promise<void>;
  /** Drops the creds and every key (a logged-out session): the next start pairs afresh. */
  clear(): Promise<void>;
};

const CREDS = 'creds';

const encode = (sealer: Sealer, value: unknown) => sealer.seal(JSON.stringify(value, library().BufferJSON.replacer));
const decode = (sealer: Sealer, sealed: string): unknown => JSON.parse(sealer.open(sealed), library().BufferJSON.reviver);

/** The stored creds of a channel's session, or undefined when it has none (never paired, or logged out). */
export async function loadCreds(db: Executor, sealer: Sealer, channelId: string): Promise<AuthenticationCreds | undefined> {
  await loadLibrary();
  const [row] = await db
    .select({ value: channelSessionKeys.valueSealed })
    .from(channelSessionKeys)
    .where(and(eq(channelSessionKeys.channelId, channelId), eq(channelSessionKeys.type, CREDS), eq(channelSessionKeys.keyId, '')))
    .limit(1);
  return row ? (decode(sealer, row.value) as AuthenticationCreds) : undefined;
}

/** Drops a session's creds and keys in the caller's transaction. */
export async function clearAuthState(tx: Executor, channelId: string): Promise<void> {
  await tx.delete(channelSessionKeys).where(eq(channelSessionKeys.channelId, channelId));
}

/** The auth state of a channel's session, read from and written to PostgreSQL (new creds when it has none). */
export async function usePostgresAuthState(deps: AuthStateDeps, channelId: string): Promise<PostgresAuthState> {
  const { db, sealer, fence } = deps;
  const { initAuthCreds, proto } = await loadLibrary();
  const creds = (await loadCreds(db, sealer, channelId)) ?? initAuthCreds();

  const upsert = async (tx: Executor, rows: Array<{ type: string; keyId: string; value: unknown }>) => {
    if (rows.length === 0) return;
    await tx
      .insert(channelSessionKeys)
      .values(rows.map((r) => ({ channelId, type: r.type, keyId: r.keyId, valueSealed: encode(sealer, r.value) })))
      .onConflictDoUpdate({
        target: [channelSessionKeys.channelId, channelSessionKeys.type, channelSessionKeys.keyId],
        set: { valueSealed: sql`excluded.value_sealed` },
      });
  };

  return {
    state: {
      creds,
      keys: {
        async get<T extends keyof SignalDataTypeMap>(type: T, ids: string[]) {
          const found: { [id: string]: SignalDataTypeMap[T] } = {};
          if (ids.length === 0) return found;
          const rows = await db
            .select({ keyId: channelSessionKeys.keyId, value: channelSessionKeys.valueSealed })
            .from(channelSessionKeys)
            .where(
              and(eq(channelSessionKeys.channelId, channelId), eq(channelSessionKeys.type, type), inArray(channelSessionKeys.keyId, ids)),
            );
          for (const row of rows) {
            let value = decode(sealer, row.value);
            // Stored as a plain object; the library expects its protobuf class back.
            if (type === 'app-state-sync-key' && value) value = proto.Message.AppStateSyncKeyData.fromObject(value as object);
            found[row.keyId] = value as SignalDataTypeMap[T];
          }
          return found;
        },
        async set(data: SignalDataSet) {
          const writes: Array<{ type: string; keyId: string; value: unknown }> = [];
          const deletes = new Map<string, string[]>();
          for (const [type, values] of Object.entries(data)) {
            for (const [keyId, value] of Object.entries(values ?? {})) {
              if (value === null || value === undefined) deletes.set(type, [...(deletes.get(type) ?? []), keyId]);
              else writes.push({ type, keyId, value });
            }
          }
          if (writes.length === 0 && deletes.size === 0) return;
          // Every type and id of one call in one transaction: the library's key updates go together or not at all.
          await db.transaction(async (tx) => {
            await fence(tx);
            // Bounded batches: one statement's parameters stay well under the protocol's limit.
            for (let i = 0; i < writes.length; i += 500) await upsert(tx, writes.slice(i, i + 500));
            for (const [type, keyIds] of deletes) {
              await tx
                .delete(channelSessionKeys)
                .where(
                  and(
                    eq(channelSessionKeys.channelId, channelId),
                    eq(channelSessionKeys.type, type),
                    inArray(channelSessionKeys.keyId, keyIds),
                  ),
                );
            }
          });
        },
      },
    },
    async saveCreds() {
      await db.transaction(async (tx) => {
        await fence(tx);
        await upsert(tx, [{ type: CREDS, keyId: '', value: creds }]);
      });
    },
    async clear() {
      await db.transaction(async (tx) => {
        await fence(tx);
        await clearAuthState(tx, channelId);
      });
    },
  };
}
