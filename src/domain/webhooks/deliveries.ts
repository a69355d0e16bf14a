/**
 * The delivery log (deliveries with their attempts), manual retries and test sends. Every query is
 * scoped by actor.organizationId.
 */
import { and, desc, eq, gte, inArray, lt, sql } from 'drizzle-orm';
import { emptyPage, equalWhereGiven, given, listPage, mapPage, newestFirstBy } from '../../db/list-query.ts';
import type { Page, PageResult } from '../../db/paginate.ts';
import { cursorKey } from '../paging.ts';
import { events, webhookAttemptLog, webhookDeliveries, webhookEndpoints, type FoldedAttempt } from '../../db/schema.ts';
import { isUuid, uuidv7 } from '../../lib/ids.ts';
import type { Actor } from '../actor.ts';
import { notFound } from '../errors.ts';
import type { EventType } from '../events/outbox.ts';
import { EVENT_CATALOG, isEventType } from './catalog.ts';
import { DELIVERIES_CHANNEL, type WebhookDeps } from './deps.ts';
import { loadEndpoint, signingSecrets } from './endpoints.ts';
import { sendWebhook } from './send.ts';

export type DeliveryStatus = 'pending' | 'succeeded' | 'failed';
export type DeliveryRow = typeof webhookDeliveries.$inferSelect;
export type AttemptRow = typeof webhookAttemptLog.$inferSelect;
/** A delivery with its latest attempts (at most ATTEMPTS_SHOWN), newest first. */
export type DeliveryWithAttempts = DeliveryRow & { latestAttempts: AttemptRow[] };

/** Attempts shown per delivery, newest first. */
export const ATTEMPTS_SHOWN = 20;

export type DeliveryFilter = {
  endpointId?: string;
  eventType?: string;
  status?: DeliveryStatus;
  messageId?: string;
  /** Deliveries created at or after this time. */
  since?: Date;
  /** Deliveries created before this time. */
  until?: Date;
};

/** Deliveries newest first, each with its latest attempts. Ids that are not UUIDs match nothing. */
export async function listDeliveries(
  deps: Pick<WebhookDeps, 'db'>,
  actor: Actor,
  filter: DeliveryFilter & Page,
): Promise<PageResult<DeliveryWithAttempts>> {
  if ((filter.endpointId !== undefined && !isUuid(filter.endpointId)) || (filter.messageId !== undefined && !isUuid(filter.messageId))) {
    return emptyPage();
  }
  const t = webhookDeliveries;
  const page = await listPage(deps.db.select().from(t).$dynamic(), {
    where: [
      eq(t.organizationId, actor.organizationId),
      ...equalWhereGiven([
        [t.endpointId, filter.endpointId],
        [t.eventType, filter.eventType],
        [t.status, filter.status],
        [t.messageId, filter.messageId],
      ]),
      given(filter.since, (since) => gte(t.createdAt, since)),
      given(filter.until, (until) => lt(t.createdAt, until)),
    ],
    order: newestFirstBy(t.createdAt, t.id),
    after: cursorKey(filter.cursor),
    limit: filter.limit,
  });
  const attempts =
    page.items.length === 0
      ? []
      : await deps.db
          .select()
          .from(webhookAttemptLog)
          .where(
            inArray(
              webhookAttemptLog.deliveryId,
              page.items.map((r) => r.id),
            ),
          )
          .orderBy(desc(webhookAttemptLog.attemptedAt), desc(webhookAttemptLog.id));
  const byDelivery = new Map<string, AttemptRow[]>();
  for (const attempt of attempts) {
    const list = byDelivery.get(attempt.deliveryId) ?? [];
    list.push(attempt);
    byDelivery.set(attempt.deliveryId, list);
  }
  return mapPage(page, (row) => ({ ...row, latestAttempts: (byDelivery.get(row.id) ?? []).slice(0, ATTEMPTS_SHOWN) }));
}

export const RETRY_SKIP_REASONS = ['already succeeded', 'endpoint disabled', 'attempt in flight'] as const;

export type RetryResult = {
  messageId: string;
  retried: Array<{ deliveryId: string; endpointId: string }>;
  skipped: Array<{ endpointId: string; reason: (typeof RETRY_SKIP_REASONS)[number] }>;
};

