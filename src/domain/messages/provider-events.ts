/**
 * What provider webhooks do to messages: status callbacks move outbound messages forward, inbound
 * messages are stored (once), attach to their contact and conversation, open the window and record
 * message.new; echoes (the business's own messages from its phone) are stored once as sent outbound
 * messages; edits change a message's text and deletions mark it, each with its event. The media
 * inbound messages and echoes carry is recorded pending with its download job (inbound-media.ts).
 */
import { createHash } from 'node:crypto';
import { and, eq, inArray, isNull, or } from 'drizzle-orm';
import type { Executor } from '../../db/client.ts';
import { batchIds } from '../../db/batch-rows.ts';
import { messages } from '../../db/schema.ts';
import { isUuid, uuidv7 } from '../../lib/ids.ts';
import type { InboundEvent, InboundMedia } from '../../providers/provider.ts';
import { recordChannelFault, type ChannelRow } from '../channels/channels.ts';
import { holdTemplate } from '../templates/templates.ts';
import { recordEvent } from '../events/outbox.ts';
import { previewOf } from './content.ts';
import { ensureConversation, refreshPreviewOf, touchInbound, touchOutbound, type ConversationRow } from './conversations.ts';
import { recordInboundMedia, type MediaRecordDeps } from './inbound-media.ts';
import type { InboundBotRecorder } from '../bots/inbound.ts';
import { advanceStatus, advanceStatuses, findByProviderId, firstStatus, type MessageRow, type StatusMove } from './messages.ts';

/**
 * Stores a message a provider reported, once (its provider id is unique per channel), with the media
 * it carries (pending, with its download job) and its first status; false when it was stored before.
 */
async function storeOnce(
  tx: Executor,
  values: typeof messages.$inferInsert,
  event: { timestamp: Date; media?: InboundMedia },
  deps: MessageApplierDeps,
  at: Date,
): Promise<boolean> {
  const inserted = await tx
    .insert(messages)
    .values({ ...values, statusHistory: firstStatus(values.status, event.timestamp, at) })
    .onConflictDoNothing()
    .returning({ id: messages.id });
  if (inserted.length === 0) return false;
  if (event.media) await recordInboundMedia(deps.media, tx, { id: values.id, organizationId: values.organizationId }, event.media, at);
  return true;
}

/** A status for a message not (yet) known: the send may not have committed; the caller retries. */
export class UnknownMessageError extends Error {}

export type InboundContactResolver = (
  tx: Executor,
  organizationId: string,
  input: { phone: string; profileName?: string; identities: Array<{ type: string; value: string }>; at: Date },
) => Promise<{ contactId: string; created: boolean }>;

export type MessageEvent = Extract<
  InboundEvent,
  { kind: 'message.status' | 'message.inbound' | 'message.echo' | 'message.edited' | 'message.deleted' }
>;

/** Applies message events of a channel, in the caller's transaction, at `at` (now). */
export type MessageApplier = {
  /** One event. */
  apply(tx: Executor, channel: ChannelRow, event: MessageEvent, at: Date): Promise<void>;
  /**
   * Status reports together, in order: the messages found in one statement and moved in one more
   * (advanceStatuses). Resolves to the reports naming messages not known (yet), which moved nothing.
   */
  applyStatuses(tx: Executor, channel: ChannelRow, events: StatusEvent[], at: Date): Promise<StatusEvent[]>;
};

/**
 * Records what an inbound `order` message placed (the orders' rule, domain/orders/inbound.ts), in the
 * transaction storing the message, called once: when the message is new.
 */
export type InboundOrderRecorder = (
  tx: Executor,
  message: { id: string; organizationId: string; contactId: string | null; conversationId: string; content: Record<string, unknown> },
  at: Date,
) => Promise<unknown>;

/**
 * Applies what an inbound message of a contact's own chat asks of the CRM (an opt-out by a stop keyword
 * or button, an opt-in by a start keyword: domain/contacts/opt-out.ts), in the transaction storing it, once.
 */
export type InboundOptOutRecorder = (
  tx: Executor,
  message: { id: string; organizationId: string; contactId: string | null; type: string; content: Record<string, unknown> },
  at: Date,
) => Promise<unknown>;

/**
 * Decides the away message and greeting an inbound message of a contact's own chat is owed and enqueues
 * their sending (domain/business-hours/auto-replies.ts), in the transaction storing it, once.
 */
