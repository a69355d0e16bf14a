/**
 * Accepting a verified provider delivery: its normalized events are routed to their channels and
 * stored, one row per channel with its `provider.inbound` job, in one transaction, so the provider is
 * answered at once and nothing acknowledged is lost.
 *
 * A channel's events that are all status reports (most deliveries under traffic: the official
 * webhooks' `statuses`, the gateway's `message.statuses`) are applied as they arrive and stored done,
 * with no job: they are one statement's work (provider-events.ts applyStatuses), and a job would cost
 * more round trips than the work itself (issue 14, BENCHMARKS.md). Reports of messages not known yet
 * go to a delivery of their own with its job, due at once (defer.ts). If applying fails nothing is
 * stored and the delivery is refused, so the provider sends it again.
 *
 * Reports with no failure among them are applied first and stored after, with no transaction around
 * the two (three round trips where a transaction took five; DECISIONS 62): applying is idempotent (a
 * status only moves forward, a history row is written once), so a delivery stopped between the two is
 * refused, sent again by the provider and applied again with no effect but its storing. A failure
 * report also changes what the failure reaches (applyFailureScope), which is written only when the
 * status moves: those deliveries are applied and stored in one transaction, as are deliveries with
 * any other event (stored with their job).
 */
import type { Db, Executor } from '../../db/client.ts';
import { providerEvents } from '../../db/schema.ts';
import type { Queue } from '../../jobs/queue.ts';
import type { Clock } from '../../lib/clock.ts';
import { uuidv7 } from '../../lib/ids.ts';
import type { Logger } from '../../lib/logger.ts';
import type { InboundEvent, Platform } from '../../providers/provider.ts';
import { findChannelByRef, findChannelsByWaba, type ChannelRow } from '../channels/channels.ts';
import type { MessageApplier, StatusEvent } from '../messages/provider-events.ts';
import { deferStatuses } from './defer.ts';
import { storedDelivery } from './stored.ts';

export type AcceptDeps = {
  db: Db;
  queue: Queue;
  clock: Clock;
  logger: Logger;
  /** Applies status reports as they are stored; without it every delivery waits for its job. */
  statuses?: MessageApplier['applyStatuses'];
};

const onlyStatuses = (events: InboundEvent[]): events is StatusEvent[] => events.every((e) => e.kind === 'message.status');

export type InboundDelivery = {
  platform: Platform;
  events: InboundEvent[];
  /** The channel a per-channel path names: only its own events are kept. */
  channel?: ChannelRow;
  /** The provider's own id of the delivery, where it sends one: a retry is stored once. */
  deliveryId?: string;
};

const digits = (value: string | null | undefined) => (value ?? '').replace(/\D/g, '');

/**
 * Whether the event is about this channel: its number (ref), or its business account (and its number,
 * where the event names one). `named`: the channel a per-channel path names; one that does not know its
 * display number takes its account's reports naming any number (it cannot tell, and the path says they
 * are its own), where the shared path could not pick it.
 */
export function isForChannel(event: InboundEvent, channel: ChannelRow, named = false): boolean {
  if ('ref' in event) return event.ref === channel.providerRef;
  const phone = 'phone' in event ? event.phone : undefined;
  const ownNumber = digits(channel.displayPhoneNumber);
  return (
    String(channel.settings.waba_id ?? '') === event.account &&
    (phone === undefined || digits(phone) === ownNumber || (named && ownNumber === ''))
  );
}

/** The channels each event goes to on the shared path: the one bound to its ref, or its account's (narrowed to its number). */
async function route(
  db: Db,
  platform: Platform,
  events: InboundEvent[],
  logger: Logger,
): Promise<Map<string, { channel: ChannelRow; events: InboundEvent[] }>> {
  const byKey = new Map<string, ChannelRow[]>();
  const routed = new Map<string, { channel: ChannelRow; events: InboundEvent[] }>();
  for (const event of events) {
    const key = 'ref' in event ? `ref:${event.ref}` : `account:${event.account}`;
    let found = byKey.get(key);
    if (!found) {
      found =
        'ref' in event
          ? [await findChannelByRef(db, platform, event.ref)].filter((c): c is ChannelRow => c !== undefined)
          : await findChannelsByWaba(db, event.account);
      byKey.set(key, found);
    }
    const targets = found.filter((channel) => isForChannel(event, channel));
    if (targets.length === 0)
      logger.warn(
        { kind: event.kind, ...('ref' in event ? { ref: event.ref } : { account: event.account }) },
        'provider webhook for an unknown number',
      );
    for (const channel of targets) {
      const entry = routed.get(channel.id) ?? { channel, events: [] };
      entry.events.push(event);
      routed.set(channel.id, entry);
    }
  }
  return routed;
}

