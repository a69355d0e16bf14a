/** The JSON-over-HTTP call both provider clients make: a timeout, the target policy, and typed faults. */
import { safeFetch, UnsafeTargetError, type TargetPolicy } from '../lib/safe-fetch.ts';
import type { ProviderError } from './provider.ts';

/** `retryAfter`: the Retry-After header, where the answer has one. */
export type HttpAnswer = { status: number; json: unknown; retryAfter?: string };

export type JsonRequest = {
  method: string;
  url: string;
  headers?: Record<string, string>;
  body?: unknown;
  timeoutMs: number;
  policy: TargetPolicy;
};

/** Connection errors that happen before any byte of the request is sent. */
const NOT_CONNECTED = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_CONNECT_TIMEOUT']);

/** Sends a JSON request; network faults and refused targets come back as a ProviderError. */
export async function callJson(req: JsonRequest): Promise<{ ok: true; answer: HttpAnswer } | { ok: false; error: ProviderError }> {
  try {
    const response = await safeFetch(
      req.url,
      {
        method: req.method,
        headers: { accept: 'application/json', ...(req.body === undefined ? {} : { 'content-type': 'application/json' }), ...req.headers },
        body: req.body === undefined ? undefined : JSON.stringify(req.body),
        signal: AbortSignal.timeout(req.timeoutMs),
      },
      req.policy,
    );
    const text = await response.text();
    let json: unknown = undefined;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = { raw: text.slice(0, 500) };
    }
    const retryAfter = response.headers.get('retry-after') ?? undefined;
    return { ok: true, answer: { status: response.status, json, ...(retryAfter !== undefined ? { retryAfter } : {}) } };
  } catch (err) {
    if (err instanceof UnsafeTargetError) {
      return { ok: false, error: { code: 'unsafe_target', title: `provider address refused: ${err.message}`, retryable: false, channelFault: true } };
    }
    const name = (err as Error).name;
    const timedOut = name === 'TimeoutError' || name === 'AbortError';
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    if (!timedOut && cause?.code && NOT_CONNECTED.has(cause.code)) {
      // No connection was made, so nothing was sent: safe to try again.
      return { ok: false, error: { code: 'connect_failed', title: `provider unreachable: ${cause.code}`, retryable: true } };
    }
    return {
      ok: false,
      error: {
        code: timedOut ? 'timeout' : 'network_error',
        title: timedOut ? `provider did not answer within ${req.timeoutMs} ms` : `provider unreachable: ${(err as Error).message}`,
        retryable: true,
      },
    };
  }
}
