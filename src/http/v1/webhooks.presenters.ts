/** The webhook routes' records (webhooks.ts): the presenters that turn the domain's rows into them, typed from the response schemas. */
import type { z } from 'zod';
import type { EventType } from '../../domain/events/outbox.ts';
import type { AttemptRow, DeliveryStatus, DeliveryWithAttempts, RetryResult, TestSendResult } from '../../domain/webhooks/deliveries.ts';
import type { EndpointRow, RevealedSecret } from '../../domain/webhooks/endpoints.ts';
import type {
  EndpointSchema,
  CreatedEndpointSchema,
  RotatedSecretSchema,
  RevealedSecretSchema,
  AttemptSchema,
  DeliverySchema,
  TestResultSchema,
  RetryResultSchema,
  SettingsSchema,
} from './webhooks.ts';

const iso = (d: Date | null) => d?.toISOString() ?? null;

export type WebhookEndpointRecord = z.infer<typeof EndpointSchema>;
export type CreatedWebhookEndpointRecord = z.infer<typeof CreatedEndpointSchema>;
export type WebhookDeliveryRecord = z.infer<typeof DeliverySchema>;
export type WebhookAttemptRecord = z.infer<typeof AttemptSchema>;
export type WebhookSecretRecord = z.infer<typeof RevealedSecretSchema>;
export type WebhookSecretRotationRecord = z.infer<typeof RotatedSecretSchema>;
export type WebhookTestResultRecord = z.infer<typeof TestResultSchema>;
export type WebhookRetryResultRecord = z.infer<typeof RetryResultSchema>;
export type WebhookSettingsRecord = z.infer<typeof SettingsSchema>;

export function presentEndpoint(row: EndpointRow, now: Date): z.infer<typeof EndpointSchema> {
  const overlapping = row.previousSecretExpiresAt && row.previousSecretExpiresAt > now;
  return {
    id: row.id,
    url: row.url,
    description: row.description,
    event_types: row.eventTypes as EventType[],
    enabled: row.enabled,
    disabled_reason: row.enabled ? null : row.disabledReason,
    disabled_at: row.enabled ? null : iso(row.disabledAt),
    previous_secret_expires_at: overlapping ? iso(row.previousSecretExpiresAt) : null,
    health: {
      consecutive_failures: row.consecutiveFailures,
      failing_since: iso(row.failingSince),
      last_success_at: iso(row.lastSuccessAt),
      last_failure_at: iso(row.lastFailureAt),
    },
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

export function presentSecret(secret: RevealedSecret): z.infer<typeof RevealedSecretSchema> {
  return { secret: secret.secret, previous_secret: secret.previousSecret, previous_secret_expires_at: iso(secret.previousSecretExpiresAt) };
}

export function presentAttempt(row: AttemptRow): z.infer<typeof AttemptSchema> {
  return {
    id: row.id,
    trigger: row.trigger as z.infer<typeof AttemptSchema>['trigger'],
    attempted_at: row.attemptedAt.toISOString(),
    status_code: row.statusCode,
    duration_ms: row.durationMs,
    response_body: row.responseBody,
    error: row.error,
  };
}

export function presentDelivery(row: DeliveryWithAttempts): z.infer<typeof DeliverySchema> {
  return {
    id: row.id,
    message_id: row.messageId,
    endpoint_id: row.endpointId,
    event_type: row.eventType,
    test: row.test,
    status: row.status as DeliveryStatus,
    attempt_count: row.attempts,
    next_attempt_at: row.status === 'pending' ? iso(row.nextAttemptAt) : null,
    last_attempt_at: iso(row.lastAttemptAt),
    last_status_code: row.lastStatusCode,
    last_error: row.lastError,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
    attempts: row.latestAttempts.map(presentAttempt),
  };
}

export function presentTestResult(result: TestSendResult): z.infer<typeof TestResultSchema> {
  return {
    delivery_id: result.deliveryId,
    message_id: result.messageId,
    event_type: result.eventType,
    succeeded: result.succeeded,
    attempt: presentAttempt(result.attempt),
  };
}

export function presentRetryResult(result: RetryResult): z.infer<typeof RetryResultSchema> {
  return {
    message_id: result.messageId,
    retried: result.retried.map((r) => ({ delivery_id: r.deliveryId, endpoint_id: r.endpointId })),
    skipped: result.skipped.map((s) => ({ endpoint_id: s.endpointId, reason: s.reason })),
  };
}
