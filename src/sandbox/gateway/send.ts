/** Sends: the common one gathered with others before any lookup, the full path (idempotency keys, throttling), and a key's send. */
import { and, eq } from 'drizzle-orm';
import type { Executor } from '../../db/client.ts';
import { sandboxMessages } from '../../db/schema.ts';
import { sha256Hex } from '../../lib/crypto.ts';
import type { AccountRow } from '../context.ts';
import { fail, gateway, ok, type GatewayResult } from '../errors.ts';
import { gatewayMessageId } from '../ids.ts';
import { statusSteps } from '../rules.ts';
import type { GatewayContext } from './context.ts';
import { GROUP_RECIPIENT } from '../../providers/capabilities.ts';
import { groupSendRefusal } from './groups.ts';
import { NO_STATUS_TYPES, isObject, parseSend, type Json } from './parse-send.ts';

/**
 * POST /sessions/{session}/messages before any lookup: the common send (a new key, a message taken
 * as it is) inserted with the sends of the moment, its session and API key checked by the insert.
 * Resolves to its id (201), or undefined: then `send` after `authenticate` answers it.
 */
export async function sendNew(
  ctx: GatewayContext,
  db: Executor,
  session: string,
  apiKey: string,
  body: unknown,
): Promise<string | undefined> {
  if (!isObject(body)) return undefined;
  return ctx.insertNew(db, session, sha256Hex(apiKey), body.idempotency_key, parseSend(body));
}

/**
 * POST /sessions/{session}/messages: 201 {id}; a known idempotency_key answers 200 with the same id.
 * `triedNew`: sendNew already tried this body as a new row (the gathered insert is not tried again).
 */
export async function sendMessage(
  ctx: GatewayContext,
  db: Executor,
  account: AccountRow,
  body: unknown,
  options: { triedNew?: boolean } = {},
): Promise<GatewayResult<{ created: boolean; id: string }>> {
  if (!isObject(body)) return fail(gateway.invalid('the body must be a JSON object {to, type, content, idempotency_key}'));
  const key = body.idempotency_key;
  if (key !== undefined && (typeof key !== 'string' || key === '' || key.length > 200)) {
    return fail(gateway.invalid('idempotency_key must be a string of 1 to 200 characters'));
  }
  // The common send (a new key, a working session, a message it takes as it is): inserted with
  // the sends of the moment, no lookup first. A key already held falls through to the lookup.
  // Read once; its refusal is answered only after the key's lookup and the session's state below.
  const parsed = parseSend(body);
  if (account.status === 'WORKING' && !options.triedNew) {
    const id = await ctx.insertNew(db, account.id, account.tokenHash, key, parsed);
    if (id) return ok({ created: true, id });
  }
  let known: { id: string; status: string } | undefined;
  if (key !== undefined) {
    [known] = await db
      .select({ id: sandboxMessages.id, status: sandboxMessages.status })
      .from(sandboxMessages)
      .where(and(eq(sandboxMessages.accountId, account.id), eq(sandboxMessages.idempotencyKey, key)))
      .limit(1);
    if (known && known.status !== 'throttled') return ok({ created: false, id: known.id });
  }
  if (account.status !== 'WORKING') {
    return fail(gateway.conflict('session_not_working', `the session is ${account.status}; pair it before sending`));
  }
  if (!parsed.ok) return parsed;
  const { to, type, content, hash, outcome } = parsed.value;
  if (GROUP_RECIPIENT.test(to)) {
    const refusal = await groupSendRefusal(db, account, to);
    if (refusal) return fail(refusal);
  }
  return db.transaction(async (tx): Promise<GatewayResult<{ created: boolean; id: string }>> => {
    // A retry of a throttled attempt: by its idempotency key (none to look for when the key is new), or else by the same body.
    const [throttled] =
      key !== undefined && !known
        ? []
        : await tx
            .update(sandboxMessages)
            .set({ status: 'accepted' })
            .where(
              and(
                eq(sandboxMessages.accountId, account.id),
                eq(sandboxMessages.status, 'throttled'),
                key !== undefined
                  ? eq(sandboxMessages.idempotencyKey, key)
                  : and(eq(sandboxMessages.recipient, to), eq(sandboxMessages.bodyHash, hash)),
              ),
            )
            .returning({ id: sandboxMessages.id });
    let id: string;
    if (throttled) {
      id = throttled.id;
    } else {
      id = gatewayMessageId();
      const first = outcome === 'throttle_once';
      const inserted = await tx
        .insert(sandboxMessages)
        .values({
          id,
          accountId: account.id,
          direction: 'outbound',
          idempotencyKey: key ?? null,
          recipient: to,
          type,
          body: { to, type, content },
          bodyHash: hash,
          status: first ? 'throttled' : 'accepted',
          createdAt: ctx.clock.now(),
        })
        .onConflictDoNothing()
        .returning({ id: sandboxMessages.id });
      if (inserted.length === 0) {
        // The same key raced in from another request: answer with the message it made.
        const [winner] = await tx
          .select({ id: sandboxMessages.id })
          .from(sandboxMessages)
          .where(and(eq(sandboxMessages.accountId, account.id), eq(sandboxMessages.idempotencyKey, key!)))
          .limit(1);
        return ok({ created: false, id: winner!.id });
      }
      if (first) return fail(gateway.rateLimited());
    }
    if (type === 'mark_as_read') {
      await tx
        .update(sandboxMessages)
        .set({ status: 'read' })
        .where(
          and(
            eq(sandboxMessages.id, String(content.message_id)),
            eq(sandboxMessages.accountId, account.id),
            eq(sandboxMessages.direction, 'inbound'),
          ),
        );
    }
    if (!NO_STATUS_TYPES.has(type)) {
      await ctx.enqueueCallback(tx, { kind: 'message.status', message_id: id, status: statusSteps(outcome)[0]! }, 1);
    }
    return ok({ created: true, id });
  });
}

/**
 * GET /sessions/{session}/idempotency-keys/{key}: the send this key made, or 404 when the gateway
 * never accepted one (a send refused with 429 made none). Answers whatever the session's state.
 */
export async function findByKey(db: Executor, account: AccountRow, key: string): Promise<GatewayResult<Json>> {
  const [known] = await db
    .select({ id: sandboxMessages.id, status: sandboxMessages.status, createdAt: sandboxMessages.createdAt })
    .from(sandboxMessages)
    .where(and(eq(sandboxMessages.accountId, account.id), eq(sandboxMessages.idempotencyKey, key)))
    .limit(1);
  if (!known || known.status === 'throttled') return fail(gateway.notFound(`a send with idempotency_key ${key}`));
  return ok({ idempotency_key: key, id: known.id, status: known.status, created_at: known.createdAt.toISOString() });
}
