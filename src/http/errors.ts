/**
 * Error codes -> HTTP status and body shape, in one place: the domain's refusals (DomainError) and the
 * ones only HTTP makes (HttpError: the request's method, URI, header or body size or media type, its
 * arrival in time, a byte range, a rate limit, and the answer to an unexpected fault). Three shapes, as the spec says: problem bodies
 * (RFC 9457) in general, `{error, code}` on the contacts routes, and `{error, error_description}` on
 * the OAuth token endpoints.
 */
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { DomainError, type ErrorCode, type FieldError } from '../domain/errors.ts';
import { isDatabaseUnavailable } from '../db/errors.ts';

export type ErrorShape = 'problem' | 'code' | 'oauth';

/** The codes only the HTTP layer answers with; the domain never refuses with one of them. */
export const HTTP_ERROR_CODES = [
  'method_not_allowed',
  'payload_too_large',
  'uri_too_long',
  'unsupported_media_type',
  'range_not_satisfiable',
  'rate_limited',
  'request_timeout',
  'header_fields_too_large',
  'internal',
] as const;

export type HttpErrorCode = (typeof HTTP_ERROR_CODES)[number];

/** A refusal (or the fault answer) that only HTTP makes: written like a DomainError, from the same table. */
export class HttpError extends Error {
  readonly code: HttpErrorCode;
  readonly extra: Record<string, unknown> | undefined;
  constructor(code: HttpErrorCode, message: string, options?: { extra?: Record<string, unknown> }) {
    super(message);
    this.code = code;
    this.extra = options?.extra;
  }
}

/** What an error answer is made from: a domain refusal or an HTTP one. */
export type ApiError = DomainError | HttpError;

export function isApiError(error: unknown): error is ApiError {
  return error instanceof DomainError || error instanceof HttpError;
}

const STATUS: Record<ErrorCode | HttpErrorCode, { status: number; title: string }> = {
  invalid: { status: 400, title: 'Bad Request' },
  unauthenticated: { status: 401, title: 'Unauthorized' },
  invalid_credentials: { status: 401, title: 'Unauthorized' },
  forbidden: { status: 403, title: 'Forbidden' },
  not_found: { status: 404, title: 'Not Found' },
  method_not_allowed: { status: 405, title: 'Method Not Allowed' },
  request_timeout: { status: 408, title: 'Request Timeout' },
  conflict: { status: 409, title: 'Conflict' },
  gone: { status: 410, title: 'Gone' },
  payload_too_large: { status: 413, title: 'Payload Too Large' },
  uri_too_long: { status: 414, title: 'URI Too Long' },
  unsupported_media_type: { status: 415, title: 'Unsupported Media Type' },
  range_not_satisfiable: { status: 416, title: 'Range Not Satisfiable' },
  unsupported: { status: 422, title: 'Unprocessable Content' },
  window_closed: { status: 422, title: 'Unprocessable Content' },
  send_refused: { status: 422, title: 'Unprocessable Content' },
  template_mismatch: { status: 422, title: 'Unprocessable Content' },
  rate_limited: { status: 429, title: 'Too Many Requests' },
  header_fields_too_large: { status: 431, title: 'Request Header Fields Too Large' },
  internal: { status: 500, title: 'Internal Server Error' },
  unavailable: { status: 503, title: 'Service Unavailable' },
};

/** What a 503 tells the client to wait: about the time an outage is noticed to be over (the probes back off to 2 s). */
const UNAVAILABLE_RETRY_AFTER_SECONDS = 5;

const FieldErrorSchema = z.object({
  pointer: z.string().meta({ description: 'JSON pointer to the offending field, relative to its location', example: '/email' }),
  location: z.enum(['body', 'query', 'params', 'headers']).optional(),
  message: z.string(),
});

