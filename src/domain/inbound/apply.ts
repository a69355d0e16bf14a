/**
 * Applying one stored provider delivery (the `provider.inbound` job): its normalized events change
 * channels (status, health, reported errors), templates (status, category, quality, the provider's
 * note), messages (statuses, inbound messages) and contacts (a changed number, profiles), and announce groups'
 * changes, in one transaction with the delivery marked done.
 */
import { recordMarketingPreference } from '../contacts/opt-out.ts';
import { applyLabelAssociation, applyLabelEdit } from '../channels/labels.ts';
import { applyChatUpdate, applyMessageStarred } from '../channels/chats.ts';
import { and, desc, eq, inArray, sql } from 'drizzle-orm';
import type { Db, Executor } from '../../db/client.ts';
import { channels, channelStatusHistory, conversations, providerEvents } from '../../db/schema.ts';
import type { Clock } from '../../lib/clock.ts';
import type { Logger } from '../../lib/logger.ts';
import type { Queue } from '../../jobs/queue.ts';
import type { InboundEvent, Platform, ProviderInbound } from '../../providers/provider.ts';
import { findChannel, recordChannelFault, reloadChannel, type ChannelRow } from '../channels/channels.ts';
import { transitionChannel } from '../channels/status.ts';
import type { NumberChanger } from '../contacts/number-change.ts';
import { applyCall, type CallApplyDeps } from '../calls/calls.ts';
import { applyContactProfiles } from '../contacts/profiles.ts';
import { recordEvent, type EventBodies } from '../events/outbox.ts';
import { UnknownMessageError, type MessageApplier, type StatusEvent } from '../messages/provider-events.ts';
import { conversationUpdated } from '../messages/conversations.ts';
import { applyTemplateReport } from '../templates/templates.ts';
import { isForChannel } from './accept.ts';
import { deferStatuses } from './defer.ts';
import { eventsOfStored } from './stored.ts';

export type InboundApplyDeps = {
  db: Db;
  /** Where reports of messages not known yet are enqueued again. */
  queue: Queue;
  clock: Clock;
  logger: Logger;
  /** Each platform's inbound half: normalizes rows stored raw by versions before stored.ts's. */
  inbound: (platform: Platform) => ProviderInbound;
  /** Message statuses and inbound messages (with their contacts). */
  messages: MessageApplier;
  /** A customer's number changing (the CRM's rule). */
  changeNumber: NumberChanger;
  /** Calls (their records, and the job that rejects them where the channel says so). */
  calls: CallApplyDeps;
};

/** How long a status for an unknown message is retried (its send may not have committed yet). */
export const UNKNOWN_MESSAGE_GRACE_MS = 120_000;

/**
 * Applies a stored delivery once. Status reports naming messages not known yet (their sends' answers
 * are still being written, or were lost and are being settled) do not hold up the rest: the others
 * are applied, and those are stored as a delivery of their own, due again shortly, until
 * UNKNOWN_MESSAGE_GRACE_MS after the first receipt; then they are skipped and logged. Any other event
 * naming an unknown message throws (the job is retried) through the same grace, after which the
 * events are applied one by one and those skipped. A database error throws; only a deleted channel
 * drops the delivery.
 */
