/**
 * The business's phone and its customers beyond writing in (docs/sandbox.md): `POST /sandbox/echo`
 * plays the business sending from its own phone, `/sandbox/edit` and `/sandbox/delete` a sender
 * changing or deleting an earlier message for everyone. Each is delivered through the gateway's own
 * callbacks (`message.echo`, `message.edited`, `message.deleted`; docs/gateway-protocol.md), so
 * Parley applies them exactly as it would a real gateway's. Gateway channels only: the official API
 * reports none of these.
 */
import { and, eq } from 'drizzle-orm';
import type { Executor } from '../db/client.ts';
import { channels, sandboxAccounts, sandboxMessages } from '../db/schema.ts';
import { isUuid } from '../lib/ids.ts';
import type { AccountRow, SandboxContext } from './context.ts';
import { fail, gateway, ok, type GatewayResult } from './errors.ts';
import { gatewayMessageId } from './ids.ts';
import { seedGroup } from './gateway/groups.ts';
import { createGatewayChats } from './gateway/chats.ts';
import { normalizePhone } from './rules.ts';

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const nonEmpty = (value: unknown, max = 4096): value is string => typeof value === 'string' && value.trim() !== '' && value.length <= max;

/** The paired gateway session of a sandbox-bound channel of the organization. */
export async function pairedSession(db: Executor, organizationId: string, channelId: unknown): Promise<GatewayResult<AccountRow>> {
  if (typeof channelId !== 'string' || !isUuid(channelId)) return fail(gateway.invalid('channel_id must be a channel id'));
  const [channel] = await db
    .select()
    .from(channels)
    .where(and(eq(channels.id, channelId), eq(channels.organizationId, organizationId)))
    .limit(1);
  const [account] =
    channel?.sandbox && channel.providerRef
      ? await db.select().from(sandboxAccounts).where(eq(sandboxAccounts.id, channel.providerRef)).limit(1)
      : [];
  // Another organization's channel, an unknown id and a channel that is not the sandbox's answer alike.
  if (!channel || !account) return fail(gateway.notFound('sandbox channel'));
  if (account.protocol !== 'gateway')
    return fail(
      gateway.invalid(
        'echoes, edits, deletions, calls, groups and chats are reported by gateways only; this channel is on the official sandbox',
      ),
    );
  if (account.status !== 'WORKING')
    return fail(gateway.conflict('session_not_working', `the channel's gateway session is ${account.status}, not paired`));
  return ok(account);
}

