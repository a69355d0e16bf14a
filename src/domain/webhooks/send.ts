/**
 * One delivery attempt: sign the body, POST it through the SSRF guard with a time limit, and report
 * what happened (status, duration, the error, and the first 4 KB of a 2xx text or JSON answer: what
 * other answers say is not kept, so a delivery record never becomes a way to read what a URL serves).
 * Never throws for anything the receiver or the network does.
 */
import { performance } from 'node:perf_hooks';
import type { Clock } from '../../lib/clock.ts';
import { safeRequest, UnsafeTargetError, type TargetPolicy } from '../../lib/safe-fetch.ts';
import { signatureHeader } from './signing.ts';

/** How much of a receiver's answer is kept (only of a 2xx text or JSON answer). */
export const RESPONSE_EXCERPT_BYTES = 4096;
export const USER_AGENT = 'Parley-Webhooks/1.0 (+https://www.standardwebhooks.com)';

/** Content types whose answer is kept: text, JSON. */
export function isExcerptType(contentType: string | string[] | undefined): boolean {
  const type = String(Array.isArray(contentType) ? contentType[0] : (contentType ?? ''))
    .split(';')[0]!
    .trim()
    .toLowerCase();
  return type.startsWith('text/') || type === 'application/json' || (type.startsWith('application/') && type.endsWith('+json'));
}

export type OutgoingMessage = {
  /** The webhook-id: the event id (or a test send's id), the same on every attempt. */
  id: string;
  type: string;
  /** The JSON body, exactly as sent and signed. */
  body: string;
  test?: boolean;
};

export type AttemptOutcome = {
  attemptedAt: Date;
  succeeded: boolean;
  statusCode: number | null;
  durationMs: number;
  responseBody: string | null;
  error: string | null;
};

export type SendOptions = {
  clock: Clock;
  timeoutMs: number;
  policy: TargetPolicy;
  /** Aborts the attempt (shutdown); the outcome then says `aborted`. */
  signal?: AbortSignal;
};

/** The headers of one attempt: Standard Webhooks names, and the same values under x-parley-* aliases. */
export function webhookHeaders(message: OutgoingMessage, secrets: readonly string[], timestampSeconds: number): Record<string, string> {
  const signature = signatureHeader(secrets, message.id, timestampSeconds, message.body);
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'user-agent': USER_AGENT,
    'webhook-id': message.id,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': signature,
    'webhook-event-type': message.type,
    'x-parley-webhook-id': message.id,
    'x-parley-webhook-timestamp': String(timestampSeconds),
    'x-parley-webhook-signature': signature,
    'x-parley-event-type': message.type,
  };
  if (message.test) headers['x-parley-webhook-test'] = 'true';
  return headers;
}

/** POSTs the signed message to url and reports the outcome; any 2xx is a success, redirects are not followed. */
export async function sendWebhook(
  url: string,
  secrets: readonly string[],
  message: OutgoingMessage,
  options: SendOptions,
): Promise<AttemptOutcome> {
  const attemptedAt = options.clock.now();
  const started = performance.now();
  const timeout = AbortSignal.timeout(options.timeoutMs);
  const signal = options.signal ? AbortSignal.any([timeout, options.signal]) : timeout;
  const headers = webhookHeaders(message, secrets, Math.floor(attemptedAt.getTime() / 1000));
  const done = (fields: Pick<AttemptOutcome, 'statusCode' | 'responseBody' | 'error'>): AttemptOutcome => ({
    attemptedAt,
    succeeded: fields.statusCode !== null && fields.statusCode >= 200 && fields.statusCode < 300 && fields.error === null,
    durationMs: Math.max(0, Math.round(performance.now() - started)),
    ...fields,
  });
  let response: Awaited<ReturnType<typeof safeRequest>>;
  try {
    response = await safeRequest(url, { method: 'POST', headers, body: message.body, signal }, options.policy);
  } catch (err) {
    return done({ statusCode: null, responseBody: null, error: describeError(err, timeout, options) });
  }
  // The status decides; reading the answer is best effort within the same time limit.
  const keep = response.statusCode >= 200 && response.statusCode < 300 && isExcerptType(response.headers['content-type']);
  let excerpt: string | null = null;
  try {
    if (keep) excerpt = await readExcerpt(response.body);
    else await response.body.dump({ limit: RESPONSE_EXCERPT_BYTES });
  } catch {
    excerpt = null;
  }
  return done({ statusCode: response.statusCode, responseBody: excerpt, error: null });
}

async function readExcerpt(body: AsyncIterable<Buffer> & { destroy(): void }): Promise<string | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    chunks.push(chunk);
    size += chunk.byteLength;
    if (size > RESPONSE_EXCERPT_BYTES) {
      body.destroy();
      break;
    }
  }
  if (size === 0) return null;
  // PostgreSQL text cannot hold NUL.
  return Buffer.concat(chunks).subarray(0, RESPONSE_EXCERPT_BYTES).toString('utf8').replaceAll('\u0000', '');
}

function describeError(err: unknown, timeout: AbortSignal, options: SendOptions): string {
  if (timeout.aborted) return `timed out after ${options.timeoutMs} ms`;
  if (options.signal?.aborted) return 'aborted: the worker shut down';
  if (err instanceof UnsafeTargetError) return `refused: ${err.message}`;
  const cause = (err as { cause?: unknown })?.cause;
  if (cause instanceof UnsafeTargetError) return `refused: ${cause.message}`;
  const code = (err as { code?: string })?.code ?? (cause as { code?: string } | undefined)?.code;
  switch (code) {
    case 'ECONNREFUSED':
      return 'connection refused';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'host not found';
    case 'ECONNRESET':
    case 'EPIPE':
    case 'UND_ERR_SOCKET':
      return 'connection reset before an answer';
    case 'ETIMEDOUT':
    case 'UND_ERR_CONNECT_TIMEOUT':
      return 'connection timed out';
    default:
      break;
  }
  const message = (err as Error)?.message || (cause as Error | undefined)?.message || String(err);
  return code ? `${code}: ${message}` : message;
}