export type InboundAutoReplyRecorder = (
  tx: Executor,
  message: {
    id: string;
    organizationId: string;
    channelId: string;
    conversationId: string;
    contactCreated: boolean;
    /** The bot that owns the conversation (none is sent then). */
    botId: string | null;
  },
  at: Date,
) => Promise<unknown>;

/**
 * Takes an inbound message of a resolved conversation as the answer to its satisfaction survey
 * (domain/csat/surveys.ts), in the transaction storing it: null when it is none; otherwise `finish`, called
 * once the message is recorded (after its message.new).
 */
export type InboundCsatRecorder = (
  tx: Executor,
  conversation: ConversationRow,
  message: { id: string; type: string; content: Record<string, unknown> },
  at: Date,
) => Promise<{ finish(): Promise<void> } | null>;

/**
 * Marks the broadcast recipient a customer message answers (domain/broadcasts/replies.ts), in the
 * transaction storing it, once.
 */
export type InboundReplyRecorder = (tx: Executor, message: { conversationId: string }, at: Date) => Promise<unknown>;

/**
 * Routes a customer's conversation to its channel's team and enqueues the team queue's assignment
 * (domain/teams/assignment.ts), in the transaction storing the message; `before` is the conversation as
 * it was before the message (its status says whether the message reopened it).
 */
export type InboundRoutingRecorder = (tx: Executor, before: ConversationRow, at: Date) => Promise<unknown>;

export type MessageApplierDeps = {
  resolveContact: InboundContactResolver;
  recordOrder: InboundOrderRecorder;
  /** Absent: inbound messages opt no one out. */
  recordOptOut?: InboundOptOutRecorder;
  /** Absent: no bots. Answers the bot that owns the conversation afterwards (domain/bots/inbound.ts). */
  recordBotMessage?: InboundBotRecorder;
  /** Absent: no away messages or greetings. */
  recordAutoReply?: InboundAutoReplyRecorder;
  /** Absent: no satisfaction answers (every message opens a resolved conversation). */
  recordCsatAnswer?: InboundCsatRecorder;
  /** Absent: broadcast recipients are never marked replied. */
  recordReply?: InboundReplyRecorder;
  /** Absent: conversations go to no team's queue. */
  routeConversation?: InboundRoutingRecorder;
  /** Where an inbound message's media download is enqueued (inbound-media.ts). */
  media: MediaRecordDeps;
};

/** The message applier; inbound senders become contacts through `resolveContact` (the CRM's rule). */
export function createMessageApplier(deps: MessageApplierDeps): MessageApplier {
  const apply: MessageApplier['apply'] = async (tx, channel, event, at) => {
    switch (event.kind) {
      case 'message.status': {
        const [unknown] = await applyStatuses(tx, channel, [event], at);
        if (unknown) throw new UnknownMessageError(`no message ${unknown.providerMessageId} on channel ${channel.id}`);
        return;
      }
      case 'message.inbound':
        return applyInbound(tx, channel, event, at, deps);
      case 'message.echo':
        return applyEcho(tx, channel, event, at, deps);
      case 'message.edited':
        return applyEdited(tx, channel, event, at);
      case 'message.deleted':
        return applyDeleted(tx, channel, event, at);
      default:
        return event satisfies never;
    }
  };
  return { apply, applyStatuses };
}

export type StatusEvent = Extract<InboundEvent, { kind: 'message.status' }>;

/**
 * Status reports of a channel: each names its message by the provider's id, or by our own id echoed
 * back (a send whose answer was lost has no provider id yet). One statement finds them all.
 */
