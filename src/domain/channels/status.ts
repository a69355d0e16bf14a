/**
 * The channel status machine. Each platform's moves are its provider module's (status.transitions);
 * every change is stored with its time and reason in channel_status_history and recorded as a
 * `channel.status_update` event, in one transaction.
 */
import { and, eq } from 'drizzle-orm';
import type { Executor } from '../../db/client.ts';
import { channels, channelStatusHistory } from '../../db/schema.ts';
import { uuidv7 } from '../../lib/ids.ts';
import type { ChannelStatus, Platform } from '../../providers/provider.ts';
import { providerModule } from '../../providers/registry.ts';
import { recordEvent } from '../events/outbox.ts';

export { CHANNEL_STATUSES, type ChannelStatus } from '../../providers/provider.ts';

export function canTransition(platform: Platform | string, from: string, to: ChannelStatus): boolean {
  return providerModule(platform).status.transitions[from]?.includes(to) ?? false;
}

export type ChannelRef = { id: string; organizationId: string; platform: Platform | string; status: string };

export type TransitionResult = { changed: boolean; status: string };

/**
 * Moves a channel to `to`. A move the machine does not allow directly goes through `disconnected`
 * (a connected gateway asking for a new QR was logged out first). The same status is a no-op.
 */
export async function transitionChannel(
  db: Executor,
  channel: ChannelRef,
  to: ChannelStatus,
  reason: string,
  reasonCode: string | null,
  at: Date,
): Promise<TransitionResult> {
  if (channel.status === to) return { changed: false, status: to };
  if (!canTransition(channel.platform, channel.status, to)) {
    if (
      to !== 'disconnected' &&
      canTransition(channel.platform, channel.status, 'disconnected') &&
      canTransition(channel.platform, 'disconnected', to)
    ) {
      const step = await transitionChannel(db, channel, 'disconnected', reason, reasonCode, at);
      return transitionChannel(db, { ...channel, status: step.status }, to, reason, reasonCode, at);
    }
    throw new Error(`channel ${channel.id}: no transition ${channel.status} -> ${to} on ${channel.platform}`);
  }
  // Compare-and-set on the old status, so two concurrent transitions cannot both apply.
  const updated = await db
    .update(channels)
    // A retry the engine planned belongs to the status it was reported with (a report that plans one sets it after the move).
    .set({ status: to, statusReason: reason, statusChangedAt: at, nextRetryAt: null, updatedAt: at })
    .where(and(eq(channels.id, channel.id), eq(channels.status, channel.status)))
    .returning({ id: channels.id });
  if (updated.length === 0) return { changed: false, status: channel.status };
  await db.insert(channelStatusHistory).values({
    id: uuidv7(),
    organizationId: channel.organizationId,
    channelId: channel.id,
    fromStatus: channel.status,
    toStatus: to,
    reason,
    reasonCode,
    createdAt: at,
  });
  await recordEvent(
    db,
    channel.organizationId,
    'channel.status_update',
    {
      channel_id: channel.id,
      status: to,
      previous_status: channel.status,
      reason,
      reason_code: reasonCode,
      organization_id: channel.organizationId,
    },
    at,
  );
  return { changed: true, status: to };
}

/** Records a new channel's first status (from nothing). */
export async function recordInitialStatus(db: Executor, channel: ChannelRef, reason: string, at: Date): Promise<void> {
  await db.insert(channelStatusHistory).values({
    id: uuidv7(),
    organizationId: channel.organizationId,
    channelId: channel.id,
    fromStatus: null,
    toStatus: channel.status,
    reason,
    reasonCode: null,
    createdAt: at,
  });
  await recordEvent(
    db,
    channel.organizationId,
    'channel.status_update',
    {
      channel_id: channel.id,
      status: channel.status,
      previous_status: null,
      reason,
      reason_code: null,
      organization_id: channel.organizationId,
    },
    at,
  );
}
