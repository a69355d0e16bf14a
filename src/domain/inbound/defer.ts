/**
 * Status reports of messages not known yet (their sends' answers are still being written, or were
 * lost and are being settled), stored as a delivery of their own with its `provider.inbound` job.
 * The delivery keeps the first receipt's time, so the grace (apply.ts UNKNOWN_MESSAGE_GRACE_MS)
 * still counts from it. Reports not found as they arrive (accept.ts) are due at once: most name a
 * send whose `sent` write is a few milliseconds behind, and the job finds them; those the job does
 * not find are due again DEFERRED_STATUS_SECONDS later.
 */
import type { Executor } from '../../db/client.ts';
import { providerEvents } from '../../db/schema.ts';
import type { Queue } from '../../jobs/queue.ts';
import { uuidv7 } from '../../lib/ids.ts';
import type { StatusEvent } from '../messages/provider-events.ts';
import { storedDelivery } from './stored.ts';

/** How long reports of messages not known yet wait before they are looked for again. */
export const DEFERRED_STATUS_SECONDS = 1;

/** The delivery the reports came in. */
export type ReceivedDelivery = Pick<typeof providerEvents.$inferSelect, 'organizationId' | 'channelId' | 'platform' | 'receivedAt'>;

export async function deferStatuses(
  queue: Queue,
  tx: Executor,
  received: ReceivedDelivery,
  statuses: StatusEvent[],
  afterSeconds = DEFERRED_STATUS_SECONDS,
): Promise<void> {
  const id = uuidv7();
  await tx.insert(providerEvents).values({
    id,
    organizationId: received.organizationId,
    channelId: received.channelId,
    platform: received.platform,
    payload: storedDelivery(statuses),
    receivedAt: received.receivedAt,
  });
  await queue.enqueue(
    tx,
    'provider.inbound',
    { provider_event_id: id },
    afterSeconds > 0 ? { startAfterSeconds: afterSeconds } : undefined,
  );
}