export async function applyStatuses(tx: Executor, channel: ChannelRow, events: StatusEvent[], now: Date): Promise<StatusEvent[]> {
  const providerIds = [...new Set(events.map((e) => e.providerMessageId))];
  const ownIds = [...new Set(events.map((e) => e.callbackData).filter((id): id is string => id !== undefined && isUuid(id)))];
  const rows = await tx
    .select()
    .from(messages)
    .where(
      and(
        eq(messages.channelId, channel.id),
        // The ids as JSON parameters: one prepared statement whatever the number of reports (db/batch-rows.ts).
        or(
          inArray(messages.providerMessageId, batchIds(providerIds, 'text')),
          ownIds.length > 0 ? and(inArray(messages.id, batchIds(ownIds)), isNull(messages.providerMessageId)) : undefined,
        ),
      ),
    );
  const byProviderId = new Map(rows.filter((r) => r.providerMessageId !== null).map((r) => [r.providerMessageId!, r]));
  const byOwnId = new Map(rows.filter((r) => r.providerMessageId === null).map((r) => [r.id, r]));
  const unknown: StatusEvent[] = [];
  const known: Array<{ event: StatusEvent; move: StatusMove }> = [];
  for (const event of events) {
    const row = byProviderId.get(event.providerMessageId) ?? (event.callbackData ? byOwnId.get(event.callbackData) : undefined);
    if (!row) {
      unknown.push(event);
      continue;
    }
    known.push({
      event,
      move: {
        row,
        to: event.status,
        occurredAt: event.timestamp,
        providerMessageId: event.providerMessageId,
        ...(event.status === 'failed'
          ? { error: event.error ?? { code: 'failed', title: 'the provider reported the message failed' } }
          : {}),
        ...(event.pricing || event.conversation
          ? {
              billing: {
                ...(event.pricing ? { pricing: event.pricing } : {}),
                ...(event.conversation ? { conversation: event.conversation } : {}),
              },
            }
          : {}),
      },
    });
  }
  const moved = await advanceStatuses(
    tx,
    known.map((k) => k.move),
    now,
  );
  for (const [i, { event, move }] of known.entries()) {
    if (moved[i] && event.status === 'failed' && event.error) await applyFailureScope(tx, channel, move.row, event.error, now);
  }
  return unknown;
}

/**
 * A failure reported later by status, about more than this message, has the consequences a refused send
 * has (dispatch.ts): the channel's own fault marks it `error` with its health; a template the provider
 * holds back takes that status. (A recipient hold lasts seconds and lives in the dispatching process.)
 */
async function applyFailureScope(tx: Executor, channel: ChannelRow, row: MessageRow, error: NonNullable<StatusEvent['error']>, now: Date) {
  if (error.scope === 'channel') await recordChannelFault(tx, channel, error, now);
  if (error.scope === 'template' && error.templateStatus) {
    const template = row.content.template as { name?: unknown; language?: { code?: unknown } } | undefined;
    if (typeof template?.name === 'string' && typeof template.language?.code === 'string') {
      await holdTemplate(
        tx,
        channel,
        { name: template.name, language: template.language.code },
        error.templateStatus,
        error.message ?? error.title,
        now,
      );
    }
  }
}

