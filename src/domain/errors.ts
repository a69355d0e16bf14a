/**
 * The closed set of domain error codes. Expected failures travel as DomainError (or typed results)
 * and are mapped to HTTP status and body shape in one place: http/errors.ts.
 */
export const ERROR_CODES = [
  'invalid',
  'unauthenticated',
  'invalid_credentials',
  'forbidden',
  'not_found',
  'conflict',
  'gone',
  'method_not_allowed',
  'payload_too_large',
  'uri_too_long',
  'unsupported_media_type',
  'rate_limited',
  'unsupported',
  'window_closed',
  'send_refused',
  'template_mismatch',
  'range_not_satisfiable',
  'unavailable',
  'internal',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

/**
 * A bad field, by its JSON pointer into the input the function was given. `location` (where in the
 * request that input was) is added by the HTTP layer (http/input-location.ts); the domain never sets it.
 */
export type FieldError = { pointer: string; message: string; location?: 'body' | 'query' | 'params' | 'headers' };

export class DomainError extends Error {
  readonly code: ErrorCode;
  readonly fieldErrors: FieldError[] | undefined;
  readonly extra: Record<string, unknown> | undefined;
  constructor(code: ErrorCode, message: string, options?: { fieldErrors?: FieldError[]; extra?: Record<string, unknown> }) {
    super(message);
    this.code = code;
    this.fieldErrors = options?.fieldErrors;
    this.extra = options?.extra;
  }
}

export const notFound = (what: string) => new DomainError('not_found', `${what} not found`);
export const invalid = (message: string, fieldErrors?: FieldError[]) => new DomainError('invalid', message, { fieldErrors });
export const conflict = (message: string) => new DomainError('conflict', message);
export const forbidden = (message: string) => new DomainError('forbidden', message);
