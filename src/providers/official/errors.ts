/**
 * The business cloud API's errors, classified: its Graph-style error body
 * (`{error: {message, type, code, error_subcode, error_data: {details}, is_transient, error_user_title,
 * error_user_msg, fbtrace_id}}`) and Retry-After header become a ProviderError whose scope, retry
 * advice and channel or template consequence callers act on without knowing the platform.
 * Codes from the provider's error-code reference.
 */
import type { ProviderError } from '../provider.ts';

export type GraphErrorBody = {
  error?: {
    message?: string;
    type?: string;
    code?: number | string;
    error_subcode?: number;
    error_data?: { details?: string };
    is_transient?: boolean;
    error_user_title?: string;
    error_user_msg?: string;
  };
};

/**
 * The provider holding back every send of the number ("not now"), with how long to hold the channel
 * when no Retry-After says: throughput (130429), spam rate (131048), business account (80007) and app
 * call (4) limits, and the account in maintenance mode (131057, a throughput upgrade, say).
 */
const CHANNEL_HOLD_SECONDS: Record<string, number> = { '130429': 2, '131048': 60, '80007': 60, '4': 60, '131057': 60 };
/** Too many messages to one recipient (the business/consumer pair rate): only that recipient waits. */
const PAIR_LIMIT = '131056';
const PAIR_LIMIT_SECONDS = 6;
/** Any other 429: the channel waits this long when no Retry-After says. */
const TOO_MANY_SECONDS = 5;
/**
 * Faults of the account or its access that no retry mends: invalid or expired token (190, 102, 10),
 * account locked (131031), number not registered (133010), blocked for policy violations (368),
 * business eligibility or payment issue (131042), permission errors (200-299).
 */
const ACCOUNT_CODES = new Set(['190', '102', '10', '131031', '133010', '368', '131042']);
const isPermissionCode = (code: string) => /^\d+$/.test(code) && Number(code) >= 200 && Number(code) <= 299;
/**
 * The template the message uses was paused (132015) or disabled (132016) by the provider, or it has
 * no such template in that language (132001: deleted, as its status webhook's DELETED reads).
 */
const TEMPLATE_CODES: Record<string, 'paused' | 'disabled'> = { '132015': 'paused', '132016': 'disabled', '132001': 'disabled' };
/** Waits longer than this are not taken at their word. */
const MAX_RETRY_AFTER_SECONDS = 3600;

/** Retry-After as seconds (a number of seconds or an HTTP date), or undefined when absent or unreadable. */
export function retryAfterSeconds(header: string | null | undefined, now = Date.now()): number | undefined {
  if (header === undefined || header === null || header.trim() === '') return undefined;
  const value = header.trim();
  const seconds = /^\d+(\.\d+)?$/.test(value) ? Number(value) : (Date.parse(value) - now) / 1000;
  if (!Number.isFinite(seconds)) return undefined;
  return Math.min(MAX_RETRY_AFTER_SECONDS, Math.max(0, seconds));
}

/** One failed call's answer (HTTP status, body, Retry-After header) as a ProviderError. */
export function classifyGraphError(status: number, body: unknown, retryAfter?: string | null): ProviderError {
  const e = (body as GraphErrorBody | undefined)?.error;
  const code = e?.code === undefined ? `http_${status}` : String(e.code);
  const after = retryAfterSeconds(retryAfter);
  const base: ProviderError = {
    code,
    title: e?.message ?? `provider answered HTTP ${status}`,
    ...(e?.error_data?.details ? { message: e.error_data.details } : {}),
    ...(typeof e?.error_user_title === 'string' && e.error_user_title !== '' ? { userTitle: e.error_user_title } : {}),
    ...(typeof e?.error_user_msg === 'string' && e.error_user_msg !== '' ? { userMessage: e.error_user_msg } : {}),
    retryable: false,
  };
  const hold = (scope: 'channel' | 'recipient', seconds: number): ProviderError => ({
    ...base,
    scope,
    retryable: true,
    hold: true,
    retryAfterSeconds: after ?? seconds,
  });
  if (code === PAIR_LIMIT) return hold('recipient', PAIR_LIMIT_SECONDS);
  if (code in CHANNEL_HOLD_SECONDS) return hold('channel', CHANNEL_HOLD_SECONDS[code]!);
  if (ACCOUNT_CODES.has(code) || isPermissionCode(code) || status === 401) return { ...base, scope: 'channel', channelFault: true };
  const templateStatus = TEMPLATE_CODES[code];
  if (templateStatus) return { ...base, scope: 'template', templateStatus };
  if (status === 429) return hold('channel', TOO_MANY_SECONDS);
  // The provider's word on whether trying again can help; a Retry-After is one too. Without either, a 5xx may pass.
  const transient = after !== undefined || (e?.is_transient ?? status >= 500);
  return { ...base, scope: 'message', retryable: transient, ...(transient && after !== undefined ? { retryAfterSeconds: after } : {}) };
}
