/**
 * Calls to an unofficial channel's number (operation `calls.events`): each call is one message of type
 * `call` in the caller's conversation (found again by the call's id, its provider_message_id), whose
 * content says what became of it; every change is a `call.*` event. A ringing call is rejected through
 * the provider (`calls.reject`: the route, or the `call.reject` job when the channel's `reject_calls`
 * setting is on), optionally with a text message to the caller.
 */
import { and, eq } from 'drizzle-orm';
import type { Executor } from '../../db/client.ts';
import { messages } from '../../db/schema.ts';
import type { Queue } from '../../jobs/queue.ts';
import { uuidv7 } from '../../lib/ids.ts';
import type { InboundEvent } from '../../providers/provider.ts';
import type { ChannelRow } from '../channels/channels.ts';
import { recordEvent, type CallBody, type EventBodies } from '../events/outbox.ts';
import { ensureConversation, touchInbound } from '../messages/conversations.ts';
import { firstStatus, type MessageRow } from '../messages/messages.ts';
import type { InboundContactResolver } from '../messages/provider-events.ts';

export type CallEvent = Extract<InboundEvent, { kind: 'call' }>;

/** ringing → answered → ended; ringing → rejected or missed. */
export const CALL_STATUSES = ['ringing', 'answered', 'rejected', 'missed', 'ended'] as const;
export type CallStatus = (typeof CALL_STATUSES)[number];

/** A call message's content. */
export type CallContent = {
  call_id: string;
  video: boolean;
  status: CallStatus;
  /** Who rejected it, once rejected. */
  rejected_by?: 'parley' | 'phone';
  group?: { id: string };
  started_at: string;
  answered_at?: string;
  ended_at?: string;
};

type CallEventType = 'call.received' | 'call.accepted' | 'call.rejected' | 'call.missed' | 'call.ended';

const EVENT_OF: Record<CallStatus, CallEventType> = {
  ringing: 'call.received',
  answered: 'call.accepted',
  rejected: 'call.rejected',
  missed: 'call.missed',
  ended: 'call.ended',
};

/** What a provider's report makes of a call in a status (undefined: nothing changes). */
export function nextCallStatus(current: CallStatus | undefined, report: CallEvent['status']): CallStatus | undefined {
  switch (current) {
    case undefined:
      // The first report of a call (its offer, or only its end: a call that rang while the session was away).
      return report === 'offer' ? 'ringing' : report === 'accept' ? 'answered' : report === 'reject' ? 'rejected' : 'missed';
    case 'ringing':
      if (report === 'accept') return 'answered';
      if (report === 'reject') return 'rejected';
      // Nobody answered, or the caller hung up first.
      if (report === 'timeout' || report === 'terminate') return 'missed';
      return undefined;
    case 'answered':
      return report === 'terminate' ? 'ended' : undefined;
    default:
      return undefined;
  }
}

/** The setting that rejects every call as it rings (read defensively: only `true` turns it on). */
export function rejectsCalls(channel: Pick<ChannelRow, 'settings'>): boolean {
  return channel.settings.reject_calls === true;
}

/** The text sent to a caller whose call the setting rejected, where the channel has one. */
export function rejectCallsMessage(channel: Pick<ChannelRow, 'settings'>): string | undefined {
  const text = channel.settings.reject_calls_message;
  return typeof text === 'string' && text.trim() !== '' ? text : undefined;
}

const previewOf = (content: CallContent) => `${content.video ? 'Video' : 'Voice'} call${content.status === 'missed' ? ' (missed)' : ''}`;

export type CallApplyDeps = {
  resolveContact: InboundContactResolver;
  queue: Pick<Queue, 'enqueue'>;
};

/** The call's body of a call event, from its record. */
export function callBody(channel: ChannelRow, row: MessageRow, content: CallContent, at: Date): CallBody {
  const lid = typeof row.content.from_lid === 'string' ? row.content.from_lid : undefined;
  return {
    call_id: content.call_id,
    message_id: row.id,
    conversation_id: row.conversationId,
    contact_id: row.contactId ?? '',
    channel_id: channel.id,
    organization_id: channel.organizationId,
    from_phone: row.fromPhone ?? '',
    ...(lid ? { from_lid: lid } : {}),
    video: content.video,
    ...(content.group ? { group_id: content.group.id } : {}),
    status: content.status,
    occurred_at: at.toISOString(),
  };
}

/** Records the call event of a status the call just took. */
export async function recordCallEvent(
  tx: Executor,
  channel: ChannelRow,
  row: MessageRow,
  content: CallContent,
  at: Date,
  occurredAt: Date,
): Promise<void> {
  const body = callBody(channel, row, content, occurredAt);
  const type = EVENT_OF[content.status];
  if (type === 'call.rejected')
    await recordEvent(
      tx,
      channel.organizationId,
      type,
      { ...body, rejected_by: content.rejected_by ?? 'phone' } as EventBodies['call.rejected'],
      at,
    );
  else await recordEvent(tx, channel.organizationId, type, body, at);
}

