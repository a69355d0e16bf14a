/**
 * The fetch under every call (openapi-fetch's `fetch`): the OAuth token on each attempt (refreshed
 * once after a 401), a timeout until the answer's headers arrive, and retries with exponential backoff
 * and jitter, honouring Retry-After, on 429, 503 and failed connections.
 *
 * What is retried: a 429 always (the service's limiter answers it before any route runs, so nothing
 * was done); a 503 or a failed connection (the request may have been carried out) only when a
 * repetition is harmless: GET, HEAD, PUT, DELETE, OPTIONS, and a POST or PATCH carrying an
 * Idempotency-Key that the service honours (the operation declares it: every authenticated POST and PATCH) or
 * that the caller passed explicitly.
 */
import { ConnectionError, retryAfterMs } from './errors.ts';
import type { TokenAuth } from './oauth.ts';

export type FetchLike = (input: Request) => Promise<Response>;

export type TransportOptions = {
  fetch: FetchLike;
  maxRetries: number;
  timeoutMs: number;
  auth: TokenAuth | undefined;
  /** Waits (abortable); replaced by tests to observe the waits. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
};

export type CallPolicy = {
  /** A repetition after a 503 or a failed connection is harmless (an honoured idempotency key). */
  repeatable: boolean;
  /** Send the OAuth token (false for the token endpoint itself). */
  authenticate: boolean;
};

/** The longest Retry-After honoured by waiting; past it the 429 or 503 is thrown to the caller. */
const MAX_RETRY_AFTER_MS = 60_000;
const BASE_DELAY_MS = 500;
const MAX_DELAY_MS = 8_000;

const SAFE_METHODS = new Set(['GET', 'HEAD', 'PUT', 'DELETE', 'OPTIONS']);

/** The n-th retry's wait without Retry-After: exponential, capped, with jitter (half fixed, half random). */
export function backoffMs(retry: number, random = Math.random): number {
  const ceiling = Math.min(MAX_DELAY_MS, BASE_DELAY_MS * 2 ** retry);
  return ceiling / 2 + (ceiling / 2) * random();
}

export function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** A signal that aborts with either: AbortSignal.any where the runtime has it. */
function eitherSignal(a: AbortSignal, b: AbortSignal): AbortSignal {
  if (typeof AbortSignal.any === 'function') return AbortSignal.any([a, b]);
  const controller = new AbortController();
  const forward = (from: AbortSignal) => () => controller.abort(from.reason);
  if (a.aborted || b.aborted) controller.abort((a.aborted ? a : b).reason);
  a.addEventListener('abort', forward(a), { once: true });
  b.addEventListener('abort', forward(b), { once: true });
  return controller.signal;
}

class TimeoutSignal extends Error {
  override name = 'TimeoutError';
}

export function createTransport(options: TransportOptions) {
  const sleep = options.sleep ?? abortableSleep;

  /** One attempt: the answer, or the failure of the connection (the caller's abort passes through as is). */
  async function attempt(request: Request, body: ArrayBuffer | undefined, headers: Headers): Promise<Response> {
    const timeout = new AbortController();
    const timer = setTimeout(() => timeout.abort(new TimeoutSignal(`no answer within ${options.timeoutMs} ms`)), options.timeoutMs);
    try {
      return await options.fetch(
        new Request(request.url, {
          method: request.method,
          headers,
          body,
          redirect: request.redirect,
          credentials: request.credentials,
          signal: eitherSignal(request.signal, timeout.signal),
        }),
      );
    } catch (err) {
      if (request.signal.aborted) throw request.signal.reason ?? err;
      if (timeout.signal.aborted)
        throw new ConnectionError(`${request.method} ${request.url}: no answer within ${options.timeoutMs} ms`, {
          cause: err,
          timedOut: true,
        });
      throw new ConnectionError(`${request.method} ${request.url}: ${(err as Error).message}`, { cause: err });
    } finally {
      clearTimeout(timer);
    }
  }

  return async function send(request: Request, policy: CallPolicy): Promise<Response> {
    // The body is read once and sent again as is on each attempt.
    const body = request.body ? await request.arrayBuffer() : undefined;
    const repeatable = SAFE_METHODS.has(request.method) || policy.repeatable;
    const auth = policy.authenticate ? options.auth : undefined;
    let refreshed = false;
    for (let retry = 0; ; ) {
      const headers = new Headers(request.headers);
      const token = await auth?.current();
      if (token) headers.set('authorization', `Bearer ${token}`);
      let response: Response;
      try {
        response = await attempt(request, body, headers);
      } catch (err) {
        if (!(err instanceof ConnectionError) || !repeatable || retry >= options.maxRetries) throw err;
        await sleep(backoffMs(retry++), request.signal);
        continue;
      }
      if (response.status === 401 && auth?.canRefresh && !refreshed) {
        refreshed = true;
        await response.body?.cancel();
        await auth.refresh(token);
        continue;
      }
      const retryable = response.status === 429 || (response.status === 503 && repeatable);
      if (!retryable || retry >= options.maxRetries) return response;
      const asked = retryAfterMs(response.headers);
      if (asked !== undefined && asked > MAX_RETRY_AFTER_MS) return response;
      await response.body?.cancel();
      await sleep(asked ?? backoffMs(retry), request.signal);
      retry++;
    }
  };
}
