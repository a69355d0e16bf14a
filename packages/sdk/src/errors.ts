/**
 * The SDK's errors: a non-2xx answer is a ParleyError subclass by status, carrying the answer's body
 * (a problem, or the contacts routes' `{error, code}`, or the OAuth endpoints' `{error, error_description}`),
 * its request id and headers; no answer at all is a ConnectionError.
 */
import type { components } from './generated/openapi.ts';

/** An RFC 9457 problem body as the service writes it. */
export type Problem = components['schemas']['Problem'];

/** What an error answer's body holds: a problem, `{error, code}` (contacts) or `{error, error_description}` (OAuth), or whatever was sent. */
export type ErrorBody = Partial<Problem> & { error?: string; error_description?: string; [key: string]: unknown };

export type ParleyErrorInit = {
  status: number;
  /** The parsed body (undefined when it was empty or not JSON). */
  problem?: ErrorBody;
  headers?: Headers;
  message?: string;
};

/** A field named by a validation failure: where (body, query, params, headers), its JSON pointer and what is wrong. */
export type FieldError = { pointer: string; location?: string; message: string };

function describe(status: number, body: ErrorBody | undefined): string {
  const said = body?.detail ?? body?.error_description ?? body?.error;
  // A detail names the fields already; without one, they are listed.
  const fields = said ? [] : (body?.errors ?? []).map((e) => `${e.location ? `${e.location} ` : ''}${e.pointer || '/'}: ${e.message}`);
  return `${status} ${said ?? body?.title ?? `HTTP ${status}`}${fields.length ? ` (${fields.join('; ')})` : ''}`;
}

/** Any answer of the service that is not a success. */
export class ParleyError extends Error {
  override name = 'ParleyError';
  readonly status: number;
  /** The answer's body: a problem (`title`, `detail`, `code`, `errors`, …) or the route's own error shape. */
  readonly problem: ErrorBody | undefined;
  /** The answer's X-Request-Id (or the body's request_id): quote it when asking about a failure. */
  readonly requestId: string | undefined;
  readonly headers: Headers;

  constructor(init: ParleyErrorInit) {
    super(init.message ?? describe(init.status, init.problem));
    this.status = init.status;
    this.problem = init.problem;
    this.headers = init.headers ?? new Headers();
    this.requestId =
      this.headers.get('x-request-id') ?? (typeof init.problem?.request_id === 'string' ? init.problem.request_id : undefined);
  }

  /** The stable machine-readable code (`not_found`, `window_closed`, `invalid_grant`, …), when the body has one. */
  get code(): string | undefined {
    return this.problem?.code ?? this.problem?.error;
  }

  /** The fields a 400 names (`errors` of a problem body); empty otherwise. */
  get fields(): FieldError[] {
    return (this.problem?.errors ?? []) as FieldError[];
  }
}

export class BadRequestError extends ParleyError {
  override name = 'BadRequestError';
}
export class AuthenticationError extends ParleyError {
  override name = 'AuthenticationError';
}
export class PermissionDeniedError extends ParleyError {
  override name = 'PermissionDeniedError';
}
export class NotFoundError extends ParleyError {
  override name = 'NotFoundError';
}
export class ConflictError extends ParleyError {
  override name = 'ConflictError';
}
export class UnprocessableEntityError extends ParleyError {
  override name = 'UnprocessableEntityError';
}
export class InternalServerError extends ParleyError {
  override name = 'InternalServerError';
}

export class RateLimitError extends ParleyError {
  override name = 'RateLimitError';
  /** Seconds the service asked to wait (Retry-After), when it said. */
  readonly retryAfter: number | undefined;
  constructor(init: ParleyErrorInit) {
    super(init);
    const ms = retryAfterMs(this.headers);
    this.retryAfter = ms === undefined ? undefined : Math.ceil(ms / 1000);
  }
}

/** No answer: the connection failed, was cut, or the answer did not come in time (`timedOut`). */
export class ConnectionError extends ParleyError {
  override name = 'ConnectionError';
  readonly timedOut: boolean;
  constructor(message: string, options: { cause?: unknown; timedOut?: boolean } = {}) {
    super({ status: 0, message });
    this.timedOut = options.timedOut ?? false;
    if (options.cause !== undefined) (this as { cause?: unknown }).cause = options.cause;
  }
}

const BY_STATUS: Record<number, new (init: ParleyErrorInit) => ParleyError> = {
  400: BadRequestError,
  401: AuthenticationError,
  403: PermissionDeniedError,
  404: NotFoundError,
  409: ConflictError,
  422: UnprocessableEntityError,
  429: RateLimitError,
};

/** The error for an answer's status and parsed body. */
export function errorFor(status: number, body: unknown, headers: Headers): ParleyError {
  const problem = body !== null && typeof body === 'object' ? (body as ErrorBody) : undefined;
  const message = problem ? undefined : `${status}${typeof body === 'string' && body ? ` ${body.slice(0, 200)}` : ''}`;
  const Kind = BY_STATUS[status] ?? (status >= 500 ? InternalServerError : ParleyError);
  return new Kind({ status, problem, headers, message });
}

/** Retry-After in milliseconds from now (seconds, or an HTTP date), or undefined. */
export function retryAfterMs(headers: Headers, now = Date.now()): number | undefined {
  const value = headers.get('retry-after')?.trim();
  if (!value) return undefined;
  if (/^\d+(\.\d+)?$/.test(value)) return Number(value) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
