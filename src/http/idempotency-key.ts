/** The Idempotency-Key header: its form, and the hash that tells one request from another under a key. */
import { createHash } from 'node:crypto';

/** 1 to 255 of `A-Za-z0-9._:-` (a UUID fits). */
export const IDEMPOTENCY_KEY = /^[A-Za-z0-9._:-]{1,255}$/;

/** The value with every object's keys sorted, at every depth: the same body hashes the same in any key order. */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (typeof value !== 'object' || value === null) return value;
  if (value instanceof Uint8Array) return Buffer.from(value).toString('base64');
  const object = value as Record<string, unknown>;
  return Object.fromEntries(
    Object.keys(object)
      .sort()
      .map((k) => [k, canonical(object[k])]),
  );
}

/** A request's fingerprint under its key (sha-256 of its canonical JSON). */
export function requestHash(value: unknown): string {
  return createHash('sha256')
    .update(JSON.stringify(canonical(value)) ?? 'undefined')
    .digest('hex');
}
