/**
 * The gateway protocol's chats (docs/gateway-protocol.md, "Chats"), as the sandbox plays them: a chat is
 * a number on the chat network (numbers ending in 0002 are not: `404 not_on_network`) or a group the
 * session is in (any other group: `404 chat_not_found`). A change the session makes comes back to it as
 * a phone's would, in a `chat.update` callback; asking for a chat's earlier messages makes the phone send
 * up to five (the sandbox's history: "Earlier message n", each a minute before the next, the same ids
 * each time) as `message` callbacks with `history: true`. `POST /sandbox/chat` plays the phone changing
 * a chat itself (archive on the phone, ...).
 */
import { createHash } from 'node:crypto';
import type { Executor } from '../../db/client.ts';
import { and, eq } from 'drizzle-orm';
import { sandboxGroups, sandboxMessages } from '../../db/schema.ts';
import { GROUP_RECIPIENT } from '../../providers/capabilities.ts';
import type { AccountRow, SandboxContext } from '../context.ts';
import { fail, gateway, ok, type GatewayError, type GatewayResult } from '../errors.ts';
import { normalizePhone, recipientOutcome } from '../rules.ts';
import { isObject, type Json } from './parse-send.ts';

/** Earlier messages the sandbox's phone has of any chat. */
const HISTORY_DEPTH = 5;
const HISTORY_COUNT_MAX = 50;

const chatNotFound = (chat: string): GatewayError => ({
  status: 404,
  code: 'chat_not_found',
  message: `chat ${chat} not found: the session's number is not in that group`,
  retryable: false,
});
const notOnNetwork = (phone: string): GatewayError => ({
  status: 404,
  code: 'not_on_network',
  message: `+${phone} is not on the chat network`,
  retryable: false,
});

/** The change a PATCH or the phone's door gives: each field checked. */
function changeOf(body: Json): GatewayResult<Json> {
  const change: Json = {};
  for (const key of ['archived', 'pinned', 'unread'] as const) {
    if (body[key] === undefined) continue;
    if (typeof body[key] !== 'boolean') return fail(gateway.invalid(`${key} must be true or false`));
    change[key] = body[key];
  }
  if (body.muted_until !== undefined) {
    const until = body.muted_until;
    if (until !== null && (typeof until !== 'string' || Number.isNaN(new Date(until).getTime())))
      return fail(gateway.invalid('muted_until must be an ISO time, or null to unmute'));
    change.muted_until = until === null ? null : new Date(until as string).toISOString();
  }
  return ok(change);
}