export const ProblemSchema = z
  .object({
    type: z.string().meta({ example: 'about:blank' }),
    title: z.string().meta({ description: 'The HTTP status text' }),
    status: z.number().int().meta({ description: 'The HTTP status code' }),
    detail: z.string(),
    code: z.string().meta({ description: 'Stable machine-readable error code' }),
    request_id: z.string(),
    errors: z.array(FieldErrorSchema).optional().meta({ description: 'Field errors, on 400 validation failures' }),
    permission: z.string().optional().meta({ description: 'The permission the credential lacks, on 403' }),
    permissions: z.array(z.string()).optional().meta({ description: 'Permissions the caller cannot grant, on 403' }),
    reason: z.string().optional().meta({ description: 'Why a send was refused (send_refused)' }),
    media_status: z
      .enum(['pending', 'failed'])
      .optional()
      .meta({ description: "On 409 from a message's media: where its download stands" }),
    media_error: z
      .object({ code: z.string().nullable(), title: z.string().nullable() })
      .optional()
      .meta({ description: "On 409 from a message's media that failed: why" }),
    last_inbound_at: z.string().nullable().optional().meta({ description: 'Last message from the contact, on window_closed' }),
    channel_status: z.string().optional(),
    operation: z.string().optional(),
    platform: z.string().optional(),
    message_type: z.string().optional(),
    provider_error: z
      .object({ code: z.union([z.string(), z.number()]), title: z.string() })
      .loose()
      .optional(),
  })
  // RFC 9457 lets problems carry extension members; the ones above are those the API sends today.
  .loose()
  .meta({ id: 'Problem', description: 'RFC 9457 problem details (content type application/problem+json), with extension members' });

export const CodeErrorSchema = z
  .object({
    error: z.string().meta({ example: 'contact not found' }),
    code: z.string().meta({ example: 'not_found' }),
    errors: z.array(FieldErrorSchema).optional(),
  })
  .meta({ id: 'CodeError', description: 'Error body of the contacts routes' });

export const OAuthErrorSchema = z
  .object({ error: z.string().meta({ example: 'invalid_grant' }), error_description: z.string().optional() })
  .meta({ id: 'OAuthError', description: 'RFC 6749 error body of the OAuth endpoints' });

/** The OpenAPI responses for the given error statuses, in the route's body shape. */
export function errorResponses(statuses: number[], shape: ErrorShape = 'problem') {
  const schema = shape === 'problem' ? ProblemSchema : shape === 'code' ? CodeErrorSchema : OAuthErrorSchema;
  return Object.fromEntries(statuses.map((s) => [s, schema.describe(describeStatus(s))]));
}

function describeStatus(status: number): string {
  const entry = Object.values(STATUS).find((s) => s.status === status);
  return entry?.title ?? 'Error';
}

// The parser's own message quotes the body, which may hold a secret: it is not echoed.
const MALFORMED_JSON = 'malformed JSON: the request body is not valid JSON';

/** Turns anything thrown while serving a request into a DomainError or HttpError, or undefined for a fault. */
export function toApiError(error: unknown): ApiError | undefined {
  if (isApiError(error)) return error;
  // An outage, not a fault of the request: the client may try again (nothing was done).
  if (isDatabaseUnavailable(error))
    return new DomainError('unavailable', 'the database is unavailable; try again after the time in Retry-After');
  const err = error as FastifyError & { validationContext?: string };
  // The route schemas' errors, and the input check's that runs before them (app.ts).
  if (hasZodFastifySchemaValidationErrors(err) || (err?.code === 'FST_ERR_VALIDATION' && err.validation?.length)) {
    const context = err.validationContext ?? 'body';
    const location = (context === 'querystring' ? 'query' : context) as FieldError['location'];
    const fieldErrors: FieldError[] = err.validation!.map((v) => ({
      pointer: v.instancePath || '/',
      location,
      message: v.message ?? 'invalid value',
    }));
    const summary = fieldErrors.map((f) => `${f.pointer === '/' ? location : f.pointer.slice(1)}: ${f.message}`).join('; ');
    return new DomainError('invalid', `request ${location} is invalid: ${summary}`, { fieldErrors });
  }
  switch (err?.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new DomainError(
        'invalid',
        err.code === 'FST_ERR_CTP_EMPTY_JSON_BODY' ? 'request body is empty but Content-Type is application/json' : MALFORMED_JSON,
      );
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new HttpError('payload_too_large', 'request body is larger than the limit');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new HttpError('unsupported_media_type', 'unsupported Content-Type: send application/json');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new DomainError('invalid', 'Content-Length does not match the body');
    default:
      break;
  }
  if (err instanceof SyntaxError || (err?.statusCode === 400 && err.name === 'SyntaxError')) {
    return new DomainError('invalid', MALFORMED_JSON);
  }
  if (err?.statusCode === 429) return new HttpError('rate_limited', 'too many requests: slow down and retry after the time in Retry-After');
  if (typeof err?.statusCode === 'number' && err.statusCode >= 400 && err.statusCode < 500) {
    const code = (Object.entries(STATUS).find(([, v]) => v.status === err.statusCode)?.[0] ?? 'invalid') as ErrorCode | HttpErrorCode;
    return isHttpCode(code) ? new HttpError(code, err.message) : new DomainError(code, err.message);
  }
  return undefined;
}