async function applyInbound(
  tx: Executor,
  channel: ChannelRow,
  event: Extract<InboundEvent, { kind: 'message.inbound' }>,
  at: Date,
  deps: MessageApplierDeps,
) {
  const [existing] = await tx
    .select()
    .from(messages)
    .where(and(eq(messages.channelId, channel.id), eq(messages.providerMessageId, event.providerMessageId)))
    .limit(1);
  if (existing) {
    if (isPlaceholder(existing) && event.type !== 'unsupported') await completePlaceholder(tx, channel, existing, event, at, deps);
    return;
  }
  const from = event.from.replace(/^\+/, '');
  const contact = await deps.resolveContact(tx, channel.organizationId, {
    phone: `+${from}`,
    profileName: event.profileName,
    identities: event.identities ?? [],
    at,
  });
  // A group's message (or a status post) is the chat's conversation, with no one contact of its own; the sender stays the message's.
  const conversation = event.chat
    ? await ensureConversation(tx, channel.organizationId, channel.id, event.chat, at)
    : await ensureConversation(tx, channel.organizationId, channel.id, from, at, contact.contactId);
  const conversationContact = event.chat ? null : contact.contactId;
  const id = uuidv7();
  const given = event.type === 'poll_vote' ? await namePollVote(tx, channel.id, event.content) : event.content;
  const content = { ...given, ...(event.replyTo ? { reply_to: { id: event.replyTo } } : {}) };
  const stored = await storeOnce(
    tx,
    {
      id,
      organizationId: channel.organizationId,
      channelId: channel.id,
      conversationId: conversation.id,
      contactId: contact.contactId,
      direction: 'inbound',
      toPhone: (channel.displayPhoneNumber ?? '').replace(/\D/g, ''),
      fromPhone: from,
      type: event.type,
      content,
      status: 'received',
      providerMessageId: event.providerMessageId,
      // Receipt time, not the provider's: list cursors stay stable while messages arrive. A message of the
      // chat's history (asked of the phone, or its sync) takes its own time: it goes where it was in the chat.
      createdAt: event.history ? event.timestamp : at,
      updatedAt: at,
    },
    event,
    deps,
    at,
  );
  if (!stored) return;
  if (event.type === 'order')
    await deps.recordOrder(
      tx,
      { id, organizationId: channel.organizationId, contactId: contact.contactId, conversationId: conversation.id, content },
      at,
    );
  // A notice (a changed security code) is shown in the chat but is not the customer writing: no window, nothing unread.
  // A message of the history is old news: the last message moves only if it is newer, nothing is unread.
  // A rating of the conversation's satisfaction survey leaves it resolved, and is answered by no away message.
  const csatAnswer =
    !event.chat && !event.notice && !event.history && deps.recordCsatAnswer
      ? await deps.recordCsatAnswer(tx, conversation, { id, type: event.type, content }, at)
      : null;
  if (event.history) await touchOutbound(tx, conversation, event.timestamp, previewOf(event.type, event.content), conversationContact, at);
  else if (!event.notice)
    await touchInbound(tx, conversation, event.timestamp, previewOf(event.type, event.content), conversationContact, at, {
      answer: csatAnswer !== null,
    });
  await recordEvent(
    tx,
    channel.organizationId,
    'message.new',
    {
      message_id: id,
      conversation_id: conversation.id,
      contact_id: contact.contactId,
      channel_id: channel.id,
      direction: 'inbound',
      from_phone: from,
      ...lidOf(event.identities),
      msg_type: event.type,
    },
    at,
  );
  // After message.new, so its contact.suppressed follows it. Only the contact's own chat speaks for it (not a group, a status post, or a notice).
  if (!event.chat && !event.notice && deps.recordOptOut)
    await deps.recordOptOut(
      tx,
      { id, organizationId: channel.organizationId, contactId: contact.contactId, type: event.type, content },
      at,
    );
  await csatAnswer?.finish();
  // A broadcast message's reply: what the customer writes now in its own chat.
  if (!event.chat && !event.notice && !event.history && deps.recordReply)
    await deps.recordReply(tx, { conversationId: conversation.id }, at);
  if (!event.chat && !event.notice && !event.history && deps.routeConversation) await deps.routeConversation(tx, conversation, at);
  // Only what the customer writes now (not history, a notice, a group, a status post or a survey's answer) goes to a bot or is answered.
  if (!event.chat && !event.notice && !event.history && !csatAnswer) {
    const botId = deps.recordBotMessage
      ? await deps.recordBotMessage(
          tx,
          {
            id,
            organizationId: channel.organizationId,
            channelId: channel.id,
            conversationId: conversation.id,
            content,
            botId: conversation.botId,
            botPausedAt: conversation.botPausedAt,
          },
          at,
        )
      : conversation.botId;
    if (deps.recordAutoReply)
      await deps.recordAutoReply(
        tx,
        {
          id,
          organizationId: channel.organizationId,
          channelId: channel.id,
          conversationId: conversation.id,
          contactCreated: contact.created,
          botId,
        },
        at,
      );
  }
  // A contact's status post (kept only where the channel keeps them: the engine drops the others).
  if (event.chat === 'status@broadcast')
    await recordEvent(
      tx,
      channel.organizationId,
      'status.received',
      {
        channel_id: channel.id,
        organization_id: channel.organizationId,
        message_id: id,
        conversation_id: conversation.id,
        contact_id: contact.contactId,
        from_phone: `+${from}`,
        type: event.type,
        occurred_at: event.timestamp.toISOString(),
      },
      at,
    );
}

/** The sender's privacy id, where the provider gave one (a `linked_id` identity), as message.new's `from_lid`. */
function lidOf(identities: Array<{ type: string; value: string }> | undefined): { from_lid?: string } {
  const lid = identities?.find((i) => i.type === 'linked_id')?.value;
  return lid ? { from_lid: lid } : {};
}

/**
 * A message stored as `unsupported` that the provider said may still come (`placeholder: true` in its
 * content: the embedded engine's message that could not be decrypted, whose sender's phone is asked
 * to send it again under the same id).
 */
