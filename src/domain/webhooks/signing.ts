/**
 * Standard Webhooks signing (https://www.standardwebhooks.com) by the scheme's own library: the
 * secret is `whsec_` + base64 of random bytes; a signature is `v1,` + base64(HMAC-SHA256(key,
 * `${id}.${timestamp}.${body}`)) with the decoded key; several signatures go space-separated in one header.
 */
import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';

const SECRET_PREFIX = 'whsec_';
const SECRET_BYTES = 24;

/** A new signing secret: `whsec_` + base64 of 24 random bytes. */
export function generateSecret(): string {
  return SECRET_PREFIX + randomBytes(SECRET_BYTES).toString('base64');
}

const signers = new Map<string, Webhook>();

/** The signer of a secret (its key decoded once), kept for the secrets in use. */
function signerOf(secret: string): Webhook {
  let signer = signers.get(secret);
  if (!signer) {
    if (signers.size > 1000) signers.clear();
    signer = new Webhook(secret);
    signers.set(secret, signer);
  }
  return signer;
}

/** The webhook-signature header value: one `v1,<base64>` signature per secret, space-separated. */
export function signatureHeader(secrets: readonly string[], messageId: string, timestampSeconds: number, body: string): string {
  const timestamp = new Date(timestampSeconds * 1000);
  return secrets.map((secret) => signerOf(secret).sign(messageId, timestamp, body)).join(' ');
}