export async function applyProviderDelivery(deps: InboundApplyDeps, input: { deliveryId: string }): Promise<void> {
  const { db, clock, logger } = deps;
  const [stored] = await db.select().from(providerEvents).where(eq(providerEvents.id, input.deliveryId)).limit(1);
  if (!stored || stored.processedAt) return;
  const channel = await findChannel(db, stored.channelId);
  if (!channel) return;
  const events =
    eventsOfStored(stored.payload) ??
    deps
      .inbound(stored.platform as Platform)
      .normalize(stored.payload)
      .filter((e) => isForChannel(e, channel));
  const inGrace = () => clock.now().getTime() - stored.receivedAt.getTime() < UNKNOWN_MESSAGE_GRACE_MS;
  try {
    await db.transaction(async (tx) => {
      let current = channel;
      const unknown: StatusEvent[] = [];
      for (const run of runsOf(events)) {
        if (Array.isArray(run)) unknown.push(...(await deps.messages.applyStatuses(tx, current, run, clock.now())));
        else current = await applyEvent(deps, tx, current, run, clock.now());
      }
      let skipped: string | null = null;
      if (unknown.length > 0 && inGrace()) await deferStatuses(deps.queue, tx, stored, unknown);
      else if (unknown.length > 0) {
        skipped = unknown.map((e) => `no message ${e.providerMessageId} on channel ${channel.id}`).join('; ');
        logger.warn({ provider_event_id: stored.id, skipped }, 'statuses for unknown messages ignored');
      }
      await tx
        .update(providerEvents)
        .set({ processedAt: clock.now(), ...(skipped ? { error: skipped.slice(0, 1000) } : {}) })
        .where(eq(providerEvents.id, stored.id));
    });
  } catch (err) {
    if (!(err instanceof UnknownMessageError)) throw err;
    if (inGrace()) throw err;
    // Still unknown after the grace period (a message sent outside Parley): apply the events one
    // by one and skip those about unknown messages.
    let current = channel;
    const skipped: string[] = [];
    for (const event of events) {
      try {
        current = await db.transaction((tx) => applyEvent(deps, tx, current, event, clock.now()));
      } catch (inner) {
        if (!(inner instanceof UnknownMessageError)) throw inner;
        skipped.push(inner.message);
      }
    }
    logger.warn({ provider_event_id: stored.id, skipped }, 'statuses for unknown messages ignored');
    await db
      .update(providerEvents)
      .set({ processedAt: clock.now(), error: skipped.join('; ').slice(0, 1000) })
      .where(eq(providerEvents.id, stored.id));
  }
  logger.debug({ provider_event_id: stored.id, channel_id: channel.id, events: events.length }, 'applied provider events');
}

/** The events in order, consecutive status reports together (they are applied as a set). */
function runsOf(events: InboundEvent[]): Array<InboundEvent | StatusEvent[]> {
  const runs: Array<InboundEvent | StatusEvent[]> = [];
  for (const event of events) {
    const last = runs.at(-1);
    if (event.kind === 'message.status' && Array.isArray(last)) last.push(event);
    else runs.push(event.kind === 'message.status' ? [event] : event);
  }
  return runs;
}

/** Applies one event to its channel; returns the channel as it now is. */
async function applyEvent(deps: InboundApplyDeps, tx: Executor, channel: ChannelRow, event: InboundEvent, at: Date): Promise<ChannelRow> {
  switch (event.kind) {
    case 'channel.status':
      return applyChannelStatus(tx, channel, event, at);
    case 'channel.health':
      return applyChannelHealth(tx, channel, event, at);
    case 'template.status':
      if (event.unknown)
        deps.logger.warn(
          { channel_id: channel.id, provider_template_id: event.providerTemplateId, event: event.event },
          'template report of an unknown kind kept as a note; the status is unchanged',
        );
      await applyTemplateReport(tx, channel, event, at);
      return channel;
    case 'template.category':
    case 'template.quality':
      await applyTemplateReport(tx, channel, event, at);
      return channel;
    case 'channel.errors':
      return applyChannelErrors(deps, tx, channel, event, at);
    case 'contact.marketing_preference':
      await recordMarketingPreference(tx, channel.organizationId, event, at);
      return channel;
    case 'group.update':
      await recordEvent(tx, channel.organizationId, 'group.updated', groupUpdated(channel, event), at);
      return channel;
    case 'chat.update':
      await applyChatUpdate(tx, channel, event, at);
      return channel;
    case 'message.starred':
      await applyMessageStarred(tx, channel, event, at);
      return channel;
    case 'presence.update':
      await recordEvent(
        tx,
        channel.organizationId,
        'presence.updated',
        {
          channel_id: channel.id,
          organization_id: channel.organizationId,
          phone: event.phone,
          lid: event.lid ?? null,
          chat_id: event.chat ?? null,
          presence: event.presence,
          last_seen: event.lastSeen?.toISOString() ?? null,
          occurred_at: event.timestamp.toISOString(),
        },
        at,
      );
      return channel;
    case 'label.edit':
      await applyLabelEdit(tx, channel, event, at);
      return channel;
    case 'label.association':
      await applyLabelAssociation(tx, channel, event, at);
      return channel;
    case 'message.status':
    case 'message.inbound':
    case 'message.echo':
    case 'message.edited':
    case 'message.deleted':
      await deps.messages.apply(tx, channel, event, at);
      return channel;
    case 'contact.number_changed':
      await applyNumberChange(deps, tx, channel, event, at);
      return channel;
    case 'contact.profiles':
      await applyContactProfiles(tx, channel.organizationId, event.profiles, at);
      return channel;
    case 'call':
      await applyCall(deps.calls, tx, channel, event, at);
      return channel;
    default:
      return event satisfies never;
  }
}

