/** The providers' native answers: official Graph-style errors and gateway errors, and bearer tokens. */
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { GatewayError, OfficialError, Result } from '../../sandbox/errors.ts';
import { fbtraceId } from '../../sandbox/ids.ts';
import { isApiError } from '../errors.ts';

/** The bearer token of a request: `Authorization: Bearer|OAuth <token>`, or the Graph-style `access_token` query. */
export function bearerToken(request: FastifyRequest, allowQuery = false): string | undefined {
  const header = request.headers.authorization;
  const match = typeof header === 'string' ? /^(?:Bearer|OAuth)\s+(\S+)\s*$/i.exec(header) : null;
  if (match) return match[1];
  if (allowQuery) {
    const token = (request.query as Record<string, unknown> | undefined)?.access_token;
    if (typeof token === 'string' && token !== '') return token;
  }
  return undefined;
}

/** An official error in the provider's shape; `retryAfter`: the Retry-After header (null: none; by default 1 s on a 429). */
export function sendOfficialError(reply: FastifyReply, error: OfficialError, options: { retryAfter?: string | null } = {}) {
  const trace = fbtraceId();
  if (error.status === 401) {
    void reply.header('www-authenticate', `OAuth "Facebook Platform" "invalid_token" "${error.message.replace(/"/g, "'")}"`);
  }
  const retryAfter = options.retryAfter === undefined ? (error.status === 429 ? '1' : null) : options.retryAfter;
  if (retryAfter !== null) void reply.header('retry-after', retryAfter);
  return reply
    .code(error.status)
    .header('x-fb-trace-id', trace)
    .send({
      error: {
        message: error.message,
        type: error.type ?? 'OAuthException',
        code: error.code,
        ...(error.subcode !== undefined ? { error_subcode: error.subcode } : {}),
        ...(error.details !== undefined ? { error_data: { messaging_product: 'whatsapp', details: error.details } } : {}),
        ...(error.transient ? { is_transient: true } : {}),
        fbtrace_id: trace,
      },
    });
}

export function sendGatewayError(reply: FastifyReply, error: GatewayError) {
  if (error.status === 429) void reply.header('retry-after', '1');
  return reply.code(error.status).send({
    error: {
      code: error.code,
      message: error.message,
      retryable: error.retryable,
      ...(error.participants ? { participants: error.participants } : {}),
    },
  });
}

export function answerOfficial(reply: FastifyReply, result: Result<unknown, OfficialError>) {
  return result.ok ? reply.code(200).send(result.value) : sendOfficialError(reply, result.error);
}

export function answerGateway(reply: FastifyReply, result: Result<unknown, GatewayError>, status = 200) {
  return result.ok ? reply.code(status).send(result.value) : sendGatewayError(reply, result.error);
}

/** The code of the body parser's refusal of text the database cannot store (routes.ts); its message names only the field. */
export const UNSTORABLE_BODY = 'SANDBOX_UNSTORABLE_BODY';

/** Body-parser and framework faults, worded without echoing what was sent. */
function describeFault(error: FastifyError): { status: number; message: string } {
  const status = typeof error.statusCode === 'number' && error.statusCode >= 400 ? error.statusCode : 500;
  if (error.code === UNSTORABLE_BODY) return { status: 400, message: `The request body is invalid: ${error.message}.` };
  if (status === 413) return { status, message: 'The request body is too large.' };
  if (status === 415) return { status, message: 'Unsupported content type: send application/json.' };
  if (status === 429) return { status, message: 'Too many requests.' };
  if (status >= 500) return { status, message: 'internal error' };
  return { status, message: 'The request body is not valid JSON.' };
}

/** Makes a scope answer faults in the official provider's error shape. */
export function officialFaults(scope: FastifyInstance) {
  scope.setErrorHandler((error: FastifyError, request, reply) => {
    const fault = describeFault(error);
    if (fault.status >= 500) {
      request.log.error({ err: error }, 'sandbox official route failed');
      return sendOfficialError(reply, {
        status: 500,
        code: 2,
        message: 'An unexpected error has occurred. Please retry your request later.',
        transient: true,
      });
    }
    if (fault.status === 429)
      return sendOfficialError(reply, { status: 429, code: 4, message: '(#4) Application request limit reached', transient: true });
    return sendOfficialError(reply, { status: fault.status, code: 100, message: `(#100) ${fault.message}`, details: fault.message });
  });
}

/** Makes a scope answer faults in the gateway's error shape. */
export function gatewayFaults(scope: FastifyInstance) {
  scope.setErrorHandler((error: FastifyError, request, reply) => {
    // Parley's own refusals (a credential on /sandbox/inbound, a rate limit) are Parley's problem bodies, not the gateway's.
    if (isApiError(error)) throw error;
    const fault = describeFault(error);
    if (fault.status >= 500) {
      request.log.error({ err: error }, 'sandbox gateway route failed');
      return sendGatewayError(reply, { status: 500, code: 'internal', message: 'the gateway failed; try again', retryable: true });
    }
    if (fault.status === 429)
      return sendGatewayError(reply, { status: 429, code: 'rate_limited', message: fault.message, retryable: true });
    return sendGatewayError(reply, { status: fault.status, code: 'invalid_request', message: fault.message, retryable: false });
  });
}