function isHttpCode(code: string): code is HttpErrorCode {
  return (HTTP_ERROR_CODES as readonly string[]).includes(code);
}

/** The body of an error in the given shape, with its media type: what sendError writes (and the OpenAPI examples show). */
export function presentError(error: ApiError, shape: ErrorShape, requestId: string): { media: string; body: Record<string, unknown> } {
  const { status, title } = STATUS[error.code];
  const fieldErrors = error instanceof DomainError ? error.fieldErrors : undefined;
  if (shape === 'oauth') return { media: 'application/json', body: { error: oauthCode(error), error_description: error.message } };
  if (shape === 'code') {
    return { media: 'application/json', body: { error: error.message, code: error.code, ...(fieldErrors ? { errors: fieldErrors } : {}) } };
  }
  return {
    media: 'application/problem+json',
    body: {
      type: 'about:blank',
      title,
      status,
      detail: error.message,
      code: error.code,
      request_id: requestId,
      ...(fieldErrors ? { errors: fieldErrors } : {}),
      ...(error.extra && error.code !== 'method_not_allowed' ? error.extra : {}),
    },
  };
}

/** Writes the error in the route's shape. */
export function sendError(reply: FastifyReply, request: FastifyRequest, error: ApiError, shape: ErrorShape): FastifyReply {
  const { status } = STATUS[error.code];
  if (error.code === 'method_not_allowed' && Array.isArray(error.extra?.allow)) {
    void reply.header('Allow', (error.extra.allow as string[]).join(', '));
  }
  void reply.code(status);
  if (error.code === 'unavailable' && !reply.hasHeader('retry-after'))
    void reply.header('Retry-After', String(UNAVAILABLE_RETRY_AFTER_SECONDS));
  // Bodies go out pre-serialized: an error answer must never fail the route's response schema.
  const { media, body } = presentError(error, shape, request.id);
  return reply.type(media).send(JSON.stringify(body));
}

function oauthCode(error: ApiError): string {
  const explicit = error.extra?.oauth_error;
  if (typeof explicit === 'string') return explicit;
  switch (error.code) {
    case 'invalid':
    case 'payload_too_large':
    case 'uri_too_long':
    case 'unsupported_media_type':
    case 'method_not_allowed':
    case 'request_timeout':
    case 'header_fields_too_large':
      return 'invalid_request';
    case 'unauthenticated':
    case 'invalid_credentials':
      return 'invalid_client';
    case 'forbidden':
      return 'access_denied';
    case 'rate_limited':
      return 'slow_down';
    case 'unavailable':
      return 'temporarily_unavailable';
    default:
      return 'server_error';
  }
}

export function internalError(request: FastifyRequest): HttpError {
  return new HttpError('internal', `unexpected error; quote request id ${request.id} when reporting it`);
}
