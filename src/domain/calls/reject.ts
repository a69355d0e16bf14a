/**
 * Rejecting a ringing call (operation `calls.reject`): through the API (POST
 * /v1/channels/{channelID}/calls/{callID}/reject) or, when the channel's `reject_calls` setting is on,
 * by the `call.reject` job as soon as it rings. The provider ends the call on the caller's phone; the
 * record becomes `rejected` (rejected_by `parley`, with call.rejected); a message, when one is given
 * (or the setting's `reject_calls_message`), is then sent to the caller like any other.
 */
import { and, eq } from 'drizzle-orm';
import { messages } from '../../db/schema.ts';
import { PERMISSIONS } from '../permissions.ts';
import type { Actor } from '../actor.ts';
import { assertOperation } from '../channels/capabilities.ts';
import { connectionOf, findChannel, loadChannel, recordProviderFault, type ChannelRow } from '../channels/channels.ts';
import { providerRefusal, type ProviderCallDeps } from '../channels/pairing.ts';
import { assertConnected } from '../channels/profiles.ts';
import { DomainError } from '../errors.ts';
import { acceptMessage, type MessageDeps, type SendOutcome } from '../messages/accept.ts';
import type { MessageRow } from '../messages/messages.ts';
import type { Logger } from '../../lib/logger.ts';
import { moveCall, rejectCallsMessage, rejectsCalls, type CallContent } from './calls.ts';

export type CallRejectDeps = ProviderCallDeps & {
  messages: MessageDeps;
  /** Where the job says why it could not reject a call (the route answers it instead). */
  logger?: Pick<Logger, 'warn'>;
};

export type RejectResult = {
  call: MessageRow;
  /** The message sent to the caller, or why it was not (the call is rejected either way). */
  message: SendOutcome | null;
};

/** A call of the channel by its id (the record's provider_message_id): 404 naming it when there is none. */
async function callOf(deps: ProviderCallDeps, channel: ChannelRow, callId: string): Promise<MessageRow> {
  const [row] = await deps.db
    .select()
    .from(messages)
    .where(and(eq(messages.channelId, channel.id), eq(messages.providerMessageId, callId), eq(messages.type, 'call')))
    .limit(1);
  if (!row)
    throw new DomainError('not_found', `call ${callId} not found on this channel`, {
      fieldErrors: [{ pointer: '/callID', message: 'no call of this channel has this id' }],
    });
  return row;
}

/** Rejects the call with the provider and records it; refuses a call that no longer rings. */
async function reject(
  deps: CallRejectDeps,
  channel: ChannelRow,
  row: MessageRow,
  actor: Actor,
  text: string | undefined,
): Promise<RejectResult> {
  const content = row.content as unknown as CallContent;
  if (content.status !== 'ringing')
    throw new DomainError('conflict', `call ${content.call_id} is ${content.status}; only a ringing call can be rejected`, {
      extra: { call_status: content.status },
    });
  const calls = deps.providers.get(channel.platform).calls;
  if (!calls) throw new Error(`platform ${channel.platform} lists calls.reject without the adapter's call calls`);
  const rejected = await calls.rejectCall(connectionOf(channel, deps.sealer), { id: content.call_id, from: row.fromPhone ?? '' });
  if (!rejected.ok) {
    if (rejected.error.channelFault) await recordProviderFault(deps, channel, rejected.error);
    throw providerRefusal(rejected.error);
  }
  const now = deps.clock.now();
  const call = await deps.db.transaction(async (tx) => {
    // The call may have moved on while the provider was asked (the caller hung up): its report stands.
    const [current] = await tx.select().from(messages).where(eq(messages.id, row.id)).for('update');
    if ((current!.content as unknown as CallContent).status !== 'ringing') return current!;
    return moveCall(tx, channel, current!, 'rejected', now, now, { rejected_by: 'parley' });
  });
  if (text === undefined) return { call, message: null };
  const message = await acceptMessage(deps.messages, actor, {
    channelId: channel.id,
    to: row.fromPhone ?? '',
    conversationId: row.conversationId,
    type: 'text',
    content: { body: text },
  });
  return { call, message };
}

/** POST /v1/channels/{channelID}/calls/{callID}/reject. */
export async function rejectCall(
  deps: CallRejectDeps,
  actor: Actor,
  input: { channelId: string; callId: string; message?: string },
): Promise<RejectResult> {
  const channel = await loadChannel(deps.db, actor, input.channelId);
  assertOperation(channel.platform, 'calls.reject', 'rejecting a call');
  assertConnected(channel);
  return reject(deps, channel, await callOf(deps, channel, input.callId), actor, input.message);
}

/**
 * The `call.reject` job: a call that started ringing on a channel whose `reject_calls` setting is on
 * (read again now: it may have been turned off since) is rejected, with the setting's message. A call
 * that stopped ringing meanwhile is left as it is.
 */
export async function rejectRingingCall(deps: CallRejectDeps, input: { messageId: string }): Promise<void> {
  const [row] = await deps.db.select().from(messages).where(eq(messages.id, input.messageId)).limit(1);
  if (!row || row.type !== 'call' || (row.content as unknown as CallContent).status !== 'ringing') return;
  const channel = await findChannel(deps.db, row.channelId);
  if (!channel || !rejectsCalls(channel)) return;
  const actor: Actor = { kind: 'system', organizationId: channel.organizationId, permissions: new Set(PERMISSIONS) };
  await reject(deps, channel, row, actor, rejectCallsMessage(channel)).catch((err: unknown) => {
    // Worth another try (the session is reconnecting, the gateway answered 5xx): the job's retry.
    if (!(err instanceof DomainError) || err.code === 'unavailable') throw err;
    // It stopped ringing on its own meanwhile (conflict), or the provider refused for good: nothing to retry.
    if (err.code !== 'conflict')
      deps.logger?.warn({ channel_id: channel.id, message_id: row.id, err: err.message }, 'a call could not be rejected (reject_calls)');
  });
}