export function createGatewayChats(ctx: SandboxContext) {
  const { clock } = ctx;

  const callback = (
    tx: Executor,
    account: AccountRow,
    event: 'chat.update' | 'message' | 'message.starred',
    payload: Json,
    at = clock.now(),
  ) => ctx.enqueueCallback(tx, { kind: 'gateway.event', session_id: account.id, event, payload, at: at.toISOString() }, 0);

  /** The chat a path names, when the session has it: a number on the network, or a group it is in. */
  async function chatOf(db: Executor, account: AccountRow, chat: string): Promise<GatewayResult<{ chat: string; group?: string }>> {
    if (account.status !== 'WORKING' || !account.displayPhoneNumber)
      return fail(gateway.conflict('session_not_working', `the session is ${account.status}, not paired: chats need a paired phone`));
    const self = account.displayPhoneNumber.replace(/\D/g, '');
    if (GROUP_RECIPIENT.test(chat)) {
      const [group] = await db.select().from(sandboxGroups).where(eq(sandboxGroups.id, chat)).limit(1);
      if (!group || !group.participants.some((p) => p.phone === self)) return fail(chatNotFound(chat));
      return ok({ chat, group: group.owner ?? group.participants.find((p) => p.phone !== self)?.phone ?? self });
    }
    const phone = normalizePhone(chat);
    if (!phone) return fail(gateway.invalid('the chat must be international digits or a group id'));
    if (recipientOutcome(phone) === 'refuse') return fail(notOnNetwork(phone));
    return ok({ chat: phone });
  }

  return {
    /** PATCH /sessions/{session}/chats/{chat} {archived?, pinned?, muted_until?, unread?, last_message?}. */
    async modify(db: Executor, account: AccountRow, chat: string, body: unknown): Promise<GatewayResult<Json>> {
      if (!isObject(body)) return fail(gateway.invalid('the body must be a JSON object'));
      const change = changeOf(body);
      if (!change.ok) return change;
      if (Object.keys(change.value).length === 0) return fail(gateway.invalid('give archived, pinned, muted_until or unread'));
      const found = await chatOf(db, account, chat);
      if (!found.ok) return found;
      await db.transaction((tx) => callback(tx, account, 'chat.update', { chat: found.value.chat, ...change.value }));
      return ok({ chat: found.value.chat, ...change.value });
    },

    /** DELETE /sessions/{session}/chats/{chat}. */
    async remove(db: Executor, account: AccountRow, chat: string): Promise<GatewayResult<Json>> {
      const found = await chatOf(db, account, chat);
      if (!found.ok) return found;
      await db.transaction((tx) => callback(tx, account, 'chat.update', { chat: found.value.chat, deleted: true }));
      return ok({});
    },

    /** POST /sessions/{session}/chats/{chat}/history {before: {id, from_me, timestamp}, count}: the phone sends earlier messages. */
    async history(db: Executor, account: AccountRow, chat: string, body: unknown): Promise<GatewayResult<Json>> {
      if (!isObject(body) || !isObject(body.before))
        return fail(gateway.invalid('the body must be {before: {id, from_me, timestamp}, count}'));
      const { id, timestamp } = body.before;
      const before = typeof timestamp === 'string' ? new Date(timestamp) : undefined;
      if (typeof id !== 'string' || id === '' || !before || Number.isNaN(before.getTime()))
        return fail(gateway.invalid('before must name the oldest message: {id, from_me, timestamp}'));
      const count = body.count ?? HISTORY_COUNT_MAX;
      if (!Number.isInteger(count) || (count as number) < 1 || (count as number) > HISTORY_COUNT_MAX)
        return fail(gateway.invalid(`count must be 1 to ${HISTORY_COUNT_MAX}`));
      const found = await chatOf(db, account, chat);
      if (!found.ok) return found;
      const n = Math.min(count as number, HISTORY_DEPTH);
      const seed = createHash('sha256').update(`${account.id}:${chat}:${id}`).digest('hex').slice(0, 16).toUpperCase();
      await db.transaction(async (tx) => {
        // Oldest first, as the phone sends them.
        for (let i = n; i >= 1; i--) {
          const at = new Date(before.getTime() - i * 60_000);
          const from = found.value.group ?? found.value.chat;
          await callback(
            tx,
            account,
            'message',
            {
              id: `HIST${seed}${String(i).padStart(2, '0')}`,
              from,
              type: 'text',
              content: { body: `Earlier message ${n - i + 1}`, ...(found.value.group ? { group: { id: chat, participant: from } } : {}) },
              history: true,
            },
            at,
          );
        }
      });
      return ok({ requested: true, count: n });
    },

    /**
     * POST /sessions/{session}/chats/{chat}/messages/{id}/star {starred, from_me} and …/pin {pinned, seconds, from_me}:
     * a message the session holds (sent or received); any other is `404 message_not_found`.
     */
    async message(
      db: Executor,
      account: AccountRow,
      chat: string,
      id: string,
      action: 'star' | 'pin',
      body: unknown,
    ): Promise<GatewayResult<Json>> {
      if (!isObject(body)) return fail(gateway.invalid('the body must be a JSON object'));
      const flag = action === 'star' ? body.starred : body.pinned;
      if (typeof flag !== 'boolean') return fail(gateway.invalid(`${action === 'star' ? 'starred' : 'pinned'} must be true or false`));
      if (action === 'pin' && flag && ![86_400, 604_800, 2_592_000].includes(body.seconds as number))
        return fail(gateway.invalid('seconds must be 86400, 604800 or 2592000'));
      const found = await chatOf(db, account, chat);
      if (!found.ok) return found;
      const [message] = await db
        .select({ id: sandboxMessages.id })
        .from(sandboxMessages)
        .where(and(eq(sandboxMessages.id, id), eq(sandboxMessages.accountId, account.id)))
        .limit(1);
      if (!message)
        return fail({ status: 404, code: 'message_not_found', message: `message ${id} not found in the chat`, retryable: false });
      // A star is the phone's app state: every linked device hears of it.
      if (action === 'star') await db.transaction((tx) => callback(tx, account, 'message.starred', { id, starred: flag }));
      return ok({});
    },

    /** POST /sandbox/chat {chat, archived?, pinned?, muted_until?, unread?, deleted?}: the phone changes a chat itself. */
    async phone(db: Executor, account: AccountRow, body: Json): Promise<GatewayResult<Json>> {
      const chat = typeof body.chat === 'string' ? body.chat.replace(/^\+/, '') : '';
      const found = await chatOf(db, account, chat);
      if (!found.ok) return found;
      if (body.deleted !== undefined && body.deleted !== true) return fail(gateway.invalid('deleted must be true'));
      const change = changeOf(body);
      if (!change.ok) return change;
      const payload = body.deleted === true ? { chat: found.value.chat, deleted: true } : { chat: found.value.chat, ...change.value };
      if (Object.keys(payload).length === 1) return fail(gateway.invalid('give archived, pinned, muted_until, unread or deleted'));
      await db.transaction((tx) => callback(tx, account, 'chat.update', payload));
      return ok(payload);
    },
  };
}

export type GatewayChats = ReturnType<typeof createGatewayChats>;
