/** The JSON-over-HTTP call both provider clients make: a timeout, the target policy, and typed faults. */
import type { FormData } from 'undici';
import { createSafeFetcher, safeFetch, UnsafeTargetError, type TargetPolicy } from '../lib/safe-fetch.ts';
import type { MediaDownload, ProviderError } from './provider.ts';

/** `retryAfter`: the Retry-After header, where the answer has one. */
export type HttpAnswer = { status: number; json: unknown; retryAfter?: string };

export type JsonRequest = {
  method: string;
  url: string;
  headers?: Record<string, string>;
  /** Sent as JSON; or `form`, sent as multipart/form-data (a file upload). */
  body?: unknown;
  form?: FormData;
  timeoutMs: number;
  policy: TargetPolicy;
};

/** Connection errors that happen before any byte of the request is sent. */
const NOT_CONNECTED = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_CONNECT_TIMEOUT']);

/** Sends a JSON (or form) request; the answer is read as JSON; network faults and refused targets come back as a ProviderError. */
export async function callJson(req: JsonRequest): Promise<{ ok: true; answer: HttpAnswer } | { ok: false; error: ProviderError }> {
  const asJson = req.form === undefined && req.body !== undefined;
  try {
    const response = await safeFetch(
      req.url,
      {
        method: req.method,
        // A form's content type (with its boundary) is the runtime's to set.
        headers: { accept: 'application/json', ...(asJson ? { 'content-type': 'application/json' } : {}), ...req.headers },
        body: req.form ?? (asJson ? JSON.stringify(req.body) : undefined),
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
      return {
        ok: false,
        error: { code: 'unsafe_target', title: `provider address refused: ${err.message}`, retryable: false, channelFault: true },
      };
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

/** The longest one media download may take, body included (a 100 MB document on a slow link). */
const DOWNLOAD_MS = 10 * 60_000;
const MAX_REDIRECTS = 3;

export type DownloadRequest = {
  url: string;
  /** The headers for a URL (a credential only where it belongs: redirects are asked again). */
  headersFor(url: URL): Record<string, string>;
  /** Until the answer's headers arrive; the body then has DOWNLOAD_MS in all. */
  timeoutMs: number;
  policy: TargetPolicy;
};

/** How an HTTP status of a media download is classified. */
function downloadError(status: number, retryAfter: string | null): ProviderError {
  if (status === 404 || status === 410)
    return { code: 'media_gone', title: `the provider no longer has the media (HTTP ${status})`, retryable: false };
  const retryable = status === 408 || status === 429 || status >= 500;
  const seconds = retryAfter && /^\d{1,6}$/.test(retryAfter) ? Number(retryAfter) : undefined;
  return {
    code: `http_${status}`,
    title: `the media download answered HTTP ${status}`,
    retryable,
    ...(seconds !== undefined ? { retryAfterSeconds: seconds } : {}),
  };
}

/**
 * GETs a media URL as a stream, under the target policy, following up to three redirects (each
 * checked again, with the headers `headersFor` gives that URL). The answer's type and length are
 * the server's word, not trusted. Faults come back as a ProviderError (5xx, 429, network: retryable).
 */
export async function downloadStream(
  req: DownloadRequest,
): Promise<{ ok: true; value: MediaDownload } | { ok: false; error: ProviderError }> {
  const controller = new AbortController();
  const overall = setTimeout(() => controller.abort(new DOMException('the media download took too long', 'TimeoutError')), DOWNLOAD_MS);
  const headersTimer = setTimeout(() => controller.abort(new DOMException('no answer in time', 'TimeoutError')), req.timeoutMs);
  overall.unref();
  headersTimer.unref();
  // Connections of its own, closed when the download ends however it ends (a stopped download must
  // leave no socket behind in a shared pool).
  const fetcher = createSafeFetcher();
  const stop = () => {
    clearTimeout(overall);
    clearTimeout(headersTimer);
    fetcher.close();
  };
  try {
    let url = new URL(req.url);
    for (let hop = 0; ; hop++) {
      const response = await fetcher.fetch(
        url.href,
        { method: 'GET', headers: { accept: '*/*', ...req.headersFor(url) }, signal: controller.signal },
        req.policy,
      );
      const location = response.headers.get('location');
      if (response.status >= 300 && response.status < 400 && location) {
        await response.body?.cancel().catch(() => undefined);
        if (hop >= MAX_REDIRECTS) {
          stop();
          return {
            ok: false,
            error: { code: 'too_many_redirects', title: `the media URL redirected more than ${MAX_REDIRECTS} times`, retryable: false },
          };
        }
        url = new URL(location, url);
        continue;
      }
      clearTimeout(headersTimer);
      if (response.status < 200 || response.status >= 300 || !response.body) {
        await response.body?.cancel().catch(() => undefined);
        stop();
        return { ok: false, error: downloadError(response.status, response.headers.get('retry-after')) };
      }
      const length = Number(response.headers.get('content-length') ?? NaN);
      const type = response.headers.get('content-type')?.split(';')[0]?.trim().toLowerCase();
      const source = (response.body as AsyncIterable<Uint8Array>)[Symbol.asyncIterator]();
      // Ended however the reader stops: at the end, on an error, or early (a limit passed, even before the first read).
      const end = () => {
        controller.abort();
        stop();
      };
      const body: AsyncIterable<Uint8Array> = {
        [Symbol.asyncIterator]: () => ({
          async next() {
            try {
              const next = await source.next();
              if (next.done) end();
              return next;
            } catch (err) {
              end();
              throw err;
            }
          },
          async return() {
            end();
            return { done: true as const, value: undefined };
          },
        }),
      };
      return { ok: true, value: { body, ...(type ? { mimeType: type } : {}), ...(Number.isFinite(length) ? { size: length } : {}) } };
    }
  } catch (err) {
    stop();
    if (err instanceof UnsafeTargetError)
      return { ok: false, error: { code: 'unsafe_target', title: `media URL refused: ${err.message}`, retryable: false } };
    const timedOut = (err as Error).name === 'TimeoutError' || (err as Error).name === 'AbortError';
    return {
      ok: false,
      error: {
        code: timedOut ? 'timeout' : 'network_error',
        title: timedOut ? 'the media download got no answer in time' : `media URL unreachable: ${(err as Error).message}`,
        retryable: true,
      },
    };
  }
}
