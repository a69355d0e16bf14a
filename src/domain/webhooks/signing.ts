/**
 * Standard Webhooks signing (https://www.standardwebhooks.com): the secret is `whsec_` + base64 of
 * random bytes; a signature is `v1,` + base64(HMAC-SHA256(key, `${id}.${timestamp}.${body}`)) with
 * the decoded key; several signatures go space-separated in one header.
 */
import { createHmac, createSecretKey, randomBytes, type KeyObject } from 'node:crypto';

export const SECRET_PREFIX = 'whsec_';
const SECRET_BYTES = 24;

/** A new signing secret: `whsec_` + base64 of 24 random bytes. */
export function generateSecret(): string {
  return SECRET_PREFIX + randomBytes(SECRET_BYTES).toString('base64');
}

const keys = new Map<string, KeyObject>();

/** The HMAC key of a secret (the base64 after `whsec_`, decoded), kept for the secrets in use. */
function keyOf(secret: string): KeyObject {
  let key = keys.get(secret);
  if (!key) {
    if (keys.size > 1000) keys.clear();
    key = createSecretKey(Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, 'base64'));
    keys.set(secret, key);
  }
  return key;
}

/** One `v1,<base64>` signature of the message. */
export function sign(secret: string, messageId: string, timestampSeconds: number, body: string): string {
  return `v1,${createHmac('sha256', keyOf(secret)).update(`${messageId}.${timestampSeconds}.${body}`).digest('base64')}`;
}

/** The webhook-signature header value: one signature per secret, space-separated. */
export function signatureHeader(secrets: readonly string[], messageId: string, timestampSeconds: number, body: string): string {
  return secrets.map((secret) => sign(secret, messageId, timestampSeconds, body)).join(' ');
}