/**
 * Sends a message again (an event, by its id: the webhook-id its deliveries carry; or a test send)
 * to every endpoint where it has not succeeded: failed and pending deliveries get an attempt now, and
 * for an event, enabled endpoints whose filter matches but that never had it (created later, say)
 * get a new delivery (with the whole schedule). A failed delivery gets one attempt (trigger
 * `manual`; a failure leaves it failed); a pending one is due now and keeps the rest of its schedule.
 * Disabled endpoints and attempts already in flight are skipped, and said so.
 */
export async function retryMessage(
  deps: Pick<WebhookDeps, 'db' | 'clock'>,
  actor: Actor,
  options: { messageId: string; endpointId?: string },
): Promise<RetryResult> {
  const { messageId } = options;
  if (!isUuid(messageId)) throw notFound('webhook message');
  if (options.endpointId !== undefined && !isUuid(options.endpointId)) throw notFound('webhook endpoint');
  const now = deps.clock.now();
  return deps.db.transaction(async (tx) => {
    const [event] = await tx
      .select({ id: events.id, type: events.type })
      .from(events)
      .where(and(eq(events.id, messageId), eq(events.organizationId, actor.organizationId)))
      .limit(1);
    const deliveries = await tx
      .select({
        id: webhookDeliveries.id,
        endpointId: webhookDeliveries.endpointId,
        status: webhookDeliveries.status,
        lockedUntil: webhookDeliveries.lockedUntil,
      })
      .from(webhookDeliveries)
      .where(
        and(
          eq(webhookDeliveries.organizationId, actor.organizationId),
          eq(webhookDeliveries.messageId, messageId),
          options.endpointId ? eq(webhookDeliveries.endpointId, options.endpointId) : undefined,
        ),
      )
      .for('update');
    if (!event && deliveries.length === 0) throw notFound('webhook message');
    const endpoints = await tx
      .select({ id: webhookEndpoints.id, enabled: webhookEndpoints.enabled, eventTypes: webhookEndpoints.eventTypes })
      .from(webhookEndpoints)
      .where(
        and(
          eq(webhookEndpoints.organizationId, actor.organizationId),
          options.endpointId ? eq(webhookEndpoints.id, options.endpointId) : undefined,
        ),
      );
    if (options.endpointId && endpoints.length === 0) throw notFound('webhook endpoint');
    const enabled = new Map(endpoints.map((e) => [e.id, e]));
    const result: RetryResult = { messageId, retried: [], skipped: [] };
    const failedAgain: string[] = [];
    const pendingNow: string[] = [];
    for (const delivery of deliveries) {
      if (delivery.status === 'succeeded') result.skipped.push({ endpointId: delivery.endpointId, reason: 'already succeeded' });
      else if (!enabled.get(delivery.endpointId)?.enabled)
        result.skipped.push({ endpointId: delivery.endpointId, reason: 'endpoint disabled' });
      else if (delivery.lockedUntil && delivery.lockedUntil > now)
        result.skipped.push({ endpointId: delivery.endpointId, reason: 'attempt in flight' });
      else {
        (delivery.status === 'failed' ? failedAgain : pendingNow).push(delivery.id);
        result.retried.push({ deliveryId: delivery.id, endpointId: delivery.endpointId });
      }
    }
    // A failed delivery gets one attempt (manual: a failure leaves it failed); a pending one is due now
    // and keeps the rest of its schedule.
    if (failedAgain.length > 0) {
      await tx
        .update(webhookDeliveries)
        .set({ status: 'pending', nextAttemptAt: now, manual: true, updatedAt: now })
        .where(inArray(webhookDeliveries.id, failedAgain));
    }
    if (pendingNow.length > 0) {
      await tx.update(webhookDeliveries).set({ nextAttemptAt: now, updatedAt: now }).where(inArray(webhookDeliveries.id, pendingNow));
    }
    if (event) {
      const had = new Set(deliveries.map((d) => d.endpointId));
      for (const endpoint of endpoints) {
        if (had.has(endpoint.id)) continue;
        if (endpoint.eventTypes.length > 0 && !endpoint.eventTypes.includes(event.type)) continue;
        if (!endpoint.enabled) {
          result.skipped.push({ endpointId: endpoint.id, reason: 'endpoint disabled' });
          continue;
        }
        const id = uuidv7();
        const inserted = await tx
          .insert(webhookDeliveries)
          .values({
            id,
            organizationId: actor.organizationId,
            endpointId: endpoint.id,
            messageId: event.id,
            eventId: event.id,
            eventType: event.type,
            status: 'pending',
            nextAttemptAt: now,
            createdAt: now,
            updatedAt: now,
          })
          .onConflictDoNothing()
          .returning({ id: webhookDeliveries.id });
        if (inserted.length > 0) result.retried.push({ deliveryId: id, endpointId: endpoint.id });
      }
    }
    if (result.retried.length > 0) await tx.execute(sql`select pg_notify(${DELIVERIES_CHANNEL}, '')`);
    return result;
  });
}