const isPlaceholder = (row: MessageRow) => row.direction === 'inbound' && row.type === 'unsupported' && row.content.placeholder === true;

/**
 * The message a placeholder stood for arrived: it takes the placeholder's place (same message, its
 * type and content, the media it carries), and message.edited says its content changed.
 */
async function completePlaceholder(
  tx: Executor,
  channel: ChannelRow,
  row: MessageRow,
  event: Extract<InboundEvent, { kind: 'message.inbound' }>,
  at: Date,
  deps: MessageApplierDeps,
) {
  const given = event.type === 'poll_vote' ? await namePollVote(tx, channel.id, event.content) : event.content;
  const content = { ...given, ...(event.replyTo ? { reply_to: { id: event.replyTo } } : {}) };
  const [updated] = await tx
    .update(messages)
    .set({ type: event.type, content, editedAt: at, updatedAt: at })
    .where(and(eq(messages.id, row.id), eq(messages.type, 'unsupported')))
    .returning({ id: messages.id });
  if (!updated) return;
  await refreshPreviewOf(tx, row, previewOf(event.type, content));
  if (event.media) await recordInboundMedia(deps.media, tx, { id: row.id, organizationId: row.organizationId }, event.media, at);
  await recordEvent(
    tx,
    channel.organizationId,
    'message.edited',
    { message_id: row.id, conversation_id: row.conversationId, channel_id: channel.id, direction: 'inbound', edited_at: at.toISOString() },
    at,
  );
}

/**
 * A poll vote names the options chosen by the SHA-256 of their text (the chat app's way): named here
 * from the poll as stored (the one Parley sent), and kept as hashes when the poll is not known.
 */
async function namePollVote(tx: Executor, channelId: string, content: Record<string, unknown>): Promise<Record<string, unknown>> {
  const hashes = content.selected_option_hashes;
  if (typeof content.poll_id !== 'string' || !Array.isArray(hashes)) return content;
  const [poll] = await tx
    .select({ id: messages.id, content: messages.content })
    .from(messages)
    .where(and(eq(messages.channelId, channelId), eq(messages.providerMessageId, content.poll_id), eq(messages.type, 'poll')))
    .limit(1);
  const options = Array.isArray(poll?.content.options)
    ? (poll.content.options as unknown[]).filter((o): o is string => typeof o === 'string')
    : [];
  const byHash = new Map(options.map((o) => [createHash('sha256').update(o).digest('hex'), o]));
  const names = hashes.map((h) => byHash.get(String(h)));
  if (!poll || names.some((n) => n === undefined)) return content;
  const { selected_option_hashes: _hashes, ...rest } = content;
  return { ...rest, poll_message_id: poll.id, selected_options: names };
}

type EchoEvent = Extract<InboundEvent, { kind: 'message.echo' }>;

/**
 * The business sent a message from its phone or another linked device: stored once (by the provider's
 * id) in the customer's conversation as an outbound message that is `sent` and never dispatched, with
 * message.new (direction outbound), message.sent and message.status_update. Parley's own send coming
 * back (it names its message) stores nothing new; a send whose answer was lost is settled by it as sent.
 */
