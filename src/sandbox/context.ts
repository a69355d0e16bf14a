/** What every part of the sandbox is built from, and the row types they share. */
import { createHash } from 'node:crypto';
import type { Config } from '../config.ts';
import type { sandboxAccounts, sandboxMessages } from '../db/schema.ts';
import type { JobPayload } from '../jobs/catalog.ts';
import type { Queue } from '../jobs/queue.ts';
import type { Clock } from '../lib/clock.ts';
import type { Sealer } from '../lib/crypto.ts';
import type { Logger } from '../lib/logger.ts';
import type { Executor } from '../db/client.ts';

export type SandboxDeps = {
  config: Config;
  sealer: Sealer;
  queue: Queue;
  clock: Clock;
  logger: Logger;
  /** How long a gateway QR code lives (default 60 s). */
  qrLifetimeMs?: number;
};

export type SandboxCallback = JobPayload<'sandbox.callback'>;

export type SandboxContext = {
  config: Config;
  sealer: Sealer;
  clock: Clock;
  logger: Logger;
  officialAppSecret: string;
  qrLifetimeMs: number;
  /** Enqueues a callback in the caller's transaction, `steps` status delays from now. */
  enqueueCallback(tx: Executor, payload: SandboxCallback, steps: number): Promise<void>;
  /** A signed, short-lived download URL for a media id. */
  mediaUrl(id: string): string;
};

export type AccountRow = typeof sandboxAccounts.$inferSelect;
export type MessageRow = typeof sandboxMessages.$inferSelect;

export type GatewayStatus = 'STOPPED' | 'STARTING' | 'SCAN_QR' | 'WORKING' | 'FAILED';

/** JSON with its keys sorted, so equal bodies hash equally whatever order their keys came in. */
export function stableStringify(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableStringify).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableStringify(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

export function bodyHash(value: unknown): string {
  return createHash('sha256').update(stableStringify(value)).digest('hex');
}

/** The digits of a display number ("+15551234567" -> "15551234567"), as the webhooks write it. */
export function digitsOf(displayPhoneNumber: string | null): string {
  return (displayPhoneNumber ?? '').replace(/\D/g, '');
}

/** A step that takes the context first, as a method of an API built on one context (`bind(send)(db, ...)`). */
export function bindContext<C extends SandboxContext>(ctx: C) {
  return <A extends unknown[], R>(step: (ctx: C, ...args: A) => R) =>
    (...args: A): R =>
      step(ctx, ...args);
}
