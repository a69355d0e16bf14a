/**
 * The closed set of domain error codes: the domain's refusals. Expected failures travel as DomainError
 * (or typed results) and are mapped to HTTP status and body shape in one place: http/errors.ts, which
 * also holds the codes only HTTP answers with (method, URI, body size and media type, byte ranges,
 * rate limits, the fault answer).
 */
export const ERROR_CODES = [
  'invalid',
  'unauthenticated',
  'invalid_credentials',
  'forbidden',
  'not_found',
  'conflict',
  'gone',
  'unsupported',
  'window_closed',
  'send_refused',
  'template_mismatch',
  'unavailable',
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