async function applyEcho(tx: Executor, channel: ChannelRow, event: EchoEvent, at: Date, deps: MessageApplierDeps) {
  const known = await findByProviderId(tx, channel.id, event.providerMessageId, event.callbackData);
  if (known) {
    if (known.status === 'queued')
      await advanceStatus(tx, known, 'sent', event.timestamp, at, { providerMessageId: event.providerMessageId });
    return;
  }
  if (event.callbackData) {
    // Parley's own message, already settled under this id or another: never stored twice.
    const [own] = await tx
      .select({ id: messages.id })
      .from(messages)
      .where(and(eq(messages.channelId, channel.id), eq(messages.id, event.callbackData)))
      .limit(1);
    if (own) return;
  }
  const to = event.to.replace(/^\+/, '');
  const contact = await deps.resolveContact(tx, channel.organizationId, {
    phone: `+${to}`,
    identities: [{ type: 'chatapp_id', value: to }],
    at,
  });
  const conversation = await ensureConversation(tx, channel.organizationId, channel.id, to, at, contact.contactId);
  const id = uuidv7();
  const content = { ...event.content, ...(event.replyTo ? { reply_to: { id: event.replyTo } } : {}) };
  const ours = (channel.displayPhoneNumber ?? '').replace(/\D/g, '');
  const stored = await storeOnce(
    tx,
    {
      id,
      organizationId: channel.organizationId,
      channelId: channel.id,
      conversationId: conversation.id,
      contactId: contact.contactId,
      direction: 'outbound',
      toPhone: to,
      fromPhone: ours || null,
      type: event.type,
      content,
      status: 'sent',
      providerMessageId: event.providerMessageId,
      dispatchAt: null,
      createdAt: event.history ? event.timestamp : at,
      updatedAt: at,
    },
    event,
    deps,
    at,
  );
  if (!stored) return;
  await touchOutbound(tx, conversation, event.timestamp, previewOf(event.type, event.content), contact.contactId, at);
  const ids = { message_id: id, conversation_id: conversation.id, channel_id: channel.id };
  await recordEvent(
    tx,
    channel.organizationId,
    'message.new',
    { ...ids, contact_id: contact.contactId, direction: 'outbound', from_phone: ours, msg_type: event.type },
    at,
  );
  await recordEvent(tx, channel.organizationId, 'message.sent', ids, at);
  await recordEvent(
    tx,
    channel.organizationId,
    'message.status_update',
    { message_id: id, status: 'sent', conversation_id: conversation.id, organization_id: channel.organizationId },
    at,
  );
}

/** Any message of the channel (ours or theirs) by the provider's id; unknown throws: its own event may not be applied yet (retried, then skipped). */
async function messageByProviderId(tx: Executor, channel: ChannelRow, providerMessageId: string): Promise<MessageRow> {
  const [row] = await tx
    .select()
    .from(messages)
    .where(and(eq(messages.channelId, channel.id), eq(messages.providerMessageId, providerMessageId)))
    .for('update')
    .limit(1);
  if (!row) throw new UnknownMessageError(`no message ${providerMessageId} on channel ${channel.id}`);
  return row;
}

const CAPTIONED = new Set(['image', 'video', 'document']);

/**
 * The sender changed a message's text: the body (a caption on media) takes the new text, edited_at the
 * time of the edit, and message.edited is recorded. An older edit arriving after a newer one, and an
 * edit of a deleted message, change nothing.
 */
async function applyEdited(tx: Executor, channel: ChannelRow, event: Extract<InboundEvent, { kind: 'message.edited' }>, at: Date) {
  const row = await messageByProviderId(tx, channel, event.providerMessageId);
  if (row.deletedAt || (row.editedAt && row.editedAt.getTime() >= event.timestamp.getTime())) return;
  const given = event.content.body ?? event.content.caption;
  if (typeof given !== 'string' || (row.type !== 'text' && !CAPTIONED.has(row.type))) return;
  const field = CAPTIONED.has(row.type) ? 'caption' : 'body';
  await tx
    .update(messages)
    .set({ content: { ...row.content, [field]: given }, editedAt: event.timestamp, updatedAt: at })
    .where(eq(messages.id, row.id));
  await recordEvent(
    tx,
    channel.organizationId,
    'message.edited',
    {
      message_id: row.id,
      conversation_id: row.conversationId,
      channel_id: channel.id,
      direction: row.direction as 'inbound' | 'outbound',
      edited_at: event.timestamp.toISOString(),
    },
    at,
  );
}

/**
 * The sender deleted a message for everyone: the row is kept, content included (the business keeps its
 * record of what it received or sent; inboxes show "this message was deleted"), deleted_at is set and
 * message.deleted recorded, once.
 */
async function applyDeleted(tx: Executor, channel: ChannelRow, event: Extract<InboundEvent, { kind: 'message.deleted' }>, at: Date) {
  const row = await messageByProviderId(tx, channel, event.providerMessageId);
  if (row.deletedAt) return;
  await tx.update(messages).set({ deletedAt: event.timestamp, updatedAt: at }).where(eq(messages.id, row.id));
  await recordEvent(
    tx,
    channel.organizationId,
    'message.deleted',
    {
      message_id: row.id,
      conversation_id: row.conversationId,
      channel_id: channel.id,
      direction: row.direction as 'inbound' | 'outbound',
      deleted_at: event.timestamp.toISOString(),
    },
    at,
  );
}