export type TestSendResult = {
  deliveryId: string;
  messageId: string;
  eventType: EventType;
  succeeded: boolean;
  attempt: AttemptRow;
};

/**
 * Sends a signed test message to the endpoint now, even when it is disabled: the catalogue's example
 * body of the type, with a fresh webhook-id and header `x-parley-webhook-test: true`. The attempt is
 * made in this request and recorded as a delivery (test: true) of its own; it is not retried
 * automatically and does not count toward disabling the endpoint.
 */
export async function sendTestMessage(
  deps: Pick<WebhookDeps, 'db' | 'clock' | 'sealer' | 'policy' | 'settings'>,
  actor: Actor,
  { endpointId, eventType: requestedType }: { endpointId: string; eventType?: EventType },
): Promise<TestSendResult> {
  const endpoint = await loadEndpoint(deps.db, actor, endpointId);
  // Default: the endpoint's first subscribed type, else message.new.
  const eventType = requestedType ?? (endpoint.eventTypes.find(isEventType) as EventType | undefined) ?? 'message.new';
  const messageId = uuidv7();
  const payload = EVENT_CATALOG[eventType].example as Record<string, unknown>;
  const secrets = signingSecrets(endpoint, (s) => deps.sealer.open(s), deps.clock.now());
  const outcome = await sendWebhook(
    endpoint.url,
    secrets,
    { id: messageId, type: eventType, body: JSON.stringify(payload), test: true },
    {
      clock: deps.clock,
      timeoutMs: deps.settings.timeoutMs,
      policy: deps.policy,
    },
  );
  const deliveryId = uuidv7();
  const attemptId = uuidv7();
  const error = outcome.error ?? (outcome.succeeded ? null : `HTTP ${outcome.statusCode}`);
  const now = deps.clock.now();
  const attempt: AttemptRow = {
    id: attemptId,
    organizationId: actor.organizationId,
    deliveryId,
    endpointId: endpoint.id,
    trigger: 'test',
    attemptedAt: outcome.attemptedAt,
    statusCode: outcome.statusCode,
    durationMs: outcome.durationMs,
    responseBody: outcome.responseBody,
    error,
  };
  // The attempt is kept in the delivery's row (latest_attempt): one row written, no attempt row.
  const latestAttempt: FoldedAttempt = {
    id: attemptId,
    trigger: 'test',
    attempted_at: outcome.attemptedAt.toISOString(),
    status_code: outcome.statusCode,
    duration_ms: outcome.durationMs,
    response_body: outcome.responseBody,
    error,
  };
  await deps.db.insert(webhookDeliveries).values({
    id: deliveryId,
    organizationId: actor.organizationId,
    endpointId: endpoint.id,
    messageId,
    eventType,
    payload,
    test: true,
    status: outcome.succeeded ? 'succeeded' : 'failed',
    attempts: 1,
    lastAttemptAt: outcome.attemptedAt,
    lastStatusCode: outcome.statusCode,
    lastError: error,
    latestAttempt,
    createdAt: now,
    updatedAt: now,
  });
  return { deliveryId, messageId, eventType, succeeded: outcome.succeeded, attempt };
}