const refOf = (channel: ChannelRow) => ({
  id: channel.id,
  organizationId: channel.organizationId,
  platform: channel.platform as Platform,
  status: channel.status,
});

/** A report older than the last one applied (callbacks overtake each other) is history, not news. */
const isStale = (channel: ChannelRow, timestamp: Date | undefined) =>
  Boolean(timestamp && channel.statusReportedAt && timestamp.getTime() < channel.statusReportedAt.getTime());

/**
 * The channel as committed now, locked until the transaction ends: a report is judged against the
 * newest report applied, not against the row as it was when this delivery was picked up (another
 * delivery of the same channel may have committed since).
 */
async function lockChannel(tx: Executor, channelId: string): Promise<ChannelRow> {
  const [row] = await tx.select().from(channels).where(eq(channels.id, channelId)).for('update');
  return row!;
}

/** The time of the newest report applied only moves forward. */
async function markReported(tx: Executor, channelId: string, timestamp: Date | undefined): Promise<void> {
  if (!timestamp) return;
  await tx
    .update(channels)
    .set({ statusReportedAt: sql`greatest(${channels.statusReportedAt}, ${timestamp.toISOString()}::timestamptz)` })
    .where(eq(channels.id, channelId));
}

async function applyChannelStatus(
  tx: Executor,
  picked: ChannelRow,
  event: Extract<InboundEvent, { kind: 'channel.status' }>,
  at: Date,
): Promise<ChannelRow> {
  const channel = await lockChannel(tx, picked.id);
  if (isStale(channel, event.timestamp)) return channel;
  const reason = event.reason ?? `provider reported ${event.status}`;
  const moved = await transitionChannel(tx, refOf(channel), event.status, reason, event.reasonCode ?? null, at);
  await markReported(tx, channel.id, event.timestamp);
  if (event.reconnectAttempts !== undefined) {
    // Reconnecting by itself: the health shows why, the attempts and the next try; a channel already
    // in this status takes the newer reason (it names the next try) without a move in its history.
    await tx
      .update(channels)
      .set({
        reconnectAttempts: event.reconnectAttempts,
        nextRetryAt: event.nextRetryAt ?? null,
        lastErrorCode: event.reasonCode ?? 'reconnecting',
        lastErrorMessage: reason.slice(0, 1000),
        lastErrorAt: event.timestamp ?? at,
        ...(!moved.changed && moved.status === event.status ? { statusReason: reason } : {}),
        updatedAt: at,
      })
      .where(eq(channels.id, channel.id));
  }
  if (event.status === 'connected') {
    await tx
      .update(channels)
      .set({
        reconnectAttempts: 0,
        lastCheckedAt: at,
        ...(event.phone ? { displayPhoneNumber: `+${event.phone.replace(/^\+/, '')}` } : {}),
      })
      .where(eq(channels.id, channel.id));
  }
  return reloadChannel(tx, channel.id);
}

/**
 * A health report: a block or a warning becomes the channel's last error, and a block moves it to
 * `error`; a lifted block returns an `error` channel to `connected` when that block put it there.
 */
async function applyChannelHealth(
  tx: Executor,
  picked: ChannelRow,
  event: Extract<InboundEvent, { kind: 'channel.health' }>,
  at: Date,
): Promise<ChannelRow> {
  const channel = await lockChannel(tx, picked.id);
  if (event.effect !== 'degraded' && isStale(channel, event.timestamp)) return channel;
  let moved = false;
  if (event.effect === 'restored') {
    if (channel.status !== 'error') return channel;
    const [last] = await tx
      .select({ reasonCode: channelStatusHistory.reasonCode })
      .from(channelStatusHistory)
      .where(eq(channelStatusHistory.channelId, channel.id))
      .orderBy(desc(channelStatusHistory.createdAt), desc(channelStatusHistory.id))
      .limit(1);
    if (!last?.reasonCode || !(event.lifts ?? []).includes(last.reasonCode)) return channel;
    moved = (await transitionChannel(tx, refOf(channel), 'connected', event.message, event.code, at)).changed;
  } else {
    await tx
      .update(channels)
      .set({ lastErrorCode: event.code, lastErrorMessage: event.message.slice(0, 1000), lastErrorAt: event.timestamp ?? at, updatedAt: at })
      .where(eq(channels.id, channel.id));
    if (event.effect === 'blocked') moved = (await transitionChannel(tx, refOf(channel), 'error', event.message, event.code, at)).changed;
  }
  if (moved) await markReported(tx, channel.id, event.timestamp);
  return reloadChannel(tx, channel.id);
}