/** Moves a call's record to `status` (with the times it implies) and records its event; the updated row. */
export async function moveCall(
  tx: Executor,
  channel: ChannelRow,
  row: MessageRow,
  status: CallStatus,
  occurredAt: Date,
  at: Date,
  extra: Partial<CallContent> = {},
): Promise<MessageRow> {
  const before = row.content as unknown as CallContent;
  const content: CallContent = {
    ...before,
    ...extra,
    status,
    ...(status === 'answered' ? { answered_at: occurredAt.toISOString() } : {}),
    ...(status !== 'ringing' && status !== 'answered' ? { ended_at: occurredAt.toISOString() } : {}),
  };
  const [updated] = await tx
    .update(messages)
    .set({ content: content as unknown as Record<string, unknown>, updatedAt: at })
    .where(eq(messages.id, row.id))
    .returning();
  await recordCallEvent(tx, channel, updated!, content, at, occurredAt);
  return updated!;
}

/**
 * Applies a provider's report of a call, in the caller's transaction: the first report of a call makes
 * its record (the caller's contact and conversation as for a message, message.new, then the call's
 * event); a later one moves it on where its status allows (a repeated or late report changes nothing).
 * A call that starts ringing on a channel that rejects calls gets its `call.reject` job.
 */
export async function applyCall(deps: CallApplyDeps, tx: Executor, channel: ChannelRow, event: CallEvent, at: Date): Promise<void> {
  const [existing] = await tx
    .select()
    .from(messages)
    .where(and(eq(messages.channelId, channel.id), eq(messages.providerMessageId, event.callId)))
    .for('update')
    .limit(1);
  if (existing) {
    if (existing.type !== 'call') return;
    const next = nextCallStatus((existing.content as unknown as CallContent).status, event.status);
    if (next) await moveCall(tx, channel, existing, next, event.timestamp, at, next === 'rejected' ? { rejected_by: 'phone' } : {});
    return;
  }
  const status = nextCallStatus(undefined, event.status)!;
  const from = event.from.replace(/^\+/, '');
  const lid = event.identities?.find((i) => i.type === 'linked_id')?.value;
  const contact = await deps.resolveContact(tx, channel.organizationId, {
    phone: `+${from}`,
    profileName: event.profileName,
    identities: event.identities ?? [{ type: 'chatapp_id', value: from }],
    at,
  });
  const conversation = await ensureConversation(tx, channel.organizationId, channel.id, from, at, contact.contactId);
  const started = event.timestamp.toISOString();
  const content: CallContent & { from_lid?: string } = {
    call_id: event.callId,
    video: event.video,
    status,
    ...(status === 'rejected' ? { rejected_by: 'phone' as const } : {}),
    ...(event.group ? { group: { id: event.group } } : {}),
    started_at: started,
    ...(status === 'answered' ? { answered_at: started } : {}),
    ...(status !== 'ringing' && status !== 'answered' ? { ended_at: started } : {}),
    ...(lid ? { from_lid: lid } : {}),
  };
  const [row] = await tx
    .insert(messages)
    .values({
      id: uuidv7(),
      organizationId: channel.organizationId,
      channelId: channel.id,
      conversationId: conversation.id,
      contactId: contact.contactId,
      direction: 'inbound',
      toPhone: (channel.displayPhoneNumber ?? '').replace(/\D/g, ''),
      fromPhone: from,
      type: 'call',
      content: content as unknown as Record<string, unknown>,
      status: 'received',
      statusHistory: firstStatus('received', event.timestamp, at),
      providerMessageId: event.callId,
      createdAt: at,
      updatedAt: at,
    })
    .onConflictDoNothing()
    .returning();
  if (!row) return;
  await touchInbound(tx, conversation, event.timestamp, previewOf(content), contact.contactId, at);
  await recordEvent(
    tx,
    channel.organizationId,
    'message.new',
    {
      message_id: row.id,
      conversation_id: conversation.id,
      contact_id: contact.contactId,
      channel_id: channel.id,
      direction: 'inbound',
      from_phone: from,
      ...(lid ? { from_lid: lid } : {}),
      msg_type: 'call',
    },
    at,
  );
  await recordCallEvent(tx, channel, row, content, at, event.timestamp);
  if (status === 'ringing' && rejectsCalls(channel))
    await deps.queue.enqueue(tx, 'call.reject', { message_id: row.id }, { singletonKey: row.id });
}
