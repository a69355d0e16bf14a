/** What the webhook domain functions need; the container builds it (webhookDeps). */
import type { Database, Db } from '../../db/client.ts';
import type { Clock } from '../../lib/clock.ts';
import type { Sealer } from '../../lib/crypto.ts';
import type { TargetPolicy } from '../../lib/safe-fetch.ts';

export type WebhookSettings = {
  timeoutMs: number;
  retrySchedule: readonly number[];
  retryJitter: number;
  concurrency: number;
  endpointConcurrency: number;
  pollIntervalMs: number;
  disableAfterMs: number;
  disableMinFailures: number;
};

export type WebhookDeps = {
  db: Db;
  database: Database;
  sealer: Sealer;
  clock: Clock;
  /** Which URLs endpoints may have, checked on create and update and again on every attempt. */
  policy: TargetPolicy;
  settings: WebhookSettings;
};

/** NOTIFY channel: "deliveries became due" (dispatch in another process, a manual retry). */
export const DELIVERIES_CHANNEL = 'parley_webhook_deliveries';

/** An endpoint's old secret keeps signing this long after a rotation. */
export const ROTATION_OVERLAP_MS = 24 * 60 * 60 * 1000;

/** Endpoints one organization may have. */
export const MAX_ENDPOINTS_PER_ORGANIZATION = 50;