/** A per-channel path: the channel's own events; others (another number of the same app) are not its to apply. */
function only(channel: ChannelRow, events: InboundEvent[], logger: Logger) {
  const own = events.filter((e) => isForChannel(e, channel, true));
  if (own.length < events.length)
    logger.warn(
      { channel_id: channel.id, dropped: events.length - own.length },
      'provider webhook events for another channel on a per-channel path',
    );
  return new Map([[channel.id, { channel, events: own }]]);
}

/** Stores the delivery's events for each channel they concern, with their jobs (or applied: see the header). Returns how many rows were stored (a retried delivery id stores none). */
export async function acceptInboundDelivery(deps: AcceptDeps, input: InboundDelivery): Promise<{ stored: number }> {
  const routed = input.channel
    ? only(input.channel, input.events, deps.logger)
    : await route(deps.db, input.platform, input.events, deps.logger);
  const deliveries = [...routed.values()].filter((d) => d.events.length > 0);
  let stored = 0;
  const inTransaction: typeof deliveries = [];
  for (const delivery of deliveries) {
    const { channel, events } = delivery;
    if (deps.statuses !== undefined && onlyStatuses(events) && events.every((e) => e.status !== 'failed')) {
      // Applied first, stored after, no transaction (see the header). The row's id is taken on receipt,
      // so it sorts before a delivery its unknown reports go on to.
      const receivedAt = deps.clock.now();
      const id = uuidv7();
      const unknown = await deps.statuses(deps.db, channel, events, receivedAt);
      if (unknown.length > 0) await deps.db.transaction((tx) => defer(deps, tx, channel, unknown, receivedAt));
      if (await storeDelivery(deps.db, id, channel, events, input.deliveryId, receivedAt, true)) stored++;
    } else inTransaction.push(delivery);
  }
  if (inTransaction.length === 0) return { stored };
  return deps.db.transaction(async (tx) => {
    for (const { channel, events } of inTransaction) {
      const receivedAt = deps.clock.now();
      // Status reports only: applied here, stored done (see the header).
      const statuses = deps.statuses !== undefined && onlyStatuses(events) ? events : undefined;
      const id = await storeDelivery(tx, uuidv7(), channel, events, input.deliveryId, receivedAt, statuses !== undefined);
      if (!id) continue;
      stored++;
      if (statuses && deps.statuses) {
        const unknown = await deps.statuses(tx, channel, statuses, receivedAt);
        if (unknown.length > 0) await defer(deps, tx, channel, unknown, receivedAt);
      } else await deps.queue.enqueue(tx, 'provider.inbound', { provider_event_id: id });
    }
    return { stored };
  });
}

/** The delivery's row for one channel; undefined when its delivery id was stored before (a retry). */
async function storeDelivery(
  db: Executor,
  id: string,
  channel: ChannelRow,
  events: InboundEvent[],
  deliveryId: string | undefined,
  receivedAt: Date,
  applied: boolean,
): Promise<string | undefined> {
  const [row] = await db
    .insert(providerEvents)
    .values({
      id,
      organizationId: channel.organizationId,
      channelId: channel.id,
      platform: channel.platform,
      externalId: deliveryId ?? null,
      payload: storedDelivery(events),
      receivedAt,
      processedAt: applied ? receivedAt : null,
    })
    .onConflictDoNothing()
    .returning({ id: providerEvents.id });
  return row?.id;
}

/** Reports naming messages not known yet: a delivery of their own with its job, due at once (their `sent` writes are usually just behind; defer.ts). */
function defer(deps: AcceptDeps, tx: Executor, channel: ChannelRow, unknown: StatusEvent[], receivedAt: Date): Promise<void> {
  return deferStatuses(
    deps.queue,
    tx,
    { organizationId: channel.organizationId, channelId: channel.id, platform: channel.platform, receivedAt },
    unknown,
    0,
  );
}
