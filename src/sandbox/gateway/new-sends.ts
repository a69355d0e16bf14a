/**
 * The common send as a new row, gathered with the sends of the moment (lib/batcher.ts): one insert
 * for them all, and one status callback per first status naming them all, in one transaction.
 */
import { sql } from 'drizzle-orm';
import { batchRows } from '../../db/batch-rows.ts';
import { queryRows, type Executor } from '../../db/client.ts';
import { createBatcher } from '../../lib/batcher.ts';
import { GROUP_RECIPIENT } from '../../providers/capabilities.ts';
import type { SandboxContext } from '../context.ts';
import { gatewayMessageId } from '../ids.ts';
import { statusSteps } from '../rules.ts';
import { NO_STATUS_TYPES, type Json, type parseSend } from './parse-send.ts';

type NewSend = {
  row: {
    id: string;
    accountId: string;
    idempotencyKey: string;
    recipient: string;
    type: string;
    body: Json;
    bodyHash: string;
    createdAt: Date;
  };
  /** SHA-256 of the API key the send came with: the insert takes it only from a working session this key drives. */
  tokenHash: string;
  firstStatus: 'sent' | 'delivered' | 'read' | 'failed' | undefined;
};

export type InsertNew = (
  db: Executor,
  session: string,
  tokenHash: string,
  key: unknown,
  parsed: ReturnType<typeof parseSend>,
) => Promise<string | undefined>;

/** The inserter of new sends of one sandbox (its batchers are its own). */
export function createNewSends(ctx: SandboxContext): InsertNew {
  // New sends gathered (lib/batcher.ts), per database: the rows of the moment in one insert, and one
  // status callback per first status naming them all, in one transaction (a failed one is tried again
  // send by send). The insert checks each send's session and key itself (a send may come here before
  // any lookup, sendNew). Resolves false for a row not inserted (its key was taken meanwhile, or its
  // session is not a working one its key drives).
  const batchers = new WeakMap<Executor, (send: NewSend) => Promise<boolean>>();
  const newSends = (db: Executor) => {
    let batcher = batchers.get(db);
    if (!batcher) {
      batcher = createBatcher(
        (sends: NewSend[]) =>
          db.transaction(async (tx) => {
            const rows = sends.map(({ row, tokenHash }) => ({
              id: row.id,
              account_id: row.accountId,
              idempotency_key: row.idempotencyKey,
              recipient: row.recipient,
              type: row.type,
              body: row.body,
              body_hash: row.bodyHash,
              created_at: row.createdAt.toISOString(),
              token_hash: tokenHash,
            }));
            const inserted = new Set(
              (
                await queryRows<{ id: string }>(
                  tx,
                  sql`insert into sandbox_messages (id, account_id, direction, idempotency_key, recipient, type, body, body_hash, status, created_at)
                      select b.id, b.account_id, 'outbound', b.idempotency_key, b.recipient, b.type, b.body, b.body_hash, 'accepted', b.created_at
                        from ${batchRows(JSON.stringify(rows), 'b', 'id text, account_id text, idempotency_key text, recipient text, type text, body jsonb, body_hash text, created_at timestamptz, token_hash text')}
                        join sandbox_accounts a on a.id = b.account_id and a.token_hash = b.token_hash and a.protocol = 'gateway' and a.status = 'WORKING'
                      on conflict do nothing
                      returning id`,
                )
              ).map((r) => r.id),
            );
            const byStatus = new Map<NonNullable<NewSend['firstStatus']>, string[]>();
            for (const { row, firstStatus } of sends) {
              if (firstStatus && inserted.has(row.id)) byStatus.set(firstStatus, [...(byStatus.get(firstStatus) ?? []), row.id]);
            }
            for (const [status, ids] of byStatus) {
              await ctx.enqueueCallback(
                tx,
                { kind: 'message.status', ...(ids.length === 1 ? { message_id: ids[0]! } : { message_ids: ids }), status },
                1,
              );
            }
            return sends.map((s) => inserted.has(s.row.id));
          }),
        // 200 rows at most: under the 1,000 ids a callback job may name.
        { maxBatch: 200, maxInFlight: 2, splitOnFailure: true },
      );
      batchers.set(db, batcher);
    }
    return batcher;
  };

  /**
   * The common send as a new row, for `session` driven by the key of hash `tokenHash`: a new idempotency
   * key and a message the gateway takes as it is (no throttling rule, not a read receipt). Resolves to
   * its id, or undefined when it is not such a send or was not inserted (the full path answers it).
   */
  return async function insertNew(
    db: Executor,
    session: string,
    tokenHash: string,
    key: unknown,
    parsed: ReturnType<typeof parseSend>,
  ): Promise<string | undefined> {
    if (typeof key !== 'string' || key === '' || key.length > 200) return undefined;
    // A group's send is checked against the group first (the full path).
    if (!parsed.ok || parsed.value.outcome === 'throttle_once' || parsed.value.type === 'mark_as_read') return undefined;
    if (GROUP_RECIPIENT.test(parsed.value.to)) return undefined;
    const { to, type, content, hash, outcome } = parsed.value;
    const id = gatewayMessageId();
    const row = {
      id,
      accountId: session,
      idempotencyKey: key,
      recipient: to,
      type,
      body: { to, type, content },
      bodyHash: hash,
      createdAt: ctx.clock.now(),
    };
    const inserted = await newSends(db)({ row, tokenHash, firstStatus: NO_STATUS_TYPES.has(type) ? undefined : statusSteps(outcome)[0]! });
    return inserted ? id : undefined;
  };
}