/**
 * Failures the provider reported for the number beside any message (the delivery stored with them is
 * their record): logged, and the first is kept as the channel's health; one the provider module says
 * is the channel's own fault (a revoked token) moves it to `error`.
 */
async function applyChannelErrors(
  deps: InboundApplyDeps,
  tx: Executor,
  channel: ChannelRow,
  event: Extract<InboundEvent, { kind: 'channel.errors' }>,
  at: Date,
): Promise<ChannelRow> {
  deps.logger.warn(
    { channel_id: channel.id, errors: event.errors.map((e) => ({ code: e.code, title: e.title, details: e.details })) },
    'provider reported errors for the channel',
  );
  const [first] = event.errors;
  if (!first) return channel;
  const title = first.details && first.details !== first.title ? `${first.title}: ${first.details}` : first.title;
  await recordChannelFault(tx, channel, { code: first.code, title, channelFault: first.channelFault }, at);
  return reloadChannel(tx, channel.id);
}

/** A group update as its event's body: the provider's names, only what it reported. */
function groupUpdated(channel: ChannelRow, event: Extract<InboundEvent, { kind: 'group.update' }>): EventBodies['group.updated'] {
  const d = event.details;
  type Body = EventBodies['group.updated'];
  const list = (v: unknown) => (Array.isArray(v) ? (v as NonNullable<Body['added_participants']>) : undefined);
  const lists = (['added_participants', 'removed_participants', 'promoted_participants', 'demoted_participants'] as const).flatMap(
    (key) => {
      const found = list(d[key]);
      return found ? [[key, found] as const] : [];
    },
  );
  return {
    channel_id: channel.id,
    organization_id: channel.organizationId,
    group_id: event.groupId,
    change: event.change,
    request_id: event.requestId ?? null,
    ...(typeof d.subject === 'string' ? { subject: d.subject } : {}),
    ...(typeof d.description === 'string' ? { description: d.description } : {}),
    ...Object.fromEntries(lists),
    ...(d.settings && typeof d.settings === 'object' ? { settings: d.settings as Body['settings'] } : {}),
    ...(typeof d.author === 'string' ? { author: d.author } : {}),
    ...(d.profile_picture && typeof d.profile_picture === 'object' ? { profile_picture: d.profile_picture as { mime_type?: string } } : {}),
    ...(Array.isArray(d.errors) ? { errors: d.errors as EventBodies['group.updated']['errors'] } : {}),
    occurred_at: event.timestamp.toISOString(),
  };
}

/**
 * The customer now writes from another number: their contact moves to it (the CRM's rule) and this
 * channel's conversation with the old number continues under the new one (unless the new number has
 * its own already). No chat message is stored.
 */
async function applyNumberChange(
  deps: InboundApplyDeps,
  tx: Executor,
  channel: ChannelRow,
  event: Extract<InboundEvent, { kind: 'contact.number_changed' }>,
  at: Date,
): Promise<void> {
  const from = event.from.replace(/^\+/, '');
  const to = event.to.replace(/^\+/, '');
  if (from === to) return;
  const moved = await deps.changeNumber(tx, channel.organizationId, { from, to, at });
  const peers = await tx
    .select()
    .from(conversations)
    .where(and(eq(conversations.channelId, channel.id), inArray(conversations.peerPhone, [from, to])));
  const old = peers.find((c) => c.peerPhone === from);
  if (old && !peers.some((c) => c.peerPhone === to)) {
    const [updated] = await tx
      .update(conversations)
      .set({ peerPhone: to, ...(moved && !old.contactId ? { contactId: moved.contactId } : {}), updatedAt: at })
      .where(eq(conversations.id, old.id))
      .returning();
    await recordEvent(tx, channel.organizationId, 'conversation.updated', conversationUpdated(updated!), at);
  }
  deps.logger.info({ channel_id: channel.id, contact_id: moved?.contactId ?? null }, 'customer changed number');
}