export function createPhone(ctx: SandboxContext) {
  const { clock } = ctx;

  /** A message of the session, by its provider id. */
  async function messageOf(db: Executor, account: AccountRow, id: unknown) {
    if (!nonEmpty(id, 256)) return undefined;
    const [row] = await db
      .select()
      .from(sandboxMessages)
      .where(and(eq(sandboxMessages.id, id), eq(sandboxMessages.accountId, account.id)))
      .limit(1);
    return row;
  }

  return {
    /** POST /sandbox/echo {channel_id, to, type: "text", content: {body}, reply_to?}: the business writes from its phone. */
    async echo(db: Executor, organizationId: string, body: unknown): Promise<GatewayResult<{ provider_message_id: string }>> {
      if (!isObject(body)) return fail(gateway.invalid('the body must be a JSON object {channel_id, to, type, content}'));
      const to = normalizePhone(body.to);
      if (!to) return fail(gateway.invalid('to must be international digits without +'));
      if (body.type !== undefined && body.type !== 'text') return fail(gateway.invalid('type must be text'));
      const content = body.content;
      if (!isObject(content) || !nonEmpty(content.body)) return fail(gateway.invalid('content.body must be a non-empty string'));
      if (body.reply_to !== undefined && !nonEmpty(body.reply_to, 512))
        return fail(gateway.invalid('reply_to must be a provider message id'));
      const account = await pairedSession(db, organizationId, body.channel_id);
      if (!account.ok) return account;
      const id = gatewayMessageId();
      await db.transaction(async (tx) => {
        await tx.insert(sandboxMessages).values({
          id,
          accountId: account.value.id,
          direction: 'outbound',
          recipient: to,
          type: 'text',
          body: { to, type: 'text', content: { body: content.body }, ...(body.reply_to !== undefined ? { reply_to: body.reply_to } : {}) },
          status: 'sent',
          createdAt: clock.now(),
        });
        await ctx.enqueueCallback(tx, { kind: 'message.echo', message_id: id, at: clock.now().toISOString() }, 0);
      });
      return ok({ provider_message_id: id });
    },

    /** POST /sandbox/edit {channel_id, message_id, body}: the sender of a text message changes it. */
    async edit(db: Executor, organizationId: string, body: unknown): Promise<GatewayResult<{ provider_message_id: string }>> {
      if (!isObject(body)) return fail(gateway.invalid('the body must be a JSON object {channel_id, message_id, body}'));
      if (!nonEmpty(body.body)) return fail(gateway.invalid('body must be a non-empty string (the new text)'));
      const account = await pairedSession(db, organizationId, body.channel_id);
      if (!account.ok) return account;
      const message = await messageOf(db, account.value, body.message_id);
      if (!message) return fail(gateway.notFound(`message ${String(body.message_id)}`));
      if (message.type !== 'text') return fail(gateway.invalid(`only text messages can be edited; this one is ${message.type}`));
      await db.transaction(async (tx) => {
        const stored = message.body as { content?: Json };
        await tx
          .update(sandboxMessages)
          .set({ body: { ...message.body, content: { ...(stored.content ?? {}), body: body.body } } })
          .where(eq(sandboxMessages.id, message.id));
        await ctx.enqueueCallback(
          tx,
          { kind: 'message.edited', message_id: message.id, body: String(body.body), at: clock.now().toISOString() },
          0,
        );
      });
      return ok({ provider_message_id: message.id });
    },

    /**
     * POST /sandbox/groups {channel_id, subject, participants?, admin?, member?, locked?, announcement?, members_can_add?, join_approval?}:
     * someone else made a group with the channel's number in it (or not: member false, to join by its invite code).
     */
    async group(db: Executor, organizationId: string, body: unknown): Promise<GatewayResult<Json>> {
      if (!isObject(body)) return fail(gateway.invalid('the body must be a JSON object {channel_id, subject, participants?}'));
      const account = await pairedSession(db, organizationId, body.channel_id);
      if (!account.ok) return account;
      return seedGroup(ctx, db, account.value, body);
    },

    /** POST /sandbox/chat {channel_id, chat, archived?, pinned?, muted_until?, unread?, deleted?}: the phone changes a chat itself. */
    async chat(db: Executor, organizationId: string, body: unknown): Promise<GatewayResult<Json>> {
      if (!isObject(body)) return fail(gateway.invalid('the body must be a JSON object {channel_id, chat, ...}'));
      const account = await pairedSession(db, organizationId, body.channel_id);
      if (!account.ok) return account;
      return createGatewayChats(ctx).phone(db, account.value, body);
    },

    /** POST /sandbox/delete {channel_id, message_id}: the sender deletes a message for everyone. */
    async remove(db: Executor, organizationId: string, body: unknown): Promise<GatewayResult<{ provider_message_id: string }>> {
      if (!isObject(body)) return fail(gateway.invalid('the body must be a JSON object {channel_id, message_id}'));
      const account = await pairedSession(db, organizationId, body.channel_id);
      if (!account.ok) return account;
      const message = await messageOf(db, account.value, body.message_id);
      if (!message) return fail(gateway.notFound(`message ${String(body.message_id)}`));
      await db.transaction((tx) =>
        ctx.enqueueCallback(tx, { kind: 'message.deleted', message_id: message.id, at: clock.now().toISOString() }, 0),
      );
      return ok({ provider_message_id: message.id });
    },
  };
}
