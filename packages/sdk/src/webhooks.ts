/**
 * Verifying a webhook delivery (Standard Webhooks, docs/webhooks.md): the signature over
 * `{webhook-id}.{webhook-timestamp}.{body}` is computed by the standardwebhooks package; this checks
 * the timestamp against a tolerance and a clock of the caller's (the package's own check is fixed at
 * 5 minutes of Date.now()), and compares each signature given in constant time.
 */
import { Webhook } from 'standardwebhooks';

export class WebhookVerificationError extends Error {
  override name = 'WebhookVerificationError';
}

export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

export type VerifyWebhookOptions = {
  /** How far the delivery's timestamp may be from now, either way (default 300 s). */
  toleranceSeconds?: number;
  /** The receiver's clock (default the current time). */
  now?: Date;
};

function headerOf(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  for (const [key, value] of Object.entries(headers as Record<string, string | string[] | undefined>)) {
    if (key.toLowerCase() !== name) continue;
    return Array.isArray(value) ? value.join(' ') : value;
  }
  return undefined;
}

/** The standard header, or Parley's `x-parley-` copy of it (for frameworks that drop unknown standard names). */
function webhookHeader(headers: WebhookHeaders, name: string): string | undefined {
  return headerOf(headers, `webhook-${name}`) ?? headerOf(headers, `x-parley-webhook-${name}`);
}

function equalInConstantTime(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let i = 0; i < a.length; i++) difference |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return difference === 0;
}

/**
 * Checks a delivery's signature and timestamp over its raw body (as received, before any parsing) and
 * answers the parsed event body; throws WebhookVerificationError when it does not hold.
 */
export function verifyWebhook<T = Record<string, unknown>>(
  rawBody: string | Uint8Array,
  headers: WebhookHeaders,
  secret: string,
  options: VerifyWebhookOptions = {},
): T {
  const id = webhookHeader(headers, 'id');
  const timestamp = webhookHeader(headers, 'timestamp');
  const signatures = webhookHeader(headers, 'signature');
  if (!id || !timestamp || !signatures) throw new WebhookVerificationError('missing webhook-id, webhook-timestamp or webhook-signature');
  const seconds = /^\d+$/.test(timestamp.trim()) ? Number(timestamp) : Number.NaN;
  if (!Number.isFinite(seconds)) throw new WebhookVerificationError('webhook-timestamp is not a number of seconds');
  const tolerance = options.toleranceSeconds ?? 300;
  const now = Math.floor((options.now ?? new Date()).getTime() / 1000);
  if (now - seconds > tolerance) throw new WebhookVerificationError('the delivery is too old (webhook-timestamp outside the tolerance)');
  if (seconds - now > tolerance)
    throw new WebhookVerificationError('the delivery is from the future (webhook-timestamp outside the tolerance)');
  const body = typeof rawBody === 'string' ? rawBody : new TextDecoder().decode(rawBody);
  let webhook: Webhook;
  try {
    webhook = new Webhook(secret);
  } catch (err) {
    throw new WebhookVerificationError(`the secret is not a webhook secret (whsec_…): ${(err as Error).message}`);
  }
  const expected = webhook.sign(id, new Date(seconds * 1000), body).split(',')[1]!;
  const matches = signatures
    .split(' ')
    .map((s) => s.split(','))
    .some(([version, signature]) => version === 'v1' && signature !== undefined && equalInConstantTime(signature, expected));
  if (!matches) throw new WebhookVerificationError('no signature matches (a wrong secret, or the body was changed)');
  try {
    return JSON.parse(body) as T;
  } catch {
    throw new WebhookVerificationError('the body is not JSON');
  }
}
